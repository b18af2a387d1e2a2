/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef RW_KEY_H
#define RW_KEY_H

#include <stddef.h>
#include "ratewall.h"

#define RW_KEY_STRLEN 46 /* INET6_ADDRSTRLEN */

/*
 * "198.18.0.7" or "2001:db8::7"; "198.18.3.0/24" for a prefix's shared budget;
 * "?" for a key of unknown family.
 */
void rw_key_format(const struct rw_key *key, char *buf, size_t len);

#endif
