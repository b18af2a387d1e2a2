// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The UDP frame rwgen replays, with correct IPv4 and UDP checksums. */
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

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

/* The L4 header's length: UDP 8, TCP 20 (no options), ICMP / ICMPv6 echo 8. */
static uint32_t l4_header_len(const struct gen_opts *o)
{
	return o->proto == IPPROTO_TCP ? 20 : 8;
}

/*
 * The L4 header at l4 and its checksum over l4_len bytes. TCP segments are
 * the header alone (the frame's tail is Ethernet padding, beyond the IP
 * length); UDP and ICMP carry the rest of the frame as payload.
 */
static void build_l4(const struct gen_opts *o, const unsigned char *ip, unsigned char *l4,
		     uint32_t l4_len, struct rwgen_layout *lay, unsigned char *frame)
{
	uint8_t proto = o->ipv6 && o->proto == IPPROTO_ICMP ? IPPROTO_ICMPV6 : o->proto;
	bool pseudo = proto != IPPROTO_ICMP && !(proto == IPPROTO_UDP && !o->ipv6);
	uint32_t sum = 0;
	unsigned char *csum;

	if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6) {
		l4[0] = proto == IPPROTO_ICMP ? 8 : 128; /* echo request */
		l4[5] = 1;                               /* identifier */
		l4[7] = 1;                               /* sequence */
		csum = l4 + 2;
	} else {
		l4[0] = (unsigned char)(o->sport >> 8);
		l4[1] = (unsigned char)o->sport;
		l4[2] = (unsigned char)(o->dport >> 8);
		l4[3] = (unsigned char)o->dport;
		if (proto == IPPROTO_TCP) {
			memcpy(l4 + 4, (unsigned char[]){ 0x52, 0x57, 0x47, 0x4e }, 4); /* sequence */
			l4[12] = 5 << 4;
			l4[13] = o->tcp_flags;
			l4[14] = 0xfa; /* window 64240 */
			l4[15] = 0xf0;
			csum = l4 + 16;
		} else {
			l4[4] = (unsigned char)(l4_len >> 8);
			l4[5] = (unsigned char)l4_len;
			csum = l4 + 6;
		}
	}
	/* IPv4 UDP goes without a checksum (0), as it may: nothing to follow the vary field. */
	if (proto == IPPROTO_UDP && !o->ipv6)
		return;
	if (pseudo) {
		sum = o->ipv6 ? csum_add(0, ip + 8, 32) : csum_add(0, ip + 12, 8);
		sum += l4_len + proto;
	}
	sum = csum_fold(csum_add(sum, l4, l4_len));
	/* In UDP a computed zero is sent as all ones (zero means none); the same sum in the others. */
	if (sum == 0 && proto == IPPROTO_UDP)
		sum = 0xffff;
	csum[0] = (unsigned char)(sum >> 8);
	csum[1] = (unsigned char)sum;
	/* An ICMPv4 checksum covers no address: only a varying port (none) would move it. */
	if (pseudo || o->vary == GEN_VARY_SPORT || o->vary == GEN_VARY_DPORT) {
		lay->udp_csum_off = (uint16_t)(csum - frame);
		memcpy(&lay->tmpl_udp_csum, csum, 2);
	}
}

/* Builds the template frame (index 0) and where the generator patches it. */
unsigned char *rwgen_build_frame(const struct gen_opts *o, const struct gen_addrs *a,
				 struct rwgen_layout *lay)
{
	bool by_addr = o->vary == GEN_VARY_SRC || o->vary == GEN_VARY_DST;
	uint32_t l3 = o->ipv6 ? 40 : 20, hdrs = 14 + l3 + l4_header_len(o), l4_len, sum;
	uint8_t proto = o->ipv6 && o->proto == IPPROTO_ICMP ? IPPROTO_ICMPV6 : o->proto;
	unsigned char *f, *ip, *l4;

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
	l4 = ip + l3;
	l4_len = proto == IPPROTO_TCP ? 20 : o->size - 14 - l3;
	memset(lay, 0, sizeof(*lay));
	lay->base = a->base;
	lay->vary_len = by_addr ? 4 : 2;

	if (o->ipv6) {
		ip[0] = 0x60;
		ip[4] = (unsigned char)(l4_len >> 8);
		ip[5] = (unsigned char)l4_len;
		ip[6] = proto;
		ip[7] = 64;
		memcpy(ip + 8, a->src, 16);
		memcpy(ip + 24, a->dst, 16);
	} else {
		ip[0] = 0x45;
		ip[2] = (unsigned char)((20 + l4_len) >> 8);
		ip[3] = (unsigned char)(20 + l4_len);
		ip[6] = 0x40; /* DF */
		ip[8] = 64;
		ip[9] = proto;
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
		lay->vary_off = (uint16_t)(l4 - f + (o->vary == GEN_VARY_DPORT ? 2 : 0));
	build_l4(o, ip, l4, l4_len, lay, f);
	if (o->random_sport) {
		lay->sport_off = (uint16_t)(l4 - f);
		lay->tmpl_sport = o->sport;
		/* Its checksum follows the port: IPv4 UDP's is left at zero. */
		if (!lay->udp_csum_off && !(o->proto == IPPROTO_UDP && !o->ipv6))
			rwgen_die("--random-sport: internal: no checksum to follow the port");
	}
	return f;
}
