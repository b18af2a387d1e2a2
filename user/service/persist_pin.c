// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/persist_pin.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/loader.h"
#include "model/clock.h"
#include "ratewall.skel.h"
#include "service/session.h"

static uint64_t realtime_ns(void)
{
	return rw_clock_ns(CLOCK_REALTIME);
}

int rw_persist_pin_as(const struct rw_session *s, int fd, const char *what)
{
	return rw_pin_fd(s->inst.dir, fd, what);
}

void rw_persist_meta_options(struct rw_meta *m, const struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;

	m->enforced = s->lp.enforced;
	m->pps = cfg->pps;
	m->bps = cfg->bps;
	m->window_ns = cfg->window_ns;
	m->ncpus = s->ncpus;
	m->hash_seed = s->lp.hash_seed;
	m->nifaces = cfg->nifaces;
	memset(m->ifaces, 0, sizeof(m->ifaces));
	for (uint32_t i = 0; i < cfg->nifaces; i++) {
		strcpy(m->ifaces[i].name, cfg->ifnames[i]);
		m->ifaces[i].ifindex = s->lp.ifindex[i];
		m->ifaces[i].mode = rw_xdp_stored_mode(&s->at[i]);
	}
	m->netns_ino = rw_netns_ino();
	m->interval_ns = cfg->interval_ns;
}

int rw_persist_write_meta(struct rw_session *s)
{
	s->inst.meta.heartbeat_ns = realtime_ns();
	return rw_meta_write(s->inst.meta_fd, &s->inst.meta);
}

void rw_persist_meta_loader(struct rw_meta *m)
{
	m->loader_pid = (uint32_t)getpid();
	m->loader_start_ns = realtime_ns();
	m->loads++;
}

int rw_persist_attach_pinned(struct rw_session *s, uint32_t i, enum rw_xdp_mode mode)
{
	char err[256], name[32];
	int e;

	e = rw_xdp_attach_as(s->prog_fd, (int)s->lp.ifindex[i], s->cfg->ifnames[i], mode,
			     s->lp.multi, &s->at[i], err, sizeof(err));
	if (e) {
		fprintf(stderr, "ratewall: %s\n", err);
		return e;
	}
	s->at[i].keep = true;
	rw_session_say_attached(s, i);
	if (s->at[i].multi)
		return 0; /* libxdp pins the dispatcher's link itself */
	rw_pin_link_name(name, sizeof(name), s->cfg->ifnames[i]);
	e = rw_persist_pin_as(s, s->at[i].link_fd, name);
	if (e)
		fprintf(stderr, "ratewall: cannot pin the link of %s in %s: %s\n", s->cfg->ifnames[i],
			s->inst.dir, strerror(-e));
	return e;
}

int rw_persist_pin_maps(struct rw_session *s, const bool *kept)
{
	struct bpf_map *map;
	char name[64];
	int i = 0, e;

	bpf_object__for_each_map(map, s->skel->obj) {
		if (bpf_map__is_internal(map))
			continue;
		if (kept && kept[i++])
			continue;
		rw_pin_map_name(name, sizeof(name), bpf_map__name(map));
		e = rw_persist_pin_as(s, bpf_map__fd(map), name);
		if (e) {
			fprintf(stderr, "ratewall: cannot pin map %s in %s: %s\n", bpf_map__name(map),
				s->inst.dir, strerror(-e));
			return e;
		}
	}
	return 0;
}

int rw_persist_new_meta(struct rw_session *s)
{
	struct rw_meta *m = &s->inst.meta;

	s->start_ns = rw_clock_ns(s->clock);
	memset(m, 0, sizeof(*m));
	memcpy(m->magic, RW_META_MAGIC, sizeof(m->magic));
	m->layout = RW_LAYOUT_VERSION;
	m->size = sizeof(*m);
	strcpy(m->name, s->cfg->name);
	rw_persist_meta_options(m, s);
	m->created_ns = realtime_ns();
	m->start_clock_ns = s->start_ns;
	rw_persist_meta_loader(m);
	s->inst.meta_fd = rw_meta_create();
	return s->inst.meta_fd < 0 ? s->inst.meta_fd : rw_persist_write_meta(s);
}
