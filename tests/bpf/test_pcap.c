// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --samples with --levels, through the real program: a prefix the loader
 * arms (kernel/pcapnets.c, into `pcap_nets`) has the next RW_PCAP_FRAMES
 * frames offered from inside it copied into `pcap_ring`, passed or dropped,
 * under the prefix's key; a frame from outside it is not; spent or light,
 * the prefix is disarmed and the data path looks nothing up again.
 */
#include <arpa/inet.h>
#include <bpf/libbpf.h>
#include <string.h>

#include "bpfenv.h"
#include "kernel/pcapnets.h"
#include "model/key.h"
#include "testlib.h"

#define NET24 0xc6120000u    /* 198.18.0.0/24 */
#define INSIDE 0xc6120005u   /* 198.18.0.5 */
#define INSIDE2 0xc61200feu  /* 198.18.0.254 */
#define OUTSIDE 0xc6120105u  /* 198.18.1.5: the next /24 */
#define ARMED_AT (7 * MS)

struct seen {
	uint32_t frames, inside, outside, wrong_key, wrong_time;
	struct rw_key prefix;
};

static int on_frame(void *ctx, void *data, size_t size)
{
	const struct rw_pcap_frame *fr = data;
	struct seen *s = ctx;
	uint32_t saddr;

	if (size < sizeof(*fr) || fr->caplen < 14 + 20)
		return 0;
	s->frames++;
	memcpy(&saddr, fr->data + 14 + 12, 4); /* the IPv4 source, after the Ethernet header */
	saddr = ntohl(saddr);
	if ((saddr & 0xffffff00u) == NET24)
		s->inside++;
	else
		s->outside++;
	s->wrong_key += memcmp(&fr->key, &s->prefix, sizeof(fr->key)) != 0;
	s->wrong_time += fr->armed_ns != ARMED_AT;
	return 0;
}

static struct rw_key net24(void)
{
	struct rw_key k = key4(NET24), p;

	k.prefix_len = 32;
	rw_key_cut(&k, 24, &p);
	return p;
}

static uint32_t armed_count(struct env *e)
{
	return e->skel->bss->pcap_nets_armed;
}

/* A program with --samples at ARMED_AT, its frames' reader into s and the prefixes' arming in pn; false: none. */
static bool open_sampling(struct env *e, struct rw_pcap_nets *pn, struct seen *s, struct ring_buffer **rb)
{
	char err[256];

	if (!env_open_mode(e, 10, 100 * MS, 1000000, 0, 1024, (struct env_mode){ .pcap = true }))
		return false;
	set_time(e, ARMED_AT);
	*rb = ring_buffer__new(bpf_map__fd(e->skel->maps.pcap_ring), on_frame, s, NULL);
	CHECK(*rb != NULL);
	CHECK_EQ(rw_pcap_nets_start(pn, bpf_map__fd(e->skel->maps.pcap_nets),
				    &e->skel->bss->pcap_nets_armed, err, sizeof(err)), 0);
	return true;
}

/*
 * Armed: 70 frames from inside (two sources) and 20 from outside, none over
 * its limit: the first 64 from inside are copied, passed as they were, under
 * the prefix; none from outside. Spent, the next tick disarms it.
 */
static void test_pcap_heavy_prefix_offered_frames(void)
{
	struct env e;
	struct rw_pcap_nets pn;
	struct seen s = { .prefix = net24() };
	struct ring_buffer *rb;
	uint32_t p = 0, d = 0;

	if (!open_sampling(&e, &pn, &s, &rb))
		return;
	/* Before the arm: nothing copied, and the data path looked nothing up. */
	send4(&e, INSIDE, 3, 18, &p, &d);
	CHECK(rb && ring_buffer__consume(rb) >= 0);
	CHECK_EQ(s.frames, 0);
	CHECK_EQ(rw_pcap_nets_arm(&pn, &s.prefix, ARMED_AT), 0);
	CHECK_EQ(armed_count(&e), 1);
	for (int i = 0; i < 10; i++) {
		send4(&e, OUTSIDE, 2, 18, &p, &d);
		send4(&e, INSIDE, 4, 18, &p, &d);
		send4(&e, INSIDE2, 3, 18, &p, &d);
	}
	if (rb)
		ring_buffer__consume(rb);
	printf("     armed 198.18.0.0/24: %u passed, %u dropped; %u frames copied, %u inside, "
	       "%u outside, %u under another key\n", p, d, s.frames, s.inside, s.outside,
	       s.wrong_key);
	CHECK_EQ(d, 0); /* offered, not dropped: copied all the same */
	CHECK_EQ(s.frames, RW_PCAP_FRAMES);
	CHECK_EQ(s.inside, RW_PCAP_FRAMES);
	CHECK_EQ(s.outside, 0);
	CHECK_EQ(s.wrong_key, 0);
	CHECK_EQ(s.wrong_time, 0);
	CHECK_EQ(e.skel->bss->pcap_lost, 0);
	/* Spent: the tick disarms it, and no frame is copied after. */
	rw_pcap_nets_tick(&pn);
	CHECK_EQ(pn.n, 0);
	CHECK_EQ(armed_count(&e), 0);
	send4(&e, INSIDE, 5, 18, &p, &d);
	if (rb)
		ring_buffer__consume(rb);
	CHECK_EQ(s.frames, RW_PCAP_FRAMES);
	rw_pcap_nets_stop(&pn);
	ring_buffer__free(rb);
	env_close(&e);
}

/* Light before its frames are spent: disarmed at once, its count back to 0. */
static void test_pcap_light_prefix_disarmed(void)
{
	struct env e;
	struct rw_pcap_nets pn;
	struct seen s = { .prefix = net24() };
	struct rw_key other = key4(0xc6130000u), other24;
	struct ring_buffer *rb;
	uint32_t p = 0, d = 0;

	other.prefix_len = 32;
	rw_key_cut(&other, 16, &other24);
	if (!open_sampling(&e, &pn, &s, &rb))
		return;
	CHECK_EQ(rw_pcap_nets_arm(&pn, &s.prefix, ARMED_AT), 0);
	CHECK_EQ(rw_pcap_nets_arm(&pn, &other24, ARMED_AT), 0);
	CHECK_EQ(armed_count(&e), 2);
	send4(&e, INSIDE, 5, 18, &p, &d);
	rw_pcap_nets_disarm(&pn, &s.prefix);
	rw_pcap_nets_disarm(&pn, &s.prefix); /* twice: counted down once */
	CHECK_EQ(armed_count(&e), 1);
	send4(&e, INSIDE, 5, 18, &p, &d);
	rw_pcap_nets_disarm(&pn, &other24);
	CHECK_EQ(armed_count(&e), 0);
	if (rb)
		ring_buffer__consume(rb);
	printf("     5 frames armed, 5 after light: %u copied\n", s.frames);
	CHECK_EQ(s.frames, 5);
	CHECK_EQ(s.inside, 5);
	rw_pcap_nets_stop(&pn);
	ring_buffer__free(rb);
	env_close(&e);
}

void run_pcap_tests(void)
{
	RUN(test_pcap_heavy_prefix_offered_frames);
	RUN(test_pcap_light_prefix_disarmed);
}
