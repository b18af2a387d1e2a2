/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF tests' harness: the real XDP program loaded the way `ratewall run`
 * loads it, its tracked-flow table mapped through the loader's own reader,
 * time driven through the program's test clock, crafted frames run through
 * bpf_prog_test_run_opts.
 */
#ifndef RW_BPFENV_H
#define RW_BPFENV_H

#include <stdbool.h>
#include <stdint.h>

#include "frames.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "kernel/rules_maps.h"
#include "kernel/table.h"
#include "kernel/window.h"
#include "ratewall.skel.h"

#define MS 1000000ULL
#define SRC4 0xc6120001u /* 198.18.0.1 */

struct env {
	struct ratewall_bpf *skel;
	int prog, stats, thresholds;
	struct rw_table_fds fds;
	struct rw_table t; /* mapped writable, as the loader maps it */
	struct rw_hot *recs;
	uint32_t ncpus, slots;
	uint64_t slot_ns;
};

/* The load options tests vary besides the limits. */
struct env_mode {
	bool dry_run, malformed_drop, sample, events;
	bool pcap; /* --samples: the frames' maps sized as ratewall run sizes them */
	uint64_t ban_ns;
	uint64_t hash_clear; /* bits cleared from every hash: ~0 makes every key collide */
	uint64_t hash_seed;  /* 0: a random one */
	uint8_t key_kind;    /* --key */
	uint8_t rank_mask;   /* --rank */
	uint8_t v6_prefix;   /* --v6-prefix; 0: 128 here (whole addresses), unlike ratewall run */
	/*
	 * --burst: only with paced. Unpaced (the default here) is --burst window:
	 * no schedule, the window alone, so that tests of the window's own
	 * exactness may send a window's packets at one instant.
	 */
	bool paced;
	uint64_t burst_ns;
};

void set_thresholds(struct env *e, uint64_t promote_packets, int64_t free_promotions);
/*
 * Loads the program as `ratewall run` does. Like `ratewall run` while its
 * table has room, every new source is tracked from its first packet, unless
 * a test sets other thresholds.
 */
bool env_open_mode(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
		   uint64_t limit_bytes, uint32_t max_flows, struct env_mode mode);
bool env_open_sized(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
		    uint64_t limit_bytes, uint32_t max_flows);
bool env_open(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
	      uint64_t limit_bytes);
void env_close(struct env *e);
void set_time(struct env *e, uint64_t ns);
uint32_t run_frame(struct env *e, const struct fb *f);
void read_stats(struct env *e, struct rw_stats *s);
/* Sums one tracked flow's window at now_epoch; false if the source is not tracked. */
bool flow_window(struct env *e, const struct rw_key *k, uint64_t now_epoch,
		 struct rw_window_sum *w);
/* How many entries of the table hold key k (never more than one). */
uint32_t entries_of(struct env *e, const struct rw_key *k);
struct rw_key key4(uint32_t saddr);
struct rw_key key6(uint32_t low);
bool pin_cpu(int cpu);
/* Sends count IPv4 frames from saddr, adding the verdicts to *passed and *dropped. */
void send4(struct env *e, uint32_t saddr, int count, size_t payload, uint32_t *passed,
	   uint32_t *dropped);
/* Sends count frames from saddr; returns how many passed. */
uint32_t passed_of(struct env *e, uint32_t saddr, int count);
uint64_t new_flows(struct env *e);
/* CPU 0's value of entry idx of a per-CPU array map (size: the value's), into out. */
bool cpu0_value(struct env *e, const struct bpf_map *map, uint32_t idx, void *out, size_t size);

/*
 * Races (struct rw_race): race_write() plants one 8-byte write of another
 * CPU, race_arm() the point of the data path where they all land, once.
 */
void race_write(struct env *e, uint32_t line, uint32_t index, uint32_t off, uint64_t val);
/* ... one that adds val to the word (fetch-and-add) instead: a move relative to what is there. */
void race_add(struct env *e, uint32_t line, uint32_t index, uint32_t off, uint64_t val);
/* ... or `rounds` of an empty loop there: the CPU that reached the point is slow. */
void race_spin(struct env *e, uint64_t rounds);
void race_arm(struct env *e, uint32_t point);
/*
 * ... at the point's first `passes` passes, then at next's first
 * `next_passes` (the same writes again: a CPU that goes on writing).
 */
void race_arm_chain(struct env *e, uint32_t point, uint32_t passes, uint32_t next,
		    uint32_t next_passes);
/* Whether the armed race was played (its point was reached). */
bool race_played(struct env *e);

/* The test env's rule maps, as the loader uses them. */
struct rw_rule_env rule_env_of(struct env *e);
struct rw_rule_scope rule_scope_of(struct env *e);
/* Installs the rules in text (a rules file) into the env's program. */
void install_rules(struct env *e, const char *text);

/*
 * The history of every entry, mapped writable (the program's to write, the
 * loader maps it read-only): tests plant another CPU's writes in it. Unmapped
 * with munmap(result, *len); NULL if it cannot be mapped.
 */
struct rw_hist_slot *hist_rw(struct env *e, size_t *len);
/* Entry idx's schedule in it; the mapping in *map, for munmap(*map, *len). */
struct rw_pace *pace_rw(struct env *e, uint32_t idx, void **map, size_t *len);
/* Entry idx's schedule in a mapping h of the history. */
struct rw_pace *pace_in(struct env *e, struct rw_hist_slot *h, uint32_t idx);

/* The tracked-flow table's own tests (table/test_table.c). */
void run_table_tests(void);
/* Keys of every kind (test_keys.c). */
void run_key_tests(void);
void run_pace_tests(void);
/* The sketch under a wide flood (test_flood.c). */
void run_flood_tests(void);
void run_crowd_tests(void);
/* Rules with a match: protocol, ports, flags, type (test_rules.c). */
void run_rule_match_tests(void);
/* The program loads as RW_MAX_CPUS CPUs would load it, every branch taken (test_load.c). */
void run_load_tests(void);
/* --samples: a heavy prefix's frames (test_pcap.c). */
void run_pcap_tests(void);
/* rwgen's live frames and its packet socket send the same frames (test_rwgen.c). */
void run_rwgen_tests(void);
/* The BGP driver's thread against a fake speaker (test_bgp.c). */
void run_bgp_tests(void);

#endif
