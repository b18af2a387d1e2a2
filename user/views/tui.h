/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The terminal of `ratewall top` and `run --tui` (ncurses): places the view's
 * lines, reads keys, follows resizes, and always leaves the terminal as it
 * found it (endwin on every way out, also from exit()).
 */
#ifndef RW_TUI_H
#define RW_TUI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "views/view.h"

struct rw_tui {
	bool open;
	bool color; /* colours in use: a terminal that has them, no NO_COLOR, no --no-color */
	bool utf8;  /* block characters for the sparklines */
};

/* 0, or a negative errno with the reason in err (not a terminal, TERM unknown). */
int rw_tui_open(struct rw_tui *t, bool no_color, char *err, size_t errlen);
void rw_tui_close(struct rw_tui *t);
void rw_tui_draw(struct rw_tui *t, const struct rw_view *v, const struct rw_view_head *h,
		 const struct rw_view_input *in);
/* Rows the table has room for on the screen as it is now, under h's lines. */
uint32_t rw_tui_rows(const struct rw_tui *t, const struct rw_view_head *h);
/*
 * The next key within timeout_ms, mapped to the view's keys (RW_VK_*);
 * RW_TUI_RESIZE when the terminal changed size, -1 for none.
 */
#define RW_TUI_RESIZE 0x10000
int rw_tui_key(struct rw_tui *t, int timeout_ms);

#endif
