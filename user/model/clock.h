/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Clocks in nanoseconds, for the loader and the tools alike. */
#ifndef RW_CLOCK_H
#define RW_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t rw_timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

static inline uint64_t rw_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return rw_timespec_ns(&ts);
}

/*
 * How often the coarse clock moves (a jiffy, 1/HZ), 0 if the kernel does not
 * say: CLOCK_MONOTONIC_COARSE's resolution is the tick.
 */
static inline uint64_t rw_coarse_tick_ns(void)
{
	struct timespec res;

	return clock_getres(CLOCK_MONOTONIC_COARSE, &res) ? 0 : rw_timespec_ns(&res);
}

/* The wall clock in seconds since the epoch: reports' and history's timestamps. */
static inline double rw_wall_seconds(void)
{
	return (double)rw_clock_ns(CLOCK_REALTIME) / 1e9;
}

#endif
