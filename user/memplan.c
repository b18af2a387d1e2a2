// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "memplan.h"

#include "ratewall.h"

/* Sizes of the kernel's own structs behind a map (x86_64, Linux 6.x). */
#define K_HTAB 320          /* struct bpf_htab, rounded */
#define K_ARRAY 320         /* struct bpf_array header */
#define K_BUCKET 16         /* struct bucket: list head + raw spinlock */
#define K_HTAB_ELEM 48      /* struct htab_elem before the key */
#define K_LOCK_COUNT 8      /* HASHTAB_MAP_LOCK_COUNT ints per CPU */

static uint64_t round8(uint64_t v)
{
	return (v + 7) & ~7ULL;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/*
 * A preallocated hash map: buckets, lock ints per CPU, the elements (header,
 * key, value) plus one spare element per CPU, and a pointer per CPU to it.
 */
static uint64_t htab_bytes(uint32_t ncpus, uint64_t entries, uint32_t key, uint32_t value)
{
	uint64_t elem = K_HTAB_ELEM + round8(key) + round8(value);

	return K_HTAB + K_BUCKET * pow2_at_least(entries) + 4ULL * ncpus * K_LOCK_COUNT +
	       elem * (entries + ncpus) + 8ULL * ncpus;
}

static uint64_t array_bytes(uint32_t ncpus, uint64_t entries, uint32_t value, int percpu)
{
	if (percpu)
		return K_ARRAY + entries * 8 + entries * round8(value) * ncpus;
	return K_ARRAY + entries * round8(value);
}

uint64_t rw_memplan_per_flow(uint32_t ncpus, uint32_t slots)
{
	/* The bucket array rounds up to a power of two: up to two buckets a flow. */
	return K_HTAB_ELEM + round8(sizeof(struct rw_key)) + round8(rw_flow_value_size(slots, ncpus)) +
	       2 * K_BUCKET;
}

uint32_t rw_memplan_max_flows(const struct rw_config *cfg, uint32_t ncpus)
{
	struct rw_memplan fixed;
	uint64_t flows;

	if (cfg->max_flows)
		return cfg->max_flows;
	if (!cfg->max_memory)
		return RW_DEFAULT_MAX_FLOWS;
	rw_memplan(ncpus, 0, cfg->slots, &fixed);
	if (cfg->max_memory <= fixed.total)
		return 0;
	flows = (cfg->max_memory - fixed.total) / rw_memplan_per_flow(ncpus, cfg->slots);
	return flows > RW_MAX_MAX_FLOWS ? RW_MAX_MAX_FLOWS : (uint32_t)flows;
}

static void add(struct rw_memplan *p, const char *name, const char *what, uint64_t bytes)
{
	p->map[p->n++] = (struct rw_map_plan){ .name = name, .what = what, .bytes = bytes };
	p->total += bytes;
}

void rw_memplan(uint32_t ncpus, uint32_t max_flows, uint32_t slots, struct rw_memplan *out)
{
	out->n = 0;
	out->total = 0;
	add(out, "flows", "tracked sources: slot history + a 64 B hot record per CPU",
	    htab_bytes(ncpus, max_flows, sizeof(struct rw_key), rw_flow_value_size(slots, ncpus)));
	add(out, "sketch", "count-min sketch, per CPU",
	    array_bytes(ncpus, RW_SKETCH_ROWS * RW_SKETCH_COLS, rw_bucket_size(slots), 1));
	add(out, "marks", "tracked-source filter, shared",
	    4096 + ((sizeof(struct rw_marks) + 4095) & ~4095ULL));
	add(out, "window", "window totals per CPU and slot",
	    array_bytes(ncpus, RW_MAX_SLOTS, sizeof(struct rw_wslot), 1));
	add(out, "inherit_scratch", "promotion scratch, per CPU",
	    array_bytes(ncpus, 1, 2 * RW_MAX_SLOTS * sizeof(uint64_t), 1));
	add(out, "stats", "counters, per CPU and interface",
	    array_bytes(ncpus, RW_STATS_ENTRIES, sizeof(struct rw_stats), 1));
	/* The trie allocates per rule (about 100 B each); empty, it is charged nothing. */
	add(out, "rules", "operators' rules, longest prefix (grows ~100 B a rule)", 0);
	add(out, "rule_hint", "which /16s any rule covers",
	    array_bytes(ncpus, 1, sizeof(struct rw_rule_hint), 0));
	/* Ring buffer: data pages, mapped twice, plus its header pages. */
	add(out, "samples", "sampled sources for --levels (ring buffer)",
	    RW_SAMPLES_RINGBUF + 4 * 4096 + 2 * 8 * (RW_SAMPLES_RINGBUF / 4096));
	add(out, "events", "limited / banned / unbanned for --events (ring buffer)",
	    RW_EVENTS_RINGBUF + 4 * 4096 + 2 * 8 * (RW_EVENTS_RINGBUF / 4096));
	add(out, "zero_flow", "template for new flows",
	    array_bytes(ncpus, 1, rw_flow_value_size(slots, ncpus), 0));
	add(out, "thresholds", "runtime thresholds", array_bytes(ncpus, 1, sizeof(struct rw_thresholds), 0));
	/* Load-time constants and the test clock: one mmapable page each. */
	add(out, ".rodata .bss", "configuration fixed at load", 2 * 8192);
}
