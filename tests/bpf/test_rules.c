// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rules with a match (protocol, ports, TCP flags, ICMP type) through the real
 * program: which packets each rule takes, whose budget they share (`per`),
 * which rule decides when several could, what a fragment or a truncated
 * header meets, and each rule's counts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>

#include "bpfenv.h"
#include "kernel/rules_maps.h"
#include "model/key.h"
#include "testlib.h"

#define SRC_B 0xc6120009u /* 198.18.0.9 */
#define SRC_OUT 0xc6130009u /* 198.19.0.9: outside 198.18.0.0/16 */
#define DST_A 0xc6130005u /* 198.19.0.5 */
#define DST_B 0xc6130006u /* 198.19.0.6 */
#define SYN RW_TCP_SYN
#define ACK RW_TCP_ACK

/*
 * An IPv4 frame saddr -> daddr of protocol proto whose payload starts with
 * l4 (l4_len bytes; the IP datagram ends with them when trunc is set, else
 * 26 bytes of payload follow); frag: the IPv4 fragment field.
 */
static void frame(struct fb *f, uint32_t saddr, uint32_t daddr, uint8_t proto, const uint8_t *l4,
		  size_t l4_len, uint16_t frag)
{
	uint32_t d = htonl(daddr);

	fb_l2(f, 0, 0x0800);
	fb_ipv4(f, saddr, 5, -1, frag, l4_len + 26);
	f->b[14 + 9] = proto;
	memcpy(f->b + 14 + 16, &d, 4);
	memcpy(f->b + 14 + 20, l4, l4_len);
}

static void tcp(struct fb *f, uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
		uint8_t flags)
{
	uint8_t h[20] = { (uint8_t)(sport >> 8), (uint8_t)sport, (uint8_t)(dport >> 8), (uint8_t)dport };

	h[12] = 5 << 4;
	h[13] = flags;
	frame(f, saddr, daddr, IPPROTO_TCP, h, sizeof(h), 0x4000);
}

static void udp(struct fb *f, uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
		uint16_t frag)
{
	uint8_t h[8] = { (uint8_t)(sport >> 8), (uint8_t)sport, (uint8_t)(dport >> 8), (uint8_t)dport };

	frame(f, saddr, daddr, IPPROTO_UDP, h, sizeof(h), frag);
}

static void icmp(struct fb *f, uint32_t saddr, uint8_t type)
{
	uint8_t h[8] = { type };

	frame(f, saddr, DST_A, IPPROTO_ICMP, h, sizeof(h), 0);
}

static uint32_t send_n(struct env *e, const struct fb *f, int n)
{
	uint32_t passed = 0;

	for (int i = 0; i < n; i++)
		passed += run_frame(e, f) == XDP_PASS;
	return passed;
}

/* No limit on the command line: only the rules limit. */
static bool open_rules(struct env *e, const char *rules)
{
	if (!env_open(e, 10, 100 * MS, 0, 0))
		return false;
	install_rules(e, rules);
	set_time(e, 5 * MS);
	return true;
}

/* The rules in force with their counts, and the one whose text starts with prefix. */
static struct rw_rule_spec rule_named(struct env *e, const char *start)
{
	struct rw_rule_env env = rule_env_of(e);
	struct rw_rule_spec found = { .id = UINT32_MAX };
	struct rw_ruleset rs = { 0 };
	char text[RW_RULE_STRLEN];

	CHECK_EQ(rw_rules_read(&env, &rs), 0);
	for (size_t i = 0; i < rs.n; i++) {
		rw_rule_format(&rs.rule[i], text, sizeof(text));
		if (strncmp(text, start, strlen(start)) == 0)
			found = rs.rule[i];
	}
	rw_ruleset_free(&rs);
	CHECK(found.id != UINT32_MAX);
	return found;
}

/* tcp flags syn: a source's SYNs have their own budget; its ACKs, SYN-ACKs and UDP do not. */
static void test_match_syn_per_source(void)
{
	struct rw_window_sum w;
	struct rw_rule_spec r;
	char text[RW_KEY_STRLEN], want[64];
	struct rw_key k;
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 tcp flags syn limit 10\n"))
		return;
	tcp(&f, SRC4, DST_A, 40000, 80, SYN);
	CHECK_EQ(send_n(&e, &f, 30), 10);
	tcp(&f, SRC4, DST_A, 40000, 80, ACK);
	CHECK_EQ(send_n(&e, &f, 30), 30);
	tcp(&f, SRC4, DST_A, 40000, 80, SYN | ACK);
	CHECK_EQ(send_n(&e, &f, 30), 30);
	udp(&f, SRC4, DST_A, 40000, 80, 0);
	CHECK_EQ(send_n(&e, &f, 30), 30);
	tcp(&f, SRC_B, DST_A, 40001, 443, SYN);
	CHECK_EQ(send_n(&e, &f, 30), 10);
	r = rule_named(&e, "0.0.0.0/0 tcp flags syn");
	CHECK_EQ(r.packets, 60);
	CHECK_EQ(r.drops, 40);
	/* Counted under the rule's key for the source, and shown with the rule. */
	k = key4(SRC4);
	k.kind = RW_KIND_SRC | RW_KIND_RULE;
	k.rule = r.id;
	CHECK(flow_window(&e, &k, 0, &w));
	CHECK_EQ(w.packets, 30);
	CHECK_EQ(w.drop_packets, 20);
	rw_key_format(&k, text, sizeof(text));
	snprintf(want, sizeof(want), "198.18.0.1 [rule %u]", r.id);
	CHECK_STR(text, want);
	env_close(&e);
}

/* per dst: what each destination receives from source port 53, whoever sends it. */
static void test_match_reflection_per_destination(void)
{
	uint32_t to_a = 0, to_b = 0;
	struct rw_rule_spec r;
	char text[RW_KEY_STRLEN], want[64];
	struct rw_key k = key4(DST_A);
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 udp sport 53,123,11211 limit 10 per dst\n"))
		return;
	for (uint32_t i = 0; i < 30; i++) {
		udp(&f, SRC4 + i, DST_A, i % 2 ? 53 : 11211, 40000, 0);
		to_a += send_n(&e, &f, 1);
		udp(&f, SRC4 + i, DST_B, 123, 40000, 0);
		to_b += send_n(&e, &f, 1);
	}
	CHECK_EQ(to_a, 10);
	CHECK_EQ(to_b, 10);
	udp(&f, SRC4, DST_A, 54, 40000, 0);
	CHECK_EQ(send_n(&e, &f, 30), 30);
	r = rule_named(&e, "0.0.0.0/0 udp sport 53,123,11211");
	CHECK_EQ(r.drops, 40);
	k.kind = RW_KIND_DST | RW_KIND_RULE;
	k.rule = r.id;
	rw_key_format(&k, text, sizeof(text));
	snprintf(want, sizeof(want), "198.19.0.5 dst [rule %u]", r.id);
	CHECK_STR(text, want);
	env_close(&e);
}

/*
 * Which rule decides: the longest prefix; at equal length a rule with a
 * match before one without, then the earlier line.
 */
static void test_match_precedence(void)
{
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 tcp flags syn limit 5\n"
			    "198.18.0.0/16 allow\n"
			    "0.0.0.0/0 tcp dport 22 limit 2\n"
			    "0.0.0.0/0 limit 3\n"
			    "0.0.0.0/0 udp limit 7\n"))
		return;
	tcp(&f, SRC4, DST_A, 40000, 22, SYN); /* the /16 allow: longer than any /0 */
	CHECK_EQ(send_n(&e, &f, 30), 30);
	tcp(&f, SRC_OUT, DST_A, 40000, 22, SYN); /* both /0 matches: line 1 before line 3 */
	CHECK_EQ(send_n(&e, &f, 30), 5);
	tcp(&f, SRC_OUT + 1, DST_A, 40000, 22, ACK); /* only dport 22 */
	CHECK_EQ(send_n(&e, &f, 30), 2);
	udp(&f, SRC_OUT + 2, DST_A, 40000, 9, 0); /* udp over the prefix-only /0 */
	CHECK_EQ(send_n(&e, &f, 30), 7);
	tcp(&f, SRC_OUT + 3, DST_A, 40000, 80, ACK); /* no match: the prefix-only /0 */
	CHECK_EQ(send_n(&e, &f, 30), 3);
	env_close(&e);
}

/* A datagram's id, in a frame frame() built. */
static void set_ip_id(struct fb *f, uint16_t id)
{
	f->b[14 + 4] = (uint8_t)(id >> 8);
	f->b[14 + 5] = (uint8_t)id;
}

/* The IPv4 datagram in f ends after l4 bytes of its payload (frame() adds 26 more). */
static void cut_datagram(struct fb *f, size_t l4)
{
	f->b[14 + 2] = 0;
	f->b[14 + 3] = (uint8_t)(20 + l4);
	f->len = 14 + 20 + l4;
}

/*
 * A first fragment holding its header meets port and flag rules as a whole
 * datagram; its later fragments meet what it met, and go where it went; a
 * later fragment whose first was not seen meets protocol-alone rules only
 * (frag_unmatched). A TCP first fragment of 16 bytes (hping3 -f) holds its
 * ports and flags; one of 8 is tiny.
 */
static void test_match_first_and_later_fragments(void)
{
	uint8_t syn[20] = { 0x9c, 0x40, 0, 80, [12] = 5 << 4, [13] = SYN };
	struct rw_stats st;
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 udp dport 9 deny\n"
			    "0.0.0.0/0 tcp flags syn deny\n"
			    "198.18.0.0/16 udp deny\n"))
		return;
	udp(&f, SRC_OUT, DST_A, 40000, 9, 0);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	udp(&f, SRC_OUT, DST_A, 40000, 9, 0x2000); /* first fragment: MF set */
	set_ip_id(&f, 7);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	udp(&f, SRC_OUT, DST_A, 40000, 9, 0x0010); /* its later fragment: 128 bytes on */
	set_ip_id(&f, 7);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	set_ip_id(&f, 8); /* a later fragment whose first never came: no rule of its protocol alone */
	CHECK_EQ(send_n(&e, &f, 3), 3);
	udp(&f, SRC_OUT, DST_A, 40000, 53, 0x2000); /* a first fragment no rule takes ... */
	set_ip_id(&f, 9);
	CHECK_EQ(send_n(&e, &f, 1), 1);
	udp(&f, SRC_OUT, DST_A, 40000, 9, 0x0010); /* ... and its later ones, though they look alike */
	set_ip_id(&f, 9);
	CHECK_EQ(send_n(&e, &f, 2), 2);
	read_stats(&e, &st);
	CHECK_EQ(st.frag_first, 4);
	CHECK_EQ(st.frag_later, 8);
	CHECK_EQ(st.frag_unmatched, 3);
	CHECK_EQ(st.l4_unread, 0);
	/* hping3 -S -f: 16 bytes of TCP, ports and flags in the first fragment. */
	frame(&f, SRC_OUT, DST_A, IPPROTO_TCP, syn, sizeof(syn), 0x2000);
	cut_datagram(&f, 16);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	/* 8 bytes: the flags come later; tiny, it meets no flag rule. */
	cut_datagram(&f, 8);
	CHECK_EQ(send_n(&e, &f, 3), 3);
	read_stats(&e, &st);
	CHECK_EQ(st.tiny_frags, 3);
	/* 12 bytes of TCP in a datagram that ends there, no fragment: no flags to read. */
	frame(&f, SRC_OUT, DST_A, IPPROTO_TCP, syn, 12, 0);
	cut_datagram(&f, 12);
	CHECK_EQ(send_n(&e, &f, 3), 3);
	read_stats(&e, &st);
	CHECK_EQ(st.l4_unread, 3);
	/* The protocol is in the IP header: a udp-only rule denies fragments too. */
	udp(&f, SRC4, DST_A, 40000, 7, 0x0010);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	env_close(&e);
}

/*
 * The classes as rules: `udp frag` budgets later fragments whose first was
 * not seen (whole datagrams and fragments whose first was seen are not its);
 * `tcp tiny-frag` denies tiny first fragments and their later ones.
 */
static void test_match_fragment_classes(void)
{
	uint8_t syn[20] = { 0x9c, 0x40, 0, 80, [12] = 5 << 4, [13] = SYN };
	uint32_t passed = 0;
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 udp frag limit 5 per dst\n"
			    "0.0.0.0/0 tcp tiny-frag deny\n"))
		return;
	for (uint16_t id = 100; id < 120; id++) { /* 20 orphans from 20 sources to one victim */
		udp(&f, SRC_OUT + id, DST_A, 40000, 53, 0x0010);
		set_ip_id(&f, id);
		passed += send_n(&e, &f, 1);
	}
	CHECK_EQ(passed, 5);
	udp(&f, SRC_OUT, DST_A, 40000, 53, 0);
	CHECK_EQ(send_n(&e, &f, 20), 20);
	udp(&f, SRC_OUT, DST_B, 40000, 53, 0x2000); /* a first fragment, then its later ones */
	set_ip_id(&f, 200);
	CHECK_EQ(send_n(&e, &f, 1), 1);
	udp(&f, SRC_OUT, DST_B, 40000, 53, 0x0010);
	set_ip_id(&f, 200);
	CHECK_EQ(send_n(&e, &f, 20), 20);
	frame(&f, SRC_OUT, DST_A, IPPROTO_TCP, syn, sizeof(syn), 0x2000);
	set_ip_id(&f, 300);
	cut_datagram(&f, 8);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	frame(&f, SRC_OUT, DST_A, IPPROTO_TCP, syn, sizeof(syn), 0x0001); /* its later fragment */
	set_ip_id(&f, 300);
	CHECK_EQ(send_n(&e, &f, 3), 0);
	frame(&f, SRC_OUT, DST_A, IPPROTO_TCP, syn, sizeof(syn), 0); /* a whole SYN: no rule */
	CHECK_EQ(send_n(&e, &f, 3), 3);
	env_close(&e);
}

/*
 * A datagram is one packet to a packet limit, whatever it was cut into: of
 * 10 datagrams in 3 fragments each under `limit 5`, 5 pass whole and 5 are
 * dropped whole. Under a byte limit every fragment's bytes count.
 */
static void test_match_datagram_is_one_packet(void)
{
	uint32_t passed = 0, whole = 0;
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 udp sport 53 limit 5 per dst\n"
			    "0.0.0.0/0 udp sport 123 limit 8kbps per dst\n"))
		return;
	for (uint16_t id = 1; id <= 10; id++) {
		uint32_t got = 0;

		udp(&f, SRC_OUT, DST_A, 53, 40000, 0x2000);
		set_ip_id(&f, id);
		got += send_n(&e, &f, 1);
		udp(&f, SRC_OUT, DST_A, 53, 40000, 0x2000 | 0x00b9); /* 1480 bytes on, more to come */
		set_ip_id(&f, id);
		got += send_n(&e, &f, 1);
		udp(&f, SRC_OUT, DST_A, 53, 40000, 0x0172); /* the last */
		set_ip_id(&f, id);
		got += send_n(&e, &f, 1);
		CHECK(got == 0 || got == 3);
		passed += got;
		whole += got == 3;
	}
	CHECK_EQ(whole, 5);
	CHECK_EQ(passed, 15);
	/* 8 kbit/s, 1000 bytes a window: as many frames as fit, datagram or not. */
	passed = 0;
	for (uint16_t id = 20; id < 40; id++) {
		udp(&f, SRC_OUT, DST_B, 123, 40000, 0x2000);
		set_ip_id(&f, id);
		passed += send_n(&e, &f, 1);
		udp(&f, SRC_OUT, DST_B, 123, 40000, 0x0010);
		set_ip_id(&f, id);
		passed += send_n(&e, &f, 1);
	}
	CHECK_EQ(passed, 1000 / f.len);
	env_close(&e);
}

/*
 * --ban holds sources: a `per dst` budget over its limit is the victim's,
 * limited and never banned, so a legitimate SYN to it passes once the flood's
 * window is over; a source over a `per src` budget is banned.
 */
static void test_match_ban_never_holds_a_victim(void)
{
	uint32_t passed = 0;
	struct fb f;
	struct env e;

	if (!env_open_mode(&e, 10, 100 * MS, 0, 0, 1024,
			   (struct env_mode){ .events = true, .ban_ns = 3000 * MS }))
		return;
	install_rules(&e, "0.0.0.0/0 tcp flags syn limit 5 per dst\n"
			  "0.0.0.0/0 udp limit 5 per src\n");
	set_time(&e, 5 * MS);
	for (uint32_t i = 0; i < 20; i++) { /* a SYN flood from 20 sources */
		tcp(&f, SRC_OUT + i, DST_A, 40000, 80, SYN);
		passed += send_n(&e, &f, 1);
	}
	CHECK_EQ(passed, 5);
	udp(&f, SRC_OUT, DST_B, 40000, 53, 0);
	CHECK_EQ(send_n(&e, &f, 10), 5);
	set_time(&e, 1500 * MS); /* the window is over; a ban of 3 s would not be */
	tcp(&f, SRC_OUT + 100, DST_A, 40000, 80, SYN);
	CHECK_EQ(send_n(&e, &f, 1), 1);
	udp(&f, SRC_OUT, DST_B, 40000, 53, 0);
	CHECK_EQ(send_n(&e, &f, 1), 0); /* the source is banned */
	env_close(&e);
}

/* icmp type echo-request: pings have a budget, replies do not. */
static void test_match_icmp_type(void)
{
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 icmp type echo-request limit 10\n"))
		return;
	icmp(&f, SRC4, 8);
	CHECK_EQ(send_n(&e, &f, 30), 10);
	icmp(&f, SRC4, 0);
	CHECK_EQ(send_n(&e, &f, 30), 30);
	env_close(&e);
}

/*
 * An IPv6 SYN behind `nopts` destination options headers (8 bytes each), and
 * a fragment header when frag (offset 0, M clear: an atomic fragment).
 */
static void syn6(struct fb *f, uint32_t low, int nopts, bool frag)
{
	uint8_t syn[20] = { 0x9c, 0x40, 0, 80, [12] = 5 << 4, [13] = SYN };
	size_t hdrs = 8 * (size_t)nopts + (frag ? 8 : 0), at = 14 + 40;

	fb_l2(f, 0, 0x86dd);
	fb_ipv6(f, low, nopts ? IPPROTO_DSTOPTS : frag ? IPPROTO_FRAGMENT : IPPROTO_TCP, -1,
		hdrs + sizeof(syn));
	for (int i = 0; i < nopts; i++, at += 8)
		f->b[at] = i + 1 < nopts ? IPPROTO_DSTOPTS : frag ? IPPROTO_FRAGMENT : IPPROTO_TCP;
	if (frag) {
		f->b[at] = IPPROTO_TCP;
		f->b[at + 7] = 1; /* id 1, offset 0, M clear */
		at += 8;
	}
	memcpy(f->b + at, syn, sizeof(syn));
}

/*
 * IPv6: a SYN behind a hop-by-hop header, one budget per /48; an atomic
 * fragment, or five destination options headers, hide nothing; a chain of
 * nine is too long to follow: no flag rule meets it, a long-chain rule does.
 */
static void test_match_ipv6(void)
{
	uint8_t hbh[8] = { IPPROTO_TCP, 0 };
	uint8_t syn[20] = { 0x9c, 0x40, 0, 80, [12] = 5 << 4, [13] = SYN };
	struct rw_stats st;
	uint32_t passed = 0;
	struct fb f;
	struct env e;

	if (!open_rules(&e, "::/0 tcp flags syn limit 5 per /48\n"
			    "2001:db8:4:f000::/52 long-chain deny\n"))
		return;
	for (uint32_t net = 0; net < 2; net++) {
		for (int i = 0; i < 15; i++) {
			fb_l2(&f, 0, 0x86dd);
			fb_ipv6(&f, 7 + net, IPPROTO_HOPOPTS, -1, sizeof(hbh) + sizeof(syn) + 26);
			f.b[14 + 8 + 6] = (uint8_t)(net << 4); /* 2001:db8:0:<net>0..::: the same /48 */
			memcpy(f.b + 14 + 40, hbh, sizeof(hbh));
			memcpy(f.b + 14 + 48, syn, sizeof(syn));
			passed += send_n(&e, &f, 1);
		}
	}
	CHECK_EQ(passed, 5);
	/* Other /48s (2001:db8:1::, :2::, ...), each with a budget of 5. */
	syn6(&f, 9, 0, true);
	f.b[14 + 8 + 5] = 1;
	CHECK_EQ(send_n(&e, &f, 20), 5);
	syn6(&f, 9, 5, false);
	f.b[14 + 8 + 5] = 2;
	CHECK_EQ(send_n(&e, &f, 20), 5);
	syn6(&f, 9, 5, true);
	f.b[14 + 8 + 5] = 3;
	CHECK_EQ(send_n(&e, &f, 20), 5);
	syn6(&f, 9, 9, false); /* too long to follow: no flag rule meets it */
	f.b[14 + 8 + 5] = 4;
	CHECK_EQ(send_n(&e, &f, 20), 20);
	f.b[14 + 8 + 6] = 0xf0; /* 2001:db8:4:f000::: inside the long-chain rule */
	CHECK_EQ(send_n(&e, &f, 20), 0);
	read_stats(&e, &st);
	CHECK_EQ(st.long_chains, 40);
	CHECK_EQ(st.frag_first, 0); /* atomic fragments are whole datagrams */
	env_close(&e);
}

/*
 * Rules with matches come and go at runtime: the next packet follows, a
 * rule kept keeps its id and counts, a new one starts at zero.
 */
static void test_match_rules_at_runtime(void)
{
	struct rw_rule_env env;
	struct rw_rule_spec r, kept;
	struct rw_rule_scope scope;
	char err[256];
	struct fb f;
	struct env e;

	if (!open_rules(&e, "0.0.0.0/0 tcp flags syn limit 10\n"))
		return;
	env = rule_env_of(&e);
	scope = rule_scope_of(&e);
	tcp(&f, SRC4, DST_A, 40000, 22, SYN);
	CHECK_EQ(send_n(&e, &f, 30), 10);
	kept = rule_named(&e, "0.0.0.0/0 tcp flags syn");
	CHECK_EQ(rw_rule_parse("198.18.0.0/16 tcp dport 22 deny", &scope, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rules_add(&env, &r), 0);
	tcp(&f, SRC4 + 1, DST_A, 40000, 22, SYN);
	CHECK_EQ(send_n(&e, &f, 5), 0);
	r = rule_named(&e, "198.18.0.0/16 tcp dport 22");
	CHECK_EQ(r.packets, 5);
	CHECK(r.id != kept.id);
	CHECK_EQ(rule_named(&e, "0.0.0.0/0 tcp flags syn").id, kept.id);
	CHECK_EQ(rule_named(&e, "0.0.0.0/0 tcp flags syn").drops, 20);
	CHECK_EQ(rw_rule_parse_selector("198.18.0.0/16 tcp dport 22", &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rules_del(&env, &r), 0);
	CHECK_EQ(rw_rules_del(&env, &r), -ENOENT);
	tcp(&f, SRC4 + 2, DST_A, 40000, 22, SYN);
	CHECK_EQ(send_n(&e, &f, 30), 10);
	env_close(&e);
}

/*
 * A rule's budget is exact across CPUs like any other: a source's SYNs sent
 * by turns on every CPU, and a destination's reflection budget fed by many
 * sources on every CPU, each admitted exactly its limit.
 */
static void test_match_limit_across_cpus(void)
{
	uint32_t syn = 0, refl = 0, sent = 0, cpus = 0;
	cpu_set_t orig;
	struct fb f;
	struct env e;

	sched_getaffinity(0, sizeof(orig), &orig);
	if (!open_rules(&e, "0.0.0.0/0 tcp flags syn limit 10\n"
			    "0.0.0.0/0 udp sport 53 limit 10 per dst\n"))
		return;
	for (int round = 0; round < 4; round++) {
		for (uint32_t cpu = 0; cpu < e.ncpus; cpu++) {
			if (!pin_cpu((int)cpu))
				continue;
			cpus += round == 0;
			tcp(&f, SRC4, DST_A, 40000, 80, SYN);
			syn += send_n(&e, &f, 3);
			for (int i = 0; i < 3; i++, sent++) {
				udp(&f, SRC_B + sent, DST_B, 53, 40000, 0);
				refl += send_n(&e, &f, 1);
			}
		}
	}
	CHECK(cpus >= 1);
	CHECK_EQ(syn, 10);
	CHECK_EQ(refl, 10);
	if (cpus < 2)
		fprintf(stderr, "  note: one CPU online, cross-CPU sharing not exercised\n");
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

void run_rule_match_tests(void)
{
	RUN(test_match_syn_per_source);
	RUN(test_match_reflection_per_destination);
	RUN(test_match_precedence);
	RUN(test_match_first_and_later_fragments);
	RUN(test_match_fragment_classes);
	RUN(test_match_datagram_is_one_packet);
	RUN(test_match_ban_never_holds_a_victim);
	RUN(test_match_icmp_type);
	RUN(test_match_ipv6);
	RUN(test_match_rules_at_runtime);
	RUN(test_match_limit_across_cpus);
}
