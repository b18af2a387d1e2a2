// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `ratewall stop IFACE... | --name NAME | --all`: detach and remove every pin. */
#include "cli/exit.h"
#include "service/svccmd.h"

#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/svccli.h"
#include "service/actpins.h"
#include "service/persist_multi.h"
#include "service/pins.h"

/* How long a running loader gets to leave on SIGTERM before its links are cut anyway. */
#define RW_STOP_WAIT_MS 5000

struct stop_ctx {
	const struct rw_svc_args *args;
	bool matched[RW_MAX_IFACES];
	unsigned int stopped, failed;
	uint64_t netns;
};

struct foreign_match {
	struct stop_ctx *ctx;
	bool hit;
};

/* A link of another version's instance on an interface asked for: that interface here. */
static int foreign_link(const char *ifname, int link_fd, void *arg)
{
	struct foreign_match *fm = arg;
	const struct rw_svc_args *a = fm->ctx->args;
	uint32_t target = rw_link_target(link_fd, NULL, NULL);

	for (uint32_t i = 0; i < a->nifaces; i++) {
		if (strcmp(a->ifnames[i], ifname) == 0 && target &&
		    target == if_nametoindex(ifname)) {
			fm->ctx->matched[i] = true;
			fm->hit = true;
		}
	}
	return 0;
}

/*
 * Whether the instance is one the arguments name; marks the interfaces it
 * matched. One of another layout version, whose record is not read, is
 * matched by its links: an interface of that name here, where they attach.
 */
static bool wanted(struct stop_ctx *ctx, const char *name, const struct rw_instance *in,
		   bool readable)
{
	const struct rw_svc_args *a = ctx->args;
	const struct rw_meta *m = &in->meta;
	bool hit = false;

	if (a->all || (a->name[0] && strcmp(a->name, name) == 0))
		return true;
	if (!readable && rw_meta_foreign(m)) {
		struct foreign_match fm = { .ctx = ctx };

		rw_instance_links_each(in->dir, foreign_link, &fm);
		return fm.hit;
	}
	if (!readable || m->netns_ino != ctx->netns)
		return false; /* same-named interfaces of another namespace are not these */
	for (uint32_t i = 0; i < a->nifaces; i++) {
		for (uint32_t j = 0; j < m->nifaces; j++) {
			if (strcmp(a->ifnames[i], m->ifaces[j].name) == 0) {
				ctx->matched[i] = true;
				hit = true;
			}
		}
	}
	return hit;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Asks a running loader to leave; gives it a while. */
static void end_loader(const struct rw_instance *in)
{
	if (!rw_instance_loader_alive(in->dir_fd))
		return;
	if (in->meta.loader_pid)
		kill((pid_t)in->meta.loader_pid, SIGTERM);
	for (int waited = 0; waited < RW_STOP_WAIT_MS && rw_instance_loader_alive(in->dir_fd);
	     waited += 20)
		sleep_ms(20);
}

/* --bgp: the routes the instance still has announced go with it (its loader left them). */
static void withdraw_routes(const char *name, const char *dir)
{
	char err[512];
	size_t n;
	int e = rw_act_pins_withdraw(dir, &n, err, sizeof(err));

	if (e < 0)
		fprintf(stderr, "ratewall: %s: %s\n", name, err);
	else if (e > 0)
		fprintf(stderr, "ratewall: %s: withdrew its %zu BGP routes\n", name, n);
}

/*
 * The instance's pins go, all but a journal of routes the speaker would not
 * withdraw: those stay pinned, said, and the stop fails (exit 1), so that a
 * route is never left announced with nothing to remember it.
 */
static int remove_pins(struct stop_ctx *ctx, const char *name, const char *dir)
{
	long kept = rw_act_pins_remove(dir);

	if (kept < 0) {
		fprintf(stderr, "ratewall: could not remove all of %s: %s\n", dir, strerror((int)-kept));
		ctx->failed++;
		return -1;
	}
	if (kept > 0) {
		fprintf(stderr, "ratewall: %s: detached, but its %ld BGP routes stay announced; their "
			"journal stays pinned in %s: `ratewall stop --name %s` withdraws them once the "
			"speaker answers\n", name, kept, dir, name);
		ctx->failed++;
		return -1;
	}
	return 0;
}

static int stop_one(const char *name, void *arg)
{
	struct stop_ctx *ctx = arg;
	struct rw_instance in;
	char err[512];
	int e = rw_instance_open(ctx->args->pin_root, name, &in, err, sizeof(err));

	if (!wanted(ctx, name, &in, e == 0)) {
		rw_instance_close(&in);
		return 0;
	}
	if (e == 0)
		end_loader(&in);
	else if (rw_meta_foreign(&in.meta) && rw_instance_loader_alive(in.dir_fd))
		fprintf(stderr, "ratewall: %s: its loader, a ratewall of layout version %u, still "
			"runs: its links are cut all the same; end it (systemctl stop ratewall@IFACE)\n",
			name, in.meta.layout);
	/* In libxdp's dispatcher: the program leaves it, the others stay attached. */
	if (e == 0 && rw_multi_pinned(&in.meta)) {
		int d = rw_multi_stop(in.dir, &in.meta);

		if (d)
			fprintf(stderr, "ratewall: %s: cannot leave libxdp's dispatcher: %s\n", name,
				strerror(-d));
	}
	withdraw_routes(name, in.dir);
	rw_instance_close(&in);
	if (remove_pins(ctx, name, in.dir))
		return 0;
	fprintf(stderr, "ratewall: stopped %s: detached and unpinned (%s)\n", name, in.dir);
	ctx->stopped++;
	return 0;
}

int rw_stop_command(int argc, char **argv)
{
	struct rw_svc_args args;
	struct stop_ctx ctx = { .args = &args, .netns = rw_netns_ino() };
	char err[256];
	int ret = rw_cli_outcome(rw_cli_parse_stop(argc, argv, &args, err, sizeof(err)),
				 argv[0], err);

	if (ret >= 0)
		return ret;
	ret = rw_instances_each(args.pin_root, stop_one, &ctx);
	if (ret) {
		fprintf(stderr, "ratewall: cannot list %s: %s\n", args.pin_root, strerror(-ret));
		return RW_EXIT_RUNTIME;
	}
	for (uint32_t i = 0; i < args.nifaces; i++) {
		if (!ctx.matched[i]) {
			fprintf(stderr, "ratewall: no pinned instance on %s in %s\n", args.ifnames[i],
				args.pin_root);
			ctx.failed++;
		}
	}
	if (args.name[0] && !ctx.stopped && !ctx.failed) {
		fprintf(stderr, "ratewall: no pinned instance named %s in %s\n", args.name,
			args.pin_root);
		ctx.failed++;
	}
	return ctx.failed ? RW_EXIT_RUNTIME : RW_EXIT_OK;
}
