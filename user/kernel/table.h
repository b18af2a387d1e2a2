/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tracked-flow table as userspace sees it: the program's four arrays (dir,
 * keys, hot, hist; see include/ratewall.h) mapped in place, read with no system
 * call per flow. A writable view may also delete idle entries, by the same
 * compare-and-swap protocol the data path honours (bpf/table.h).
 */
#ifndef RW_TABLE_H
#define RW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ratewall.h"
#include "ratewall_hash.h"
#include "ratewall_window.h"

/* The four maps of a table, as file descriptors (from a skeleton or from pins). */
struct rw_table_fds {
	int dir, keys, hot, hist;
};

struct rw_table {
	struct rw_dir *dir;
	struct rw_entry *ent;
	struct rw_hot *hot;         /* ncpus x entries, CPU-major */
	struct rw_hist_slot *hist;  /* entries x rw_hist_stride(slots): slots, then the schedule */
	size_t len[4];              /* mapped bytes of each */
	uint32_t nbuckets, entries, ncpus, slots;
	uint64_t seed;              /* the program's hash seed: where a key lives */
	uint64_t hash_mask;         /* bits of the hash the program keeps (tests narrow it) */
};

/* One tracked flow as a reader sees it: its state, every CPU's record, its history. */
struct rw_flow_view {
	uint64_t state;
	const struct rw_hot *hot;        /* ncpus records, CPU 0 first */
	uint32_t ncpus;
	const struct rw_hist_slot *hist; /* `slots` of them; NULL: none */
	uint64_t ban_until_ns;           /* --ban: the entry's ban as read (0: none) */
};

/*
 * Maps a table whose geometry is read from the maps themselves. writable: the
 * loader's view (it deletes idle entries); else read-only mappings, which no
 * one can make writable later. Either way the fds must be open for writing:
 * the kernel refuses to map a BPF map through a read-only fd. The fds may be
 * closed once mapped. 0 or a negative errno.
 */
int rw_table_map(struct rw_table *t, const struct rw_table_fds *fds, uint32_t ncpus,
		 uint32_t slots, uint64_t seed, bool writable);
void rw_table_unmap(struct rw_table *t);

/*
 * Entry i's key and state, if it holds one that a lookup may match, read as
 * the data path reads it (state unchanged around the copy).
 */
bool rw_table_entry(const struct rw_table *t, uint32_t i, struct rw_key *key, uint64_t *state);

/* Copies entry i's records (ncpus of them) into recs and describes the flow in *fv. */
void rw_table_flow(const struct rw_table *t, uint32_t i, uint64_t state, struct rw_hot *recs,
		   struct rw_flow_view *fv);

/* Where key lives: its home and overflow buckets and its tag, as the data path hashes it. */
struct rw_where rw_table_where(const struct rw_table *t, const struct rw_key *key);

/* The entry of key, or -1 (what the data path's lookup finds). */
int64_t rw_table_find(const struct rw_table *t, const struct rw_key *key, uint64_t *state);

/*
 * Removes entry i if its state is still `state` and that state is idle at
 * now_epoch (no count in the window, no ban in force at ban_now_ns). A packet
 * that revived it since changed the state first: then it stays. True if removed.
 */
bool rw_table_delete(struct rw_table *t, uint32_t i, uint64_t state, uint64_t now_epoch,
		     uint64_t ban_now_ns);

/* Entries holding a key now. */
uint64_t rw_table_count(const struct rw_table *t);
/* The same, from the keys map alone (read-only is enough): a count or a negative errno. */
int64_t rw_table_count_keys(int keys_fd);

#endif
