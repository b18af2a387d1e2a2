// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * decisions: how often ratewall's limit decision differs from an exact
 * sliding-log limiter given the same packet timestamps. The real XDP program
 * decides (bpf_prog_test_run_opts, its test clock set to each arrival time,
 * packets handed to CPUs in blocks when --spread); the reference admits a
 * packet at t iff fewer than LIMIT packets it admitted lie in (t - W, t].
 * Both are admitted-only. What is compared is the window (--burst window):
 * the schedule that paces a key over its rate (the default) admits evenly
 * where a sliding log admits at once, by design. Prints one JSON object.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <getopt.h>
#include <linux/bpf.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/loader.h"
#include "model/units.h"
#include "ratewall.skel.h"

static const unsigned char frame64[64] = {
	0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
	0x45, 0, 0, 50, 0, 0, 0x40, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 19, 255, 254,
	0x04, 0x00, 0x00, 0x09, 0, 30, 0, 0,
};

static uint64_t rng = 0x853c49e6748fea9bULL;

static double uniform01(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

/* Most timestamps of ts[0..n) inside any interval of length len. */
static uint64_t max_in(const uint64_t *ts, uint64_t n, uint64_t len)
{
	uint64_t best = 0, lo = 0;

	for (uint64_t hi = 0; hi < n; hi++) {
		while (ts[hi] - ts[lo] >= len)
			lo++;
		if (hi - lo + 1 > best)
			best = hi - lo + 1;
	}
	return best;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	uint64_t limit = 1000, window = 1000000000ULL, seconds_ns = 10000000000ULL, slots = 10;
	double factor = 10;
	bool spread = false, poisson = true;
	int c;

	while ((c = getopt(argc, argv, "l:w:n:f:t:sc")) != -1) {
		switch (c) {
		case 'l': if (rw_parse_uint(optarg, 1, 1000000, &limit)) goto usage; break;
		case 'w': if (rw_parse_duration(optarg, &window)) goto usage; break;
		case 'n': if (rw_parse_uint(optarg, 2, 32, &slots)) goto usage; break;
		case 'f': factor = atof(optarg); if (!(factor > 0 && factor <= 1000)) goto usage; break;
		case 't': if (rw_parse_duration(optarg, &seconds_ns)) goto usage; break;
		case 's': spread = true; break;
		case 'c': poisson = false; break;
		default: goto usage;
		}
	}
	{
		struct rw_load_params p = { .slot_ns = window / slots, .slots = (uint32_t)slots,
					    .limit_packets = limit, .max_flows = 16, .test_clock = true,
					    .burst_ns = RW_BURST_WINDOW };
		double rate = factor * (double)limit * 1e9 / (double)window; /* packets per second */
		uint64_t cap = (uint64_t)(rate * seconds_ns / 1e9 * 1.2) + 16, n = 0;
		uint64_t *arr = malloc(cap * sizeof(*arr)), *adm = calloc(cap, sizeof(*adm));
		uint64_t *log = malloc(limit * sizeof(*log)), head = 0, size = 0, nadm = 0;
		uint64_t false_admit = 0, false_drop = 0, ref_admitted = 0;
		uint32_t ncpus = rw_possible_cpus();
		struct ratewall_bpf *skel;
		double t = uniform01() * (double)window; /* a random phase against slot edges */
		int err;

		if (!arr || !adm || !log)
			return fprintf(stderr, "decisions: out of memory\n"), 1;
		while (n < cap) {
			t += poisson ? -log1p(-uniform01()) * 1e9 / rate : 1e9 / rate;
			if (t >= (double)seconds_ns + (double)window)
				break;
			arr[n++] = (uint64_t)t + window * 1000; /* far from zero: no epoch underflow */
		}
		err = rw_bpf_load(&p, &skel);
		if (err)
			return fprintf(stderr, "decisions: load: %s\n", strerror(-err)), 1;
		for (uint64_t i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame64,
				    .data_size_in = sizeof(frame64), .repeat = 1);
			bool ours, ref;

			/* Spread: blocks of 16 packets per CPU, as NAPI polls hand them out. */
			if (spread && i % 16 == 0)
				pin((int)((i / 16) % ncpus));
			skel->bss->test_clock_ns = arr[i];
			if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ratewall_xdp), &o))
				return fprintf(stderr, "decisions: test run failed\n"), 1;
			ours = o.retval == XDP_PASS;
			if (ours)
				adm[nadm++] = arr[i];

			while (size && log[head] + window <= arr[i]) {
				head = (head + 1) % limit;
				size--;
			}
			ref = size < limit;
			if (ref) {
				log[(head + size) % limit] = arr[i];
				size++;
				ref_admitted++;
			}
			false_admit += ours && !ref;
			false_drop += !ours && ref;
		}
		printf("{\"limit_per_window\": %llu, \"window_ms\": %.3f, \"slots\": %llu, \"offered_x\": %.1f, "
		       "\"arrivals\": \"%s\", \"spread_cpus\": %u, \"packets\": %llu, "
		       "\"admitted\": %llu, \"reference_admitted\": %llu, \"false_admit\": %llu, "
		       "\"false_drop\": %llu, \"wrong_pct\": %.4f, "
		       "\"max_in_window\": %llu, \"max_in_n1_window\": %llu, "
		       "\"admitted_per_window\": %.2f}\n",
		       (unsigned long long)limit, window / 1e6, (unsigned long long)slots, factor,
		       poisson ? "poisson" : "constant", spread ? ncpus : 1, (unsigned long long)n,
		       (unsigned long long)nadm, (unsigned long long)ref_admitted,
		       (unsigned long long)false_admit, (unsigned long long)false_drop,
		       n ? 100.0 * (double)(false_admit + false_drop) / (double)n : 0.0,
		       (unsigned long long)max_in(adm, nadm, window),
		       (unsigned long long)max_in(adm, nadm, window / slots * (slots - 1)),
		       (double)nadm * (double)window / (double)(seconds_ns + window));
		ratewall_bpf__destroy(skel);
	}
	return 0;
usage:
	fprintf(stderr, "usage: decisions [-l LIMIT/window] [-w WINDOW] [-n SLOTS] [-f OFFERED_X] "
			"[-t DURATION] [-s (spread over CPUs)] [-c (constant arrivals)]\n");
	return 2;
}
