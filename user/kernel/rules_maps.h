/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules in the kernel: the trie `rules` (match number, family, address), its
 * /16 hint, the index of qualified matches (match_index, rule_ports) and each
 * rule's counts (rule_stats). Every change keeps the data path safe while it
 * happens: hint and match bits are set before a rule goes in and cleared only
 * after it is gone, so no packet ever skips a rule that is in force; a match
 * number is never given to another match while a rule of the old one may be
 * in the trie.
 */
#ifndef RW_RULES_MAPS_H
#define RW_RULES_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include "model/rules.h"

/* The rules maps, and what turns a rule's rates into the program's per-window limits. */
struct rw_rule_env {
	int rules_fd, hint_fd, index_fd, ports_fd, stats_fd;
	uint64_t window_ns; /* slot length x slots, as the program counts */
	uint32_t ncpus;
};

/* The pinned names of the rules maps, in the order of rw_rule_env's fds. */
extern const char *const rw_rule_map_names[5];
/*
 * Opens the rules maps by name with open_map (an fd, or negative); -ENOENT
 * when one is missing (the fds then closed).
 */
int rw_rule_env_open(struct rw_rule_env *env, int (*open_map)(const char *dir, const char *name),
		     const char *dir);
void rw_rule_env_close(struct rw_rule_env *env);
/* Whether a map is one of them (they are kept whatever a --replace changes). */
bool rw_is_rule_map(const char *name);

/* The kernel's form of a rule, under match number `match` (0: the prefix alone). */
void rw_rule_to_kernel(const struct rw_rule_env *env, const struct rw_rule_spec *r, uint8_t match,
		       struct rw_rule_key *key, struct rw_rule *value);
/* Back from the kernel's form (for listing). */
void rw_rule_from_kernel(const struct rw_rule_key *key, const struct rw_rule *value,
			 struct rw_rule_spec *r);
/* Sets the hint bits of every /16 the rule covers (q4, q6 for a rule with a match). */
void rw_rule_hint_add(struct rw_rule_hint *hint, const struct rw_rule_spec *r);
/* Adds match number m (its definition mm) to an index and its port masks (RW_PORT_ENTRIES). */
void rw_match_index_add(struct rw_match_index *mi, uint64_t *ports, unsigned int m,
			const struct rw_match *mm);

/*
 * Makes the kernel's rules exactly rs: a rule already in force (same prefix
 * and match) keeps its id and counts; rules tie in rs's order (line). 0 or a
 * negative errno (the old rules then may be mixed); -E2BIG: more than
 * RW_MATCHES - 1 matches, old and new together.
 */
int rw_rules_install(const struct rw_rule_env *env, const struct rw_ruleset *rs);
/* Adds or replaces one rule (a new one ties after every other) / deletes one (-ENOENT: none). */
int rw_rules_add(const struct rw_rule_env *env, const struct rw_rule_spec *r);
int rw_rules_del(const struct rw_rule_env *env, const struct rw_rule_spec *r);
/* How many rules the instance holds at once (--max-rules): the entries of rule_stats. */
unsigned int rw_rules_capacity(const struct rw_rule_env *env);
unsigned int rw_rules_capacity_of(int stats_fd);
/* The rules in the kernel with their counts, in the order they tie in. */
int rw_rules_read(const struct rw_rule_env *env, struct rw_ruleset *out);

#endif
