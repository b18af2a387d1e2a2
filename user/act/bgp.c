// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* PLACEHOLDER until the bgp branch lands: refuses to start. */
#include "act/bgp.h"

#include <errno.h>
#include <stdio.h>

int rw_bgp_journal_create(uint32_t max)
{
	(void)max;
	return -ENOSYS;
}

struct rw_bgp *rw_bgp_start(const struct rw_bgp_config *c, int journal_fd, char *err,
			    size_t errlen)
{
	(void)c, (void)journal_fd;
	snprintf(err, errlen, "BGP is not in this build yet");
	return NULL;
}

void rw_bgp_want(struct rw_bgp *b, const struct rw_route *r, size_t n, uint64_t never)
{
	(void)b, (void)r, (void)n, (void)never;
}

void rw_bgp_counts(struct rw_bgp *b, struct rw_bgp_counts *c)
{
	(void)b, (void)c;
}

size_t rw_bgp_messages(struct rw_bgp *b, char (*out)[RW_BGP_MSG_LEN], size_t max)
{
	(void)b, (void)out, (void)max;
	return 0;
}

void rw_bgp_stop(struct rw_bgp *b, bool withdraw)
{
	(void)b, (void)withdraw;
}

int rw_bgp_withdraw_journal(const struct rw_bgp_config *c, int journal_fd, char *err,
			    size_t errlen)
{
	(void)c, (void)journal_fd;
	snprintf(err, errlen, "BGP is not in this build yet");
	return -ENOSYS;
}
