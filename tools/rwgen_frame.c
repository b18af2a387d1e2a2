// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The UDP frame rwgen replays, with correct IPv4 and UDP checksums. */
#include <stdlib.h>
#include <string.h>

#include "rwgen_parts.h"

static uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

/* Builds the template frame (index 0) and where the generator patches it. */
unsigned char *rwgen_build_frame(const struct gen_opts *o, const struct gen_addrs *a,
				 struct rwgen_layout *lay)
{
	bool by_addr = o->vary == GEN_VARY_SRC || o->vary == GEN_VARY_DST;
	uint32_t l3 = o->ipv6 ? 40 : 20, hdrs = 14 + l3 + 8, udp_len, sum;
	unsigned char *f, *ip, *udp;

	if (o->size < hdrs)
		rwgen_die("--size %u is smaller than the headers (%u bytes)", o->size, hdrs);
	f = calloc(1, o->size);
	if (!f)
		rwgen_die("out of memory");
	memcpy(f, o->dst_mac, 6);
	memcpy(f + 6, (unsigned char[]){ 0x02, 0x52, 0x57, 0x47, 0x45, 0x4e }, 6);
	f[12] = o->ipv6 ? 0x86 : 0x08;
	f[13] = o->ipv6 ? 0xdd : 0x00;
	ip = f + 14;
	udp = ip + l3;
	udp_len = o->size - 14 - l3;
	memset(lay, 0, sizeof(*lay));
	lay->base = a->base;
	lay->vary_len = by_addr ? 4 : 2;

	if (o->ipv6) {
		ip[0] = 0x60;
		ip[4] = (unsigned char)(udp_len >> 8);
		ip[5] = (unsigned char)udp_len;
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, a->src, 16);
		memcpy(ip + 24, a->dst, 16);
	} else {
		ip[0] = 0x45;
		ip[2] = (unsigned char)((20 + udp_len) >> 8);
		ip[3] = (unsigned char)(20 + udp_len);
		ip[6] = 0x40; /* DF */
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, a->src, 4);
		memcpy(ip + 16, a->dst, 4);
		sum = csum_fold(csum_add(0, ip, 20));
		ip[10] = (unsigned char)(sum >> 8);
		ip[11] = (unsigned char)sum;
		if (by_addr) {
			lay->ip_csum_off = 14 + 10;
			memcpy(&lay->tmpl_ip_csum, ip + 10, 2);
		}
	}
	if (by_addr)
		lay->vary_off = (uint16_t)(14 + (o->ipv6 ? 8 : 12) + (o->vary == GEN_VARY_DST ? (o->ipv6 ? 16 : 4) : 0) +
					   rwgen_vary_word(o));
	else
		lay->vary_off = (uint16_t)(udp - f + (o->vary == GEN_VARY_DPORT ? 2 : 0));
	udp[0] = (unsigned char)(o->sport >> 8);
	udp[1] = (unsigned char)o->sport;
	udp[2] = (unsigned char)(o->dport >> 8);
	udp[3] = (unsigned char)o->dport;
	udp[4] = (unsigned char)(udp_len >> 8);
	udp[5] = (unsigned char)udp_len;
	if (o->ipv6) {
		/* IPv6 requires the UDP checksum: pseudo-header plus datagram. */
		sum = csum_add(0, ip + 8, 32);
		sum += udp_len + 17;
		sum = csum_fold(csum_add(sum, udp, udp_len));
		if (sum == 0)
			sum = 0xffff;
		udp[6] = (unsigned char)(sum >> 8);
		udp[7] = (unsigned char)sum;
		lay->udp_csum_off = (uint16_t)(udp + 6 - f);
		memcpy(&lay->tmpl_udp_csum, udp + 6, 2);
	}
	return f;
}
