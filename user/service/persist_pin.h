/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What this loader pins of a program it loaded: the maps, the program, the
 * links, and the instance record as this loader writes it. Shared by the
 * pinned instance's starts (persist.c: create, adopt, swap) and the upgrade
 * over another layout version's pins (upgrade.c), which persist.c calls:
 * here, upgrade.c needs nothing of persist.c, and no circle forms.
 */
#ifndef RW_PERSIST_PIN_H
#define RW_PERSIST_PIN_H

#include <stdbool.h>
#include <stdint.h>
#include "cli/config.h"
#include "service/pins.h"

struct rw_session;

/* Pins fd as WHAT in the instance's directory: 0 or -errno. */
int rw_persist_pin_as(const struct rw_session *s, int fd, const char *what);
/* The options a program enforces, as the record keeps them. */
void rw_persist_meta_options(struct rw_meta *m, const struct rw_session *s);
/* Writes the record with a fresh heartbeat: 0 or -errno. */
int rw_persist_write_meta(struct rw_session *s);
/* The loader's own fields, when it takes the instance over. */
void rw_persist_meta_loader(struct rw_meta *m);
/* Attaches the program to interface i and pins the link (the reason said): 0 or -errno. */
int rw_persist_attach_pinned(struct rw_session *s, uint32_t i, enum rw_xdp_mode mode);
/* Pins every map of the skeleton (those in kept[] are pinned already): 0 or -errno. */
int rw_persist_pin_maps(struct rw_session *s, const bool *kept);
/* The record of a program this loader loaded (its flow state new): made and written, not pinned. */
int rw_persist_new_meta(struct rw_session *s);

#endif
