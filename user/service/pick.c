// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/pick.h"

#include <stdio.h>
#include <string.h>

#include "service/pins.h"

struct pick {
	const char *root, *want_name, *want_iface;
	uint64_t netns;
	char name[RW_NAME_MAX];
	unsigned int seen;
};

/* Whether the instance's record lists the interface (of this namespace). */
static bool has_iface(const struct pick *p, const char *name)
{
	struct rw_instance in;
	char err[256];
	bool hit = false;

	if (rw_instance_open(p->root, name, &in, err, sizeof(err)) == 0 &&
	    in.meta.netns_ino == p->netns) {
		for (uint32_t i = 0; i < in.meta.nifaces && i < RW_MAX_IFACES; i++)
			hit |= strcmp(in.meta.ifaces[i].name, p->want_iface) == 0;
	}
	rw_instance_close(&in);
	return hit;
}

static int pick_one(const char *name, void *arg)
{
	struct pick *p = arg;

	if (p->want_name && strcmp(p->want_name, name) != 0)
		return 0;
	if (p->want_iface && !has_iface(p, name))
		return 0;
	p->seen++;
	snprintf(p->name, sizeof(p->name), "%s", name);
	return 0;
}

int rw_instance_pick(const char *root, const char *want_name, const char *want_iface,
		     const char *about, char out[RW_NAME_MAX])
{
	struct pick p = { .root = root, .want_name = want_name, .want_iface = want_iface,
			  .netns = rw_netns_ino() };
	int e = rw_instances_each(root, pick_one, &p);

	if (e) {
		fprintf(stderr, "ratewall: cannot list %s: %s\n", root, strerror(-e));
		return -1;
	}
	if (p.seen == 1) {
		strcpy(out, p.name);
		return 0;
	}
	if (want_name)
		fprintf(stderr, "ratewall: no pinned instance named %s in %s\n", want_name, root);
	else if (want_iface)
		fprintf(stderr, "ratewall: no pinned instance on %s in %s\n", want_iface, root);
	else if (p.seen == 0)
		fprintf(stderr, "ratewall: no pinned instance in %s (%s a ratewall run --persist)\n",
			root, about);
	else
		fprintf(stderr, "ratewall: %u pinned instances in %s: say which with --name\n", p.seen,
			root);
	return -1;
}
