/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ratewall beside other XDP programs: a place in libxdp's dispatcher (the
 * multi-program mode xdp-loader, xdp-filter and others share), instead of
 * an interface of its own.
 */
#ifndef RW_MULTIPROG_H
#define RW_MULTIPROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/config.h"

/* What an interface already has: nothing, libxdp's dispatcher, or a program of its own. */
enum rw_xdp_holder { RW_XDP_FREE, RW_XDP_DISPATCHER, RW_XDP_FOREIGN };
enum rw_xdp_holder rw_xdp_holder_of(int ifindex, uint32_t *prog_id);

/* Whether the run goes through the dispatcher: asked, or an interface already has one. */
bool rw_multi_wanted(enum rw_xdp_mode mode, const uint32_t *ifindex, uint32_t n);

/*
 * The program's entry is loaded as an extension (freplace) of a small XDP
 * program's, so that it is loaded and given its maps' contents before it
 * joins a dispatcher (libxdp attaches a loaded extension anew there).
 * Returns the small program's fd, to close after the load, or a negative errno.
 */
struct bpf_program;
int rw_multi_prepare(struct bpf_program *prog);

/*
 * The largest MTU whose frames fit one page as XDP sees them on a veth (4096
 * less the headroom, the skb's shared info and the Ethernet header); a driver
 * needs a frags-aware program above about this.
 */
#define RW_XDP_ONE_PAGE_MTU 3506

/*
 * Joins prog_fd to ifindex's dispatcher at priority prio (making one if there
 * is none); mode gets the dispatcher's, native or generic.
 */
int rw_multi_attach(int prog_fd, int ifindex, const char *ifname, unsigned int prio,
		    enum rw_xdp_mode *mode, char *err, size_t errlen);
/* Leaves the dispatcher; the other programs stay attached. 0 when it was not there. */
int rw_multi_detach(uint32_t prog_id, int ifindex);
/* Whether prog_id is among the dispatcher's programs on ifindex (of this network namespace). */
bool rw_multi_attached(uint32_t prog_id, int ifindex);
/*
 * The id of the link that holds prog_id in a dispatcher, from any network
 * namespace (`ratewall status`); 0 when it is in none.
 */
uint32_t rw_multi_link_id(uint32_t prog_id);

#endif
