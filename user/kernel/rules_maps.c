// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/rules_maps.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/config.h"
#include "model/rule_match.h"

const char *const rw_rule_map_names[5] = { "rules", "rule_hint", "match_index", "rule_ports",
					   "rule_stats" };

int rw_rule_env_open(struct rw_rule_env *env, int (*open_map)(const char *dir, const char *name),
		     const char *dir)
{
	int *fds[] = { &env->rules_fd, &env->hint_fd, &env->index_fd, &env->ports_fd, &env->stats_fd };
	int missing = 0;

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		*fds[i] = open_map(dir, rw_rule_map_names[i]);
		missing |= *fds[i] < 0;
	}
	if (missing) {
		rw_rule_env_close(env);
		return -ENOENT;
	}
	return 0;
}

bool rw_is_rule_map(const char *name)
{
	for (size_t i = 0; i < sizeof(rw_rule_map_names) / sizeof(rw_rule_map_names[0]); i++) {
		if (strcmp(name, rw_rule_map_names[i]) == 0)
			return true;
	}
	return false;
}

void rw_rule_env_close(struct rw_rule_env *env)
{
	int *fds[] = { &env->rules_fd, &env->hint_fd, &env->index_fd, &env->ports_fd, &env->stats_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void rw_rule_to_kernel(const struct rw_rule_env *env, const struct rw_rule_spec *r, uint8_t match,
		       struct rw_rule_key *key, struct rw_rule *value)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = 16u + r->plen;
	key->match = match;
	key->family = r->prefix.family;
	memcpy(key->addr, r->prefix.addr, sizeof(key->addr));
	*value = (struct rw_rule){ .action = r->action, .per_len = r->per_len, .pps = r->pps,
				   .bps = r->bps, .id = r->id, .order = r->line, .plen = r->plen,
				   .per = r->per, .match = match, .m = r->match };
	if (r->action != RW_RULE_LIMIT)
		return;
	value->limit_packets = rw_limit_per_window(r->pps, env->window_ns, 1);
	value->limit_bytes = rw_limit_per_window(r->bps, env->window_ns, 8);
	value->cap_packets = rw_limit_threshold(value->limit_packets, env->ncpus, RW_MAX_THRESHOLD);
	value->cap_bytes = rw_limit_threshold(value->limit_bytes, env->ncpus, RW_MAX_THRESHOLD_BYTES);
}

void rw_rule_from_kernel(const struct rw_rule_key *key, const struct rw_rule *value,
			 struct rw_rule_spec *r)
{
	memset(r, 0, sizeof(*r));
	r->prefix.family = key->family;
	memcpy(r->prefix.addr, key->addr, sizeof(r->prefix.addr));
	r->plen = (uint8_t)(key->prefixlen - 16);
	r->action = (uint8_t)value->action;
	r->per_len = (uint8_t)value->per_len;
	r->per = value->per;
	r->match = value->m;
	r->match_no = key->match;
	r->pps = value->pps;
	r->bps = value->bps;
	r->id = value->id;
	r->line = value->order;
}

static void set_bit64(__u64 *bits, uint32_t i)
{
	bits[(i & 0xffff) / 64] |= 1ULL << (i % 64);
}

void rw_rule_hint_add(struct rw_rule_hint *hint, const struct rw_rule_spec *r)
{
	/* The hint keys IPv4 by 16 bits, IPv6 by 32: every such prefix the rule spans. */
	unsigned int key_bits = r->prefix.family == RW_FAMILY_IPV4 ? 16 : 32;
	bool qualified = rw_match_any(&r->match);
	__u64 *v4 = qualified ? hint->q4 : hint->v4, *v6 = qualified ? hint->q6 : hint->v6;
	uint32_t first, span;
	uint8_t a[4];

	hint->rules = 1;
	if (r->plen <= key_bits - 16) { /* spans every index there is */
		memset(r->prefix.family == RW_FAMILY_IPV4 ? v4 : v6, 0xff, sizeof(hint->v4));
		return;
	}
	memcpy(a, r->prefix.addr, 4);
	first = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	first >>= 32 - key_bits;
	span = r->plen >= key_bits ? 1 : 1u << (key_bits - r->plen);
	for (uint32_t i = 0; i < span; i++) {
		uint32_t v = first + i;

		if (key_bits == 16) {
			set_bit64(v4, v);
		} else {
			a[0] = (uint8_t)(v >> 24), a[1] = (uint8_t)(v >> 16);
			a[2] = (uint8_t)(v >> 8), a[3] = (uint8_t)v;
			set_bit64(v6, rw_hint_index(RW_FAMILY_IPV6, a));
		}
	}
}

/* Bit m in every port of table t the ranges take (none: every port). */
static void ports_add(uint64_t *ports, enum rw_port_table t, uint64_t bit,
		      const struct rw_port_range *r, unsigned int n)
{
	uint64_t *tab = ports + (size_t)t * 65536;

	if (!n) {
		for (unsigned int p = 0; p < 65536; p++)
			tab[p] |= bit;
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int p = r[i].lo; p <= r[i].hi; p++)
			tab[p] |= bit;
	}
}

void rw_match_index_add(struct rw_match_index *mi, uint64_t *ports, unsigned int m,
			const struct rw_match *mm)
{
	uint64_t bit = 1ULL << m;

	mi->any |= bit;
	if (mm->cls) {
		/* A class's match: its packets have no ports, flags or type to read. */
		if (mm->proto)
			mi->proto[mm->proto] |= bit;
		else
			mi->any_proto |= bit;
		mi->cls[mm->cls % RW_L4_CLASSES] |= bit;
		mi->classed |= bit;
		return;
	}
	mi->proto[mm->proto] |= bit;
	if (!rw_match_reads_l4(mm))
		mi->proto_only |= bit;
	if (mm->proto == IPPROTO_TCP || mm->proto == IPPROTO_UDP) {
		bool tcp = mm->proto == IPPROTO_TCP;

		ports_add(ports, tcp ? RW_PORTS_TCP_SRC : RW_PORTS_UDP_SRC, bit, mm->sport, mm->nsport);
		ports_add(ports, tcp ? RW_PORTS_TCP_DST : RW_PORTS_UDP_DST, bit, mm->dport, mm->ndport);
	}
	for (unsigned int f = 0; f < 256; f++) {
		if ((f & mm->flags_set) == mm->flags_set && !(f & mm->flags_clear))
			mi->tcp_flags[f] |= bit;
	}
	for (unsigned int t = 0; t < 256; t++) {
		if (!mm->has_type || mm->type == t) {
			mi->icmp_type[0][t] |= bit;
			mi->icmp_type[1][t] |= bit;
		}
	}
}

/* The hint and match index of the rules in a and b (b may be NULL), written to the kernel. */
static int write_index(const struct rw_rule_env *env, const struct rw_ruleset *a,
		       const struct rw_ruleset *b)
{
	const struct rw_ruleset *sets[] = { a, b };
	struct rw_rule_hint *hint = calloc(1, sizeof(*hint));
	struct rw_match_index *mi = calloc(1, sizeof(*mi));
	uint64_t *ports = calloc(RW_PORT_ENTRIES, sizeof(*ports)), *mapped = MAP_FAILED;
	bool seen[RW_MATCHES] = { false };
	__u32 zero = 0;
	int err = 0;

	if (!hint || !mi || !ports) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; sets[s] && i < sets[s]->n; i++) {
			const struct rw_rule_spec *r = &sets[s]->rule[i];

			rw_rule_hint_add(hint, r);
			if (r->match_no && !seen[r->match_no]) {
				seen[r->match_no] = true;
				rw_match_index_add(mi, ports, r->match_no, &r->match);
			}
		}
	}
	/* Ports first: a packet reads them only for matches the index holds. */
	mapped = mmap(NULL, RW_PORT_ENTRIES * sizeof(*ports), PROT_READ | PROT_WRITE, MAP_SHARED,
		      env->ports_fd, 0);
	if (mapped == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	for (size_t i = 0; i < RW_PORT_ENTRIES; i++) {
		if (mapped[i] != ports[i])
			__atomic_store_n(&mapped[i], ports[i], __ATOMIC_RELAXED);
	}
	if (bpf_map_update_elem(env->index_fd, &zero, mi, BPF_ANY) ||
	    bpf_map_update_elem(env->hint_fd, &zero, hint, BPF_ANY))
		err = -errno;
out:
	if (mapped != MAP_FAILED)
		munmap(mapped, RW_PORT_ENTRIES * sizeof(*ports));
	free(ports);
	free(mi);
	free(hint);
	return err;
}

static int read_counts(const struct rw_rule_env *env, struct rw_rule_spec *r,
		       struct rw_rule_stats *buf)
{
	__u32 id = r->id;

	r->packets = r->drops = 0;
	if (bpf_map_lookup_elem(env->stats_fd, &id, buf))
		return -errno;
	for (uint32_t c = 0; c < env->ncpus; c++) {
		r->packets += buf[c].packets;
		r->drops += buf[c].drops;
	}
	return 0;
}

static int by_order(const void *pa, const void *pb)
{
	const struct rw_rule_spec *a = pa, *b = pb;

	return a->line < b->line ? -1 : a->line > b->line;
}

int rw_rules_read(const struct rw_rule_env *env, struct rw_ruleset *out)
{
	struct rw_rule_stats *counts = calloc(env->ncpus ? env->ncpus : 1, sizeof(*counts));
	struct rw_rule_key key, next;
	struct rw_ruleset rs = { 0 };
	void *prev = NULL;
	int err = counts ? 0 : -ENOMEM;

	while (!err && bpf_map_get_next_key(env->rules_fd, prev, &next) == 0) {
		struct rw_rule value;
		struct rw_rule_spec r;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(env->rules_fd, &key, &value))
			continue; /* deleted meanwhile */
		rw_rule_from_kernel(&key, &value, &r);
		err = read_counts(env, &r, counts);
		if (!err)
			err = rw_ruleset_push(&rs, &r);
	}
	/* The walk ends with ENOENT; anything else is a failed read. */
	if (!err && errno != ENOENT)
		err = -errno;
	free(counts);
	if (err) {
		rw_ruleset_free(&rs);
		return err;
	}
	if (rs.n)
		qsort(rs.rule, rs.n, sizeof(*rs.rule), by_order);
	*out = rs;
	return 0;
}

static const struct rw_rule_spec *find(const struct rw_ruleset *rs, const struct rw_rule_spec *r)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (rw_rule_same_prefix(&rs->rule[i], r))
			return &rs->rule[i];
	}
	return NULL;
}

unsigned int rw_rules_capacity_of(int stats_fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(stats_fd, &info, &len) || !info.max_entries ||
	    info.max_entries > RW_MAX_RULES)
		return RW_MAX_RULES;
	return info.max_entries;
}

unsigned int rw_rules_capacity(const struct rw_rule_env *env)
{
	return rw_rules_capacity_of(env->stats_fd);
}

/*
 * The new rules' ids, match numbers and order: a rule in force keeps its id,
 * a match in force its number; the rest take the lowest free ones (free in
 * old and new both: a number or an id is never reused while the old rules
 * are still in the trie). New ids' counts start at zero.
 */
static int number(const struct rw_rule_env *env, const struct rw_ruleset *old,
		  struct rw_ruleset *rs)
{
	struct rw_match defs[RW_MATCHES];
	bool taken[RW_MATCHES] = { false };
	uint8_t *ids = calloc(RW_MAX_RULES / 8, 1);
	struct rw_rule_stats *zero = calloc(env->ncpus ? env->ncpus : 1, sizeof(*zero));
	unsigned int last = 0, next_id = 0, max_ids = rw_rules_capacity(env);
	int err = 0;

	if (!ids || !zero) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < old->n; i++) {
		const struct rw_rule_spec *o = &old->rule[i];

		taken[o->match_no] = true;
		defs[o->match_no] = o->match;
		ids[o->id / 8] |= (uint8_t)(1u << (o->id % 8));
		last = o->line > last ? o->line : last;
	}
	for (size_t i = 0; i < rs->n; i++)
		last = rs->rule[i].line > last ? rs->rule[i].line : last;
	for (size_t i = 0; i < rs->n && !err; i++) {
		struct rw_rule_spec *r = &rs->rule[i];
		const struct rw_rule_spec *o = find(old, r);
		unsigned int m = 0;

		if (!r->line)
			r->line = ++last;
		if (rw_match_any(&r->match)) {
			for (m = 1; m < RW_MATCHES; m++) {
				if (taken[m] && rw_match_equal(&defs[m], &r->match))
					break;
			}
			for (unsigned int f = 1; m == RW_MATCHES && f < RW_MATCHES; f++) {
				if (!taken[f]) {
					m = f;
					taken[m] = true;
					defs[m] = r->match;
				}
			}
			if (m == RW_MATCHES) {
				err = -E2BIG;
				break;
			}
		}
		r->match_no = (uint8_t)m;
		if (o) {
			r->id = o->id;
			continue;
		}
		while (next_id < max_ids && (ids[next_id / 8] & (1u << (next_id % 8))))
			next_id++;
		if (next_id >= max_ids) {
			err = -ENOSPC;
			break;
		}
		r->id = next_id;
		ids[next_id / 8] |= (uint8_t)(1u << (next_id % 8));
		if (bpf_map_update_elem(env->stats_fd, &r->id, zero, BPF_ANY))
			err = -errno;
	}
out:
	free(zero);
	free(ids);
	return err;
}

int rw_rules_install(const struct rw_rule_env *env, const struct rw_ruleset *want)
{
	struct rw_ruleset old = { 0 }, rs = { 0 };
	int err = rw_rules_read(env, &old);

	for (size_t i = 0; !err && i < want->n; i++)
		err = rw_ruleset_push(&rs, &want->rule[i]);
	if (!err)
		err = number(env, &old, &rs);
	/* Hint and match bits for old and new while both may be in the trie ... */
	if (!err)
		err = write_index(env, &old, &rs);
	for (size_t i = 0; !err && i < rs.n; i++) {
		struct rw_rule_key key;
		struct rw_rule value;

		rw_rule_to_kernel(env, &rs.rule[i], rs.rule[i].match_no, &key, &value);
		if (bpf_map_update_elem(env->rules_fd, &key, &value, BPF_ANY))
			err = -errno;
	}
	for (size_t i = 0; !err && i < old.n; i++) {
		struct rw_rule_key key;
		struct rw_rule value;

		if (find(&rs, &old.rule[i]))
			continue;
		rw_rule_to_kernel(env, &old.rule[i], old.rule[i].match_no, &key, &value);
		if (bpf_map_delete_elem(env->rules_fd, &key) && errno != ENOENT)
			err = -errno;
	}
	/* ... then only the new ones'. */
	if (!err)
		err = write_index(env, &rs, NULL);
	rw_ruleset_free(&rs);
	rw_ruleset_free(&old);
	return err;
}

int rw_rules_add(const struct rw_rule_env *env, const struct rw_rule_spec *r)
{
	struct rw_ruleset rs = { 0 };
	struct rw_rule_spec add = *r;
	int err = rw_rules_read(env, &rs);
	size_t i;

	for (i = 0; !err && i < rs.n; i++) {
		if (rw_rule_same_prefix(&rs.rule[i], r)) {
			add.line = rs.rule[i].line; /* replaced in place: it ties where it did */
			rs.rule[i] = add;
			break;
		}
	}
	if (!err && i == rs.n) {
		add.line = 0; /* after every other */
		err = rw_ruleset_push(&rs, &add);
	}
	if (!err && rs.n > rw_rules_capacity(env))
		err = -ENOSPC;
	if (!err)
		err = rw_rules_install(env, &rs);
	rw_ruleset_free(&rs);
	return err;
}

int rw_rules_del(const struct rw_rule_env *env, const struct rw_rule_spec *r)
{
	struct rw_ruleset rs = { 0 };
	int err = rw_rules_read(env, &rs);
	size_t i;

	for (i = 0; !err && i < rs.n; i++) {
		if (rw_rule_same_prefix(&rs.rule[i], r))
			break;
	}
	if (!err && i == rs.n)
		err = -ENOENT;
	if (!err) {
		memmove(&rs.rule[i], &rs.rule[i + 1], (rs.n - i - 1) * sizeof(rs.rule[0]));
		rs.n--;
		err = rw_rules_install(env, &rs);
	}
	rw_ruleset_free(&rs);
	return err;
}
