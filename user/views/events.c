// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/json.h"
#include "model/samples.h"
#include "model/key.h"

static const char *const names[] = { "?",     "limited", "released", "banned",
				      "unbanned", "heavy",  "light",    "hook" };
_Static_assert(sizeof(names) / sizeof(names[0]) == RW_EV_TYPES, "a name for each event type");

const char *rw_event_name(uint32_t type)
{
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

int rw_events_open(struct rw_events_out *o, const char *path, bool keep)
{
	memset(o, 0, sizeof(*o));
	o->keep = keep;
	if (!path || !path[0])
		return 0;
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
	free(o->tick);
	o->tick = NULL;
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

/* --history: the event into this tick's list (what the budget let through). */
static void keep_event(struct rw_events_out *o, uint32_t type, const struct rw_key *key,
		       uint64_t ts_ns, int cpu, uint64_t until_ns, const char *sample)
{
	if (o->ntick == o->cap) {
		uint32_t cap = o->cap ? 2 * o->cap : 64;
		struct rw_event_rec *t = realloc(o->tick, cap * sizeof(*t));

		if (!t) {
			o->not_written++;
			return;
		}
		o->tick = t;
		o->cap = cap;
	}
	o->tick[o->ntick++] = (struct rw_event_rec){ .ts = wall_of(o, ts_ns), .key = *key,
						     .type = type, .cpu = cpu,
						     .until = until_ns ? wall_of(o, until_ns) : 0 };
	snprintf(o->tick[o->ntick - 1].sample, sizeof(o->tick[0].sample), "%s", sample);
}

void rw_events_tick_clear(struct rw_events_out *o)
{
	o->ntick = 0;
}

static void write_event(struct rw_events_out *o, uint32_t type, const struct rw_key *key,
			uint64_t ts_ns, int cpu, uint64_t until_ns)
{
	char k[RW_KEY_STRLEN], sample[RW_SAMPLE_NAMELEN] = "";
	uint32_t rule;

	/*
	 * --samples: a limited or banned key's frames go to this file, a heavy
	 * prefix's too (act/pcap.c names it alike, from the arm's time: this
	 * event's).
	 */
	if (o->samples && ((cpu >= 0 && (type == RW_EV_LIMITED || type == RW_EV_BANNED)) ||
			   (o->prefix_samples && type == RW_EV_HEAVY)))
		rw_sample_name(sample, sizeof(sample), (int64_t)ts_ns + o->sample_offset, key);
	if (o->on_event)
		o->on_event(o->on_event_arg, type, key, wall_of(o, ts_ns), cpu,
			    until_ns ? wall_of(o, until_ns) : 0, sample[0] ? sample : NULL);
	if (!budget(o, ts_ns))
		return;
	if (o->keep)
		keep_event(o, type, key, ts_ns, cpu, until_ns, sample);
	if (!o->f)
		return;
	rw_key_format(key, k, sizeof(k));
	fprintf(o->f, "{\"ts\": %.6f, \"event\": \"%s\", \"kind\": \"%s\", \"key\": \"%s\"",
		wall_of(o, ts_ns), rw_event_name(type), rw_key_kind_name(rw_kind_of(key)), k);
	/* The rule that governs the key, by id (the report's rules[] says what it is). */
	if (rw_rule_id_of_key(o->rules, key, &rule))
		fprintf(o->f, ", \"rule\": %u", rule);
	if (cpu >= 0)
		fprintf(o->f, ", \"cpu\": %d", cpu);
	if (until_ns)
		fprintf(o->f, ", \"%s\": %.6f", type == RW_EV_BANNED ? "until" : "was_until",
			wall_of(o, until_ns));
	if (sample[0])
		fprintf(o->f, ", \"sample\": \"%s\"", sample);
	fprintf(o->f, "}\n");
}

void rw_events_kernel(struct rw_events_out *o, const struct rw_event *ev)
{
	if (ev->type == RW_EV_LIMITED)
		rw_keyset_add(&o->limited, &ev->key);
	write_event(o, ev->type, &ev->key, ev->ts_ns, (int)ev->cpu, ev->until_ns);
}

void rw_events_unbanned(struct rw_events_out *o, const struct rw_key *key, uint64_t now_clock_ns,
			uint64_t until_clock_ns)
{
	write_event(o, RW_EV_UNBANNED, key, now_clock_ns, -1, until_clock_ns);
}

void rw_events_prefix(struct rw_events_out *o, uint32_t type, const struct rw_key *prefix,
		      uint64_t now_clock_ns)
{
	write_event(o, type, prefix, now_clock_ns, -1, 0);
}

void rw_events_hook(struct rw_events_out *o, uint32_t type, const char *key, int status,
		    bool timed_out, const char *error, double seconds, uint64_t now_clock_ns)
{
	if (!o->f || !budget(o, now_clock_ns))
		return;
	fprintf(o->f, "{\"ts\": %.6f, \"event\": \"hook\", \"for\": \"%s\", \"key\": ",
		wall_of(o, now_clock_ns), rw_event_name(type));
	rw_json_string(o->f, key);
	fprintf(o->f, ", \"seconds\": %.3f", seconds);
	if (timed_out)
		fprintf(o->f, ", \"timed_out\": true");
	if (error) {
		fprintf(o->f, ", \"error\": ");
		rw_json_string(o->f, error);
	} else {
		fprintf(o->f, ", \"exit\": %d", status);
	}
	fprintf(o->f, "}\n");
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
	if (!o->f)
		return;
	if (o->not_written > o->said) {
		/* Outside the budget: the count of what the budget kept out is never lost. */
		fprintf(o->f, "{\"ts\": %.6f, \"event\": \"not_written\", \"count\": %" PRIu64
			", \"total\": %" PRIu64 "}\n", wall_of(o, now_clock_ns),
			o->not_written - o->said, o->not_written);
		o->said = o->not_written;
	}
	fflush(o->f);
}
