// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/upgrade.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/exit.h"
#include "service/persist_pin.h"
#include "service/pins.h"
#include "service/session.h"

/*
 * An instance another layout version pinned: nothing in it is read but its
 * links (link_<ifname>, as every version pins them) and a count of its rules.
 */
struct foreign {
	const struct rw_session *s;
	int link_fd[RW_MAX_IFACES]; /* the live link of each listed interface, else -1 */
	uint32_t old_prog_id[RW_MAX_IFACES];
	char elsewhere[128];        /* a link on another interface of that name: refused */
};

static bool listed(const struct rw_config *cfg, const char *ifname, uint32_t *at)
{
	for (uint32_t i = 0; i < cfg->nifaces; i++) {
		if (strcmp(cfg->ifnames[i], ifname) == 0) {
			*at = i;
			return true;
		}
	}
	return false;
}

/* Takes the live link of each listed interface; one attached elsewhere is refused by name. */
static int take_link(const char *ifname, int link_fd, void *arg)
{
	struct foreign *f = arg;
	uint32_t i, prog_id = 0, target;

	if (!listed(f->s->cfg, ifname, &i))
		return 0;
	target = rw_link_target(link_fd, &prog_id, NULL);
	if (target == f->s->lp.ifindex[i]) {
		f->link_fd[i] = dup(link_fd);
		f->old_prog_id[i] = prog_id;
	} else if (target) {
		snprintf(f->elsewhere, sizeof(f->elsewhere), "its link of %s is attached to ifindex "
			 "%u, not to %s here (ifindex %u)", ifname, target, ifname,
			 f->s->lp.ifindex[i]);
		return -EEXIST;
	}
	return 0; /* a link the kernel detached (its interface went): a new one is attached */
}

/* Links of interfaces no longer listed go with the old program. */
static int drop_unlisted_link(const char *ifname, int link_fd, void *arg)
{
	const struct foreign *f = arg;
	char name[32], path[PATH_MAX];
	uint32_t i;

	if (listed(f->s->cfg, ifname, &i))
		return 0;
	bpf_link_detach(link_fd);
	rw_pin_link_name(name, sizeof(name), ifname);
	if (!rw_pin_path(path, sizeof(path), f->s->inst.dir, name))
		unlink(path);
	return 0;
}

/* Entries in a pinned map of any layout (its rules: an LPM trie), -1 when unknown. */
static long pinned_entries(const char *dir, const char *map)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	int fd = rw_pin_open_map_ro(dir, map);
	long n = -1;

	memset(&info, 0, sizeof(info));
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) && info.key_size <= 64) {
		unsigned char key[64], next[64];

		n = 0;
		for (void *prev = NULL; !bpf_map_get_next_key(fd, prev, next); prev = key, n++)
			memcpy(key, next, info.key_size);
	}
	if (fd >= 0)
		close(fd);
	return n;
}

/* The mode an XDP program runs in on ifindex now. */
static enum rw_xdp_mode attached_mode(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	return bpf_xdp_query(ifindex, 0, &q) == 0 && q.attach_mode == XDP_ATTACHED_SKB ?
		       RW_XDP_GENERIC : RW_XDP_NATIVE;
}

/* Swaps the new program into interface i's live link (old_id's), atomically. */
static int swap_link(struct rw_session *s, uint32_t i, int link_fd, uint32_t old_id)
{
	int old_prog = bpf_prog_get_fd_by_id(old_id), e = 0;
	LIBBPF_OPTS(bpf_link_update_opts, uo, .flags = old_prog >= 0 ? BPF_F_REPLACE : 0,
		    .old_prog_fd = old_prog >= 0 ? old_prog : 0);

	if (bpf_link_update(link_fd, s->prog_fd, &uo)) {
		e = -errno;
		fprintf(stderr, "ratewall: cannot swap the program on %s: %s\n", s->cfg->ifnames[i],
			strerror(errno));
	}
	if (old_prog >= 0)
		close(old_prog);
	return e;
}

/*
 * --replace over an instance of another layout version (an upgrade, or a
 * downgrade): its maps mean nothing to this program, so the new program
 * starts afresh with this configuration's limits and is swapped into the
 * same links, which never leave the interfaces; then every pin of the old
 * one goes (a BGP journal and the record naming its speaker stay, for the
 * act to adopt or withdraw) and this version's record takes the name.
 */
static int upgrade(struct rw_session *s, const struct rw_memplan *plan, uint32_t old_layout)
{
	static const char *const keep_pins[] = { "meta", "act", "bgp_routes", NULL };
	struct foreign f = { .s = s };
	char path[PATH_MAX], tmp[PATH_MAX], ids[64] = "";
	long rules = pinned_entries(s->inst.dir, "rules");
	int e;

	for (uint32_t i = 0; i < RW_MAX_IFACES; i++)
		f.link_fd[i] = -1;
	e = rw_instance_links_each(s->inst.dir, take_link, &f);
	if (e) {
		fprintf(stderr, "ratewall: instance %s (pinned layout version %u): %s; give another "
			"--name, or remove it: ratewall stop --name %s\n", s->cfg->name, old_layout,
			f.elsewhere[0] ? f.elsewhere : strerror(-e), s->cfg->name);
		e = RW_EXIT_USAGE;
		goto out;
	}
	s->lp.hash_seed = 0;
	e = rw_session_load(s, plan);
	if (e >= 0)
		goto out;
	e = RW_EXIT_RUNTIME;
	/* Before the links switch: the new program meets its rules from its first packet. */
	if (rw_first_thresholds(s) || rw_session_rules(s, false))
		goto out;
	for (s->nat = 0; s->nat < s->cfg->nifaces; s->nat++) {
		uint32_t i = s->nat;

		if (f.link_fd[i] < 0) {
			if (rw_persist_attach_pinned(s, i, s->cfg->xdp_mode))
				goto out;
			continue;
		}
		if (swap_link(s, i, f.link_fd[i], f.old_prog_id[i]))
			goto out;
		s->at[i] = (struct rw_attachment){ .ifindex = (int)s->lp.ifindex[i],
						   .link_fd = f.link_fd[i],
						   .mode = attached_mode((int)s->lp.ifindex[i]) };
		snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%u", ids[0] ? "," : "",
			 f.old_prog_id[i]);
		f.link_fd[i] = -1; /* the session's now */
	}
	rw_instance_links_each(s->inst.dir, drop_unlisted_link, &f);
	/* The old program's pins go; this one's maps, program and record take their names. */
	e = rw_instance_unpin_keeping(s->inst.dir, keep_pins);
	for (uint32_t i = 0; !e && i < s->cfg->nifaces; i++) {
		char name[32];

		rw_pin_link_name(name, sizeof(name), s->cfg->ifnames[i]);
		e = rw_persist_pin_as(s, s->at[i].link_fd, name);
	}
	if (e || rw_persist_pin_maps(s, NULL) || rw_persist_pin_as(s, s->prog_fd, "prog") ||
	    rw_persist_new_meta(s) || rw_persist_pin_as(s, s->inst.meta_fd, "meta_new") ||
	    rw_pin_path(path, sizeof(path), s->inst.dir, "meta") ||
	    rw_pin_path(tmp, sizeof(tmp), s->inst.dir, "meta_new") || rename(tmp, path)) {
		fprintf(stderr, "ratewall: the upgrade of instance %s did not complete (the new "
			"program enforces; its pins may be partial): %s; see: ratewall status\n",
			s->cfg->name, strerror(errno));
		e = RW_EXIT_RUNTIME;
		goto out;
	}
	fprintf(stderr, "ratewall: upgraded instance %s from pinned layout version %u to %u: program "
		"id %s replaced by %u in the same XDP links, its limits in force throughout; dropped "
		"with the old maps: the flow state (windows start afresh: a source may pass up to one "
		"window more than its limit), totals and counts; rules in force: %ld%s\n",
		s->cfg->name, old_layout, RW_LAYOUT_VERSION, ids[0] ? ids : "(none attached)",
		rw_prog_id(s->prog_fd), rules < 0 ? 0 : rules,
		s->cfg->rules_path[0] ? " (the rules file's are in force again)" :
		rules > 0 ? " (add them again: ratewall rule add)" : "");
	e = -1;
out:
	for (uint32_t i = 0; i < RW_MAX_IFACES; i++) {
		if (f.link_fd[i] >= 0)
			close(f.link_fd[i]);
	}
	return e;
}

int rw_foreign_start(struct rw_session *s, const struct rw_memplan *plan)
{
	uint32_t layout = s->inst.meta.layout;

	close(s->inst.meta_fd); /* never written: it is not this version's record */
	s->inst.meta_fd = -1;
	if (s->cfg->replace)
		return upgrade(s, plan, layout);
	fprintf(stderr, "ratewall: instance %s was pinned by a ratewall of layout version %u (this "
		"one is %u); its program keeps enforcing. Restart with --replace to swap this one's "
		"program into its links (its windows and counts start afresh), or remove it: "
		"ratewall stop --name %s\n", s->cfg->name, layout, RW_LAYOUT_VERSION, s->cfg->name);
	return RW_EXIT_USAGE;
}
