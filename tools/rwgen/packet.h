/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * packet.c: the generator's second way out, a packet socket on --dev, for a
 * kernel that refuses live frames. It sends the same sequence as the BPF
 * program (patch.h), each copy patched here, up to PACKET_BURST a system call.
 */
#ifndef RWGEN_PACKET_H
#define RWGEN_PACKET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h> /* struct mmsghdr: with _GNU_SOURCE, which each includer defines */
#include <sys/uio.h>

#include "layout.h"

#define PACKET_BURST 64

/* The sequence as the BPF program reads it from its rodata and schedule map. */
struct rwgen_sequence {
	const struct rwgen_layout *lay;
	const uint32_t *sched; /* index for each position, or NULL */
	uint64_t sched_len;
	uint32_t nsrc;
	bool random;
	uint64_t seed;
};

struct rwgen_packet {
	int fd;
	const unsigned char *frame;
	uint32_t len;
	unsigned char *copies; /* PACKET_BURST frames */
	struct mmsghdr msgs[PACKET_BURST];
	struct iovec iov[PACKET_BURST];
};

/* A socket on ifindex that sends frames as they are, past the qdisc; 0 or -errno. */
int rwgen_packet_open(struct rwgen_packet *p, int ifindex, const unsigned char *frame, uint32_t len);
/*
 * Sends the copies for positions pos .. pos + n - 1, at most PACKET_BURST of
 * them: returns how many the device took (from the first on), or -errno. 0:
 * its queue is full for now.
 */
int rwgen_packet_send(struct rwgen_packet *p, const struct rwgen_sequence *s, uint64_t pos, uint64_t n);
void rwgen_packet_close(struct rwgen_packet *p);

#endif
