/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Builders for the crafted frames the BPF unit tests feed to the program. */
#ifndef RW_TEST_FRAMES_H
#define RW_TEST_FRAMES_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#define FB_MAX 9216

struct fb {
	uint8_t b[FB_MAX];
	size_t len;
};

static inline void fb_put(struct fb *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static inline void fb_be16(struct fb *f, uint16_t v)
{
	uint16_t be = htons(v);

	fb_put(f, &be, 2);
}

/* Ethernet with 0, 1 or 2 VLAN tags (802.1ad outer, 802.1Q inner), then `type`. */
static inline void fb_l2(struct fb *f, int tags, uint16_t type)
{
	static const uint8_t macs[12] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1 };

	f->len = 0;
	fb_put(f, macs, 12);
	for (int i = 0; i < tags; i++) {
		fb_be16(f, (tags == 2 && i == 0) ? 0x88a8 : 0x8100);
		fb_be16(f, (uint16_t)(100 + i)); /* VLAN id */
	}
	fb_be16(f, type);
}

/*
 * IPv4 header of ihl words (options are NOPs), source 198.18.x.y, then
 * payload bytes. tot_len < 0: computed from what follows.
 */
static inline void fb_ipv4(struct fb *f, uint32_t saddr, int ihl, int tot_len, uint16_t frag,
			   size_t payload)
{
	uint8_t h[60] = { 0 };
	uint32_t s = htonl(saddr), d = htonl(0xc613fffe); /* 198.19.255.254 */
	size_t hl = (size_t)(ihl < 5 ? 20 : ihl * 4);
	uint16_t tl = (uint16_t)(tot_len >= 0 ? tot_len : (int)(hl + payload)), fo = htons(frag);

	h[0] = (uint8_t)(0x40 | (ihl & 0xf));
	h[2] = (uint8_t)(tl >> 8);
	h[3] = (uint8_t)tl;
	memcpy(h + 6, &fo, 2);
	h[8] = 64;
	h[9] = 17;
	memcpy(h + 12, &s, 4);
	memcpy(h + 16, &d, 4);
	memset(h + 20, 1, hl - 20); /* NOP options */
	fb_put(f, h, hl);
	memset(f->b + f->len, 0xab, payload);
	f->len += payload;
}

/* IPv6 header from 2001:db8::<low>, next header nh, then payload bytes (payload_len < 0: computed). */
static inline void fb_ipv6(struct fb *f, uint32_t low, uint8_t nh, int payload_len, size_t payload)
{
	uint8_t h[40] = { 0x60 };
	uint32_t l = htonl(low);
	uint16_t pl = (uint16_t)(payload_len >= 0 ? payload_len : (int)payload);

	h[4] = (uint8_t)(pl >> 8);
	h[5] = (uint8_t)pl;
	h[6] = nh;
	h[7] = 64;
	h[8] = 0x20;
	h[9] = 0x01;
	h[10] = 0x0d;
	h[11] = 0xb8;
	memcpy(h + 20, &l, 4);
	h[24] = 0x20;
	h[25] = 0x01;
	h[26] = 0x0d;
	h[27] = 0xb8;
	h[39] = 1;
	fb_put(f, h, 40);
	memset(f->b + f->len, 0, payload);
	f->len += payload;
}

#endif
