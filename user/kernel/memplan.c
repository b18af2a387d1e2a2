// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/memplan.h"

#include "ratewall.h"

/* Sizes of the kernel's own structs behind a map (x86_64, Linux 6.x). */
#define K_ARRAY 320 /* struct bpf_array header */
#define K_PAGE 4096

static uint64_t round8(uint64_t v)
{
	return (v + 7) & ~7ULL;
}

static uint64_t page_up(uint64_t v)
{
	return (v + K_PAGE - 1) & ~(uint64_t)(K_PAGE - 1);
}

/* As the kernel's array_map_mem_usage: an mmapable array keeps header and values on pages of their own. */
static uint64_t array_bytes(uint32_t ncpus, uint64_t entries, uint32_t value, int percpu)
{
	if (percpu)
		return K_ARRAY + entries * 8 + entries * round8(value) * ncpus;
	return K_ARRAY + entries * round8(value);
}

/*
 * A preallocated LRU hash (htab_map_mem_usage): the map, its buckets, the
 * per-CPU lock counts and every element (a 48 B struct htab_elem, then the
 * key and value, each rounded to 8 B); an LRU has no extra elements.
 */
#define K_HTAB 768  /* struct bpf_htab, its LRU lists' heads included */
#define K_HTAB_ELEM 48
#define K_HTAB_BUCKET 16
#define K_HTAB_LOCKS 8
static uint64_t lru_hash_bytes(uint32_t ncpus, uint32_t entries, uint32_t key, uint32_t value)
{
	uint64_t buckets = 1;

	while (buckets < entries)
		buckets <<= 1;
	return K_HTAB + K_HTAB_BUCKET * buckets + 4ULL * ncpus * K_HTAB_LOCKS +
	       (uint64_t)entries * (K_HTAB_ELEM + round8(key) + round8(value));
}

/* A ring buffer of size bytes: its data pages, mapped twice, and its header pages. */
static uint64_t ringbuf_bytes(uint64_t size)
{
	return size + 4 * 4096 + 2 * 8 * (size / 4096);
}

static uint64_t mmap_array_bytes(uint64_t entries, uint32_t value)
{
	return page_up(K_ARRAY) + page_up(entries * round8(value));
}

/* Bytes of one table entry: its key line, its records on every CPU, its history, its share of a bucket. */
static uint64_t entry_bytes(uint32_t ncpus, uint32_t slots)
{
	return sizeof(struct rw_entry) + (uint64_t)ncpus * sizeof(struct rw_hot) +
	       rw_hist_size(slots) + sizeof(struct rw_dir) / RW_WAYS + 1;
}

uint64_t rw_memplan_per_flow(uint32_t ncpus, uint32_t slots)
{
	return (entry_bytes(ncpus, slots) * RW_TABLE_SLACK_NUM + RW_TABLE_SLACK_DEN - 1) /
	       RW_TABLE_SLACK_DEN;
}

uint32_t rw_memplan_max_flows(const struct rw_config *cfg, uint32_t ncpus)
{
	struct rw_memplan plan;
	uint64_t flows;

	if (cfg->max_flows)
		return cfg->max_flows;
	if (!cfg->max_memory)
		return RW_DEFAULT_MAX_FLOWS;
	rw_memplan(ncpus, 0, cfg->slots, cfg->max_rules, cfg->samples_dir[0] != 0, &plan);
	if (cfg->max_memory <= plan.total)
		return 0;
	flows = (cfg->max_memory - plan.total) / rw_memplan_per_flow(ncpus, cfg->slots);
	if (flows > RW_MAX_MAX_FLOWS)
		flows = RW_MAX_MAX_FLOWS;
	/* Whole buckets and pages round up: step down until the plan fits. */
	for (;;) {
		rw_memplan(ncpus, (uint32_t)flows, cfg->slots, cfg->max_rules, cfg->samples_dir[0] != 0,
			   &plan);
		if (plan.total <= cfg->max_memory || flows == 0)
			break;
		flows -= flows / 256 + 1;
	}
	return (uint32_t)flows;
}

static void add(struct rw_memplan *p, const char *name, const char *what, uint64_t bytes)
{
	p->map[p->n++] = (struct rw_map_plan){ .name = name, .what = what, .bytes = bytes };
	p->total += bytes;
}

void rw_memplan(uint32_t ncpus, uint32_t max_flows, uint32_t slots, uint32_t max_rules,
		bool samples, struct rw_memplan *out)
{
	uint64_t buckets = rw_table_buckets(max_flows), entries = buckets * RW_WAYS;

	out->n = 0;
	out->total = 0;
	add(out, "dir", "tracked-flow table: tags of each bucket, shared",
	    mmap_array_bytes(buckets, sizeof(struct rw_dir)));
	add(out, "keys", "tracked-flow table: key and state of each entry, shared",
	    mmap_array_bytes(entries, sizeof(struct rw_entry)));
	add(out, "hot", "tracked-flow table: a 32 B record per entry and CPU",
	    mmap_array_bytes(entries * ncpus, sizeof(struct rw_hot)));
	add(out, "hist", "tracked-flow table: per-slot history of each entry",
	    mmap_array_bytes(entries, rw_hist_size(slots)));
	add(out, "sketch", "count-min sketch, per CPU",
	    mmap_array_bytes((uint64_t)ncpus * RW_SKETCH_ROWS * RW_SKETCH_COLS, rw_bucket_size(slots)));
	add(out, "crowd", "the untracked keys' distinct count and window, per CPU and slot",
	    array_bytes(ncpus, rw_crowd_entries(slots), sizeof(struct rw_crowd), 1));
	add(out, "scratch", "clock and promotion scratch, per CPU",
	    array_bytes(ncpus, 1, sizeof(struct rw_scratch), 1));
	add(out, "window", "window totals per CPU and slot",
	    array_bytes(ncpus, RW_MAX_SLOTS, sizeof(struct rw_wslot), 1));
	add(out, "stats", "counters, per CPU and interface",
	    array_bytes(ncpus, RW_STATS_ENTRIES, sizeof(struct rw_stats), 1));
	/* The trie allocates per rule (about 100 B each); empty, it is charged nothing. */
	add(out, "rules", "operators' rules, longest prefix (grows ~100 B a rule)", 0);
	add(out, "rule_hint", "which /16s any rule covers",
	    array_bytes(ncpus, 1, sizeof(struct rw_rule_hint), 0));
	add(out, "match_index", "the rules' matches by protocol, TCP flags, ICMP type",
	    array_bytes(ncpus, 1, sizeof(struct rw_match_index), 0));
	add(out, "rule_ports", "the rules' matches by TCP and UDP port",
	    mmap_array_bytes(RW_PORT_ENTRIES, sizeof(__u64)));
	add(out, "rule_search", "a packet's rule search, per CPU",
	    array_bytes(ncpus, 1, sizeof(struct rw_rule_search), 1));
	add(out, "frags", "what first fragments met, for their later ones, per CPU",
	    array_bytes(ncpus, RW_FRAG_SLOTS, sizeof(struct rw_frag), 1));
	add(out, "rule_stats", "each rule's packets and drops, per CPU",
	    array_bytes(ncpus, max_rules ? max_rules : RW_MAX_RULES, sizeof(struct rw_rule_stats), 1));
	add(out, "samples", "sampled sources for --levels (ring buffer)",
	    ringbuf_bytes(RW_SAMPLES_RINGBUF));
	add(out, "events", "limited / banned / unbanned for --events (ring buffer)",
	    ringbuf_bytes(RW_EVENTS_RINGBUF));
	/* Without --samples the loader shrinks both to a page and one key (kernel/loader.c). */
	add(out, "pcap_ring", "--samples: the sampled frames (ring buffer)",
	    ringbuf_bytes(samples ? RW_PCAP_RINGBUF : 4096));
	add(out, "pcap_keys", "--samples: the keys sampling, their frames left",
	    lru_hash_bytes(ncpus, samples ? RW_PCAP_KEYS : 1, sizeof(struct rw_key),
			   sizeof(struct rw_pcap_budget)));
	/* A trie: charged by the entries it allocates, at most one a heavy prefix armed. */
	add(out, "pcap_nets", "--samples: the heavy prefixes sampling (~110 B each armed)", 0);
	add(out, "thresholds", "runtime thresholds", array_bytes(ncpus, RW_KIND_COUNT, sizeof(struct rw_thresholds), 0));
	/* Load-time constants and the test clock: one mmapable page each. */
	add(out, ".rodata .bss", "configuration fixed at load", 2 * 8192);
}
