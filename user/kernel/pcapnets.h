/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --samples with --levels: the heavy prefixes whose frames the data path
 * copies (bpf/samples.h, `pcap_nets`). The loader alone arms a prefix (its
 * `heavy` event), disarms it (`light`, or its frames spent, seen at a tick)
 * and writes the count of armed prefixes the data path reads first
 * (`pcap_nets_armed`): written after an arm and after a disarm's delete, it
 * is never below the prefixes in the map, so none of them is skipped.
 */
#ifndef RW_KERNEL_PCAPNETS_H
#define RW_KERNEL_PCAPNETS_H

#include <stddef.h>
#include <stdint.h>
#include "ratewall.h"

struct rw_pcap_nets {
	int fd;                   /* pcap_nets; -1: off */
	uint32_t *armed;          /* the program's pcap_nets_armed, in its .bss */
	struct rw_key keys[RW_PCAP_NETS]; /* the prefixes armed, as --levels gives them */
	uint32_t n;
};

/*
 * Starts with nothing armed (what a run before left in a pinned map is taken
 * out). armed: the program's count, in its .bss (the skeleton's, or an
 * adopted program's mapped); NULL is refused. 0, or -errno with the reason
 * in err; p->fd is -1 then.
 */
int rw_pcap_nets_start(struct rw_pcap_nets *p, int map_fd, uint32_t *armed, char *err,
		       size_t errlen);
/*
 * A prefix turned heavy at now (the program's clock): its next RW_PCAP_FRAMES
 * frames are copied. Armed again while armed, it starts over (a new file).
 * 0, -ENOSPC with RW_PCAP_NETS armed, or -errno.
 */
int rw_pcap_nets_arm(struct rw_pcap_nets *p, const struct rw_key *prefix, uint64_t now);
/* A prefix turned light: its frames are no longer copied. */
void rw_pcap_nets_disarm(struct rw_pcap_nets *p, const struct rw_key *prefix);
/* Once a tick: the prefixes whose frames are spent are disarmed. */
void rw_pcap_nets_tick(struct rw_pcap_nets *p);
/* Disarms every prefix (the data path looks nothing up after). */
void rw_pcap_nets_stop(struct rw_pcap_nets *p);

#endif
