// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Admission that TCP can follow (--burst, bpf/limit.h), through the real
 * program on the test clock: a key over its limit is admitted evenly at its
 * rate, never in a window's budget at once followed by a blackout; a key
 * under its rate never meets the schedule; a burst is what --burst saved up;
 * no window ever holds more than the limit; the same for byte limits and
 * per-/LEN budgets.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpfenv.h"
#include "testlib.h"

#define SLOTS 10
#define SLOT_NS (100 * MS)
#define RUN_SLOTS 40 /* four windows */

/* What a steady sender met, slot by slot, on the test clock. */
struct pace_run {
	uint32_t admitted[RUN_SLOTS];
	uint32_t longest_gap_ns; /* longest time between two admitted packets */
	uint32_t steady_gap_ns;  /* the same after the first window and a slot */
	uint32_t max_window;     /* most admitted in any SLOTS consecutive slots */
	uint32_t min_window;     /* least, the same */
	uint32_t min_settled;    /* least from the second window on (a charge is behind) */
	uint64_t total;
};

/* The least and the most admitted in any SLOTS consecutive slots of a[from..RUN_SLOTS). */
static void window_range(const uint32_t *a, uint32_t from, uint32_t *min, uint32_t *max)
{
	*min = UINT32_MAX;
	*max = 0;
	for (uint32_t s = from; s + SLOTS <= RUN_SLOTS; s++) {
		uint32_t w = 0;

		for (uint32_t i = s; i < s + SLOTS; i++)
			w += a[i];
		*max = w > *max ? w : *max;
		*min = w < *min ? w : *min;
	}
}

/*
 * Offers one frame of `payload` bytes from saddr every gap_ns for RUN_SLOTS
 * slots, starting at slot 0 (plus 1 ms).
 */
static void offer_steady(struct env *e, uint32_t saddr, uint64_t gap_ns, size_t payload,
			 struct pace_run *r)
{
	uint64_t last = 0, t0 = 1 * MS;
	struct fb f;

	memset(r, 0, sizeof(*r));
	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, saddr, 5, -1, 0, payload);
	for (uint64_t t = t0; t < RUN_SLOTS * SLOT_NS; t += gap_ns) {
		set_time(e, t);
		if (run_frame(e, &f) != XDP_PASS)
			continue;
		r->admitted[t / SLOT_NS]++;
		r->total++;
		if (last && t - last > r->longest_gap_ns)
			r->longest_gap_ns = (uint32_t)(t - last);
		if (last >= (SLOTS + 1) * SLOT_NS && t - last > r->steady_gap_ns)
			r->steady_gap_ns = (uint32_t)(t - last);
		last = t;
	}
	if (getenv("PACE_DEBUG"))
		for (uint32_t s = 0; s < RUN_SLOTS; s++)
			fprintf(stderr, "%u%c", r->admitted[s], s + 1 < RUN_SLOTS ? ' ' : '\n');
	window_range(r->admitted, 0, &r->min_window, &r->max_window);
	window_range(r->admitted, SLOTS, &r->min_settled, &(uint32_t){ 0 });
}

static bool open_paced(struct env *e, uint64_t limit_packets, uint64_t limit_bytes,
		       uint64_t burst_ns)
{
	return env_open_mode(e, SLOTS, SLOT_NS, limit_packets, limit_bytes, 1024,
			     (struct env_mode){ .paced = true, .burst_ns = burst_ns });
}

/*
 * 1000 packets a window (1000 pps), offered at 2000 pps: no window admits
 * more than its 1000, and evenly: a slot admits its 100, give or take the
 * burst. The first slot has the bank (40: the key is new) on top, so the
 * window refuses it for 40 ms at the end of the first window; what it saves
 * while it waits is held to a burst (20), so the windows that take in that
 * pause hold 20 less, once, and from the second window on the key goes round
 * a burst's cycle: the window refuses for as long as the burst at the end of
 * each window and the slot after catches up what that pause saved, every
 * window holds exactly 1000 and no gap between two admitted packets is longer
 * than the burst. The window alone (--burst
 * window) admits the window's budget in its first half second, then nothing
 * for the other half; after that each slot's 100 as soon as the slot
 * begins, then nothing for the rest of the slot: the blackouts a TCP sender
 * cannot follow.
 */
static void test_pace_over_limit_is_even(void)
{
	struct pace_run r;
	struct env e;

	if (!open_paced(&e, 1000, 0, 20 * MS))
		return;
	offer_steady(&e, SRC4, 500 * 1000, 0, &r);
	env_close(&e);
	printf("     paced, 2x over: %u %u ... %u %u ... %u admitted in slots 0-1 ... 9-10 ... 39; "
	       "longest gap %.1f ms, %.1f ms after the first window; windows hold %u-%u\n",
	       r.admitted[0], r.admitted[1], r.admitted[9], r.admitted[10], r.admitted[39],
	       r.longest_gap_ns / 1e6, r.steady_gap_ns / 1e6, r.min_window, r.max_window);
	CHECK(r.max_window <= 1000);
	CHECK(r.min_window >= 1000 - 20 - 1);
	CHECK(r.min_settled >= 1000 - 1);
	CHECK(r.longest_gap_ns <= 40 * MS + 500 * 1000);
	CHECK(r.steady_gap_ns <= 20 * MS + 500 * 1000);
	CHECK(r.admitted[0] >= 100 + 40 - 1 && r.admitted[0] <= 100 + 40 + 1);
	for (uint32_t s = 1; s < RUN_SLOTS; s++)
		CHECK(r.admitted[s] >= (s == SLOTS - 1 ? 100 - 40 - 1 : 100 - 20 - 1) &&
		      r.admitted[s] <= 100 + 20 + 1);

	if (!env_open(&e, SLOTS, SLOT_NS, 1000, 0))
		return;
	offer_steady(&e, SRC4, 500 * 1000, 0, &r);
	env_close(&e);
	printf("     window alone, the same: %u %u %u %u %u %u admitted in slots 0-5; longest gap "
	       "%.1f ms, %.1f ms after the first window\n", r.admitted[0], r.admitted[1],
	       r.admitted[2], r.admitted[3], r.admitted[4], r.admitted[5], r.longest_gap_ns / 1e6,
	       r.steady_gap_ns / 1e6);
	CHECK(r.max_window <= 1000);
	CHECK(r.longest_gap_ns >= 400 * MS);
	CHECK(r.steady_gap_ns >= 40 * MS);
}

/* A key within its rate never meets its schedule: 900 pps under a 1000 pps limit lose nothing. */
static void test_pace_under_rate_loses_nothing(void)
{
	struct rw_stats st;
	struct pace_run r;
	struct env e;

	if (!open_paced(&e, 1000, 0, 0))
		return;
	offer_steady(&e, SRC4, 1000 * 1000 * 10 / 9 + 1, 0, &r);
	read_stats(&e, &st);
	env_close(&e);
	printf("     900 pps under 1000 pps, burst 0: %llu admitted, %llu dropped\n",
	       (unsigned long long)r.total, (unsigned long long)st.dropped);
	CHECK_EQ(st.dropped, 0);
	CHECK_EQ(r.total, 3600);
}

/*
 * The burst: a new key, as one idle for a while, may send what its bank holds
 * (2 x --burst of its rate) at once, plus the packet that starts it, then
 * its rate. 1000 pps, burst 50 ms: 101 of 200 back-to-back packets pass (a
 * TCP sender's first write may be more than a burst of its cap: iperf3
 * writes 128 KiB at once, more than 100 ms of 10 Mbit/s).
 */
static void test_pace_burst_is_what_was_saved(void)
{
	uint32_t p = 0, d = 0;
	struct rw_stats st;
	struct env e;

	if (!open_paced(&e, 1000, 0, 50 * MS))
		return;
	set_time(&e, 5 * SLOT_NS);
	send4(&e, SRC4, 200, 0, &p, &d);
	read_stats(&e, &st);
	printf("     200 at once, burst 50 ms of 1000 pps: %u passed, %u dropped (%llu paced)\n", p,
	       d, (unsigned long long)st.paced_drops);
	CHECK_EQ(p, 101);
	CHECK_EQ(st.paced_drops, 99);
	/* 10 ms later: 10 more. */
	set_time(&e, 5 * SLOT_NS + 10 * MS);
	p = d = 0;
	send4(&e, SRC4, 50, 0, &p, &d);
	CHECK_EQ(p, 10);
	env_close(&e);
}

/*
 * A byte limit paces bytes: 100 kB a window (100 kB/s), 1000-byte frames
 * offered at 200 a second: no window admits more than its 100 kB, every one
 * from the second on exactly that (the first refusal charges what the new
 * key's bank gave beyond a burst, 2 frames, once), every slot 10 kB give or
 * take the burst (the first the bank), no gap longer than the burst and two
 * offered gaps.
 */
static void test_pace_bytes(void)
{
	const size_t frame = 1000, payload = frame - 14 - 20;
	struct pace_run r;
	struct env e;

	if (!open_paced(&e, 0, 100 * 1000, 20 * MS))
		return;
	offer_steady(&e, SRC4, 5 * MS, payload, &r);
	env_close(&e);
	printf("     bytes, 2x over: %u %u ... %u %u ... %u frames in slots 0-1 ... 9-10 ... 39; "
	       "longest gap %.1f ms after the first window\n", r.admitted[0], r.admitted[1],
	       r.admitted[9], r.admitted[10], r.admitted[39], r.steady_gap_ns / 1e6);
	CHECK(r.max_window * frame <= 100 * 1000);
	CHECK(r.min_window * frame >= 100 * 1000 - 3 * frame);
	CHECK(r.min_settled * frame >= 100 * 1000 - frame);
	CHECK(r.admitted[0] >= 10 + 4 - 1 && r.admitted[0] <= 10 + 4 + 1);
	for (uint32_t s = 1; s < RUN_SLOTS; s++)
		CHECK(r.admitted[s] >= (s == SLOTS - 1 ? 10 - 4 : 10 - 2) && r.admitted[s] <= 10 + 2);
	CHECK(r.steady_gap_ns <= 20 * MS + 2 * 5 * MS);
}

/*
 * A per-/24 budget is one key: two sources of one /24, each at the budget's
 * rate, share it evenly over time: the /24 gets its whole budget in every
 * window from the second on (the first refusal charges the bank's second
 * burst once, as for one source) and never more, each slot its share give
 * or take the burst (the first the bank).
 */
static void test_pace_prefix_budget(void)
{
	uint32_t a[RUN_SLOTS] = { 0 }, min_window, max_window;
	struct fb f1, f2;
	struct env e;

	if (!open_paced(&e, 0, 0, 20 * MS))
		return;
	install_rules(&e, "198.18.0.0/16 limit 1000 per /24\n");
	fb_l2(&f1, 0, 0x0800);
	fb_ipv4(&f1, SRC4, 5, -1, 0, 0);
	fb_l2(&f2, 0, 0x0800);
	fb_ipv4(&f2, SRC4 + 1, 5, -1, 0, 0);
	for (uint64_t t = MS; t < RUN_SLOTS * SLOT_NS; t += MS) {
		set_time(&e, t);
		a[t / SLOT_NS] += run_frame(&e, &f1) == XDP_PASS;
		a[t / SLOT_NS] += run_frame(&e, &f2) == XDP_PASS;
	}
	env_close(&e);
	window_range(a, 0, &min_window, &max_window);
	printf("     per /24, 2000 pps offered to 1000: %u %u %u ... %u in slots 0-2 ... 39; "
	       "windows hold %u-%u\n", a[0], a[1], a[2], a[39], min_window, max_window);
	CHECK(max_window <= 1000);
	CHECK(min_window >= 1000 - 20 - 2);
	window_range(a, SLOTS, &min_window, &max_window);
	CHECK(min_window >= 1000 - 2);
	CHECK(a[0] >= 100 + 40 - 2 && a[0] <= 100 + 40 + 2);
	for (uint32_t s = 1; s < RUN_SLOTS; s++)
		CHECK(a[s] >= (s == SLOTS - 1 ? 100 - 40 - 2 : 100 - 20 - 2) && a[s] <= 100 + 20 + 2);
}

/*
 * The bank: a key that stalls saves up to 2 x --burst of its rate and spends
 * it at up to twice the rate. 1000 pps, burst 20 ms (bank 40 ms): after a
 * second at 2000 pps offered, 100 ms of silence, then 100 ms at 4000 pps
 * offered: those 100 ms admit their own 100 and the 40 saved, no more; after
 * 300 ms of silence the same (only the bank is kept).
 */
static void test_pace_bank_catches_up(void)
{
	const uint64_t stalls[] = { 100 * MS, 300 * MS };
	struct fb f;
	struct env e;

	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, SRC4, 5, -1, 0, 0);
	for (size_t n = 0; n < sizeof(stalls) / sizeof(stalls[0]); n++) {
		uint32_t before = 0, after = 0;
		uint64_t t = MS, end;

		if (!open_paced(&e, 1000, 0, 20 * MS))
			return;
		for (; t < 1000 * MS; t += 500 * 1000) {
			set_time(&e, t);
			run_frame(&e, &f);
		}
		end = t + stalls[n] + 100 * MS;
		for (t += stalls[n]; t < end; t += 250 * 1000) {
			set_time(&e, t);
			before += run_frame(&e, &f) == XDP_PASS;
		}
		for (end = t + 100 * MS; t < end; t += 250 * 1000) {
			set_time(&e, t);
			after += run_frame(&e, &f) == XDP_PASS;
		}
		env_close(&e);
		printf("     after %llu ms of silence: %u admitted in the next 100 ms at 4x, %u in the "
		       "100 ms after\n", (unsigned long long)(stalls[n] / MS), before, after);
		CHECK(before >= 100 + 40 - 2 && before <= 100 + 40 + 2);
		CHECK(after >= 99 && after <= 101);
	}
}

/*
 * Two threads, one on CPU 0 and one on CPU 1, send a key's packets by turns
 * of `batch`, CPU 0 first, one every 20 us of the test clock: the packets,
 * CPUs and order of one thread moved between the CPUs every turn, without a
 * migration a turn (40 us on a quiet machine and 180 us on a loaded one:
 * the whole test took 40-50 s loaded; a turn handed to a thread spinning on
 * the other CPU takes 4 us, and the test 3-7 s).
 */
#define TURNS_OVER 2

struct turns {
	struct env *e;
	const struct fb *f;
	uint32_t batch;
	uint64_t end_ns;
	_Atomic uint32_t turn; /* the CPU whose turn it is, or TURNS_OVER */
	uint64_t now_ns;       /* the next packet's time: touched in turn only */
	uint32_t admitted;     /* the same */
	bool on_cpu[2];
};

struct turn_taker {
	struct turns *t;
	uint32_t cpu;
};

/*
 * Until it is cpu's turn (true) or the run is over (false): a spin long enough
 * for the other CPU's turn (a few us; a futex wake-up on a loaded VM takes
 * 30-50 us), then a futex should that thread have been preempted.
 */
static bool turns_wait(struct turns *t, uint32_t cpu)
{
	uint32_t turn;

	for (int spins = 0; (turn = atomic_load(&t->turn)) != cpu; spins++) {
		if (turn == TURNS_OVER)
			return false;
		if (spins > 100000)
			syscall(SYS_futex, &t->turn, FUTEX_WAIT_PRIVATE, turn, NULL, NULL, 0);
	}
	return true;
}

static void turns_pass(struct turns *t, uint32_t to)
{
	atomic_store(&t->turn, to);
	syscall(SYS_futex, &t->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *take_turns(void *arg)
{
	struct turn_taker *me = arg;
	struct turns *t = me->t;

	t->on_cpu[me->cpu] = pin_cpu((int)me->cpu);
	while (turns_wait(t, me->cpu)) {
		for (uint32_t i = 0; i < t->batch && t->now_ns < t->end_ns; i++) {
			set_time(t->e, t->now_ns);
			t->admitted += run_frame(t->e, t->f) == XDP_PASS;
			t->now_ns += 20 * 1000;
		}
		turns_pass(t, t->now_ns < t->end_ns ? 1 - me->cpu : TURNS_OVER);
	}
	return NULL;
}

/*
 * A key's packets met on two CPUs in turn (veth's and a NIC queue's NAPI moves
 * between CPUs): at 5x its limit it is still admitted at its limit.
 */
static void test_pace_two_cpus(void)
{
	const uint32_t batches[] = { 1, 8, 64 };
	struct fb f;
	struct env e;

	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, SRC4, 5, -1, 0, 0);
	for (size_t n = 0; n < sizeof(batches) / sizeof(batches[0]); n++) {
		/* 2 s of turns of 1, 4 s of the others. */
		uint32_t secs = batches[n] == 1 ? 2 : 4;
		struct turns t = { .e = &e, .f = &f, .batch = batches[n], .now_ns = MS,
				   .end_ns = RUN_SLOTS * SLOT_NS / 4 * secs };
		struct turn_taker takers[2] = { { &t, 0 }, { &t, 1 } };
		pthread_t tid[2];

		if (!open_paced(&e, 10000, 0, 20 * MS))
			return;
		if (e.ncpus < 2) {
			env_close(&e);
			printf("     one CPU: skipped\n");
			return;
		}
		for (int c = 0; c < 2; c++)
			CHECK_EQ(pthread_create(&tid[c], NULL, take_turns, &takers[c]), 0);
		for (int c = 0; c < 2; c++)
			pthread_join(tid[c], NULL);
		pin_cpu(0);
		env_close(&e);
		printf("     5x over on two CPUs by turns of %u: %u admitted in %u s (limit 10000 pps)\n",
		       batches[n], t.admitted, secs);
		CHECK(t.on_cpu[0] && t.on_cpu[1]);
		CHECK(t.admitted >= 9875 * secs && t.admitted <= 10000 * secs + 200 + 2);
	}
}

/*
 * A source that sends in bursts (the way a paced generator or a batching
 * application does: 500 packets back to back every 90 ms, 5x its limit)
 * still gets its whole limit, every window, never more: the window refusing
 * it now and then (a burst that spends saved budget) costs it nothing but,
 * once, the bank's second burst its first burst spent (100 packets: the
 * windows that take in the first refusal's pause).
 */
static void test_pace_bursty_source_gets_its_limit(void)
{
	uint32_t a[RUN_SLOTS] = { 0 }, min_window, max_window, min_settled;
	struct fb f;
	struct env e;

	if (!open_paced(&e, 1000, 0, 100 * MS))
		return;
	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, SRC4, 5, -1, 0, 0);
	for (uint64_t t0 = MS; t0 < RUN_SLOTS * SLOT_NS; t0 += 90 * MS)
		for (uint64_t i = 0; i < 500 && t0 + i * 1000 < RUN_SLOTS * SLOT_NS; i++) {
			set_time(&e, t0 + i * 1000);
			a[(t0 + i * 1000) / SLOT_NS] += run_frame(&e, &f) == XDP_PASS;
		}
	env_close(&e);
	window_range(a, 0, &min_window, &max_window);
	window_range(a, SLOTS + 1, &min_settled, &(uint32_t){ 0 });
	printf("     bursts of 500 every 90 ms against 1000 pps: windows hold %u-%u, from the "
	       "twelfth slot on at least %u\n", min_window, max_window, min_settled);
	CHECK(max_window <= 1000);
	CHECK(min_window >= 1000 - 100 - 20);
	CHECK(min_settled >= 1000 - 20);
}

/*
 * The schedule sits after the history slots: at the bounds of --slots (2 and
 * 32) a key offered twice its limit (1000 a second, one second's window) is
 * admitted its 1000 in every window, evenly. With 32 slots every limited
 * packet was once dropped (the schedule was not found past slot 31).
 */
static void test_pace_slot_count_bounds(void)
{
	const uint32_t counts[] = { 2, RW_MAX_SLOTS };
	struct fb f;
	struct env e;

	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, SRC4, 5, -1, 0, 0);
	for (size_t n = 0; n < sizeof(counts) / sizeof(counts[0]); n++) {
		uint32_t per_second[4] = { 0 };

		if (!env_open_mode(&e, counts[n], 1000 * MS / counts[n], 1000, 0, 1024,
				   (struct env_mode){ .paced = true, .burst_ns = 20 * MS }))
			return;
		for (uint64_t t = MS; t < 4000 * MS; t += 500 * 1000) {
			set_time(&e, t);
			per_second[t / (1000 * MS)] += run_frame(&e, &f) == XDP_PASS;
		}
		env_close(&e);
		printf("     %u slots, 2000 pps offered to 1000: %u %u %u %u admitted in seconds 0-3\n",
		       counts[n], per_second[0], per_second[1], per_second[2], per_second[3]);
		for (int i = 1; i < 4; i++)
			CHECK(per_second[i] >= 990 && per_second[i] <= 1000);
	}
}

/*
 * Two CPUs meet a new key's first generation at once. The other one started
 * its schedule and took all it allowed (the bank and a lease beyond it) while
 * this one was between seeing the older generation and starting it: this
 * one's start must not undo that take. Its packet is ahead of the schedule.
 */
static void test_pace_start_keeps_a_concurrent_take(void)
{
	const uint64_t now = 5 * SLOT_NS;
	struct rw_key k = key4(SRC4);
	struct rw_stats st;
	struct rw_where at;
	uint32_t idx;
	struct env e;

	pin_cpu(0);
	if (!open_paced(&e, 1000, 0, 20 * MS))
		return;
	at = rw_table_where(&e.t, &k);
	idx = at.home * RW_WAYS; /* the first free way of an empty table */
	race_write(&e, RW_RACE_PACE, idx, offsetof(struct rw_pace, packets.tat), now + 41 * MS);
	race_write(&e, RW_RACE_PACE, idx, offsetof(struct rw_pace, packets.peak), now + 21 * MS);
	race_write(&e, RW_RACE_PACE, idx, offsetof(struct rw_pace, gen), 1);
	race_arm(&e, RW_RACE_SCHED_START);
	set_time(&e, now);
	CHECK_EQ(passed_of(&e, SRC4, 1), 0);
	CHECK(race_played(&e));
	CHECK_EQ(entries_of(&e, &k), 1);
	read_stats(&e, &st);
	CHECK_EQ(st.paced_drops, 1);
	env_close(&e);
}

/* Key k's entry (*idx) and its schedule, mapped writable (munmap *map, *len); NULL if none. */
static struct rw_pace *schedule_of(struct env *e, const struct rw_key *k, int64_t *idx, void **map,
				   size_t *len)
{
	uint64_t state;

	*idx = rw_table_find(&e->t, k, &state);
	CHECK(*idx >= 0);
	return *idx >= 0 ? pace_rw(e, (uint32_t)*idx, map, len) : NULL;
}

/*
 * A refill gives back what is left of its lease. Another CPU's start of the
 * schedule may land between that lease and its refund (here planted: the
 * byte schedule as a start leaves it, its peak time 0): the refund never
 * takes a time below what it was started at, so the key, under its rate
 * from then on, is never paced (a peak wrapped below 0 would hold it off for
 * good).
 */
static void test_pace_refund_after_a_start(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_pace *pc;
	struct rw_stats st;
	uint64_t t = 5 * SLOT_NS;
	uint32_t passed = 0;
	void *map;
	size_t len;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!open_paced(&e, 0, 100 * 1000, 20 * MS)) /* 100 B/ms: leases of 100 B */
		return;
	set_time(&e, t);
	CHECK_EQ(passed_of(&e, SRC4, 2), 2); /* 64-byte frames: 36 B of lease left */
	pc = schedule_of(&e, &k, &i, &map, &len);
	if (!pc)
		goto out;
	__atomic_store_n(&pc->bytes.tat, t + 20 * MS, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pc->bytes.peak, 0, __ATOMIC_SEQ_CST);
	munmap(map, len);
	/* 64 B every 10 ms for 500 ms: 6.4 B/ms, a 16th of the rate. */
	for (int n = 0; n < 50; n++, t += 10 * MS) {
		set_time(&e, t);
		passed += passed_of(&e, SRC4, 1);
	}
	read_stats(&e, &st);
	CHECK_EQ(passed, 50);
	CHECK_EQ(st.paced_drops, 0);
out:
	env_close(&e);
}

/*
 * A paced refusal holds the record off its refills until its schedule frees
 * a packet (limit.h, rw_pace_hold). 1000 pps, --burst 20 ms, 100 packets at
 * one instant: the bank and the peak's tolerance spent, the rest refused.
 * The record holds the time the schedule frees the next packet (the later
 * of its two times less each one's tolerance); a packet before it is a
 * paced drop, with no refill: here the schedule is moved back meanwhile (as
 * another CPU's refund of its lease would), and the held packet still waits
 * for its time, which the whole refill would not; the first packet at that
 * time passes.
 */
static void test_pace_refusal_holds_until_its_time(void)
{
	const uint64_t t = 5 * SLOT_NS;
	struct rw_key k = key4(SRC4);
	uint64_t ready, peak_at, paced;
	struct rw_stats st;
	struct rw_pace *pc;
	struct rw_hot rec;
	uint32_t passed, j;
	void *map;
	size_t len;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!open_paced(&e, 1000, 0, 20 * MS))
		return;
	set_time(&e, t);
	passed = passed_of(&e, SRC4, 100);
	CHECK(passed > 0 && passed < 100);
	pc = schedule_of(&e, &k, &i, &map, &len);
	if (!pc)
		goto out;
	ready = pc->packets.tat - 40 * MS; /* the bank: two bursts */
	peak_at = pc->packets.peak - 20 * MS;
	ready = ready > peak_at ? ready : peak_at;
	CHECK(ready > t);
	j = (uint32_t)i; /* CPU 0's record */
	CHECK_EQ(bpf_map_lookup_elem(e.fds.hot, &j, &rec), 0);
	CHECK_EQ(rec.flags & RW_HOT_STATE_MASK, 0);
	CHECK_EQ((uint64_t)rec.lease_bytes << 32 | rec.lease_packets, ready);
	__atomic_store_n(&pc->packets.tat, t, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pc->packets.peak, t, __ATOMIC_SEQ_CST);
	munmap(map, len);
	read_stats(&e, &st);
	paced = st.paced_drops;
	set_time(&e, ready - 1);
	CHECK_EQ(passed_of(&e, SRC4, 3), 0);
	read_stats(&e, &st);
	CHECK_EQ(st.paced_drops, paced + 3);
	set_time(&e, ready);
	CHECK_EQ(passed_of(&e, SRC4, 1), 1);
out:
	env_close(&e);
}

/*
 * Another CPU's refill reads a record's flags, then its lease words: a
 * record that left its lease in between (to a paced hold, rw_pace_hold, or
 * a refill's mark) shows a lease whose words hold a time or a count, no
 * lease. Planted here as read: CPU 1's record leased, its words a hold's low
 * word. CPU 0's refill counts it as the most a lease can be (1 ms of the
 * rate: one packet of 1000 pps), not as 4 G packets that would fill the
 * window and drop what the key's schedule (its bank full) admits.
 */
static void test_pace_a_hold_read_as_a_lease_counts_one_lease(void)
{
	const uint64_t t = 5 * SLOT_NS;
	struct rw_key k = key4(SRC4);
	struct rw_hot *hot;
	uint64_t state;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!open_paced(&e, 1000, 0, 20 * MS))
		return;
	if (e.ncpus < 2) {
		fprintf(stderr, "  note: one CPU, no other CPU's record to read\n");
		env_close(&e);
		return;
	}
	set_time(&e, t);
	CHECK_EQ(passed_of(&e, SRC4, 1), 1); /* its lease: one packet, the cap */
	i = rw_table_find(&e.t, &k, &state);
	CHECK(i >= 0);
	if (i < 0)
		goto out;
	hot = mmap(NULL, e.t.len[2], PROT_READ | PROT_WRITE, MAP_SHARED, e.fds.hot, 0);
	CHECK(hot != MAP_FAILED);
	if (hot == MAP_FAILED)
		goto out;
	hot[e.t.entries + (uint32_t)i] = (struct rw_hot){ .epoch = hot[i].epoch, .gen = hot[i].gen,
							  .until = hot[i].until, .flags = RW_HOT_LEASE,
							  .lease_packets = 0xfffffff0u };
	munmap(hot, e.t.len[2]);
	set_time(&e, t + 10 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 3), 3); /* the lease's packet, then two refills */
out:
	env_close(&e);
}

/*
 * A key's schedule is one cache line: a refill's compare-and-swaps and
 * fetch-and-adds on its times and its mark touch one line, never two. It
 * sits after the key's history slots (40 B each) in the same map value, so
 * the entry and the slot count decide where it starts. For several slot
 * counts, every entry: where the loader's view finds it is inside one 64-byte
 * line of the map (an mmapable array's values start on a page, as the
 * mapping does); and for 8 entries, a race planted through the program's own
 * rw_pace_of (a write to each one's mark) is found there.
 */
static void test_pace_schedule_on_one_line(void)
{
	const uint32_t counts[] = { 2, 3, 5, 10, 13, RW_MAX_SLOTS };
	const uint64_t used = offsetof(struct rw_pace, pad);
	uint32_t straddle = 0, entries = 0, misplaced = 0;

	for (size_t n = 0; n < sizeof(counts) / sizeof(counts[0]); n++) {
		struct rw_hist_slot *h;
		struct env e;
		size_t len;

		if (!env_open(&e, counts[n], 100 * MS, 0, 0))
			return;
		h = hist_rw(&e, &len);
		if (!h) {
			env_close(&e);
			return;
		}
		for (uint32_t i = 0; i < e.t.entries; i++) {
			uint64_t off = (uint64_t)((uint8_t *)pace_in(&e, h, i) - (uint8_t *)h);

			straddle += off / 64 != (off + used - 1) / 64;
			entries++;
		}
		for (uint32_t i = 0; i < RW_RACE_WRITES && i < e.t.entries; i++)
			race_write(&e, RW_RACE_PACE, i, offsetof(struct rw_pace, refills),
				   0x5eed0000ULL + i);
		race_arm(&e, RW_RACE_PROMOTE); /* a new key's first packet, tracked: no limit, no refill */
		set_time(&e, 5 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 1), 1);
		CHECK(race_played(&e));
		for (uint32_t i = 0; i < RW_RACE_WRITES && i < e.t.entries; i++)
			misplaced += pace_in(&e, h, i)->refills != 0x5eed0000ULL + i;
		munmap(h, len);
		env_close(&e);
	}
	printf("     schedules across two cache lines: %u of %u (slot counts 2-32); planted"
	       " through the program, found elsewhere: %u\n", straddle, entries, misplaced);
	CHECK_EQ(straddle, 0);
	CHECK_EQ(misplaced, 0);
}

void run_pace_tests(void)
{
	RUN(test_pace_slot_count_bounds);
	RUN(test_pace_two_cpus);
	RUN(test_pace_bursty_source_gets_its_limit);
	RUN(test_pace_over_limit_is_even);
	RUN(test_pace_under_rate_loses_nothing);
	RUN(test_pace_burst_is_what_was_saved);
	RUN(test_pace_bank_catches_up);
	RUN(test_pace_bytes);
	RUN(test_pace_prefix_budget);
	RUN(test_pace_start_keeps_a_concurrent_take);
	RUN(test_pace_refund_after_a_start);
	RUN(test_pace_refusal_holds_until_its_time);
	RUN(test_pace_a_hold_read_as_a_lease_counts_one_lease);
	RUN(test_pace_schedule_on_one_line);
}
