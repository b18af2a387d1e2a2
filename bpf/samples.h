/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --samples DIR: the frames of an attack, for the loader to write as pcap.
 * A key's `limited` or `banned` event arms it (rw_pcap_arm, from rw_limited):
 * its first RW_PCAP_FRAMES dropped frames are copied, cut to RW_PCAP_SNAP
 * bytes, into `pcap_ring`. A prefix the loader finds heavy (--levels) is
 * armed by the loader in `pcap_nets`: its next RW_PCAP_FRAMES frames offered,
 * passed or dropped, are copied the same way. The cost stays with the keys
 * and prefixes that sample:
 *
 *   - off (cfg_pcap false, a constant), the verifier drops every call;
 *   - on, a drop reads one global count, and looks its key up only while
 *     some key samples (pcap_active non-zero); every frame reads another,
 *     and looks its address up only while some prefix is armed
 *     (pcap_nets_armed non-zero);
 *   - a frame is copied by one function verified once (rw_pcap_copy), into
 *     a ring buffer reserved without waiting: a full ring costs a count.
 */
#ifndef RW_BPF_SAMPLES_H
#define RW_BPF_SAMPLES_H

#include "maps.h"

/* --samples: limited and banned keys' first dropped frames go to `pcap_ring` */
const volatile bool cfg_pcap;

/*
 * Keys armed with frames left: while 0, a drop looks nothing up. A key the
 * LRU pushes out with frames left keeps it above 0 (lookups that find
 * nothing: a cost, never a wrong copy).
 */
__u32 pcap_active;
/* Frames written to pcap_ring, and those a full ring refused (the loader reads both). */
__u64 pcap_frames;
__u64 pcap_lost;

/* The keys sampling, by key: frames left and the event's time (an LRU: full, the oldest go). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct rw_key);
	__type(value, struct rw_pcap_budget);
	__uint(max_entries, RW_PCAP_KEYS);
} pcap_keys SEC(".maps");

/* The frames (struct rw_pcap_frame), for the loader; sized to a page when --samples is off. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RW_PCAP_RINGBUF);
} pcap_ring SEC(".maps");

/*
 * An event of key at now: its next RW_PCAP_FRAMES dropped frames are copied.
 * A key armed again before its frames ran out starts a new file, its count
 * of active keys unchanged. A global function, as the two below.
 */
__noinline int rw_pcap_arm(const struct rw_key *key, __u64 now)
{
	struct rw_pcap_budget b = { .left = RW_PCAP_FRAMES, .armed_ns = now }, *old;
	struct rw_key k;

	if (!key)
		return 0;
	k = *key; /* a map key from the stack: 6.1's helpers take no argument's memory for one */
	old = bpf_map_lookup_elem(&pcap_keys, &k);
	if (old && old->left) {
		old->armed_ns = now;
		old->left = RW_PCAP_FRAMES;
		return 1;
	}
	if (bpf_map_update_elem(&pcap_keys, &k, &b, BPF_ANY))
		return 0;
	__sync_fetch_and_add(&pcap_active, 1);
	return 1;
}

/*
 * Copies the frame (its first RW_PCAP_SNAP bytes, and its true length) into
 * pcap_ring. A global function: the verifier walks it once, whatever the
 * number of paths that reach the call.
 */
__noinline int rw_pcap_copy(struct xdp_md *ctx, const struct rw_key *key, __u64 armed_ns,
			    __u64 now, __u32 len)
{
	struct rw_pcap_frame *fr;
	__u32 n = len;

	if (!key)
		return 0;
	fr = bpf_ringbuf_reserve(&pcap_ring, sizeof(*fr), 0);
	if (!fr) {
		__sync_fetch_and_add(&pcap_lost, 1);
		return 0;
	}
	if (n > RW_PCAP_SNAP)
		n = RW_PCAP_SNAP;
	/*
	 * 1 to RW_PCAP_SNAP (a power of two) by arithmetic the verifier follows:
	 * 6.1's loses a compare's bound on the copy of n the helper is given.
	 */
	asm volatile("" : "+r"(n));
	n = ((n - 1) & (RW_PCAP_SNAP - 1)) + 1;
	if (!len || bpf_xdp_load_bytes(ctx, 0, fr->data, n)) {
		bpf_ringbuf_discard(fr, 0);
		return 0;
	}
	__builtin_memcpy(&fr->key, key, sizeof(fr->key));
	fr->armed_ns = armed_ns;
	fr->ts_ns = now;
	fr->len = len;
	fr->caplen = n;
	bpf_ringbuf_submit(fr, 0);
	__sync_fetch_and_add(&pcap_frames, 1);
	return 1;
}

/*
 * A dropped frame of key: copied while its key has frames left. The last
 * frame takes its key out of the active count; two CPUs racing for the last
 * frames may copy one frame too few, never one too many.
 */
__noinline int rw_pcap_take(struct xdp_md *ctx, const struct rw_key *key, __u64 now, __u32 len)
{
	struct rw_pcap_budget *b;
	struct rw_key k;
	__u32 left;

	if (!key)
		return 0;
	k = *key; /* from the stack, as in rw_pcap_arm */
	b = bpf_map_lookup_elem(&pcap_keys, &k);
	if (!b)
		return 0;
	left = b->left;
	if (!left || __sync_val_compare_and_swap(&b->left, left, left - 1) != left)
		return 0;
	if (left == 1)
		__sync_fetch_and_sub(&pcap_active, 1);
	return rw_pcap_copy(ctx, key, b->armed_ns, now, len);
}

/*
 * Heavy prefixes armed (pcap_nets with frames left, or spent and not yet
 * taken out): while 0, a frame looks nothing up. The loader alone writes it
 * (user/kernel/pcapnets.c), as it alone arms and disarms: no race of the
 * data path and the loader can take it below the prefixes armed, or below 0.
 */
__u32 pcap_nets_armed;

/* --levels: the heavy prefixes sampling, by prefix (struct rw_pcap_net_key): frames left, the arm's time. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(key_size, sizeof(struct rw_pcap_net_key));
	__uint(value_size, sizeof(struct rw_pcap_net));
	__uint(max_entries, RW_PCAP_NETS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} pcap_nets SEC(".maps");

/*
 * A frame offered under key (passed or dropped): copied, under the prefix's
 * key, while the longest armed prefix holding the key's own address has
 * frames left. A spent prefix stays until the loader's next tick takes it
 * out (a lookup that copies nothing meanwhile). A global function, verified
 * once.
 */
__noinline int rw_pcap_net_take(struct xdp_md *ctx, const struct rw_key *key, __u64 now,
				__u32 len)
{
	struct rw_pcap_net_key nk = {};
	struct rw_pcap_net *n;
	__u32 left;

	if (!key)
		return 0;
	nk.family = key->family;
	nk.prefixlen = 8 + (key->family == RW_FAMILY_IPV4 ? 32 : 128);
	__builtin_memcpy(nk.addr, key->addr, sizeof(nk.addr));
	n = bpf_map_lookup_elem(&pcap_nets, &nk);
	if (!n)
		return 0;
	left = n->b.left;
	if (!left || __sync_val_compare_and_swap(&n->b.left, left, left - 1) != left)
		return 0;
	return rw_pcap_copy(ctx, &n->prefix, n->b.armed_ns, now, len);
}

/* The data path's call: off, nothing; on, one load while no key samples. */
static __always_inline void rw_pcap_frame(struct xdp_md *ctx, const struct rw_key *key,
					  __u64 now, __u64 len)
{
	if (cfg_pcap && *(volatile __u32 *)&pcap_active)
		rw_pcap_take(ctx, key, now, (__u32)len);
}

/* ... and for every frame offered: off, nothing; on, one load while no prefix samples. */
static __always_inline void rw_pcap_net_frame(struct xdp_md *ctx, const struct rw_key *key,
					      __u64 now, __u64 len)
{
	if (cfg_pcap && *(volatile __u32 *)&pcap_nets_armed)
		rw_pcap_net_take(ctx, key, now, (__u32)len);
}

#endif /* RW_BPF_SAMPLES_H */
