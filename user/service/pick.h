/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Which pinned instance a command is about: by name, by interface, or the only one. */
#ifndef RW_PICK_H
#define RW_PICK_H

#include "cli/config.h"

/*
 * want_name, else the instance on want_iface (in this network namespace),
 * else the only instance under root. 0 with its name in out; -1 after saying
 * on stderr why none (or which ones) matched; about: what the command does
 * with it, for the "none at all" hint.
 */
int rw_instance_pick(const char *root, const char *want_name, const char *want_iface,
		     const char *about, char out[RW_NAME_MAX]);

#endif
