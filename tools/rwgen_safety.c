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

#include "rwgen_parts.h"

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

/* Source k is base + k in the last 32 bits; all must stay inside the test ranges. */
void rwgen_resolve_sources(const struct gen_opts *o, unsigned char addr[16], uint32_t *base)
{
	const char *src = o->src ? o->src : (o->ipv6 ? "2001:db8::1" : "198.18.0.1");
	uint64_t last;

	memset(addr, 0, 16);
	if (inet_pton(o->ipv6 ? AF_INET6 : AF_INET, src, addr) != 1)
		rwgen_die("--src: '%s' is not an IPv%d address", src, o->ipv6 ? 6 : 4);
	memcpy(base, o->ipv6 ? addr + 12 : addr, 4);
	*base = ntohl(*base);
	last = (uint64_t)*base + o->sources - 1;
	if (o->ipv6) {
		if (!(addr[0] == 0x20 && addr[1] == 0x01 && addr[2] == 0x0d && addr[3] == 0xb8) ||
		    last > UINT32_MAX)
			rwgen_die("--src: sources must stay inside 2001:db8::/32");
	} else if ((*base >> 17) != (0xc6120000u >> 17) || (last >> 17) != (0xc6120000u >> 17)) {
		rwgen_die("--src: sources %s + %u must stay inside 198.18.0.0/15", src, o->sources);
	}
}
