// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rwgen: ratewall's traffic generator. Builds one UDP frame, then has the
 * kernel replay it through BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES, a BPF
 * program rewriting the source address of every copy, redirected out of
 * --dev; or, where the kernel refuses live frames, sends the same copies
 * through a packet socket (packet.c). One thread per CPU, each pinned.
 * Bounded in packets and in time.
 * Refuses any target but a veth in a namespace without a default route, and
 * any source outside 198.18.0.0/15 and 2001:db8::/32 (safety.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdarg.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "layout.h"
#include "model/clock.h"
#include "model/units.h"
#include "opts.h"
#include "packet.h"
#include "program.h"
#include "safety.h"
#include "schedule.h"

/* Cycles (call to call) a paced thread remembers to know its usual one (--catch-up). */
#define CYCLES 8

struct gen_thread {
	pthread_t tid;
	int cpu;
	int prog_fd;
	const void *frame;
	uint32_t frame_len;
	uint64_t quota;   /* packets this thread sends; UINT64_MAX = until the deadline */
	uint64_t rate;    /* this thread's share, 0 = unpaced */
	uint64_t batch;
	uint64_t catch_up; /* --catch-up in packets of its pace, this one included; 0 = all it owes */
	uint64_t catch_up_ns;
	uint64_t skipped;  /* packets of its pace given up to --catch-up */
	uint64_t cycle_ns[CYCLES]; /* --catch-up: its last cycles, from one call to the next */
	uint64_t cycles;
	int seq_fd;        /* the program's per-CPU position: what it sent, read after EINTR */
	uint64_t *pos;     /* one value a possible CPU, for that read */
	uint64_t start_ns, deadline_ns;
	uint64_t start_pos;
	uint64_t sent;
	uint64_t behind_ns; /* the most this thread was ever behind its pace */
	uint64_t last_late_ns; /* how late its last call began for the last packet it sent */
	enum gen_via via;  /* GEN_VIA_AUTO until its first call says which */
	int ifindex;
	const struct rwgen_sequence *sequence; /* for the packet socket */
	struct rwgen_packet pkt;
	int err;
};

/*
 * SIGINT or SIGTERM: every thread stops at its next call and the report is
 * printed as at the end of --duration, so a test can end a flood when its
 * measurement is done, however long the steps before it took.
 */
static volatile sig_atomic_t stop_asked;

static void ask_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void usage(void)
{
	printf("usage: rwgen --dev IFACE [options]   (inside a test network namespace)\n"
	       "  --dev IFACE          veth to send out of (its peer must run XDP)\n"
	       "  --dst-mac MAC        destination MAC (default ff:ff:ff:ff:ff:ff)\n"
	       "  --sources N          distinct values of the --vary field (default 1)\n"
	       "  --vary FIELD         src | dst | sport | dport: the field that takes N values,\n"
	       "                       counting up from the one given (default src)\n"
	       "  --src ADDR           source (default 198.18.0.1, or 2001:db8::1 with --ipv6)\n"
	       "  --dst ADDR           destination (default 198.19.255.254, or 2001:db8:ffff::1)\n"
	       "  --sport N, --dport N UDP or TCP ports (default 1024 and 9)\n"
	       "  --proto P            udp (default) | tcp | icmp: TCP segments (header only,\n"
	       "                       flags from --tcp-flags), or ICMP / ICMPv6 echo requests\n"
	       "  --tcp-flags F        TCP flags as a list: syn (default), ack, rst, fin, psh, urg\n"
	       "  --random-sport       each packet a pseudo-random source port (1024-65535), as a\n"
	       "                       flood's: every SYN a new connection attempt\n"
	       "  --ipv6               IPv6/UDP frames instead of IPv4/UDP\n"
	       "  --ipv6-net           a varying IPv6 address counts in bits 32..63, one /64\n"
	       "                       each, instead of in its last 32 bits\n"
	       "Every address stays inside 198.18.0.0/15 or 2001:db8::/32.\n"
	       "  --dist D             uniform (round-robin) | shuffled (each source once per cycle,\n"
	       "                       random order) | random (a pseudo-random source of the\n"
	       "                       --sources range every packet: a spoofed flood) | zipf:S |\n"
	       "                       counts:FILE (one count per line, per source)\n"
	       "  --seed N             seed for shuffled and random (default 1)\n"
	       "  --size BYTES         frame size without FCS (default 64)\n"
	       "  --rate PPS           total paced rate (default: as fast as possible)\n"
	       "  --count N            total packets (default: counts file sum, else until --duration)\n"
	       "  --duration D         time bound (default 10s, at most 1h); SIGINT or SIGTERM\n"
	       "                       ends the run sooner, its report printed (\"stopped\": true)\n"
	       "  --cpus N             sending threads, pinned to CPUs 0..N-1 (default 1)\n"
	       "  --batch N            frames per BPF_PROG_RUN call\n"
	       "  --catch-up D         a thread that fell behind its --rate sends at most D of it\n"
	       "                       at once, beyond what falls due during one of its calls,\n"
	       "                       and gives up the rest (default: all it owes)\n"
	       "  --per-source         report packets sent per source\n"
	       "  --via WAY            live (BPF_PROG_RUN with live frames) | packet (a packet\n"
	       "                       socket, slower; for a kernel that refuses live frames)\n"
	       "                       (default: live, else packet; the report says which)\n"
	       "Prints one JSON object with what it sent: frames handed to the redirect (or\n"
	       "taken by the veth from the packet socket). For live frames the peer must run\n"
	       "an XDP program, or the veth refuses them without a counter.\n");
}

static void parse_mac(const char *s, unsigned char mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		rwgen_die("--dst-mac: '%s' is not a MAC address", s);
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			rwgen_die("--dst-mac: '%s' is not a MAC address", s);
		mac[i] = (unsigned char)b[i];
	}
}

static enum gen_vary parse_vary(const char *s)
{
	static const char *const names[] = { "src", "dst", "sport", "dport" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0)
			return (enum gen_vary)i;
	}
	rwgen_die("--vary: '%s' is not one of src, dst, sport, dport", s);
}

static uint8_t parse_proto(const char *s)
{
	if (strcmp(s, "udp") == 0)
		return IPPROTO_UDP;
	if (strcmp(s, "tcp") == 0)
		return IPPROTO_TCP;
	if (strcmp(s, "icmp") == 0)
		return IPPROTO_ICMP;
	rwgen_die("--proto: '%s' is not one of udp, tcp, icmp", s);
}

/* "syn", "syn,ack", "rst": TCP header byte 13. */
static uint8_t parse_tcp_flags(const char *s)
{
	static const char *const names[] = { "fin", "syn", "rst", "psh", "ack", "urg" };
	char buf[64], *save = NULL;
	uint8_t flags = 0;

	if (strlen(s) >= sizeof(buf))
		rwgen_die("--tcp-flags: '%s' is too long", s);
	strcpy(buf, s);
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]) && strcmp(p, names[k]); k++)
			;
		if (k == sizeof(names) / sizeof(names[0]))
			rwgen_die("--tcp-flags: '%s' is not one of fin, syn, rst, psh, ack, urg", p);
		flags |= (uint8_t)(1u << k);
	}
	if (!flags)
		rwgen_die("--tcp-flags: give at least one flag");
	return flags;
}

static void parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "sources", required_argument, NULL, 'n' },
		{ "src", required_argument, NULL, 's' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "ipv6-net", no_argument, NULL, 'N' },
		{ "dst", required_argument, NULL, 'T' },
		{ "sport", required_argument, NULL, 'P' },
		{ "dport", required_argument, NULL, 'Q' },
		{ "vary", required_argument, NULL, 'V' },
		{ "dist", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "batch", required_argument, NULL, 'b' },
		{ "catch-up", required_argument, NULL, 'u' },
		{ "per-source", no_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'e' },
		{ "proto", required_argument, NULL, 'o' },
		{ "tcp-flags", required_argument, NULL, 'F' },
		{ "random-sport", no_argument, NULL, 'R' },
		{ "via", required_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct gen_opts){ .sources = 1, .dist = "uniform", .size = 64, .cpus = 1, .seed = 1,
				.duration_ns = 10000000000ULL, .sport = 1024, .dport = 9,
				.proto = IPPROTO_UDP, .tcp_flags = 0x02 };
	bool flags_given = false;
	memset(o->dst_mac, 0xff, 6);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'm': parse_mac(optarg, o->dst_mac); break;
		case 'n': o->sources = (uint32_t)rwgen_parse_u64_or_die("--sources", optarg, 1, MAX_RANDOM_SOURCES); break;
		case 'e': o->seed = rwgen_parse_u64_or_die("--seed", optarg, 0, UINT64_MAX / 2); break;
		case 's': o->src = optarg; break;
		case '6': o->ipv6 = true; break;
		case 'N': o->ipv6_net = true; break;
		case 'T': o->dst = optarg; break;
		case 'P': o->sport = (uint16_t)rwgen_parse_u64_or_die("--sport", optarg, 1, 65535); break;
		case 'Q': o->dport = (uint16_t)rwgen_parse_u64_or_die("--dport", optarg, 1, 65535); break;
		case 'V': o->vary = parse_vary(optarg); break;
		case 'D': o->dist = optarg; break;
		case 'S': o->size = (uint32_t)rwgen_parse_u64_or_die("--size", optarg, 60, 3000); break;
		case 'r':
			if (rw_parse_rate(optarg, &o->rate))
				rwgen_die("--rate: '%s' is not a rate", optarg);
			break;
		case 'c': o->count = rwgen_parse_u64_or_die("--count", optarg, 1, UINT64_MAX / 2); break;
		case 't':
			if (rw_parse_duration(optarg, &o->duration_ns) || o->duration_ns > MAX_DURATION_NS)
				rwgen_die("--duration: '%s' must be a duration of at most 1h", optarg);
			break;
		case 'C': o->cpus = (uint32_t)rwgen_parse_u64_or_die("--cpus", optarg, 1, MAX_THREADS); break;
		case 'b': o->batch = rwgen_parse_u64_or_die("--batch", optarg, 1, 1u << 30); break;
		case 'u':
			if (rw_parse_duration(optarg, &o->catch_up_ns) || !o->catch_up_ns ||
			    o->catch_up_ns > MAX_DURATION_NS)
				rwgen_die("--catch-up: '%s' must be a duration above 0 of at most 1h", optarg);
			break;
		case 'p': o->per_source = true; break;
		case 'o': o->proto = parse_proto(optarg); break;
		case 'F': o->tcp_flags = parse_tcp_flags(optarg); flags_given = true; break;
		case 'R': o->random_sport = true; break;
		case 'v':
			if (strcmp(optarg, "live") == 0)
				o->via = GEN_VIA_LIVE;
			else if (strcmp(optarg, "packet") == 0)
				o->via = GEN_VIA_PACKET;
			else
				rwgen_die("--via: '%s' is not one of live, packet", optarg);
			break;
		case 'h': usage(); exit(0);
		default: usage(); exit(2);
		}
	}
	if (!o->dev)
		rwgen_die("--dev IFACE is required");
	if (strcmp(o->dist, "random") != 0 && o->sources > MAX_SOURCES)
		rwgen_die("--sources: at most %u, except with --dist random", MAX_SOURCES);
	if (strcmp(o->dist, "random") == 0 && o->per_source)
		rwgen_die("--per-source: random sources are not counted one by one");
	if (optind < argc)
		rwgen_die("unexpected argument '%s'", argv[optind]);
	if (o->catch_up_ns && !o->rate)
		rwgen_die("--catch-up is for a paced thread: it needs --rate");
	if (o->random_sport && (o->proto == IPPROTO_ICMP || o->vary == GEN_VARY_SPORT))
		rwgen_die("--random-sport: %s", o->proto == IPPROTO_ICMP ? "ICMP has no ports"
								  : "the source port is what --vary varies");
	if (flags_given && o->proto != IPPROTO_TCP)
		rwgen_die("--tcp-flags is for TCP: it needs --proto tcp");
	if (o->proto == IPPROTO_ICMP && (o->vary == GEN_VARY_SPORT || o->vary == GEN_VARY_DPORT))
		rwgen_die("--vary %s: ICMP has no ports", o->vary == GEN_VARY_SPORT ? "sport" : "dport");
	if (o->ipv6_net && !o->ipv6)
		rwgen_die("--ipv6-net is for IPv6 addresses: it needs --ipv6");
}

/*
 * --catch-up: a thread whose cycle (from one call to the next) ran more than
 * D past its usual cycle sends what fell due in its usual cycle and D, and
 * gives up the rest. Every live-frames call costs tens of milliseconds (two
 * RCU grace periods, as the kernel patches the XDP dispatcher in and out:
 * cycles of 24-64 ms here), and what falls due during one is owed at the next
 * as a matter of course, not because the thread fell behind. Held to D alone,
 * a thread whose calls took longer than D gave up part of its pace at every
 * call though nothing held it still (1 650-1 760 pps of 2 000 with D = 20 ms
 * here; about 1 100-1 350 in issue 43's runs). Its usual cycle is the longest
 * of its last CYCLES, each counted at most as long as it was allowed: a stall
 * (a stopped thread stops as its call returns, so its call and the stall are
 * one cycle) does not make itself usual.
 */
static uint64_t usual_cycle_ns(const struct gen_thread *t)
{
	uint64_t most = 0, n = t->cycles < CYCLES ? t->cycles : CYCLES;

	for (uint64_t i = 0; i < n; i++)
		most = t->cycle_ns[i] > most ? t->cycle_ns[i] : most;
	return most;
}

/*
 * What the thread sent by its CPU's position in the sequence (the program
 * steps it a frame): a run a signal cut short between batches (EINTR, a
 * SIGSTOP among them) sent some of its frames and says nothing of them.
 */
static int sent_by_position(struct gen_thread *t)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(t->seq_fd, &zero, t->pos))
		return -errno;
	t->sent = t->pos[t->cpu] - t->start_pos;
	return 0;
}

/* The thread sends through a packet socket from here on: 0, or its error in t->err. */
static int start_packet(struct gen_thread *t)
{
	t->err = rwgen_packet_init(&t->pkt, t->frame, t->frame_len);
	if (!t->err)
		t->err = rwgen_packet_open(&t->pkt, t->ifindex);
	if (t->err) {
		rwgen_packet_close(&t->pkt);
		return t->err;
	}
	t->via = GEN_VIA_PACKET;
	return 0;
}

/* Up to n of its copies through its packet socket: 0, or its error in t->err. */
static int send_packets(struct gen_thread *t, uint64_t n)
{
	int took = rwgen_packet_send(&t->pkt, t->sequence, t->start_pos + t->sent, n);

	if (took < 0)
		return t->err = took;
	if (!took) {
		/* Its ring full, or a signal: the veth drains at the next softirq. */
		struct timespec ts = { 0, 20000 };

		nanosleep(&ts, NULL);
	}
	t->sent += (uint64_t)took;
	return 0;
}

static void *sender(void *arg)
{
	struct gen_thread *t = arg;
	uint64_t last = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		t->err = -errno;
		return NULL;
	}
	if (t->via == GEN_VIA_PACKET && start_packet(t))
		return NULL;
	while (t->sent < t->quota) {
		uint64_t now = rw_clock_ns(CLOCK_MONOTONIC), n = t->quota - t->sent;
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = t->frame, .data_size_in = t->frame_len,
			    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

		if (now >= t->deadline_ns || stop_asked)
			break;
		if (t->rate) {
			uint64_t due = (uint64_t)((double)(now - t->start_ns) * (double)t->rate / 1e9) -
				       t->skipped;

			if (due <= t->sent) {
				struct timespec ts = { 0, 200000 };

				nanosleep(&ts, NULL);
				continue;
			}
			/* One packet due is on time; each one more is 1/rate late. */
			double late_ns = (double)(due - t->sent - 1) * 1e9 / (double)t->rate;

			if (late_ns > (double)t->behind_ns)
				t->behind_ns = (uint64_t)late_ns;
			if (t->catch_up) {
				uint64_t usual = usual_cycle_ns(t), cycle = last ? now - last : 0;
				uint64_t most = t->catch_up + (uint64_t)((double)usual * (double)t->rate / 1e9);

				if (due - t->sent > most) {
					t->skipped += due - t->sent - most;
					due = t->sent + most;
					if (cycle > usual + t->catch_up_ns)
						cycle = usual + t->catch_up_ns;
				}
				if (last)
					t->cycle_ns[t->cycles++ % CYCLES] = cycle;
				last = now;
			}
			if (due - t->sent < n)
				n = due - t->sent;
		}
		if (n > t->batch)
			n = t->batch;
		if (t->via == GEN_VIA_PACKET && n > PACKET_BURST)
			n = PACKET_BURST; /* what one call sends: the due time below is its last's */
		/*
		 * A call that began late for its last packet makes the flood last
		 * that much longer than its schedule, if it is the last call: a
		 * limit rightly admits over that time too (tests' ceilings).
		 */
		if (t->rate) {
			uint64_t due_ns = t->start_ns + (uint64_t)((double)(t->sent + n - 1 + t->skipped) * 1e9 /
								    (double)t->rate);

			t->last_late_ns = now > due_ns ? now - due_ns : 0;
		}
		if (t->via == GEN_VIA_PACKET) {
			if (send_packets(t, n))
				return NULL;
			continue;
		}
		run.repeat = (__u32)n;
		if (bpf_prog_test_run_opts(t->prog_fd, &run)) {
			t->err = -errno;
			if (t->err == -EPERM && t->via == GEN_VIA_AUTO && !t->sent) {
				/* This kernel refuses live frames: nothing went, the socket sends it. */
				t->err = 0;
				if (start_packet(t))
					return NULL;
				continue;
			}
			if (t->err == -EINTR)
				t->err = sent_by_position(t);
			if (t->err)
				return NULL;
			continue;
		}
		t->via = GEN_VIA_LIVE;
		t->sent += n;
	}
	return NULL;
}

/* Index i's value of the varying field: an address or a port, as JSON. */
static void print_value(uint32_t i, const struct gen_opts *o, const struct gen_addrs *ad)
{
	unsigned char a[16];
	char buf[INET6_ADDRSTRLEN];
	uint32_t v = htonl(ad->base + i);

	if (o->vary == GEN_VARY_SPORT || o->vary == GEN_VARY_DPORT) {
		printf("\"%u\"", ad->base + i);
		return;
	}
	memcpy(a, o->vary == GEN_VARY_DST ? ad->dst : ad->src, 16);
	memcpy(a + rwgen_vary_word(o), &v, 4);
	inet_ntop(o->ipv6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	printf("\"%s\"", buf);
}

int main(int argc, char **argv)
{
	struct gen_opts o;
	struct rwgen_bpf *skel;
	struct rwgen_layout lay;
	struct gen_thread *th;
	struct gen_addrs addrs;
	unsigned char *frame;
	uint64_t total = 0, sched_len = 0, sent = 0, *counts, *seeds, start, elapsed, behind_ns = 0;
	uint64_t last_late_ns = 0;
	uint32_t *sched = NULL, ifindex, ncpus;
	bool via_packet = false;

	parse_args(argc, argv, &o);
	ifindex = if_nametoindex(o.dev);
	if (!ifindex)
		rwgen_die("no interface named '%s' in this namespace", o.dev);
	rwgen_refuse_unsafe_target(o.dev);
	rwgen_resolve_addrs(&o, &addrs);
	counts = rwgen_source_weights(&o, &total);
	if (counts) {
		sched = rwgen_build_schedule(counts, o.sources, total, o.seed);
		sched_len = total;
		if (strncmp(o.dist, "counts:", 7) == 0 && !o.count)
			o.count = total;
	}
	frame = rwgen_build_frame(&o, &addrs, &lay);
	if (o.cpus > (uint32_t)libbpf_num_possible_cpus())
		rwgen_die("--cpus %u: this machine has %d", o.cpus, libbpf_num_possible_cpus());
	/*
	 * One live-frames call has a fixed cost of tens of milliseconds (page pool
	 * setup and teardown), so paced sending sends what is due in one call and
	 * the rate holds on average over that period.
	 */
	if (!o.batch)
		o.batch = 1u << 20;

	const struct rwgen_sequence sequence = rwgen_sequence_of(&o, &lay, sched, sched_len);

	if (rwgen_program_load(&sequence, ifindex, &skel))
		return 1;
	/* Each thread covers its own stretch of the sequence, so totals stay exact. */
	ncpus = (uint32_t)libbpf_num_possible_cpus();
	th = calloc(o.cpus, sizeof(*th));
	seeds = calloc(ncpus, sizeof(*seeds));
	if (!th || !seeds)
		rwgen_die("out of memory");
	start = rw_clock_ns(CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < o.cpus; i++) {
		uint64_t quota = UINT64_MAX, span = sched_len ? sched_len : o.sources;
		uint64_t rate = o.rate ? (o.rate / o.cpus + (i < o.rate % o.cpus)) : 0;

		if (o.count)
			quota = o.count / o.cpus + (i < o.count % o.cpus);
		th[i] = (struct gen_thread){
			.cpu = (int)i, .prog_fd = bpf_program__fd(skel->progs.rwgen_xdp),
			.frame = frame, .frame_len = o.size, .quota = quota,
			.rate = rate, .batch = o.batch,
			.catch_up = o.catch_up_ns ? (uint64_t)((double)o.catch_up_ns * (double)rate / 1e9) + 1 : 0,
			.catch_up_ns = o.catch_up_ns,
			.start_ns = start, .deadline_ns = start + o.duration_ns,
			.start_pos = o.count ? (o.count / o.cpus) * i + (i < o.count % o.cpus ? i : o.count % o.cpus)
					     : span / o.cpus * i,
			.seq_fd = bpf_map__fd(skel->maps.seq),
			.pos = calloc(ncpus, sizeof(uint64_t)),
			.via = o.via, .ifindex = (int)ifindex, .sequence = &sequence,
		};
		if (!th[i].pos)
			rwgen_die("out of memory");
		seeds[i] = th[i].start_pos;
	}
	{
		__u32 zero = 0;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.seq), &zero, seeds, 0))
			rwgen_die("cannot seed the sequence: %s", strerror(errno));
	}
	{
		/* No SA_RESTART: a thread's call the signal lands in returns (EINTR) and stops. */
		struct sigaction sa = { .sa_handler = ask_stop };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	for (uint32_t i = 0; i < o.cpus; i++)
		if (pthread_create(&th[i].tid, NULL, sender, &th[i]))
			rwgen_die("cannot start a sending thread");
	for (uint32_t i = 0; i < o.cpus; i++)
		pthread_join(th[i].tid, NULL);
	elapsed = rw_clock_ns(CLOCK_MONOTONIC) - start;

	for (uint32_t i = 0; i < o.cpus; i++) {
		behind_ns = th[i].behind_ns > behind_ns ? th[i].behind_ns : behind_ns;
		last_late_ns = th[i].last_late_ns > last_late_ns ? th[i].last_late_ns : last_late_ns;
		via_packet |= th[i].via == GEN_VIA_PACKET;
		if (th[i].via == GEN_VIA_PACKET)
			rwgen_packet_close(&th[i].pkt);
		if (th[i].err == -EPERM && th[i].via != GEN_VIA_PACKET) {
			/* Seen on a host whose kernel refuses every live-frames run, even of XDP_DROP. */
			fprintf(stderr, "rwgen: this kernel refuses to send live frames (BPF_PROG_RUN with "
					"BPF_F_TEST_XDP_LIVE_FRAMES: %s); --via packet sends through a "
					"packet socket\n",
				strerror(-th[i].err));
			return 1;
		}
		if (th[i].err) {
			fprintf(stderr, "rwgen: sending on CPU %d failed: %s\n", th[i].cpu,
				strerror(-th[i].err));
			return 1;
		}
		sent += th[i].sent;
	}
	printf("{\"sent\": %llu, \"seconds\": %.6f, \"pps\": %.1f, \"behind_ms\": %.1f, \"last_late_ms\": %.1f, \"stopped\": %s, "
	       "\"via\": \"%s\", \"family\": %d, \"proto\": %u, \"size\": %u, \"sources\": %u, \"vary\": \"%s\", "
	       "\"per_cpu\": [",
	       (unsigned long long)sent, elapsed / 1e9, sent * 1e9 / (double)elapsed, behind_ns / 1e6,
	       last_late_ns / 1e6,
	       stop_asked ? "true" : "false", via_packet ? "packet" : "live",
	       o.ipv6 ? 6 : 4, o.ipv6 && o.proto == IPPROTO_ICMP ? 58 : o.proto, o.size, o.sources,
	       (const char *[]){ "src", "dst", "sport", "dport" }[o.vary]);
	for (uint32_t i = 0; i < o.cpus; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)th[i].sent);
	printf("]");
	if (o.per_source) {
		uint64_t *per = calloc(o.sources, sizeof(*per));

		if (!per)
			rwgen_die("out of memory");
		for (uint32_t i = 0; i < o.cpus; i++)
			rwgen_count_range(per, o.sources, sched, sched_len, counts, th[i].start_pos,
				    th[i].sent);
		printf(", \"per_source\": {");
		for (uint32_t i = 0; i < o.sources; i++) {
			printf("%s", i ? ", " : "");
			print_value(i, &o, &addrs);
			printf(": %llu", (unsigned long long)per[i]);
		}
		printf("}");
		free(per);
	}
	printf("}\n");
	rwgen_bpf__destroy(skel);
	return 0;
}
