// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ratewall's XDP data path: one frame's story, told by ratewall_xdp at the end
 * of this file; each step's mechanics live in the header of its role
 * (bpf/README.md).
 *
 *   parse    count the frame on its interface and parse it (parse.h): not IP
 *            passes, malformed IP is counted and passed or dropped as a
 *            class; read the clock; a packet that is not whole is counted
 *            by its class (a tiny first fragment or a deep chain is dropped
 *            as malformed by --malformed drop); count it in the window's
 *            slot (clock.h);
 *   key      the main kind (--key), cut out of the whole flow under --rank;
 *   rule     a fragment finds its datagram in the cache (frag.h); find its
 *            rule, by prefix, and by protocol, port, flags or ICMP type where
 *            a rule with a match covers it (a later fragment: what its first
 *            met): the limits it is held to and the key it is counted under
 *            (policy.h); a later fragment then goes where its first went;
 *   count    hash the key once and bring the packet to its entry, this CPU's
 *            record stepped into the slot (track.h); a key without one is
 *            counted in the sketch, promoted once it may matter, or held to
 *            its cap and with the crowd (untracked.h);
 *   admit    serve a ban, then admit or drop it against its limit (limit.h);
 *            a key over it is limited, and maybe banned (policy.h);
 *   verdict  count it under its rule, and under every --rank kind (counted,
 *            never dropped); --samples copies a dropped frame of a key that
 *            samples, and any frame of a heavy prefix that samples
 *            (samples.h); drop it unless --dry-run.
 *
 * Its cost does not grow with the number of sources: a spoofed packet costs a
 * directory line and two sketch lines, a tracked one the directory and this
 * CPU's record (and its entry's line once a slot: table.h, rw_find_current).
 */
#include "parse.h"
#include "maps.h"
#include "clock.h"
#include "crowd.h"
#include "sketch.h"
#include "table.h"
#include "limit.h"
#include "frag.h"
#include "policy.h"
#include "untracked.h"
#include "track.h"
#include <xdp/xdp_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Parses the frame into key and counts it on its interface (st), *len its
 * length. The linear part is the whole frame whenever the IP datagram fits in
 * it; only a frame that does not parse that way (a datagram running on into
 * fragments, or no IP at all) pays for the helper that sums the fragments.
 */
static __always_inline int rw_parse_frame(struct xdp_md *ctx, struct rw_key *key, __u64 *len,
					  struct rw_stats *st, struct rw_l4_seen *seen)
{
	int ret = rw_parse_key(ctx, key, *len, seen);

	if (ret != RW_PARSE_OK) {
		__u64 whole = bpf_xdp_get_buff_len(ctx);

		if (whole != *len) {
			*len = whole;
			ret = rw_parse_key(ctx, key, *len, seen);
		}
	}
	st->rx_packets++;
	st->rx_bytes += *len;
	return ret;
}

/*
 * A packet that is not a whole datagram with its L4 header in reach: its
 * class counted; tiny first fragments and deep chains hide what rules read,
 * so --malformed drop takes them as a class (RW_PARSE_HIDDEN); a fragment
 * finds its datagram in the cache (frag.h), a first one taking a slot over.
 */
static __always_inline int rw_odd_l4(struct xdp_md *ctx, __u8 family,
				     const struct rw_l4_seen *seen, struct rw_stats *st,
				     struct rw_scratch *sc, __u64 now)
{
	st->frag_first += seen->first;
	st->frag_later += seen->cls == RW_L4_LATER;
	st->tiny_frags += seen->cls == RW_L4_TINY;
	st->long_chains += seen->cls == RW_L4_DEEP;
	if (cfg_malformed_drop && (seen->cls == RW_L4_TINY || seen->cls == RW_L4_DEEP))
		return RW_PARSE_HIDDEN;
	if (seen->first || seen->cls == RW_L4_LATER) {
		sc->frag = rw_frag_find(ctx, family, seen->ip_off, now);
		st->frag_unmatched += !!(sc->frag & RW_FRAG_ORPHAN);
	}
	return RW_PARSE_OK;
}

/*
 * The verdict on a frame that gives no key, or that --malformed drop takes
 * (ret: how it parsed): not IP passes; malformed IP has no source to trust,
 * so it is counted and passed, or dropped as a class (--malformed drop), as
 * is IP whose L4 header hides from the rules (counted as its class).
 */
static __always_inline int rw_unkeyed(int ret, __u64 len, struct rw_stats *st)
{
	if (ret == RW_PARSE_NOT_IP) {
		st->non_ip++;
		return XDP_PASS;
	}
	if (ret == RW_PARSE_MALFORMED)
		st->malformed++;
	if (!cfg_malformed_drop)
		return XDP_PASS;
	st->dropped++;
	st->dropped_bytes += len;
	return cfg_dry_run ? XDP_PASS : XDP_DROP;
}

/*
 * The packet's verdict under the main key (--key), true to drop it: its rule,
 * then a later fragment's first's verdict where it follows one, else its
 * count (its entry, or the untracked tier's), a ban and its limit, the
 * events of a key over it. lim: the limits its rule gives it.
 */
static __always_inline bool rw_decide(struct xdp_md *ctx, struct rw_key *key,
				      const struct rw_time *t, __u64 len, struct rw_stats *st,
				      struct rw_wslot *ws, struct rw_limit *lim, struct rw_scratch *sc)
{
	struct rw_tracked tr;
	bool admit, banned;
	int ret;

	rw_rule_limits(ctx, key, sc, lim, st);
	/* A later fragment goes where its datagram's first went (frag.h). */
	ret = rw_frag_follows(sc, lim);
	if (ret == 1)
		goto drop;
	if (ret == 0)
		return false;
	ret = rw_track(key, t, len, st, ws, lim, cfg_key_kind, true, &tr);
	if (ret == RW_PASS)
		return false;
	if (ret == RW_DROP)
		goto drop;
	banned = cfg_ban_ns && rw_banned(rw_entry_at(tr.idx), t->now, ws);
	/* Offered first: a refill's sum holds this packet, a concurrent one sees it once at least. */
	rw_offer(tr.f, len);
	admit = !lim->deny && !banned &&
		rw_admit(tr.f, tr.idx, t->now, t->epoch, len, lim, st);
	if (admit)
		return false;
	rw_drop(tr.f, len);
	/* Over its limit (not denied, not serving a ban): limited, and maybe banned. */
	if ((cfg_events || cfg_ban_ns || cfg_pcap) && !lim->deny && !banned)
		rw_limited(rw_entry_at(tr.idx), t->epoch, t->now, ws);
drop:
	ws->drop_packets++;
	ws->drop_bytes += len;
	st->dropped++;
	st->dropped_bytes += len;
	return true;
}

static const struct rw_limit rw_no_limit; /* a ranked kind's limits: none */

/*
 * --rank: every kind ranked beside the main one, each from the packet's flow
 * key. The keys live in this CPU's scratch line: the stack has no room left.
 */
static __always_inline void rw_rank_kinds(struct rw_scratch *sc, const struct rw_time *t,
					  __u64 len, struct rw_stats *st, struct rw_wslot *ws)
{
	struct rw_tracked tr;

	for (__u32 k = 0; k < RW_KIND_COUNT; k++) {
		if (!(cfg_rank_mask & (1u << k)))
			continue;
		rw_key_derive(&sc->flow, (__u8)k, &sc->ranked);
		rw_key_v6_cut(&sc->ranked, (__u8)k);
		sc->ranked.kind |= RW_KIND_RANKED;
		/* Counted, never limited: tracked or in the sketch, never dropped. */
		if (rw_track(&sc->ranked, t, len, st, ws, &rw_no_limit, k, false, &tr) == RW_TRACK) {
			tr.f->packets++;
			tr.f->bytes += (__u32)len;
		}
	}
}

/*
 * Its place in libxdp's dispatcher, as xdp-loader and libxdp read it: a pass
 * goes on to the next program, a drop ends the chain (--xdp-priority
 * overrides the priority when ratewall attaches it).
 */
struct {
	__uint(priority, RW_XDP_RUN_PRIO);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(ratewall_xdp);

SEC("xdp.frags")
int ratewall_xdp(struct xdp_md *ctx)
{
	__u64 len = ctx->data_end - ctx->data;
	__u32 zero = 0, ifi;
	struct rw_key k __attribute__((aligned(8))) = {};
	struct rw_l4_seen seen = {};
	struct rw_key *key = &k;
	struct rw_scratch *sc;
	struct rw_wslot *ws;
	struct rw_stats *st;
	struct rw_limit *lim;
	struct rw_time t;
	bool dropped;
	int ret;

	/*
	 * The length a number from here: left to clang, it may keep ctx->data
	 * instead, spilled in 4 bytes, which the verifier refuses for a pointer.
	 */
	asm volatile("" : "+r"(len));
	ifi = rw_iface_index(ctx);
	st = bpf_map_lookup_elem(&stats, &ifi);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!st || !sc)
		return XDP_PASS;
	ret = rw_parse_frame(ctx, key, &len, st, &seen);
	if (ret != RW_PARSE_OK)
		return rw_unkeyed(ret, len, st);

	rw_clock(sc, &t);
	sc->frag = 0;
	sc->ip_off = seen.ip_off;
	if (seen.cls | seen.first) { /* not whole, as most are */
		ret = rw_odd_l4(ctx, key->family, &seen, st, sc, t.now);
		if (ret != RW_PARSE_OK)
			return rw_unkeyed(ret, len, st);
	}
	ws = rw_window_slot(t.epoch, t.slot);
	if (!ws)
		return XDP_PASS;
	ws->packets++;
	ws->bytes += len;

	/* With --rank the parser filled in the whole flow: the main key is cut out of it. */
	if (cfg_rank_mask) {
		sc->flow = *key;
		rw_key_derive(&sc->flow, cfg_key_kind, key);
	}
	lim = &sc->lim;
	dropped = rw_decide(ctx, key, &t, len, st, ws, lim, sc);
	rw_frag_verdict(sc, dropped);
	rw_rule_count(lim, dropped);
	if (cfg_rank_mask)
		rw_rank_kinds(sc, &t, len, st, ws);
	/* Last, where no path follows for the verifier to walk twice: --samples' copies (samples.h). */
	if (dropped)
		rw_pcap_frame(ctx, key, t.now, len);
	rw_pcap_net_frame(ctx, key, t.now, len);
	return dropped && !cfg_dry_run ? XDP_DROP : XDP_PASS;
}
