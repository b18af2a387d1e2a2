// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/table.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ratewall_hash.h"

static size_t page_up(size_t v)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (v + page - 1) & ~(page - 1);
}

/* max_entries and value size of a map. */
static int map_geometry(int fd, uint32_t *entries, uint32_t *value_size)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*entries = info.max_entries;
	*value_size = info.value_size;
	return 0;
}

static int map_one(int fd, size_t len, bool writable, void **out)
{
	void *p = mmap(NULL, len, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

int rw_table_map(struct rw_table *t, const struct rw_table_fds *fds, uint32_t ncpus,
		 uint32_t slots, uint64_t seed, bool writable)
{
	uint32_t n = 0, vs = 0, hot_n = 0, hot_vs = 0, hist_n = 0, hist_vs = 0;
	int err;

	memset(t, 0, sizeof(*t));
	err = map_geometry(fds->dir, &n, &vs);
	if (!err)
		err = map_geometry(fds->hot, &hot_n, &hot_vs);
	if (!err)
		err = map_geometry(fds->hist, &hist_n, &hist_vs);
	if (err)
		return err;
	/* The maps must be the table this code reads: refuse any other geometry. */
	if (vs != sizeof(struct rw_dir) || hot_vs != sizeof(struct rw_hot) ||
	    hist_vs != rw_hist_size(slots) || hist_n != n * RW_WAYS ||
	    (uint64_t)hot_n != (uint64_t)ncpus * n * RW_WAYS)
		return -EINVAL;
	t->nbuckets = n;
	t->entries = n * RW_WAYS;
	t->ncpus = ncpus;
	t->slots = slots;
	t->seed = seed;
	t->hash_mask = ~0ULL;
	t->len[0] = page_up((size_t)n * sizeof(struct rw_dir));
	t->len[1] = page_up((size_t)t->entries * sizeof(struct rw_entry));
	t->len[2] = page_up((size_t)hot_n * sizeof(struct rw_hot));
	t->len[3] = page_up((size_t)t->entries * rw_hist_size(slots));
	err = map_one(fds->dir, t->len[0], writable, (void **)&t->dir);
	if (!err)
		err = map_one(fds->keys, t->len[1], writable, (void **)&t->ent);
	if (!err)
		err = map_one(fds->hot, t->len[2], false, (void **)&t->hot);
	if (!err)
		err = map_one(fds->hist, t->len[3], false, (void **)&t->hist);
	if (err)
		rw_table_unmap(t);
	return err;
}

void rw_table_unmap(struct rw_table *t)
{
	void *p[4] = { t->dir, t->ent, t->hot, t->hist };

	for (int i = 0; i < 4; i++)
		if (p[i])
			munmap(p[i], t->len[i]);
	memset(t, 0, sizeof(*t));
}

bool rw_table_entry(const struct rw_table *t, uint32_t i, struct rw_key *key, uint64_t *state)
{
	const struct rw_entry *e = &t->ent[i];
	uint64_t s = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

	if (!rw_st_live(s))
		return false;
	memcpy(key, &e->key, sizeof(*key));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&e->state, __ATOMIC_RELAXED) != s)
		return false;
	*state = s;
	return true;
}

void rw_table_flow(const struct rw_table *t, uint32_t i, uint64_t state, struct rw_hot *recs,
		   struct rw_flow_view *fv)
{
	for (uint32_t c = 0; c < t->ncpus; c++)
		recs[c] = t->hot[(size_t)c * t->entries + i];
	*fv = (struct rw_flow_view){ .state = state, .hot = recs, .ncpus = t->ncpus,
				     .hist = &t->hist[(size_t)i * rw_hist_stride(t->slots)],
				     .ban_until_ns = __atomic_load_n(&t->ent[i].ban_until_ns,
								     __ATOMIC_RELAXED) };
}

static int64_t find_in(const struct rw_table *t, uint32_t b, uint32_t tag, const struct rw_key *key,
		       uint64_t *state)
{
	for (uint32_t w = 0; w < RW_WAYS; w++) {
		uint32_t i = b * RW_WAYS + w;
		struct rw_key k;

		if (__atomic_load_n(&t->dir[b].tag[w], __ATOMIC_RELAXED) == tag &&
		    rw_table_entry(t, i, &k, state) && memcmp(&k, key, sizeof(k)) == 0)
			return i;
	}
	return -1;
}

struct rw_where rw_table_where(const struct rw_table *t, const struct rw_key *key)
{
	return rw_where_of(rw_hash(key, t->seed) & t->hash_mask, t->nbuckets);
}

int64_t rw_table_find(const struct rw_table *t, const struct rw_key *key, uint64_t *state)
{
	struct rw_where w = rw_table_where(t, key);
	int64_t i = find_in(t, w.home, w.tag, key, state);

	if (i < 0 && (__atomic_load_n(&t->dir[w.home].ctl, __ATOMIC_RELAXED) & RW_DIR_OVERFLOW_MASK))
		i = find_in(t, w.overflow, w.tag, key, state);
	return i;
}

bool rw_table_delete(struct rw_table *t, uint32_t i, uint64_t state, uint64_t now_epoch,
		     uint64_t ban_now_ns)
{
	struct rw_entry *e = &t->ent[i];
	uint64_t busy = (state & ~RW_ST_LIVE) | RW_ST_BUSY;

	if (!rw_st_idle(state, now_epoch, t->slots) ||
	    __atomic_load_n(&e->ban_until_ns, __ATOMIC_RELAXED) > ban_now_ns)
		return false;
	if (!__atomic_compare_exchange_n(&e->state, &state, busy, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return false;
	/* BUSY: no lookup matches it and no insert takes it while its tag goes. */
	__atomic_store_n(&t->dir[i / RW_WAYS].tag[i % RW_WAYS], 0, __ATOMIC_SEQ_CST);
	if ((state & RW_ST_OVERFLOW) && e->home < t->nbuckets)
		__atomic_fetch_sub(&t->dir[e->home].ctl, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&e->state, rw_st_make(rw_st_epoch(state), rw_st_gen(state), 0),
			 __ATOMIC_SEQ_CST);
	return true;
}

uint64_t rw_table_count(const struct rw_table *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->entries; i++)
		n += rw_st_live(__atomic_load_n(&t->ent[i].state, __ATOMIC_RELAXED));
	return n;
}

int64_t rw_table_count_keys(int keys_fd)
{
	uint32_t n = 0, vs = 0;
	int64_t count = 0;
	struct rw_entry *e = NULL;
	size_t len;
	int err = map_geometry(keys_fd, &n, &vs);

	if (err)
		return err;
	if (vs != sizeof(struct rw_entry))
		return -EINVAL;
	len = page_up((size_t)n * vs);
	err = map_one(keys_fd, len, false, (void **)&e);
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++)
		count += rw_st_live(__atomic_load_n(&e[i].state, __ATOMIC_RELAXED));
	munmap(e, len);
	return count;
}
