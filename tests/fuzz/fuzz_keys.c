// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: the terminal view's keys. Byte 0 is the terminal's width, byte 1
 * the slots, the rest keys typed one after the other (filters included).
 * After each key the view ranks a fixed set of flows when asked to and lays
 * out its rows: a row never outgrows a terminal it said fits, the prompt
 * never outgrows its buffer, the level stays one the view has.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "model/key.h"
#include "views/view.h"

static const char *const sources[] = {
	"198.18.0.1", "198.18.0.9", "198.18.1.1", "2001:db8::1",
	"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
};

static void pass(struct rw_view *v, uint32_t max)
{
	rw_view_begin(v, 1000);
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		struct rw_key k = { .family = strchr(sources[i], ':') ? RW_FAMILY_IPV6 : RW_FAMILY_IPV4 };
		struct rw_window_sum s = { .packets = 1000 * (i + 1), .bytes = 64000 / (i + 1),
					   .drop_packets = i % 2 ? 10 : 0, .newest_epoch = 999 };
		struct rw_hot hot = { .epoch = 999, .packets = (uint32_t)s.packets, .gen = 1 };
		struct rw_flow_view fv = { .state = rw_st_make(999, 1, RW_ST_LIVE), .hot = &hot,
					   .ncpus = 1 };

		inet_pton(k.family == RW_FAMILY_IPV4 ? AF_INET : AF_INET6, sources[i], k.addr);
		rw_view_offer(v, &k, &s, &fv);
	}
	v->o.page = max;
	rw_view_end(v);
}

/* Terminal cells a UTF-8 line takes: its bytes that start a character. */
static size_t cells(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rw_view_head h = { .what = "top", .name = "fuzz", .slots = 10, .span_ns = 1000000000 };
	struct rw_view_input in = { 0 };
	struct rw_view v;
	char buf[512];
	int cols;

	if (size < 2)
		return 0;
	cols = data[0];
	if (rw_view_init(&v, RW_MIN_SLOTS + data[1] % (RW_MAX_SLOTS - RW_MIN_SLOTS + 1)))
		return 0;
	rw_view_opts_init(&v.o, RW_SORT_PPS, NULL);
	pass(&v, 20);
	for (size_t i = 2; i < size; i++) {
		/* 0xf1..0xf5: the keys a terminal sends as codes (arrows, pages, home) */
		int key = data[i] >= 0xf1 && data[i] <= 0xf5 ? RW_VK_DOWN + (data[i] - 0xf1) : data[i];
		unsigned int what = rw_view_key(&v.o, &in, key);
		struct rw_view_layout l;

		FUZZ_ASSERT(v.o.level <= v.o.nlv);
		FUZZ_ASSERT(in.len < sizeof(in.buf) && strlen(in.buf) == in.len);
		if (what & RW_VIEW_QUIT)
			break;
		if (what & RW_VIEW_RESCAN) {
			pass(&v, 1 + data[i] % 20);
			FUZZ_ASSERT(v.o.first == 0 || v.o.first < v.nrows);
		}
		l = rw_view_layout(&v, cols);
		rw_view_title(&v, &h, buf, sizeof(buf));
		rw_view_state_line(&v, &h, buf, sizeof(buf));
		for (uint32_t r = v.o.first; l.ok && r < v.nrows; r++) {
			rw_view_row_text(&v, &h, &l, r, data[i] & 1, buf, sizeof(buf));
			FUZZ_ASSERT(cells(buf) <= (size_t)cols);
		}
	}
	rw_view_free(&v);
	return 0;
}
