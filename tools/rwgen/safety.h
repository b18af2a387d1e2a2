/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* safety.c: where rwgen may send from, and which addresses it may use. */
#ifndef RWGEN_SAFETY_H
#define RWGEN_SAFETY_H

#include "opts.h"

/* Refuses any target but a veth in a namespace without a default route. */
void rwgen_refuse_unsafe_target(const char *dev);
/* The frame's addresses, and the varying field's value at index 0. */
struct gen_addrs {
	unsigned char src[16], dst[16];
	uint32_t base;
};
/*
 * Index k is base + k in the varying field: the last 32 bits of an address
 * (bits 32..63 with --ipv6-net), or a port. Every address any index makes
 * stays inside 198.18.0.0/15 or 2001:db8::/32; dies otherwise.
 */
void rwgen_resolve_addrs(const struct gen_opts *o, struct gen_addrs *a);
/* Offset of the varying 32 bits inside an address of o's family. */
unsigned int rwgen_vary_word(const struct gen_opts *o);

#endif
