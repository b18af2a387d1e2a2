// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/instance.h"

#include <string.h>

/*
 * Whether every byte is printable or beyond ASCII (interface names may be
 * UTF-8), and none is in reject. Whitespace and control bytes never are.
 */
static bool clean_bytes(const char *s, const char *reject)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= ' ' || *p == 0x7f || strchr(reject, *p))
			return false;
	}
	return true;
}

bool rw_valid_instance_name(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < RW_NAME_MAX && strcmp(name, ".") && strcmp(name, "..") &&
	       clean_bytes(name, "/");
}

bool rw_valid_ifname(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < IF_NAMESIZE && name[0] != '-' && strcmp(name, ".") && strcmp(name, "..") &&
	       clean_bytes(name, "/:+");
}

void rw_default_instance_name(const char ifnames[][IF_NAMESIZE], uint32_t n,
			      char name[RW_NAME_MAX])
{
	name[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			strcat(name, "+");
		strcat(name, ifnames[i]);
	}
}
