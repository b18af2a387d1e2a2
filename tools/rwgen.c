// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rwgen: ratewall's traffic generator. Builds one UDP frame, then has the
 * kernel replay it through BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES, a BPF
 * program rewriting the source address of every copy, redirected out of
 * --dev. One thread per CPU, each pinned. Bounded in packets and in time.
 * Refuses to run in the root network namespace and to use sources outside
 * 198.18.0.0/15 and 2001:db8::/32.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdarg.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <math.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rwgen.h"
#include "rwgen.skel.h"
#include "units.h"

#define MAX_THREADS 256
#define MAX_SOURCES (1u << 24)
#define MAX_SCHEDULE (1u << 24)
#define MAX_DURATION_NS (3600ULL * 1000000000ULL)

struct gen_opts {
	const char *dev;
	unsigned char dst_mac[6];
	bool ipv6;
	uint32_t sources;
	const char *src;
	const char *dist;   /* uniform, zipf:S, counts:FILE */
	uint32_t size;
	uint64_t rate;      /* packets per second, 0 = as fast as possible */
	uint64_t count;     /* 0 = until the duration ends */
	uint64_t duration_ns;
	uint32_t cpus;
	uint64_t batch;
	bool per_source;
};

struct gen_thread {
	pthread_t tid;
	int cpu;
	int prog_fd;
	const void *frame;
	uint32_t frame_len;
	uint64_t quota;   /* packets this thread sends; UINT64_MAX = until the deadline */
	uint64_t rate;    /* this thread's share, 0 = unpaced */
	uint64_t batch;
	uint64_t start_ns, deadline_ns;
	uint64_t start_pos;
	uint64_t sent;
	int err;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("rwgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void usage(void)
{
	printf("usage: rwgen --dev IFACE [options]   (inside a test network namespace)\n"
	       "  --dev IFACE          veth to send out of (its peer must run XDP)\n"
	       "  --dst-mac MAC        destination MAC (default ff:ff:ff:ff:ff:ff)\n"
	       "  --sources N          distinct source addresses (default 1)\n"
	       "  --src ADDR           first source (default 198.18.0.1, or 2001:db8::1 with --ipv6)\n"
	       "  --ipv6               IPv6/UDP frames instead of IPv4/UDP\n"
	       "  --dist D             uniform | zipf:S | counts:FILE (one count per line, per source)\n"
	       "  --size BYTES         frame size without FCS (default 64)\n"
	       "  --rate PPS           total paced rate (default: as fast as possible)\n"
	       "  --count N            total packets (default: counts file sum, else until --duration)\n"
	       "  --duration D         time bound (default 10s, at most 1h)\n"
	       "  --cpus N             sending threads, pinned to CPUs 0..N-1 (default 1)\n"
	       "  --batch N            frames per BPF_PROG_RUN call\n"
	       "  --per-source         report packets sent per source\n"
	       "Prints one JSON object with what it sent: frames handed to the redirect. The\n"
	       "peer must run an XDP program, or the veth refuses them without a counter.\n");
}

static void parse_mac(const char *s, unsigned char mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		die("--dst-mac: '%s' is not a MAC address", s);
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			die("--dst-mac: '%s' is not a MAC address", s);
		mac[i] = (unsigned char)b[i];
	}
}

static uint64_t parse_u64_or_die(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (rw_parse_uint(s, min, max, &v))
		die("%s: '%s' must be a whole number from %llu to %llu", opt, s,
		    (unsigned long long)min, (unsigned long long)max);
	return v;
}

static void parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "sources", required_argument, NULL, 'n' },
		{ "src", required_argument, NULL, 's' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "dist", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "batch", required_argument, NULL, 'b' },
		{ "per-source", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct gen_opts){ .sources = 1, .dist = "uniform", .size = 64, .cpus = 1,
				.duration_ns = 10000000000ULL };
	memset(o->dst_mac, 0xff, 6);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'm': parse_mac(optarg, o->dst_mac); break;
		case 'n': o->sources = (uint32_t)parse_u64_or_die("--sources", optarg, 1, MAX_SOURCES); break;
		case 's': o->src = optarg; break;
		case '6': o->ipv6 = true; break;
		case 'D': o->dist = optarg; break;
		case 'S': o->size = (uint32_t)parse_u64_or_die("--size", optarg, 60, 3000); break;
		case 'r':
			if (rw_parse_rate(optarg, &o->rate))
				die("--rate: '%s' is not a rate", optarg);
			break;
		case 'c': o->count = parse_u64_or_die("--count", optarg, 1, UINT64_MAX / 2); break;
		case 't':
			if (rw_parse_duration(optarg, &o->duration_ns) || o->duration_ns > MAX_DURATION_NS)
				die("--duration: '%s' must be a duration of at most 1h", optarg);
			break;
		case 'C': o->cpus = (uint32_t)parse_u64_or_die("--cpus", optarg, 1, MAX_THREADS); break;
		case 'b': o->batch = parse_u64_or_die("--batch", optarg, 1, 1u << 30); break;
		case 'p': o->per_source = true; break;
		case 'h': usage(); exit(0);
		default: usage(); exit(2);
		}
	}
	if (!o->dev)
		die("--dev IFACE is required");
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
}

/*
 * Traffic may only leave from a namespace a test made: a veth, in a namespace
 * without a default route (the host's namespace always has one).
 */
static bool has_default_route(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/route", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		char ifname[64];
		unsigned int dst, mask;

		if (sscanf(line, "%63s %x %*x %*x %*d %*d %*d %x", ifname, &dst, &mask) == 3 &&
		    dst == 0 && mask == 0)
			found = true;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/net/ipv6_route", "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		/* Destination ::/0 is 32 zero digits then prefix length 00. */
		if (strncmp(line, "00000000000000000000000000000000 00 ", 36) == 0 &&
		    strstr(line, " lo\n") == NULL)
			found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static void refuse_unsafe_target(const char *dev)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (has_default_route())
		die("refusing to send: this network namespace has a default route; run inside a "
		    "test namespace (ip netns exec NS rwgen ...)");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&info;
	if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr) || strcmp(info.driver, "veth") != 0)
		die("refusing to send out of '%s': not a veth", dev);
	close(fd);
}

/* Source k is base + k in the last 32 bits; all must stay inside the test ranges. */
static void resolve_sources(const struct gen_opts *o, unsigned char addr[16], uint32_t *base)
{
	const char *src = o->src ? o->src : (o->ipv6 ? "2001:db8::1" : "198.18.0.1");
	uint64_t last;

	memset(addr, 0, 16);
	if (inet_pton(o->ipv6 ? AF_INET6 : AF_INET, src, addr) != 1)
		die("--src: '%s' is not an IPv%d address", src, o->ipv6 ? 6 : 4);
	memcpy(base, o->ipv6 ? addr + 12 : addr, 4);
	*base = ntohl(*base);
	last = (uint64_t)*base + o->sources - 1;
	if (o->ipv6) {
		if (!(addr[0] == 0x20 && addr[1] == 0x01 && addr[2] == 0x0d && addr[3] == 0xb8) ||
		    last > UINT32_MAX)
			die("--src: sources must stay inside 2001:db8::/32");
	} else if ((*base >> 17) != (0xc6120000u >> 17) || (last >> 17) != (0xc6120000u >> 17)) {
		die("--src: sources %s + %u must stay inside 198.18.0.0/15", src, o->sources);
	}
}

static uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

/* Builds the template frame (source index 0) and where the generator patches it. */
static unsigned char *build_frame(const struct gen_opts *o, const unsigned char addr[16],
				  uint32_t base, struct rwgen_layout *lay)
{
	static const unsigned char dst4[4] = { 198, 19, 255, 254 };
	static const unsigned char dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0,
						0, 0, 0, 0, 0, 0, 0, 1 };
	uint32_t l3 = o->ipv6 ? 40 : 20, hdrs = 14 + l3 + 8, udp_len, sum;
	unsigned char *f, *ip, *udp;

	if (o->size < hdrs)
		die("--size %u is smaller than the headers (%u bytes)", o->size, hdrs);
	f = calloc(1, o->size);
	if (!f)
		die("out of memory");
	memcpy(f, o->dst_mac, 6);
	memcpy(f + 6, (unsigned char[]){ 0x02, 0x52, 0x57, 0x47, 0x45, 0x4e }, 6);
	f[12] = o->ipv6 ? 0x86 : 0x08;
	f[13] = o->ipv6 ? 0xdd : 0x00;
	ip = f + 14;
	udp = ip + l3;
	udp_len = o->size - 14 - l3;
	memset(lay, 0, sizeof(*lay));
	lay->base_saddr = base;

	if (o->ipv6) {
		ip[0] = 0x60;
		ip[4] = (unsigned char)(udp_len >> 8);
		ip[5] = (unsigned char)udp_len;
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, addr, 16);
		memcpy(ip + 24, dst6, 16);
		lay->saddr_off = 14 + 8 + 12;
	} else {
		ip[0] = 0x45;
		ip[2] = (unsigned char)((20 + udp_len) >> 8);
		ip[3] = (unsigned char)(20 + udp_len);
		ip[6] = 0x40; /* DF */
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, addr, 4);
		memcpy(ip + 16, dst4, 4);
		sum = csum_fold(csum_add(0, ip, 20));
		ip[10] = (unsigned char)(sum >> 8);
		ip[11] = (unsigned char)sum;
		lay->saddr_off = 14 + 12;
		lay->ip_csum_off = 14 + 10;
		memcpy(&lay->tmpl_ip_csum, ip + 10, 2);
	}
	udp[0] = 0x04; /* source port 1024 */
	udp[2] = 0x00;
	udp[3] = 0x09; /* discard */
	udp[4] = (unsigned char)(udp_len >> 8);
	udp[5] = (unsigned char)udp_len;
	if (o->ipv6) {
		/* IPv6 requires the UDP checksum: pseudo-header plus datagram. */
		sum = csum_add(0, ip + 8, 32);
		sum += udp_len + 17;
		sum = csum_fold(csum_add(sum, udp, udp_len));
		if (sum == 0)
			sum = 0xffff;
		udp[6] = (unsigned char)(sum >> 8);
		udp[7] = (unsigned char)sum;
		lay->udp_csum_off = (uint16_t)(udp + 6 - f);
		memcpy(&lay->tmpl_udp_csum, udp + 6, 2);
	}
	return f;
}

/* Per-source packet counts wanted, or NULL for round-robin (uniform). */
static uint64_t *source_weights(const struct gen_opts *o, uint64_t *total)
{
	uint64_t *counts = NULL;

	*total = 0;
	if (strcmp(o->dist, "uniform") == 0)
		return NULL;
	counts = calloc(o->sources, sizeof(*counts));
	if (!counts)
		die("out of memory");
	if (strncmp(o->dist, "counts:", 7) == 0) {
		FILE *f = fopen(o->dist + 7, "r");
		char line[64];
		uint32_t n = 0;

		if (!f)
			die("--dist: cannot open '%s': %s", o->dist + 7, strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			if (line[0] == '\0' || line[0] == '#')
				continue;
			if (n >= o->sources)
				die("--dist: '%s' has more counts than --sources %u", o->dist + 7, o->sources);
			counts[n] = parse_u64_or_die("--dist counts", line, 0, 1ULL << 40);
			*total += counts[n++];
		}
		fclose(f);
		if (n != o->sources)
			die("--dist: '%s' has %u counts for --sources %u", o->dist + 7, n, o->sources);
		if (*total == 0)
			die("--dist: '%s' asks for no packets at all", o->dist + 7);
		return counts;
	}
	if (strncmp(o->dist, "zipf:", 5) == 0) {
		char *end;
		double s = strtod(o->dist + 5, &end), norm = 0, acc = 0;
		/* Exact counts when the total fits a schedule, else proportions of one. */
		uint64_t want = o->count && o->count <= MAX_SCHEDULE ? o->count : 1u << 20;

		if (*end || !(s >= 0 && s <= 10))
			die("--dist: zipf exponent '%s' must be a number from 0 to 10", o->dist + 5);
		for (uint32_t i = 0; i < o->sources; i++)
			norm += pow(i + 1, -s);
		/* Cumulative rounding keeps the sum exact. */
		for (uint32_t i = 0; i < o->sources; i++) {
			uint64_t before = (uint64_t)llround(acc / norm * (double)want);

			acc += pow(i + 1, -s);
			counts[i] = (uint64_t)llround(acc / norm * (double)want) - before;
			*total += counts[i];
		}
		return counts;
	}
	die("--dist: '%s' is not uniform, zipf:S or counts:FILE", o->dist);
}

/* A shuffled multiset of source indices: each source appears counts[i] times. */
static uint32_t *build_schedule(const uint64_t *counts, uint32_t sources, uint64_t total)
{
	uint32_t *sched;
	uint64_t n = 0, rng = 0x9e3779b97f4a7c15ULL;

	if (total > MAX_SCHEDULE)
		die("--dist: %llu packets is more than an exact schedule holds (%u)",
		    (unsigned long long)total, MAX_SCHEDULE);
	sched = malloc(total * sizeof(*sched));
	if (!sched)
		die("out of memory");
	for (uint32_t i = 0; i < sources; i++)
		for (uint64_t k = 0; k < counts[i]; k++)
			sched[n++] = i;
	for (uint64_t i = total - 1; i > 0; i--) {
		uint64_t j;
		uint32_t t;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = rng % (i + 1);
		t = sched[i];
		sched[i] = sched[j];
		sched[j] = t;
	}
	return sched;
}

static void *sender(void *arg)
{
	struct gen_thread *t = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		t->err = -errno;
		return NULL;
	}
	while (t->sent < t->quota) {
		uint64_t now = mono_ns(), n = t->quota - t->sent;
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = t->frame, .data_size_in = t->frame_len,
			    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

		if (now >= t->deadline_ns)
			break;
		if (t->rate) {
			uint64_t due = (uint64_t)((double)(now - t->start_ns) * (double)t->rate / 1e9);

			if (due <= t->sent) {
				struct timespec ts = { 0, 200000 };

				nanosleep(&ts, NULL);
				continue;
			}
			if (due - t->sent < n)
				n = due - t->sent;
		}
		if (n > t->batch)
			n = t->batch;
		run.repeat = (__u32)n;
		if (bpf_prog_test_run_opts(t->prog_fd, &run)) {
			t->err = -errno;
			return NULL;
		}
		t->sent += n;
	}
	return NULL;
}

/* Packets per source for positions [pos, pos + n) of the source sequence. */
static void count_range(uint64_t *out, uint32_t sources, const uint32_t *sched, uint64_t len,
			const uint64_t *per_cycle, uint64_t pos, uint64_t n)
{
	uint64_t cycle = sched ? len : sources, full = n / cycle;

	for (uint32_t i = 0; i < sources; i++)
		out[i] += full * (sched ? per_cycle[i] : 1);
	for (uint64_t k = 0; k < n % cycle; k++) {
		uint64_t p = (pos + full * cycle + k) % cycle;

		out[sched ? sched[p] : p]++;
	}
}

static void print_source(uint32_t i, bool ipv6, const unsigned char addr[16], uint32_t base)
{
	unsigned char a[16];
	char buf[INET6_ADDRSTRLEN];
	uint32_t v = htonl(base + i);

	memcpy(a, addr, 16);
	memcpy(ipv6 ? a + 12 : a, &v, 4);
	inet_ntop(ipv6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	printf("\"%s\"", buf);
}

int main(int argc, char **argv)
{
	struct gen_opts o;
	struct rwgen_bpf *skel;
	struct rwgen_layout lay;
	struct gen_thread *th;
	unsigned char addr[16], *frame;
	uint64_t total = 0, sched_len = 0, sent = 0, *counts, *seeds, start, elapsed;
	uint32_t base, *sched = NULL, ifindex, ncpus;
	int err;

	parse_args(argc, argv, &o);
	ifindex = if_nametoindex(o.dev);
	if (!ifindex)
		die("no interface named '%s' in this namespace", o.dev);
	refuse_unsafe_target(o.dev);
	resolve_sources(&o, addr, &base);
	counts = source_weights(&o, &total);
	if (counts) {
		sched = build_schedule(counts, o.sources, total);
		sched_len = total;
		if (strncmp(o.dist, "counts:", 7) == 0 && !o.count)
			o.count = total;
	}
	frame = build_frame(&o, addr, base, &lay);
	if (o.cpus > (uint32_t)libbpf_num_possible_cpus())
		die("--cpus %u: this machine has %d", o.cpus, libbpf_num_possible_cpus());
	/*
	 * One live-frames call has a fixed cost of tens of milliseconds (page pool
	 * setup and teardown), so paced sending sends what is due in one call and
	 * the rate holds on average over that period.
	 */
	if (!o.batch)
		o.batch = 1u << 20;

	skel = rwgen_bpf__open();
	if (!skel)
		die("cannot open the generator program: %s", strerror(errno));
	skel->rodata->gen_ifindex = ifindex;
	skel->rodata->gen_nsrc = o.sources;
	skel->rodata->gen_sched_len = (uint32_t)sched_len;
	memcpy((void *)&skel->rodata->gen_layout, &lay, sizeof(lay));
	if (sched_len)
		bpf_map__set_max_entries(skel->maps.schedule, (uint32_t)sched_len);
	err = rwgen_bpf__load(skel);
	if (err) {
		fprintf(stderr, "rwgen: cannot load the generator program: %s\n", strerror(-err));
		return 1;
	}
	for (uint64_t i = 0; i < sched_len; i++) {
		uint32_t k = (uint32_t)i;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.schedule), &k, &sched[i], 0))
			die("cannot fill the schedule: %s", strerror(errno));
	}

	/* Each thread covers its own stretch of the sequence, so totals stay exact. */
	ncpus = (uint32_t)libbpf_num_possible_cpus();
	th = calloc(o.cpus, sizeof(*th));
	seeds = calloc(ncpus, sizeof(*seeds));
	if (!th || !seeds)
		die("out of memory");
	start = mono_ns();
	for (uint32_t i = 0; i < o.cpus; i++) {
		uint64_t quota = UINT64_MAX, span = sched_len ? sched_len : o.sources;

		if (o.count)
			quota = o.count / o.cpus + (i < o.count % o.cpus);
		th[i] = (struct gen_thread){
			.cpu = (int)i, .prog_fd = bpf_program__fd(skel->progs.rwgen_xdp),
			.frame = frame, .frame_len = o.size, .quota = quota,
			.rate = o.rate ? (o.rate / o.cpus + (i < o.rate % o.cpus)) : 0,
			.batch = o.batch, .start_ns = start, .deadline_ns = start + o.duration_ns,
			.start_pos = o.count ? (o.count / o.cpus) * i + (i < o.count % o.cpus ? i : o.count % o.cpus)
					     : span / o.cpus * i,
		};
		seeds[i] = th[i].start_pos;
	}
	{
		__u32 zero = 0;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.seq), &zero, seeds, 0))
			die("cannot seed the sequence: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < o.cpus; i++)
		if (pthread_create(&th[i].tid, NULL, sender, &th[i]))
			die("cannot start a sending thread");
	for (uint32_t i = 0; i < o.cpus; i++)
		pthread_join(th[i].tid, NULL);
	elapsed = mono_ns() - start;

	for (uint32_t i = 0; i < o.cpus; i++) {
		if (th[i].err) {
			fprintf(stderr, "rwgen: sending on CPU %d failed: %s\n", th[i].cpu,
				strerror(-th[i].err));
			return 1;
		}
		sent += th[i].sent;
	}
	printf("{\"sent\": %llu, \"seconds\": %.6f, \"pps\": %.1f, \"family\": %d, \"size\": %u, "
	       "\"sources\": %u, \"per_cpu\": [",
	       (unsigned long long)sent, elapsed / 1e9, sent * 1e9 / (double)elapsed,
	       o.ipv6 ? 6 : 4, o.size, o.sources);
	for (uint32_t i = 0; i < o.cpus; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)th[i].sent);
	printf("]");
	if (o.per_source) {
		uint64_t *per = calloc(o.sources, sizeof(*per));

		if (!per)
			die("out of memory");
		for (uint32_t i = 0; i < o.cpus; i++)
			count_range(per, o.sources, sched, sched_len, counts, th[i].start_pos,
				    th[i].sent);
		printf(", \"per_source\": {");
		for (uint32_t i = 0; i < o.sources; i++) {
			printf("%s", i ? ", " : "");
			print_source(i, o.ipv6, addr, base);
			printf(": %llu", (unsigned long long)per[i]);
		}
		printf("}");
		free(per);
	}
	printf("}\n");
	rwgen_bpf__destroy(skel);
	return 0;
}
