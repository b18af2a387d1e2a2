/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Keys and prefixes as operators read and write them: addresses, CIDRs, /N. */
#ifndef RW_KEY_H
#define RW_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include "ratewall.h"

#define RW_KEY_STRLEN 46 /* INET6_ADDRSTRLEN */

/*
 * "198.18.0.7" or "2001:db8::7"; "198.18.3.0/24" for a prefix's shared budget;
 * "?" for a key of unknown family.
 */
void rw_key_format(const struct rw_key *key, char *buf, size_t len);

/*
 * key cut to its first len bits, the length recorded in RW_KEY_PREFIX_LEN;
 * false when the key is a prefix shorter than len already.
 */
bool rw_key_cut(const struct rw_key *key, unsigned int len, struct rw_key *out);

/* Whether key (a source, or a prefix at least plen long) lies inside prefix/plen. */
bool rw_key_within(const struct rw_key *key, const struct rw_key *prefix, unsigned int plen);

#endif
