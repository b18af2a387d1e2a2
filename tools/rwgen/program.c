// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The generator's BPF program loaded for one sequence: what it reads of it is
 * set here alone, so that rwgen and the test of its two ways out
 * (tests/bpf/test_rwgen.c) run the same program.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

/*
 * In one call: a call an entry took a second for a million of them, a second
 * the generator started late by (the demo's flood, meant to start a second
 * after the sources, then started first).
 */
static int fill_schedule(struct rwgen_bpf *skel, const struct rwgen_sequence *s)
{
	uint32_t *keys = malloc(s->sched_len * sizeof(*keys)), n = (uint32_t)s->sched_len;
	LIBBPF_OPTS(bpf_map_batch_opts, batch);
	int err = 0;

	if (!keys)
		return -ENOMEM;
	for (uint64_t i = 0; i < s->sched_len; i++)
		keys[i] = (uint32_t)i;
	if (bpf_map_update_batch(bpf_map__fd(skel->maps.schedule), keys, s->sched, &n, &batch))
		err = -errno;
	else if (n != s->sched_len)
		err = -EIO;
	free(keys);
	return err;
}

int rwgen_program_load(const struct rwgen_sequence *s, uint32_t ifindex, struct rwgen_bpf **out)
{
	struct rwgen_bpf *skel = rwgen_bpf__open();
	int err;

	if (!skel) {
		err = -errno;
		fprintf(stderr, "rwgen: cannot open the generator program: %s\n", strerror(-err));
		return err;
	}
	skel->rodata->gen_ifindex = ifindex;
	skel->rodata->gen_nsrc = s->nsrc;
	skel->rodata->gen_sched_len = s->sched ? (uint32_t)s->sched_len : 0;
	skel->rodata->gen_random = s->random;
	skel->rodata->gen_seed = s->seed;
	memcpy((void *)&skel->rodata->gen_layout, s->lay, sizeof(*s->lay));
	if (s->sched)
		bpf_map__set_max_entries(skel->maps.schedule, (uint32_t)s->sched_len);
	err = rwgen_bpf__load(skel);
	if (err) {
		fprintf(stderr, "rwgen: cannot load the generator program: %s\n", strerror(-err));
	} else if (s->sched && (err = fill_schedule(skel, s))) {
		fprintf(stderr, "rwgen: cannot fill the schedule: %s\n", strerror(-err));
	}
	if (err) {
		rwgen_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}
