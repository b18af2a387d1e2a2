// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rwgen's two ways out send the same frames. Its BPF program (what live
 * frames run) is run here without live frames, which every kernel allows, at
 * a position of the sequence; packet.c patches its copy of the template for
 * the same position; the two must agree byte for byte, for each rule that
 * picks an index (round-robin, a schedule, a random source) and for a frame
 * of each kind that moves its checksums differently. The tests that send ran
 * on a host that refuses live frames through the packet socket: what they
 * measured is what the live frames would have carried. The program is loaded,
 * and the sequence made, by the code rwgen runs (program.c, schedule.c).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "packet.h"
#include "program.h"
#include "bpfenv.h"
#include "testlib.h"

#define POSITIONS 200 /* compared per case, from START */
#define START 1000003ull

struct gen_case {
	const char *name;
	struct gen_opts o;
	uint32_t sched_len; /* a schedule of this many positions (index i * 7 % sources) */
};

/* The program's output for position pos: the CPU it runs on starts there. */
static int program_frame(struct rwgen_bpf *skel, const unsigned char *frame, uint32_t len,
			 uint64_t pos, unsigned char *out)
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_program__fd(skel->progs.rwgen_xdp);
	uint64_t *at = calloc((size_t)ncpus, sizeof(*at));
	__u32 zero = 0;
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = len, .data_out = out,
		    .data_size_out = len, .repeat = 1);

	if (!at)
		return -1;
	for (int c = 0; c < ncpus; c++)
		at[c] = pos;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.seq), &zero, at, 0) ||
	    bpf_prog_test_run_opts(fd, &run) || run.retval != XDP_REDIRECT || run.data_size_out != len) {
		free(at);
		return -1;
	}
	free(at);
	return 0;
}

static void check_case(const struct gen_case *c)
{
	struct gen_opts o = c->o;
	struct gen_addrs addrs;
	struct rwgen_layout lay;
	struct rwgen_packet pkt;
	struct rwgen_bpf *skel = NULL;
	unsigned char *frame, *out, *prev;
	uint32_t *sched = c->sched_len ? calloc(c->sched_len, sizeof(*sched)) : NULL;
	unsigned int alike = 0, differ_from_last = 0;

	o.size = o.size ? o.size : 64;
	rwgen_resolve_addrs(&o, &addrs);
	frame = rwgen_build_frame(&o, &addrs, &lay);
	out = malloc(o.size);
	prev = calloc(1, o.size);
	CHECK(frame && out && prev && (sched || !c->sched_len));
	if (!frame || !out || !prev || (!sched && c->sched_len))
		return;
	for (uint32_t i = 0; i < c->sched_len; i++)
		sched[i] = i * 7 % o.sources;
	const struct rwgen_sequence seq = rwgen_sequence_of(&o, &lay, sched, c->sched_len);

	CHECK(rwgen_program_load(&seq, 1, &skel) == 0);
	CHECK(rwgen_packet_init(&pkt, frame, o.size) == 0);
	for (uint64_t pos = START; skel && pos < START + POSITIONS; pos++) {
		if (program_frame(skel, frame, o.size, pos, out) ||
		    rwgen_packet_fill(&pkt, &seq, pos, 1)) {
			CHECK(!"the program or the packet socket's patch ran");
			break;
		}
		alike += memcmp(out, pkt.copies, o.size) == 0;
		/* Not a comparison of two unpatched templates: the frames vary. */
		differ_from_last += pos > START && memcmp(out, prev, o.size) != 0;
		memcpy(prev, out, o.size);
	}
	if (alike != POSITIONS || differ_from_last < POSITIONS / 2)
		fprintf(stderr, "  %s: %u of %u frames alike, %u differ from the one before\n", c->name,
			alike, POSITIONS, differ_from_last);
	CHECK_EQ(alike, POSITIONS);
	CHECK(differ_from_last >= POSITIONS / 2);
	rwgen_packet_close(&pkt);
	if (skel)
		rwgen_bpf__destroy(skel);
	free(sched);
	free(prev);
	free(out);
	free(frame);
}

static const struct gen_case cases[] = {
	{ .name = "IPv4 UDP, 1 000 sources round-robin",
	  .o = { .sources = 1000, .dist = "uniform", .seed = 1, .sport = 1024, .dport = 9,
		 .proto = IPPROTO_UDP } },
	{ .name = "IPv6 TCP SYN, a random source of 2^24 and a random source port",
	  .o = { .sources = 1u << 24, .dist = "random", .seed = 5, .sport = 1024, .dport = 80,
		 .ipv6 = true, .proto = IPPROTO_TCP, .tcp_flags = 0x02, .random_sport = true,
		 .size = 80 } },
	{ .name = "IPv4 ICMP to 300 destinations, a schedule of 97 positions",
	  .o = { .sources = 300, .dist = "counts", .seed = 1, .sport = 1024, .dport = 9,
		 .dst = "198.18.1.1", .proto = IPPROTO_ICMP, .vary = GEN_VARY_DST, .size = 128 },
	  .sched_len = 97 },
	{ .name = "IPv6 UDP over 500 destination ports",
	  .o = { .sources = 500, .dist = "uniform", .seed = 1, .sport = 1024, .dport = 1000,
		 .ipv6 = true, .proto = IPPROTO_UDP, .vary = GEN_VARY_DPORT } },
	{ .name = "IPv6 ICMPv6, 2 000 /64 sources (--ipv6-net)",
	  .o = { .sources = 2000, .dist = "uniform", .seed = 1, .sport = 1024, .dport = 9,
		 .ipv6 = true, .ipv6_net = true, .proto = IPPROTO_ICMP } },
};

static void test_rwgen_live_and_packet_frames_alike(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
}

void run_rwgen_tests(void)
{
	RUN(test_rwgen_live_and_packet_frames_alike);
}
