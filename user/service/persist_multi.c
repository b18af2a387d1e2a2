// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/persist_multi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/exit.h"
#include "kernel/loader.h"
#include "kernel/multiprog.h"
#include "service/session.h"

bool rw_multi_pinned(const struct rw_meta *m)
{
	for (uint32_t i = 0; i < m->nifaces && i < RW_MAX_IFACES; i++) {
		if (m->ifaces[i].mode & RW_XDP_IN_DISPATCHER)
			return true;
	}
	return false;
}

void rw_multi_leave_all(struct rw_session *s)
{
	for (uint32_t i = 0; i < s->nat; i++) {
		if (s->at[i].multi) {
			s->at[i].keep = false;
			rw_xdp_detach(&s->at[i]);
		}
	}
}

int rw_multi_no_swap(const char *name)
{
	/*
	 * libxdp has no atomic swap of one program in a dispatcher: a new one
	 * beside the old would count every packet twice, the old one out first
	 * would leave a gap unlimited. A stop and a start is that gap, said.
	 */
	fprintf(stderr, "ratewall: instance %s is in libxdp's dispatcher, where --replace cannot swap "
		"its program in place; to change its options: ratewall stop --name %s, then start "
		"it again (its flow state starts afresh)\n", name, name);
	return RW_EXIT_USAGE;
}

int rw_multi_stop(const char *dir, const struct rw_meta *m)
{
	int fd = rw_pin_open(dir, "prog"), e = 0;
	uint32_t id;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	id = rw_prog_id(fd);
	close(fd);
	for (uint32_t i = 0; i < m->nifaces && i < RW_MAX_IFACES; i++) {
		if (!(m->ifaces[i].mode & RW_XDP_IN_DISPATCHER))
			continue;
		int r = rw_multi_detach(id, (int)m->ifaces[i].ifindex);

		if (r && !e)
			e = r;
	}
	return e;
}
