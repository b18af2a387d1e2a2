/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * packet.c: the generator's second way out, a packet socket on --dev, for a
 * kernel that refuses live frames. It sends the same sequence as the BPF
 * program (patch.h), each copy patched here, up to PACKET_BURST a system call.
 */
#ifndef RWGEN_PACKET_H
#define RWGEN_PACKET_H

#include <stdint.h>
#include <sys/socket.h> /* struct mmsghdr: its includers define _GNU_SOURCE */
#include <sys/uio.h>

#include "schedule.h"

#define PACKET_BURST 64

struct rwgen_packet {
	int fd;
	uint32_t len;
	unsigned char *copies; /* PACKET_BURST copies of the frame */
	struct mmsghdr msgs[PACKET_BURST];
	struct iovec iov[PACKET_BURST];
};

/* The copies of frame (len bytes) it patches: 0 or -ENOMEM. */
int rwgen_packet_init(struct rwgen_packet *p, const unsigned char *frame, uint32_t len);
/* A socket on ifindex that sends frames as they are, past the qdisc: 0 or -errno. */
int rwgen_packet_open(struct rwgen_packet *p, int ifindex);
/* Patches copies 0 .. k - 1 (k <= PACKET_BURST) for positions pos ..: 0 or -EINVAL (too short). */
int rwgen_packet_fill(struct rwgen_packet *p, const struct rwgen_sequence *s, uint64_t pos, int k);
/*
 * Sends the copies for positions pos .. pos + n - 1, at most PACKET_BURST of
 * them: returns how many the device took (from the first on), or -errno. 0:
 * its queue is full for now, or a signal came first.
 */
int rwgen_packet_send(struct rwgen_packet *p, const struct rwgen_sequence *s, uint64_t pos, uint64_t n);
/* Closes the socket and frees the copies; again is harmless. */
void rwgen_packet_close(struct rwgen_packet *p);

#endif
