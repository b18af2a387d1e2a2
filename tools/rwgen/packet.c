// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The packet-socket sender. A kernel may refuse BPF_PROG_RUN with live frames
 * (seen: every such run EPERM, even of a program that only drops, with every
 * capability), and the tests must send all the same: a raw packet socket on
 * the veth, bypassing its qdisc, hands each frame to the veth's transmit, as
 * the live frames' redirect does, and the peer's XDP runs on the sending CPU
 * (the veth picks the receive queue by that CPU, as for a redirect). It costs
 * a copy and a system call a burst: a few hundred thousand frames a second a
 * CPU, enough for every paced test, not for a benchmark.
 */
#define _GNU_SOURCE /* sendmmsg */
#include <errno.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packet.h"
#include "patch.h"

int rwgen_packet_init(struct rwgen_packet *p, const unsigned char *frame, uint32_t len)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->len = len;
	p->copies = malloc((size_t)PACKET_BURST * len);
	if (!p->copies)
		return -ENOMEM;
	for (int i = 0; i < PACKET_BURST; i++) {
		unsigned char *c = p->copies + (size_t)i * len;

		memcpy(c, frame, len);
		p->iov[i] = (struct iovec){ .iov_base = c, .iov_len = len };
		p->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &p->iov[i], .msg_iovlen = 1 };
	}
	return 0;
}

int rwgen_packet_open(struct rwgen_packet *p, int ifindex)
{
	/* Protocol 0: the socket receives nothing, it only sends. */
	struct sockaddr_ll addr = { .sll_family = AF_PACKET, .sll_ifindex = ifindex };
	int one = 1;

	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->fd < 0 || setsockopt(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) ||
	    bind(p->fd, (struct sockaddr *)&addr, sizeof(addr)))
		return -errno;
	return 0;
}

int rwgen_packet_fill(struct rwgen_packet *p, const struct rwgen_sequence *s, uint64_t pos, int k)
{
	for (int i = 0; i < k; i++) {
		unsigned char *c = p->copies + (size_t)i * p->len;

		if (rwgen_patch(c, c + p->len, s->lay, rwgen_sequence_index(s, pos + (uint64_t)i), pos + (uint64_t)i,
				s->seed))
			return -EINVAL;
	}
	return 0;
}

int rwgen_packet_send(struct rwgen_packet *p, const struct rwgen_sequence *s, uint64_t pos, uint64_t n)
{
	int k = n < PACKET_BURST ? (int)n : PACKET_BURST, sent, err;

	err = rwgen_packet_fill(p, s, pos, k);
	if (err)
		return err;
	sent = sendmmsg(p->fd, p->msgs, (unsigned int)k, 0);
	if (sent >= 0)
		return sent;
	/* The veth's ring is full (its NAPI drains it at the next softirq), or a signal came. */
	return errno == ENOBUFS || errno == EAGAIN || errno == EINTR ? 0 : -errno;
}

void rwgen_packet_close(struct rwgen_packet *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->copies);
	p->fd = -1;
	p->copies = NULL;
}
