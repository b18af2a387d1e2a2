// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: any bytes as a rules file. Every rule accepted must print (as
 * `rule list` does) to text that parses back to the same rule.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "model/rules.h"

/* ratewall run's default key: sources, IPv6 by /64. */
static const struct rw_rule_scope scope = { RW_KIND_SRC, RW_DEFAULT_V6_PREFIX, 0 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rw_ruleset rs = { 0 };
	char err[256] = "", text[RW_RULE_STRLEN];
	FILE *f;

	f = fuzz_stream(data, size);
	if (!f)
		return 0;
	if (rw_rules_parse_stream(f, "fuzz.rules", &scope, &rs, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(rs.n <= RW_MAX_RULES);
		for (size_t i = 0; i < rs.n; i++) {
			const struct rw_rule_spec *r = &rs.rule[i];
			struct rw_rule_spec again;

			rw_rule_format(r, text, sizeof(text));
			FUZZ_ASSERT(rw_rule_parse(text, &scope, &again, err, sizeof(err)) == 0);
			FUZZ_ASSERT(rw_rule_same_prefix(r, &again) && again.action == r->action &&
				    again.pps == r->pps && again.bps == r->bps &&
				    again.per_len == r->per_len && again.per == r->per);
			FUZZ_ASSERT(r->per_len == 0 || r->per_len >= r->plen);
		}
	} else {
		FUZZ_ASSERT(strncmp(err, "fuzz.rules", 10) == 0 && rs.n == 0);
	}
	rw_ruleset_free(&rs);
	fclose(f);
	return 0;
}
