/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the XDP program enforces, listed once. The load parameters carry it
 * into the program's constants (loader.c), the pinned record keeps it
 * (service/pins.h), and --replace and `ratewall status` name its options
 * from the same list.
 */
#ifndef RW_ENFORCED_H
#define RW_ENFORCED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/config.h"

/*
 * X(type, field, option, text, rodata, change), in the order messages name them:
 *   option  the option that sets it; fields one option sets together share
 *           it (and its text) and are named once
 *   text    how a value reads: the text_<text> of enforced.c
 *   rodata  as_is: the program's constant cfg_<field> is the value itself;
 *           derived: the loader derives the program's constants from it
 *   change  what a change does to the flow state a --replace keeps:
 *           kept, layout (it starts afresh), key (afresh: keys mean other things)
 */
#define RW_ENFORCED_FIELDS(X)                                                              \
	X(uint8_t, key_kind, "--key", key_kind, as_is, key)                                \
	X(uint8_t, rank_mask, "--rank", kinds, as_is, key)                                 \
	X(uint8_t, v6_prefix, "--v6-prefix", number, derived, key) /* 0 = the default */  \
	X(uint64_t, limit_packets, "--pps", pps, as_is, kept)      /* per window, 0 = none */ \
	X(uint64_t, limit_bytes, "--bps", bps, as_is, kept)        /* per window, 0 = none */ \
	X(uint64_t, slot_ns, "--window/--slots", window, as_is, layout)                    \
	X(uint32_t, slots, "--window/--slots", window, as_is, layout)                      \
	X(uint32_t, max_flows, "--max-flows", number, derived, layout) /* tracked sources */ \
	X(bool, coarse_clock, "--clock", clock, as_is, layout)                             \
	X(bool, dry_run, "--dry-run", on_off, as_is, kept)       /* count drops, enforce none */ \
	X(bool, malformed_drop, "--malformed", drop_pass, as_is, kept)                     \
	X(bool, events, "--events", on_off, as_is, kept)         /* limited, banned, unbanned */ \
	X(uint64_t, ban_ns, "--ban", ban, as_is, kept)           /* 0 = off */             \
	X(uint64_t, burst_ns, "--burst", burst, as_is, kept)                               \
	X(bool, sample, "--levels", on_off, as_is, kept) /* untracked packets sampled */  \
	X(bool, pcap, "--samples", on_off, as_is, kept)  /* limited keys' frames copied */

#define RW_ENFORCED_DECLARE(type, field, ...) type field;

struct rw_enforced {
	RW_ENFORCED_FIELDS(RW_ENFORCED_DECLARE)
};

/*
 * Puts the list in a struct (the load parameters, the pinned record): each
 * field by its own name (p->slots), and all of them as one (p->enforced),
 * the way the kernel's struct_group() does.
 */
#define RW_ENFORCED_MEMBERS                                                                \
	union {                                                                            \
		struct rw_enforced enforced;                                               \
		struct {                                                                   \
			RW_ENFORCED_FIELDS(RW_ENFORCED_DECLARE)                            \
		};                                                                         \
	}

/* What a change of a field does to the flow state (the list's last column). */
enum rw_enforced_change {
	RW_ENFORCED_KEPT,   /* the flow state goes on */
	RW_ENFORCED_LAYOUT, /* the flow state starts afresh */
	RW_ENFORCED_KEY,    /* the flow state starts afresh, and its keys are of another kind */
};

/* One field of the list, as code walks it. */
struct rw_enforced_field {
	const char *name;   /* the field's */
	const char *option;
	enum rw_enforced_change change;
	uint64_t (*value)(const struct rw_enforced *e);
	/* The value as the option reads (e: the others it reads with, like the window). */
	void (*text)(const struct rw_enforced *e, uint64_t value, char *buf, size_t len);
};

extern const struct rw_enforced_field rw_enforced_fields[];
extern const size_t rw_enforced_nfields;

/* What a run with these options enforces (clock: resolved, not auto). */
struct rw_enforced rw_enforced_of_config(const struct rw_config *cfg, uint32_t max_flows,
					 enum rw_clock clock);

/* Whether a field whose change does `at_least` or more differs between a and b. */
bool rw_enforced_differs(const struct rw_enforced *a, const struct rw_enforced *b,
			 enum rw_enforced_change at_least);

/*
 * Calls fn for each option whose fields differ between was and now, once an
 * option, in the list's order, with each side's text. Returns how many.
 */
typedef void (*rw_enforced_diff_fn)(const char *option, const char *was, const char *now,
				     void *arg);
unsigned int rw_enforced_each_difference(const struct rw_enforced *was,
					 const struct rw_enforced *now, rw_enforced_diff_fn fn,
					 void *arg);

/* Every option as "OPTION TEXT", once each, a space between: "--key src --rank none ...". */
void rw_enforced_options_text(const struct rw_enforced *e, char *buf, size_t len);

#endif
