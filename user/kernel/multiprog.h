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
 * joins a dispatcher (libxdp attaches a loaded extension anew there), with
 * run priority prio in its BTF (rw_multi_set_prio). Returns the small
 * program's fd, to close after the load, or a negative errno.
 */
struct bpf_object;
struct bpf_program;
int rw_multi_prepare(struct bpf_object *obj, struct bpf_program *prog, unsigned int prio);

/*
 * Sets the run priority of obj's program name in its XDP_RUN_CONFIG (BTF),
 * before the load. libxdp reads a loaded program's priority only from there:
 * xdp_program__set_run_prio refuses a loaded program (EINVAL), and ratewall
 * loads its own. 0, or a negative errno (-ENOENT: the object has no
 * XDP_RUN_CONFIG for name).
 */
int rw_multi_set_prio(struct bpf_object *obj, const char *name, unsigned int prio);

/*
 * The largest MTU whose frames fit one page as XDP sees them on a veth (4096
 * less the headroom, the skb's shared info and the Ethernet header); a driver
 * needs a frags-aware program above about this.
 */
#define RW_XDP_ONE_PAGE_MTU 3506

/*
 * Joins prog_fd to ifindex's dispatcher at the priority in its BTF
 * (rw_multi_set_prio), making one if there is none; mode gets the
 * dispatcher's, native or generic.
 */
int rw_multi_attach(int prog_fd, int ifindex, const char *ifname, enum rw_xdp_mode *mode,
		    char *err, size_t errlen);
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
