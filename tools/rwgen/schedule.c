// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which source each generated packet carries: round-robin, Zipf or an exact list. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "schedule.h"

/* Per-source packet counts wanted, or NULL for round-robin (uniform). */
uint64_t *rwgen_source_weights(const struct gen_opts *o, uint64_t *total)
{
	uint64_t *counts = NULL;

	*total = 0;
	if (strcmp(o->dist, "uniform") == 0 || strcmp(o->dist, "random") == 0)
		return NULL;
	counts = calloc(o->sources, sizeof(*counts));
	if (!counts)
		rwgen_die("out of memory");
	if (strcmp(o->dist, "shuffled") == 0) {
		/* Every source once per cycle, in a random order: no prefetcher can follow it. */
		for (uint32_t i = 0; i < o->sources; i++)
			counts[i] = 1;
		*total = o->sources;
		return counts;
	}
	if (strncmp(o->dist, "counts:", 7) == 0) {
		FILE *f = fopen(o->dist + 7, "r");
		char line[64];
		uint32_t n = 0;

		if (!f)
			rwgen_die("--dist: cannot open '%s': %s", o->dist + 7, strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			if (line[0] == '\0' || line[0] == '#')
				continue;
			if (n >= o->sources)
				rwgen_die("--dist: '%s' has more counts than --sources %u", o->dist + 7, o->sources);
			counts[n] = rwgen_parse_u64_or_die("--dist counts", line, 0, 1ULL << 40);
			*total += counts[n++];
		}
		fclose(f);
		if (n != o->sources)
			rwgen_die("--dist: '%s' has %u counts for --sources %u", o->dist + 7, n, o->sources);
		if (*total == 0)
			rwgen_die("--dist: '%s' asks for no packets at all", o->dist + 7);
		return counts;
	}
	if (strncmp(o->dist, "zipf:", 5) == 0) {
		char *end;
		double s = strtod(o->dist + 5, &end), norm = 0, acc = 0;
		/* Exact counts when the total fits a schedule, else proportions of one. */
		uint64_t want = o->count && o->count <= MAX_SCHEDULE ? o->count : 1u << 20;

		if (*end || !(s >= 0 && s <= 10))
			rwgen_die("--dist: zipf exponent '%s' must be a number from 0 to 10", o->dist + 5);
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
	rwgen_die("--dist: '%s' is not uniform, shuffled, random, zipf:S or counts:FILE", o->dist);
}

/* A shuffled multiset of source indices: each source appears counts[i] times. */
uint32_t *rwgen_build_schedule(const uint64_t *counts, uint32_t sources, uint64_t total,
				uint64_t seed)
{
	uint32_t *sched;
	uint64_t n = 0, rng = 0x9e3779b97f4a7c15ULL ^ (seed * 0xbf58476d1ce4e5b9ULL);

	if (total > MAX_SCHEDULE)
		rwgen_die("--dist: %llu packets is more than an exact schedule holds (%u)",
		    (unsigned long long)total, MAX_SCHEDULE);
	sched = malloc(total * sizeof(*sched));
	if (!sched)
		rwgen_die("out of memory");
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

struct rwgen_sequence rwgen_sequence_of(const struct gen_opts *o, const struct rwgen_layout *lay,
					const uint32_t *sched, uint64_t sched_len)
{
	return (struct rwgen_sequence){
		.lay = lay, .sched = sched, .sched_len = sched_len, .nsrc = o->sources,
		.random = strcmp(o->dist, "random") == 0, .seed = o->seed * 0x9e3779b97f4a7c15ULL,
	};
}

uint32_t rwgen_sequence_index(const struct rwgen_sequence *s, uint64_t pos)
{
	if (s->random)
		return rwgen_random_index(pos, s->seed, s->nsrc);
	if (s->sched)
		return s->sched[pos % s->sched_len];
	return (uint32_t)(pos % s->nsrc);
}

/* Packets per source for positions [pos, pos + n) of the source sequence. */
void rwgen_count_range(uint64_t *out, uint32_t sources, const uint32_t *sched, uint64_t len,
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
