/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What `ratewall run` was asked to do, after parsing and validation. */
#ifndef RW_CONFIG_H
#define RW_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "cli/actconf.h"
#include "model/instance.h"
#include "model/levels.h"
#include "model/rules.h"
#include "ratewall.h"

enum rw_sort { RW_SORT_PPS, RW_SORT_BPS, RW_SORT_DROPS };
/* multi: a place in libxdp's dispatcher, beside other XDP programs (kernel/multiprog.h). */
enum rw_xdp_mode { RW_XDP_AUTO, RW_XDP_NATIVE, RW_XDP_GENERIC, RW_XDP_MULTI };
/* The kernel clock that places packets in slots; userspace reads the same one. */
enum rw_clock { RW_CLOCK_AUTO, RW_CLOCK_PRECISE, RW_CLOCK_COARSE };

/* auto takes the coarse clock when a slot lasts at least this many of its ticks. */
#define RW_COARSE_MIN_TICKS_PER_SLOT 20

/* --history: how long windows are kept, and how large the file may grow, by default. */
#define RW_HISTORY_KEEP_NS (7ULL * 86400 * 1000000000ULL)
#define RW_HISTORY_MAX (256ULL << 20)
#define RW_HISTORY_MAX_MIN (1ULL << 20)
/* --samples-max: room for a few files of 64 frames at least */
#define RW_SAMPLES_MAX_MIN (1ULL << 20)

/* --burst: one default slot; the bank is twice that (docs/design.md, "Admission": measured with TCP) */
#define RW_DEFAULT_BURST_NS (100ULL * 1000000ULL)

/* Tracked (promoted) sources; the sketch counts all the others. */
#define RW_DEFAULT_MAX_FLOWS 32768
/* --max-rules: each rule's counts take 16 B a CPU, planned up front (64 KiB a CPU). */
#define RW_DEFAULT_MAX_RULES 4096
#define RW_MAX_MAX_FLOWS (1u << 26)
#define RW_MAX_TOP 10000
/* --metrics-min-share: 0.1 % to 50 %, in parts per million (1/share keys at most: 1000 to 2), or 0. */
#define RW_MIN_SHARE_PPM_MIN 1000
#define RW_MIN_SHARE_PPM_MAX 500000

/* Where --persist pins an instance: ROOT/NAME/ (ROOT on a BPF filesystem). */
#define RW_DEFAULT_PIN_ROOT "/sys/fs/bpf/ratewall"
#define RW_PIN_ROOT_MAX 200
#define RW_PATH_MAX 256
#define RW_USER_MAX 64 /* a user name and its NUL (Debian's adduser: 32) */

struct rw_config {
	char ifnames[RW_MAX_IFACES][IF_NAMESIZE]; /* attached in this order; they share flows */
	uint32_t nifaces;
	uint64_t pps;         /* 0 = no packet limit */
	uint64_t bps;         /* bits per second, 0 = no byte limit */
	uint64_t window_ns;
	uint32_t slots;
	uint32_t max_flows;   /* 0 until resolved from max_memory or the default */
	uint32_t max_rules;   /* --max-rules: rules in force at once (each counted per CPU) */
	uint64_t max_memory;  /* bytes, 0 = not given */
	uint32_t top;
	uint64_t interval_ns;
	uint64_t duration_ns; /* 0 = until a signal */
	enum rw_sort sort;
	enum rw_xdp_mode xdp_mode;
	uint32_t xdp_priority; /* the dispatcher's order: lower runs first */
	enum rw_clock clock;
	bool json;
	bool tui;       /* the full-screen view instead of the table */
	bool no_color;  /* --tui without colours */
	bool verbose;
	bool dry_run;   /* count what would be dropped, drop nothing */
	bool malformed_drop; /* --malformed drop */
	bool persist;   /* pin link, maps and metadata: enforcement outlives the process */
	bool replace;   /* may swap a pinned program whose options differ */
	char pin_root[RW_PIN_ROOT_MAX];
	char rules_path[RW_PATH_MAX]; /* --rules FILE, "" = none */
	struct rw_levels levels;      /* --levels: none given = no prefix ranking */
	uint32_t hhh_share_pct;       /* a prefix is heavy at this share of the window */
	uint64_t ban_ns;              /* --ban: 0 = no bans */
	uint64_t burst_ns;            /* --burst: a key saves up twice it of its rate, at most the window */
	uint8_t key_kind;             /* --key: enum rw_key_kind */
	uint8_t v6_prefix;            /* --v6-prefix: 1..128 */
	uint8_t rank_mask;            /* --rank: a bit per kind ranked beside key_kind */
	char events_path[RW_PATH_MAX]; /* --events FILE or "-", "" = none */
	char history_path[RW_PATH_MAX]; /* --history FILE (SQLite), "" = none */
	uint64_t history_keep_ns;     /* --history-keep: windows older than this are deleted */
	char samples_dir[RW_PATH_MAX]; /* --samples DIR: attack frames as pcap, "" = none */
	uint64_t samples_max;         /* --samples-max: bytes DIR's samples may take */
	uint64_t history_max;         /* --history-max: bytes the database may take */
	char metrics[64];             /* --metrics [ADDR:]PORT, "" = none */
	uint32_t metrics_min_share_ppm; /* --metrics-min-share: 0 = the top-N only (and without --metrics) */
	struct rw_hook_config hook;   /* --on-event: command "" without */
	struct rw_bgp_config bgp;     /* --bgp: api "" without */
	char on_event_user[RW_USER_MAX]; /* --on-event-user: who children run as; "" = ratewall's */
	char name[RW_NAME_MAX];
};

/*
 * How many keys a ranking keeps: the top-N, or with --metrics-min-share every
 * key over the share, of which there are at most 1/share (their traffic adds
 * up to no more than the window's), whichever is more.
 */
static inline uint32_t rw_ranked_keys(const struct rw_config *cfg)
{
	uint32_t over = cfg->metrics_min_share_ppm ? 1000000u / cfg->metrics_min_share_ppm : 0;

	return over > cfg->top ? over : cfg->top;
}

/*
 * The coarse clock moves once a jiffy (tick_ns), and so does a key's
 * schedule (--burst): in one jiffy it hands out at most 2 x R x burst (the
 * peak's slack at twice the rate R) and R x 2 x burst (the bank), so with a
 * burst under half a jiffy a key gets less than R (--burst 0: one packet a
 * jiffy, 250 pps at HZ=250 whatever the limit). --burst window has no schedule.
 */
static inline bool rw_coarse_burst_fits(uint64_t burst_ns, uint64_t tick_ns)
{
	return burst_ns == RW_BURST_WINDOW || 2 * burst_ns >= tick_ns;
}

/*
 * Resolves auto: coarse when a slot spans enough coarse ticks (tick_ns from
 * clock_getres) and the burst fits it; never a pair --clock coarse refuses.
 */
static inline enum rw_clock rw_clock_resolve(enum rw_clock want, uint64_t slot_ns, uint64_t burst_ns,
					     uint64_t tick_ns)
{
	if (want != RW_CLOCK_AUTO)
		return want;
	return tick_ns && slot_ns >= RW_COARSE_MIN_TICKS_PER_SLOT * tick_ns &&
	       rw_coarse_burst_fits(burst_ns, tick_ns) ? RW_CLOCK_COARSE : RW_CLOCK_PRECISE;
}

/* What a rule must fit: the key the run counts by (rules.c refuses one that does not). */
static inline struct rw_rule_scope rw_config_rule_scope(const struct rw_config *cfg)
{
	return (struct rw_rule_scope){ .key_kind = cfg->key_kind, .v6_prefix = cfg->v6_prefix,
				       .max_rules = cfg->max_rules };
}

static inline uint64_t rw_slot_ns(const struct rw_config *cfg)
{
	return cfg->window_ns / cfg->slots;
}

/*
 * Budget per window, the unit the kernel enforces: per_second x window / divisor
 * (divisor 8 turns bits into bytes). Rounded down, at least 1; 0 = no limit.
 */
static inline uint64_t rw_limit_per_window(uint64_t per_second, uint64_t window_ns,
					   uint32_t divisor)
{
	unsigned __int128 v = (unsigned __int128)per_second * window_ns / 1000000000u / divisor;

	if (!per_second)
		return 0;
	return v ? (v > UINT64_MAX ? UINT64_MAX : (uint64_t)v) : 1;
}

#endif
