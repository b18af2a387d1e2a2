// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* PLACEHOLDER until the hook branch lands: refuses to start. */
#include "act/hook.h"

#include <errno.h>
#include <stdio.h>

struct rw_hook *rw_hook_start(const struct rw_hook_config *c, char *err, size_t errlen)
{
	(void)c;
	snprintf(err, errlen, "the command runner is not in this build yet");
	return NULL;
}

int rw_hook_check(const struct rw_hook_config *c, char *err, size_t errlen)
{
	(void)c;
	(void)err;
	(void)errlen;
	return 0;
}

bool rw_hook_offer(struct rw_hook *h, uint32_t type, const char *key, const char *json)
{
	(void)h, (void)type, (void)key, (void)json;
	return false;
}

size_t rw_hook_results(struct rw_hook *h, struct rw_hook_result *out, size_t max)
{
	(void)h, (void)out, (void)max;
	return 0;
}

void rw_hook_counts(struct rw_hook *h, struct rw_hook_counts *c)
{
	(void)h, (void)c;
}

void rw_hook_stop(struct rw_hook *h, uint64_t grace_ns)
{
	(void)h, (void)grace_ns;
}
