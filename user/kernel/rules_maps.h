/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules in the kernel: the longest-prefix trie `rules` and its /16 hint.
 * Every change keeps the data path safe while it happens: hint bits are set
 * before a rule goes in and cleared only after it is gone, so no packet ever
 * skips a rule that is in force.
 */
#ifndef RW_RULES_MAPS_H
#define RW_RULES_MAPS_H

#include <stdint.h>
#include "cli/rules.h"

/* What turns a rule's rates into the program's per-window limits. */
struct rw_rule_env {
	int rules_fd, hint_fd;
	uint64_t window_ns; /* slot length x slots, as the program counts */
	uint32_t ncpus;
};

/* The kernel's form of a rule. */
void rw_rule_to_kernel(const struct rw_rule_env *env, const struct rw_rule_spec *r,
		       struct rw_rule_key *key, struct rw_rule *value);
/* Back from the kernel's form (for listing). */
void rw_rule_from_kernel(const struct rw_rule_key *key, const struct rw_rule *value,
			 struct rw_rule_spec *r);
/* Sets the hint bits of every /16 the rule covers. */
void rw_rule_hint_add(struct rw_rule_hint *hint, const struct rw_rule_spec *r);

/* Makes the kernel's rules exactly rs. 0 or a negative errno (the old rules then may be mixed). */
int rw_rules_install(const struct rw_rule_env *env, const struct rw_ruleset *rs);
/* Adds or replaces one rule / deletes one (-ENOENT: no rule for that prefix). */
int rw_rules_add(const struct rw_rule_env *env, const struct rw_rule_spec *r);
int rw_rules_del(const struct rw_rule_env *env, const struct rw_rule_spec *r);
/* The rules in the kernel, sorted by prefix. */
int rw_rules_read(const struct rw_rule_env *env, struct rw_ruleset *out);

#endif
