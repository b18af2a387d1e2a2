/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The numbers operators type and read: rates, durations, sizes, shares; parsed and printed. */
#ifndef RW_UNITS_H
#define RW_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "10000", "10k", "1.5M", "2G" (k/M/G = 10^3/10^6/10^9, any case). > 0. */
int rw_parse_rate(const char *s, uint64_t *out);
/* "250us", "500ms", "2s", "1.5m", "1h"; a bare number is seconds. > 0. */
int rw_parse_duration(const char *s, uint64_t *ns);
/* "4096", "64K", "256M", "2G" (binary: KiB, MiB, GiB). > 0. */
int rw_parse_size(const char *s, uint64_t *bytes);
/*
 * A whole number: "1000", "10k", "1.5M", "2G" (powers of 1000, any case, as
 * rates) or "64Ki", "1Mi", "1Gi" (powers of 1024); 0 allowed.
 */
int rw_parse_count(const char *s, uint64_t *out);
/* A share: "0.5%", "2%" or "2" (percent), in parts per million ("0.5%" is 5000). > 0. */
int rw_parse_share_ppm(const char *s, uint64_t *ppm);
/* Decimal integer in [min, max]. */
int rw_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* count over span_ns as a rate per second (0 for an empty span). */
static inline double rw_rate(uint64_t count, uint64_t span_ns)
{
	return span_ns ? (double)count * 1e9 / (double)span_ns : 0.0;
}

/* part of whole in percent (0 of nothing). */
static inline double rw_share_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* 1234567 -> "1.23M"; writes at most len bytes. */
void rw_format_si(double v, char *buf, size_t len);
/* 1536 -> "1.5 KiB". */
void rw_format_bytes(double v, char *buf, size_t len);

#endif
