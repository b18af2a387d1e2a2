// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rwsink: an independent observer for tests. Listens on an interface with an
 * AF_PACKET socket (it sees what XDP passed), timestamps every IPv4/IPv6
 * frame, and reports per-source counts (packets, frame bytes); for a given
 * interval length, the most packets and the most bytes of one source inside
 * any interval of that length; and, with
 * --span, how many (and how many frame bytes) arrived in
 * [first + span-from, first + span-from + span),
 * an exact rate free of any sampling jitter. With --only ADDR (up to
 * MAX_ONLY times), a socket filter leaves frames from any other source in
 * the kernel: beside a flood, whose sources would fill the table and whose
 * rate the socket cannot keep up with (at 400 000 pps over 2 CPUs it lost a
 * fifth of a 2 000 pps source's frames without one). "socket_drops" says
 * what the socket dropped all the same: a count is whole only at 0.
 * Bounded by --duration and --max-packets.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "model/clock.h"
#include "model/units.h"

#define MAX_SOURCES 4096
#define MAX_ONLY 8

struct source {
	unsigned char addr[16];
	int family;
	uint64_t packets, bytes;
	uint64_t *ts;   /* receive times, ns */
	uint32_t *len;  /* frame lengths, bytes */
	uint64_t cap;
};

static struct source sources[MAX_SOURCES];
static int nsources;
static struct source only[MAX_ONLY]; /* --only: address and family, nothing counted */
static int nonly;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool wanted(const unsigned char *addr, int family)
{
	size_t n = family == 4 ? 4 : 16;

	for (int i = 0; i < nonly; i++)
		if (only[i].family == family && memcmp(only[i].addr, addr, n) == 0)
			return true;
	return nonly == 0;
}

/*
 * A classic BPF socket filter that accepts only --only's sources. A block an
 * address: the EtherType, then the source address a 32-bit word at a time
 * (IPv4 at 14 + 12, IPv6 at 14 + 8), each mismatch jumping to the next
 * block, then accept; after the last block, refuse.
 */
static int attach_only_filter(int fd)
{
	struct sock_filter code[MAX_ONLY * 11 + 1];
	struct sock_fprog prog = { .filter = code };
	unsigned short n = 0;

	for (int i = 0; i < nonly; i++) {
		int words = only[i].family == 4 ? 1 : 4, off = only[i].family == 4 ? 26 : 22;
		int len = 2 + 2 * words + 1, start = n;

		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12);
		code[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			only[i].family == 4 ? ETH_P_IP : ETH_P_IPV6, 0, (unsigned char)(start + len - n - 1));
		n++;
		for (int w = 0; w < words; w++) {
			uint32_t v;

			memcpy(&v, only[i].addr + 4 * w, 4);
			code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(off + 4 * w));
			code[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(v), 0,
							     (unsigned char)(start + len - n - 1));
			n++;
		}
		code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffff);
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	prog.len = n;
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static struct source *find(const unsigned char *addr, int family)
{
	size_t n = family == 4 ? 4 : 16;

	for (int i = 0; i < nsources; i++)
		if (sources[i].family == family && memcmp(sources[i].addr, addr, n) == 0)
			return &sources[i];
	if (nsources == MAX_SOURCES)
		return NULL;
	sources[nsources].family = family;
	memcpy(sources[nsources].addr, addr, n);
	return &sources[nsources++];
}

static int record(struct source *s, uint64_t ts, uint32_t len)
{
	if (s->packets == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 4096;
		uint64_t *p = realloc(s->ts, cap * sizeof(*p));
		uint32_t *l;

		if (!p)
			return -ENOMEM;
		s->ts = p;
		l = realloc(s->len, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		s->len = l;
		s->cap = cap;
	}
	s->len[s->packets] = len;
	s->ts[s->packets++] = ts;
	s->bytes += len;
	return 0;
}

/*
 * Most packets (bytes false) or frame bytes (true) inside any half-open
 * interval [t, t + len): two pointers.
 */
static uint64_t max_in_interval(const struct source *s, uint64_t len, bool bytes)
{
	uint64_t best = 0, lo = 0, in = 0;

	for (uint64_t hi = 0; hi < s->packets; hi++) {
		in += bytes ? s->len[hi] : 1;
		while (s->ts[hi] - s->ts[lo] >= len)
			in -= bytes ? s->len[lo++] : (lo++, 1);
		if (in > best)
			best = in;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "max-packets", required_argument, NULL, 'm' },
		{ "span-from", required_argument, NULL, 'f' },
		{ "span", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t duration = 10000000000ULL, interval = 0, max_packets = 50000000, total = 0, end;
	uint64_t span_from = 0, span = 0;
	const char *dev = NULL;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	unsigned char buf[256];
	int c, fd, on = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 't':
			if (rw_parse_duration(optarg, &duration) || duration > 3600000000000ULL)
				return fprintf(stderr, "rwsink: bad --duration\n"), 2;
			break;
		case 'i':
			if (rw_parse_duration(optarg, &interval))
				return fprintf(stderr, "rwsink: bad --interval\n"), 2;
			break;
		case 'm':
			if (rw_parse_uint(optarg, 1, 1ULL << 32, &max_packets))
				return fprintf(stderr, "rwsink: bad --max-packets\n"), 2;
			break;
		case 'f':
			if (rw_parse_duration(optarg, &span_from))
				return fprintf(stderr, "rwsink: bad --span-from\n"), 2;
			break;
		case 's':
			if (rw_parse_duration(optarg, &span))
				return fprintf(stderr, "rwsink: bad --span\n"), 2;
			break;
		case 'o':
			if (nonly == MAX_ONLY)
				return fprintf(stderr, "rwsink: at most %d --only\n", MAX_ONLY), 2;
			if (inet_pton(AF_INET, optarg, only[nonly].addr) == 1)
				only[nonly++].family = 4;
			else if (inet_pton(AF_INET6, optarg, only[nonly].addr) == 1)
				only[nonly++].family = 6;
			else
				return fprintf(stderr, "rwsink: --only '%s' is not an address\n", optarg), 2;
			break;
		default:
			fprintf(stderr, "usage: rwsink --dev IFACE [--duration D] [--interval D] "
					"[--max-packets N] [--span-from D --span D] [--only ADDR]...\n");
			return 2;
		}
	}
	if (!dev || !(sll.sll_ifindex = (int)if_nametoindex(dev)))
		return fprintf(stderr, "rwsink: --dev must name an interface here\n"), 2;
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) ||
	    (nonly && attach_only_filter(fd))) {
		fprintf(stderr, "rwsink: cannot listen on %s: %s\n", dev, strerror(errno));
		return 1;
	}
	{
		int rcvbuf = 64 << 20;

		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* Tell a waiting test we are listening. */
	fprintf(stderr, "rwsink: listening on %s\n", dev);
	end = rw_clock_ns(CLOCK_MONOTONIC) + duration;
	while (!stop && total < max_packets && rw_clock_ns(CLOCK_MONOTONIC) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char cbuf[256];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		uint64_t ts = 0;
		unsigned char *l3 = buf + 14;
		struct source *s;
		ssize_t n;
		uint16_t type;

		if (poll(&p, 1, 50) <= 0)
			continue;
		/* MSG_TRUNC: the frame's whole length, however much of it fits in buf. */
		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 14 + 20)
			continue;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec t;

				memcpy(&t, CMSG_DATA(cm), sizeof(t));
				ts = rw_timespec_ns(&t);
			}
		type = (uint16_t)(buf[12] << 8 | buf[13]);
		if (type == ETH_P_IP && wanted(l3 + 12, 4))
			s = find(l3 + 12, 4);
		else if (type == ETH_P_IPV6 && n >= 14 + 40 && wanted(l3 + 8, 6))
			s = find(l3 + 8, 6);
		else
			continue;
		if (!s || record(s, ts ? ts : rw_clock_ns(CLOCK_REALTIME), (uint32_t)n))
			break;
		total++;
	}
	{
		struct tpacket_stats ps = { 0 };
		socklen_t pslen = sizeof(ps);

		/* Read once: the kernel resets these counters at each read. */
		if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &ps, &pslen))
			ps.tp_drops = UINT32_MAX;
		printf("{\"packets\": %llu, \"socket_drops\": %u, \"interval_ns\": %llu, \"sources\": {",
		       (unsigned long long)total, ps.tp_drops, (unsigned long long)interval);
	}
	for (int i = 0; i < nsources; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(sources[i].family == 4 ? AF_INET : AF_INET6, sources[i].addr, a, sizeof(a));
		printf("%s\"%s\": {\"packets\": %llu, \"bytes\": %llu", i ? ", " : "", a,
		       (unsigned long long)sources[i].packets, (unsigned long long)sources[i].bytes);
		if (interval)
			printf(", \"max_in_interval\": %llu, \"max_bytes_in_interval\": %llu",
			       (unsigned long long)max_in_interval(&sources[i], interval, false),
			       (unsigned long long)max_in_interval(&sources[i], interval, true));
		if (span && sources[i].packets) {
			uint64_t a = sources[i].ts[0] + span_from, n = 0, b = 0;

			for (uint64_t k = 0; k < sources[i].packets; k++) {
				bool in = sources[i].ts[k] >= a && sources[i].ts[k] < a + span;

				n += in;
				b += in ? sources[i].len[k] : 0;
			}
			printf(", \"in_span\": %llu, \"bytes_in_span\": %llu, \"span_ns\": %llu",
			       (unsigned long long)n, (unsigned long long)b, (unsigned long long)span);
		}
		printf("}");
	}
	printf("}}\n");
	return 0;
}
