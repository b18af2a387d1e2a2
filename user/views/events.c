// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/events.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/key.h"

static const char *const names[] = { "?", "limited", "released", "banned", "unbanned" };

int rw_events_open(struct rw_events_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->f = fopen(path, "a");
	if (!o->f)
		return -errno;
	o->own = true;
	return 0;
}

void rw_events_close(struct rw_events_out *o)
{
	if (o->own && o->f)
		fclose(o->f);
	rw_keyset_free(&o->limited);
	o->f = NULL;
}

void rw_events_clock(struct rw_events_out *o, int64_t wall_minus_clock)
{
	o->wall_minus_clock = wall_minus_clock;
}

static double wall_of(const struct rw_events_out *o, uint64_t clock_ns)
{
	return ((double)clock_ns + (double)o->wall_minus_clock) / 1e9;
}

/* Whether this second's budget has room for one more line. */
static bool budget(struct rw_events_out *o, uint64_t clock_ns)
{
	uint64_t second = (uint64_t)(wall_of(o, clock_ns));

	if (second != o->second) {
		o->second = second;
		o->written = 0;
	}
	if (o->written >= RW_EVENTS_PER_SECOND) {
		o->not_written++;
		return false;
	}
	o->written++;
	return true;
}

static void write_event(struct rw_events_out *o, uint32_t type, const struct rw_key *key,
			uint64_t ts_ns, int cpu, uint64_t until_ns)
{
	char k[RW_KEY_STRLEN];

	if (!budget(o, ts_ns))
		return;
	rw_key_format(key, k, sizeof(k));
	fprintf(o->f, "{\"ts\": %.6f, \"event\": \"%s\", \"kind\": \"%s\", \"key\": \"%s\"",
		wall_of(o, ts_ns), type < sizeof(names) / sizeof(names[0]) ? names[type] : "?",
		rw_key_kind_name(key->kind), k);
	if (cpu >= 0)
		fprintf(o->f, ", \"cpu\": %d", cpu);
	if (until_ns)
		fprintf(o->f, ", \"%s\": %.6f", type == RW_EV_BANNED ? "until" : "was_until",
			wall_of(o, until_ns));
	fprintf(o->f, "}\n");
}

void rw_events_kernel(struct rw_events_out *o, const struct rw_event *ev)
{
	if (ev->type == RW_EV_LIMITED)
		rw_keyset_add(&o->limited, &ev->key);
	write_event(o, ev->type, &ev->key, ev->ts_ns, (int)ev->cpu, ev->until_ns);
}

void rw_events_flow(struct rw_events_out *o, const struct rw_key *key,
		    const struct rw_window_sum *sum)
{
	if (sum->drop_packets && o->limited.n)
		rw_keyset_mark(&o->limited, key);
}

struct release_ctx {
	struct rw_events_out *o;
	uint64_t now;
};

static void release(void *arg, const struct rw_key *k)
{
	struct release_ctx *c = arg;

	write_event(c->o, RW_EV_RELEASED, k, c->now, -1, 0);
}

void rw_events_tick_end(struct rw_events_out *o, uint64_t now_clock_ns)
{
	struct release_ctx c = { .o = o, .now = now_clock_ns };

	rw_keyset_sweep_unmarked(&o->limited, release, &c);
	if (o->not_written > o->said) {
		/* Outside the budget: the count of what the budget kept out is never lost. */
		fprintf(o->f, "{\"ts\": %.6f, \"event\": \"not_written\", \"count\": %" PRIu64
			", \"total\": %" PRIu64 "}\n", wall_of(o, now_clock_ns),
			o->not_written - o->said, o->not_written);
		o->said = o->not_written;
	}
	fflush(o->f);
}
