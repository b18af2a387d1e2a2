// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/rules_maps.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/config.h"

void rw_rule_to_kernel(const struct rw_rule_env *env, const struct rw_rule_spec *r,
		       struct rw_rule_key *key, struct rw_rule *value)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = 8u + r->plen;
	key->family = r->prefix.family;
	memcpy(key->addr, r->prefix.addr, sizeof(key->addr));
	*value = (struct rw_rule){ .action = r->action, .per_len = r->per_len, .pps = r->pps,
				   .bps = r->bps };
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
	r->plen = (uint8_t)(key->prefixlen - 8);
	r->action = (uint8_t)value->action;
	r->per_len = (uint8_t)value->per_len;
	r->pps = value->pps;
	r->bps = value->bps;
}

static void set_bit64(__u64 *bits, uint32_t i)
{
	bits[(i & 0xffff) / 64] |= 1ULL << (i % 64);
}

void rw_rule_hint_add(struct rw_rule_hint *hint, const struct rw_rule_spec *r)
{
	/* The hint keys IPv4 by 16 bits, IPv6 by 32: every such prefix the rule spans. */
	unsigned int key_bits = r->prefix.family == RW_FAMILY_IPV4 ? 16 : 32;
	uint32_t first, span;
	uint8_t a[4];

	if (r->plen <= key_bits - 16) { /* spans every index there is */
		memset(r->prefix.family == RW_FAMILY_IPV4 ? hint->v4 : hint->v6, 0xff,
		       sizeof(hint->v4));
		return;
	}
	memcpy(a, r->prefix.addr, 4);
	first = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	first >>= 32 - key_bits;
	span = r->plen >= key_bits ? 1 : 1u << (key_bits - r->plen);
	for (uint32_t i = 0; i < span; i++) {
		uint32_t v = first + i;

		if (key_bits == 16) {
			set_bit64(hint->v4, v);
		} else {
			a[0] = (uint8_t)(v >> 24), a[1] = (uint8_t)(v >> 16);
			a[2] = (uint8_t)(v >> 8), a[3] = (uint8_t)v;
			set_bit64(hint->v6, rw_hint_index(RW_FAMILY_IPV6, a));
		}
	}
}

static int write_hint(const struct rw_rule_env *env, const struct rw_rule_hint *hint)
{
	__u32 zero = 0;

	return bpf_map_update_elem(env->hint_fd, &zero, hint, BPF_ANY) ? -errno : 0;
}

static int read_hint(const struct rw_rule_env *env, struct rw_rule_hint *hint)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(env->hint_fd, &zero, hint) ? -errno : 0;
}

int rw_rules_read(const struct rw_rule_env *env, struct rw_ruleset *out)
{
	struct rw_rule_key key, next;
	struct rw_ruleset rs = { 0 };
	void *prev = NULL;
	int err = 0;

	while (bpf_map_get_next_key(env->rules_fd, prev, &next) == 0) {
		struct rw_rule value;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(env->rules_fd, &key, &value))
			continue; /* deleted meanwhile */
		if (rs.n == rs.cap) {
			size_t cap = rs.cap ? rs.cap * 2 : 64;
			struct rw_rule_spec *p = realloc(rs.rule, cap * sizeof(*p));

			if (!p) {
				err = -ENOMEM;
				break;
			}
			rs.rule = p;
			rs.cap = cap;
		}
		rw_rule_from_kernel(&key, &value, &rs.rule[rs.n++]);
	}
	/* The walk ends with ENOENT; anything else is a failed read. */
	if (!err && errno != ENOENT)
		err = -errno;
	if (err) {
		rw_ruleset_free(&rs);
		return err;
	}
	*out = rs;
	return 0;
}

/* A hint of exactly these rules. */
static int hint_of(const struct rw_ruleset *rs, struct rw_rule_hint **out)
{
	struct rw_rule_hint *hint = calloc(1, sizeof(*hint));

	if (!hint)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n; i++)
		rw_rule_hint_add(hint, &rs->rule[i]);
	*out = hint;
	return 0;
}

static bool contains(const struct rw_ruleset *rs, const struct rw_rule_spec *r)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (rw_rule_same_prefix(&rs->rule[i], r))
			return true;
	}
	return false;
}

int rw_rules_install(const struct rw_rule_env *env, const struct rw_ruleset *rs)
{
	struct rw_ruleset old = { 0 };
	struct rw_rule_hint *hint = NULL;
	int err = rw_rules_read(env, &old);

	if (!err)
		err = hint_of(rs, &hint);
	if (err)
		goto out;
	/* Bits for old and new while both may be in the trie ... */
	for (size_t i = 0; i < old.n; i++)
		rw_rule_hint_add(hint, &old.rule[i]);
	err = write_hint(env, hint);
	for (size_t i = 0; !err && i < rs->n; i++) {
		struct rw_rule_key key;
		struct rw_rule value;

		rw_rule_to_kernel(env, &rs->rule[i], &key, &value);
		if (bpf_map_update_elem(env->rules_fd, &key, &value, BPF_ANY))
			err = -errno;
	}
	for (size_t i = 0; !err && i < old.n; i++) {
		struct rw_rule_key key;
		struct rw_rule value;

		if (contains(rs, &old.rule[i]))
			continue;
		rw_rule_to_kernel(env, &old.rule[i], &key, &value);
		if (bpf_map_delete_elem(env->rules_fd, &key) && errno != ENOENT)
			err = -errno;
	}
	/* ... then only the new ones'. */
	if (!err) {
		free(hint);
		hint = NULL;
		err = hint_of(rs, &hint);
		if (!err)
			err = write_hint(env, hint);
	}
out:
	free(hint);
	rw_ruleset_free(&old);
	return err;
}

int rw_rules_add(const struct rw_rule_env *env, const struct rw_rule_spec *r)
{
	struct rw_rule_hint *hint = calloc(1, sizeof(*hint));
	struct rw_rule_key key;
	struct rw_rule value;
	int err;

	if (!hint)
		return -ENOMEM;
	err = read_hint(env, hint);
	if (!err) {
		rw_rule_hint_add(hint, r);
		err = write_hint(env, hint);
	}
	rw_rule_to_kernel(env, r, &key, &value);
	if (!err && bpf_map_update_elem(env->rules_fd, &key, &value, BPF_ANY))
		err = -errno;
	free(hint);
	return err;
}

int rw_rules_del(const struct rw_rule_env *env, const struct rw_rule_spec *r)
{
	struct rw_ruleset left = { 0 };
	struct rw_rule_hint *hint = NULL;
	struct rw_rule_key key;
	struct rw_rule value;
	int err;

	rw_rule_to_kernel(env, r, &key, &value);
	if (bpf_map_delete_elem(env->rules_fd, &key))
		return -errno;
	err = rw_rules_read(env, &left);
	if (!err)
		err = hint_of(&left, &hint);
	if (!err)
		err = write_hint(env, hint);
	free(hint);
	rw_ruleset_free(&left);
	return err;
}
