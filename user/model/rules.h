/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules as operators write them, one a line: `CIDR [MATCH] ACTION [options]`
 *   198.51.100.7 allow                      never dropped, still counted
 *   203.0.113.0/24 deny                     always dropped, counted
 *   192.0.2.0/24 limit 50k                  its own per-source limit (pps)
 *   2001:db8:1::/48 limit 10kpps 20Mbps     packets and bits per second
 *   198.18.0.0/16 limit 50k per /24         one budget for each /24 inside
 *   0.0.0.0/0 tcp flags syn limit 200       a source's SYNs (rule_match.h)
 *   0.0.0.0/0 udp sport 53 limit 20k per dst   what each destination receives
 * The longest prefix decides; at equal length a rule with a match before one
 * without, then the earlier line. `#` starts a comment. Parsing only:
 * rules_maps.c puts them in the kernel.
 */
#ifndef RW_RULES_H
#define RW_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "ratewall.h"

#define RW_RULE_LINE_MAX 512
#define RW_RULE_STRLEN 320

struct rw_rule_spec {
	struct rw_key prefix; /* family and address, host bits zero */
	uint8_t plen;
	uint8_t action;       /* enum rw_rule_action */
	uint8_t per_len;      /* limit ... per /LEN: LEN; 0 = per key */
	uint8_t per;          /* limit ... per src|dst|pair: enum rw_rule_per */
	struct rw_match match; /* proto 0: the prefix alone */
	uint64_t pps, bps;    /* limit: per second, 0 = none */
	unsigned int line;    /* where it was read: errors, and the order of rules that tie */
	/* In the kernel (rw_rules_read): */
	uint32_t id;          /* its counts' index */
	uint8_t match_no;     /* its match's number, 0 for none */
	uint64_t packets, drops; /* what it decided and dropped, every CPU */
};

/*
 * What the key keeps of an address (--key, --v6-prefix): rules are checked
 * against it, since a rule finer than the key cannot have a key of its own.
 */
struct rw_rule_scope {
	uint8_t key_kind;  /* enum rw_key_kind */
	uint8_t v6_prefix; /* 1..128: an IPv6 src, dst or pair key is cut to this */
	uint32_t max_rules; /* --max-rules: the most a file may hold; 0 = RW_MAX_RULES */
};

struct rw_ruleset {
	struct rw_rule_spec *rule;
	size_t n, cap;
};

/* "198.18.0.0/15", "2001:db8::/32", or an address alone (a host). -EINVAL, reason in err. */
int rw_parse_cidr(const char *s, struct rw_key *prefix, uint8_t *plen, char *err, size_t errlen);
/*
 * One rule's text (no comment), for a key of this scope. -EINVAL with the
 * reason in err. Every rule a user gives comes in here (a file, SIGHUP, rule add).
 */
int rw_rule_parse(const char *text, const struct rw_rule_scope *scope, struct rw_rule_spec *r,
		  char *err, size_t errlen);
/*
 * What `rule del` takes: CIDR and the match, no action ("198.18.0.0/15 tcp
 * flags syn"). -EINVAL with the reason in err.
 */
int rw_rule_parse_selector(const char *text, struct rw_rule_spec *r, char *err, size_t errlen);
/*
 * A whole rules file: every rule valid, no prefix and match twice, at most
 * scope->max_rules rules and RW_MATCHES - 1 different matches.
 * -EINVAL with "PATH:LINE: reason" in err; out is left empty then.
 */
int rw_rules_parse_stream(FILE *f, const char *path, const struct rw_rule_scope *scope,
			  struct rw_ruleset *out, char *err, size_t errlen);
int rw_rules_parse_file(const char *path, const struct rw_rule_scope *scope,
			struct rw_ruleset *out, char *err, size_t errlen);
void rw_ruleset_free(struct rw_ruleset *rs);
/* Appends a copy of r. 0 or -ENOMEM. */
int rw_ruleset_push(struct rw_ruleset *rs, const struct rw_rule_spec *r);
/* Whether two specs name the same prefix and match: one of them is in force. */
bool rw_rule_same_prefix(const struct rw_rule_spec *a, const struct rw_rule_spec *b);
/*
 * The rule that governs a key, as the data path chose it: a rule's budget
 * (RW_KIND_RULE) names its rule's id; any other key is under the
 * longest prefix-only rule that covers its address. NULL: none.
 */
const struct rw_rule_spec *rw_rule_of_key(const struct rw_ruleset *rs, const struct rw_key *key);
/*
 * The id of the rule that governs a key, as the JSON report and events give
 * it: a rule's budget carries its own even when rs is not at hand. False: none.
 */
bool rw_rule_id_of_key(const struct rw_ruleset *rs, const struct rw_key *key, uint32_t *id);
/* The rule as it would be written in a file (what `rule list` prints). */
void rw_rule_format(const struct rw_rule_spec *r, char *buf, size_t len);

#endif
