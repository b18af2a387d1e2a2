// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rwdelay: a delay line for tests, so that TCP through ratewall can meet the
 * round trips it meets outside a testbed. This kernel has no netem (nor fq
 * for an EDT delay), and two namespaces joined by a veth pair are 50 us
 * apart: a TCP sender there is driven by its timers, not by its ACKs.
 *
 * It forwards every Ethernet frame between two interfaces of a middle
 * namespace (AF_PACKET, both ways: a transparent bridge), each one
 * --delay after it arrived, in arrival order. Frames longer than --mtu plus
 * the Ethernet header (receive offload merged them) are dropped and counted:
 * the test turns offloads off. A full queue (--max-queue frames a way) drops
 * and counts, as a link would. Bounded by --duration; prints what it did.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
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

#define FRAME_MAX 2048

struct frame {
	uint64_t due_ns;
	uint32_t len;
	unsigned char data[FRAME_MAX];
};

/* One direction: frames read from `in`, written to `out` when due. */
struct way {
	const char *name;
	int in, out;
	struct frame *q;
	uint32_t cap, head, count;
	uint64_t forwarded, queue_full, oversize, send_errors;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_port(const char *dev)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int one = 1, buf = 8 << 20;
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0)
		return -1;
	sll.sll_ifindex = (int)if_nametoindex(dev);
	if (!sll.sll_ifindex) {
		close(fd);
		errno = ENODEV;
		return -1;
	}
	/* What this tool sends out of an interface must not come back in. */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return fd;
}

/* Reads every frame waiting on w->in into the queue, due `delay` from now. */
static void take_in(struct way *w, uint64_t delay, uint32_t frame_max)
{
	for (;;) {
		struct frame *f = &w->q[(w->head + w->count) % w->cap];
		unsigned char spill[FRAME_MAX];
		bool full = w->count == w->cap;
		ssize_t n = recv(w->in, full ? spill : f->data, FRAME_MAX, MSG_TRUNC);

		if (n < 0)
			return;
		if (full) {
			w->queue_full++;
			continue;
		}
		if ((size_t)n > frame_max) {
			w->oversize++;
			continue;
		}
		f->len = (uint32_t)n;
		f->due_ns = rw_clock_ns(CLOCK_MONOTONIC) + delay;
		w->count++;
	}
}

/* Sends what is due; returns ns until the next frame is (UINT64_MAX: none). */
static uint64_t send_due(struct way *w, uint64_t now)
{
	while (w->count) {
		struct frame *f = &w->q[w->head];

		if (f->due_ns > now)
			return f->due_ns - now;
		if (send(w->out, f->data, f->len, 0) < 0) {
			if (errno == EAGAIN || errno == ENOBUFS)
				return 50000; /* the device is busy: again in 50 us */
			w->send_errors++;
		} else {
			w->forwarded++;
		}
		w->head = (w->head + 1) % w->cap;
		w->count--;
	}
	return UINT64_MAX;
}

static void usage(void)
{
	fprintf(stderr, "usage: rwdelay --a IFACE --b IFACE --delay D [--duration D] "
			"[--max-queue N] [--mtu N]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ "delay", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, 't' },
		{ "max-queue", required_argument, NULL, 'q' },
		{ "mtu", required_argument, NULL, 'm' },
		{ 0 },
	};
	const char *dev_a = NULL, *dev_b = NULL;
	uint64_t delay = 0, duration = 60000000000ULL, max_queue = 8192, mtu = 1500, end;
	struct way ways[2];
	int c, fa, fb;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			dev_a = optarg;
			break;
		case 'b':
			dev_b = optarg;
			break;
		case 'd':
			if (rw_parse_duration(optarg, &delay) || delay > 10000000000ULL)
				return fprintf(stderr, "rwdelay: bad --delay (at most 10s)\n"), 2;
			break;
		case 't':
			if (rw_parse_duration(optarg, &duration) || duration > 3600000000000ULL)
				return fprintf(stderr, "rwdelay: bad --duration (at most 1h)\n"), 2;
			break;
		case 'q':
			if (rw_parse_uint(optarg, 1, 1 << 20, &max_queue))
				return fprintf(stderr, "rwdelay: bad --max-queue (1..1048576)\n"), 2;
			break;
		case 'm':
			if (rw_parse_uint(optarg, 68, FRAME_MAX - ETH_HLEN - 4, &mtu))
				return fprintf(stderr, "rwdelay: bad --mtu (68..%d)\n",
					       FRAME_MAX - ETH_HLEN - 4), 2;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!dev_a || !dev_b || !delay || optind != argc) {
		usage();
		return 2;
	}
	fa = open_port(dev_a);
	fb = fa < 0 ? -1 : open_port(dev_b);
	if (fa < 0 || fb < 0) {
		fprintf(stderr, "rwdelay: %s: %s\n", fa < 0 ? dev_a : dev_b, strerror(errno));
		return 1;
	}
	ways[0] = (struct way){ .name = "a->b", .in = fa, .out = fb, .cap = (uint32_t)max_queue };
	ways[1] = (struct way){ .name = "b->a", .in = fb, .out = fa, .cap = (uint32_t)max_queue };
	for (int i = 0; i < 2; i++) {
		ways[i].q = calloc(max_queue, sizeof(struct frame));
		if (!ways[i].q) {
			fprintf(stderr, "rwdelay: out of memory for %llu frames\n",
				(unsigned long long)max_queue);
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	end = rw_clock_ns(CLOCK_MONOTONIC) + duration;
	while (!stop) {
		struct pollfd pfd[2] = { { .fd = fa, .events = POLLIN }, { .fd = fb, .events = POLLIN } };
		uint64_t now = rw_clock_ns(CLOCK_MONOTONIC), wait = end > now ? end - now : 0;
		struct timespec ts;

		if (!wait)
			break;
		for (int i = 0; i < 2; i++) {
			uint64_t next = send_due(&ways[i], now);

			if (next < wait)
				wait = next;
		}
		ts.tv_sec = (time_t)(wait / 1000000000ULL);
		ts.tv_nsec = (long)(wait % 1000000000ULL);
		if (ppoll(pfd, 2, &ts, NULL) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			if (pfd[i].revents & POLLIN)
				take_in(&ways[i], delay, (uint32_t)(mtu + ETH_HLEN));
	}
	for (int i = 0; i < 2; i++)
		fprintf(stderr, "rwdelay %s: forwarded %llu, queue full %llu, oversize %llu, "
				"send errors %llu, left %u\n", ways[i].name,
			(unsigned long long)ways[i].forwarded, (unsigned long long)ways[i].queue_full,
			(unsigned long long)ways[i].oversize,
			(unsigned long long)ways[i].send_errors, ways[i].count);
	return 0;
}
