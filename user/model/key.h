/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Keys and prefixes as operators read and write them: addresses, CIDRs, /N. */
#ifndef RW_KEY_H
#define RW_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include "model/kinds.h"
#include "ratewall.h"

/* Longest text of a key: "icmpv6 [2001:db8:...]:65535 → [2001:db8:...]:65535" and a NUL. */
#define RW_KEY_STRLEN 128

/*
 * A key as people read it: "198.18.0.7", "2001:db8:1:2::/64" (an IPv6 address
 * cut to --v6-prefix, or a prefix's shared budget "198.18.3.0/24"),
 * "198.18.0.1 → 198.19.0.5" (pair), "udp 198.18.0.1:5353 → [2001:db8::5]:53"
 * (flow; a protocol without ports by name or number, no ports). "?" for a
 * key of unknown family.
 */
void rw_key_format(const struct rw_key *key, char *buf, size_t len);
/* The same with "->" instead of "→" when utf8 is false (a terminal that cannot show it). */
void rw_key_format_as(const struct rw_key *key, bool utf8, char *buf, size_t len);
/* Bytes of s beyond the columns it takes (UTF-8): what a printf width must add. */
int rw_text_extra_bytes(const char *s);
/*
 * Cuts a key's text (in place) to at most cols columns, a cut marked by '~': a
 * pair or a flow keeps both ends, its shorter side whole when it can.
 * text is a buffer of RW_KEY_STRLEN bytes.
 */
void rw_key_fit(char *text, int cols);

/*
 * The prefix of key's own address (the source, or the destination of a dst
 * key) cut to its first len bits, the length recorded in RW_KEY_PREFIX_LEN: a
 * key of the address's kind, a pair's or a flow's other fields cleared. False
 * when the key is a prefix shorter than len already.
 */
bool rw_key_cut(const struct rw_key *key, unsigned int len, struct rw_key *out);

/* Whether key (a source, or a prefix at least plen long) lies inside prefix/plen. */
bool rw_key_within(const struct rw_key *key, const struct rw_key *prefix, unsigned int plen);

#endif
