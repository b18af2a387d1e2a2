/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --levels: the prefix lengths ranked beside sources, as the command line gives them. */
#ifndef RW_LEVELS_H
#define RW_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#define RW_HHH_LEVELS 6 /* per family */

/* Prefix lengths ranked, per family, longest first; n = 0: none for that family. */
struct rw_levels {
	uint8_t len[2][RW_HHH_LEVELS]; /* [0] IPv4, [1] IPv6 */
	uint32_t n[2];
};

/* "v4:32,24,16 v6:128,64,48" (blanks or ';' between families). -EINVAL, reason in err. */
int rw_parse_levels(const char *s, struct rw_levels *out, char *err, size_t errlen);

#endif
