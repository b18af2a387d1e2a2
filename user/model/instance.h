/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An instance's name and its interfaces' names: what a run is called (a
 * directory in bpffs, the interfaces joined by '+' by default) and which
 * interface names it takes. Every command that names an instance checks it here.
 */
#ifndef RW_MODEL_INSTANCE_H
#define RW_MODEL_INSTANCE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "ratewall.h"

/* An instance name (a bpffs directory): the interfaces joined by '+' by default. */
#define RW_NAME_MAX 136

_Static_assert(RW_MAX_IFACES * IF_NAMESIZE <= RW_NAME_MAX, "default name fits");

/* A directory name in bpffs: any clean bytes but '/', and not . or .. */
bool rw_valid_instance_name(const char *name);
/*
 * An interface name as a command line may give it: the kernel's rule (no '/',
 * ':' or whitespace, not . or ..), and no '+', which joins names, nor a
 * leading '-', which starts options.
 */
bool rw_valid_ifname(const char *name);
/* The interfaces joined by '+' (fits: RW_MAX_IFACES x IF_NAMESIZE < RW_NAME_MAX). */
void rw_default_instance_name(const char ifnames[][IF_NAMESIZE], uint32_t n,
			      char name[RW_NAME_MAX]);

#endif
