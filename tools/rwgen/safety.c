// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where rwgen may send from, and which sources it may use. */
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "safety.h"

/*
 * Traffic may only leave from a namespace a test made: a veth, in a namespace
 * without a default route (the host's namespace always has one).
 */
static bool has_default_route(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/route", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		char ifname[64];
		unsigned int dst, mask;

		if (sscanf(line, "%63s %x %*x %*x %*d %*d %*d %x", ifname, &dst, &mask) == 3 &&
		    dst == 0 && mask == 0)
			found = true;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/net/ipv6_route", "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		/* Destination ::/0 is 32 zero digits then prefix length 00. */
		if (strncmp(line, "00000000000000000000000000000000 00 ", 36) == 0 &&
		    strstr(line, " lo\n") == NULL)
			found = true;
	}
	if (f)
		fclose(f);
	return found;
}

void rwgen_refuse_unsafe_target(const char *dev)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (has_default_route())
		rwgen_die("refusing to send: this network namespace has a default route; run inside a "
		    "test namespace (ip netns exec NS rwgen ...)");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&info;
	if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr) || strcmp(info.driver, "veth") != 0)
		rwgen_die("refusing to send out of '%s': not a veth", dev);
	close(fd);
}

unsigned int rwgen_vary_word(const struct gen_opts *o)
{
	return o->ipv6 ? (o->ipv6_net ? 4 : 12) : 0;
}

/* addr is inside the test range of its family. */
static bool in_test_range(bool ipv6, const unsigned char *addr)
{
	if (ipv6)
		return addr[0] == 0x20 && addr[1] == 0x01 && addr[2] == 0x0d && addr[3] == 0xb8;
	return addr[0] == 198 && (addr[1] & 0xfe) == 18;
}

static void resolve_addr(const struct gen_opts *o, const char *opt, const char *text,
			 unsigned char addr[16])
{
	memset(addr, 0, 16);
	if (inet_pton(o->ipv6 ? AF_INET6 : AF_INET, text, addr) != 1)
		rwgen_die("%s: '%s' is not an IPv%d address", opt, text, o->ipv6 ? 6 : 4);
	if (!in_test_range(o->ipv6, addr))
		rwgen_die("%s: '%s' must be inside %s", opt, text,
			  o->ipv6 ? "2001:db8::/32" : "198.18.0.0/15");
}

void rwgen_resolve_addrs(const struct gen_opts *o, struct gen_addrs *a)
{
	bool by_addr = o->vary == GEN_VARY_SRC || o->vary == GEN_VARY_DST;
	unsigned char *addr = o->vary == GEN_VARY_DST ? a->dst : a->src, last_addr[16];
	unsigned int w = rwgen_vary_word(o);
	uint64_t last;

	resolve_addr(o, "--src", o->src ? o->src : (o->ipv6 ? "2001:db8::1" : "198.18.0.1"), a->src);
	resolve_addr(o, "--dst", o->dst ? o->dst : (o->ipv6 ? "2001:db8:ffff::1" : "198.19.255.254"),
		     a->dst);
	if (!by_addr) {
		a->base = o->vary == GEN_VARY_SPORT ? o->sport : o->dport;
		if ((uint64_t)a->base + o->sources - 1 > 65535)
			rwgen_die("--sources: ports %u + %u run past 65535", a->base, o->sources);
		return;
	}
	memcpy(&a->base, addr + w, 4);
	a->base = ntohl(a->base);
	last = (uint64_t)a->base + o->sources - 1;
	if (last > UINT32_MAX)
		rwgen_die("--sources: %u addresses from the first run past the varying 32 bits",
			  o->sources);
	memcpy(last_addr, addr, 16);
	last_addr[w] = (unsigned char)(last >> 24);
	last_addr[w + 1] = (unsigned char)(last >> 16);
	last_addr[w + 2] = (unsigned char)(last >> 8);
	last_addr[w + 3] = (unsigned char)last;
	if (!in_test_range(o->ipv6, last_addr))
		rwgen_die("--sources: %u addresses from the first leave %s", o->sources,
			  o->ipv6 ? "2001:db8::/32" : "198.18.0.0/15");
}
