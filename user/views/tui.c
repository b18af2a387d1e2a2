// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/tui.h"

#include <curses.h>
#include <langinfo.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PAIR_HEAD = 1, PAIR_LIMITED, PAIR_NOTE };

static SCREEN *screen;

/* Whatever way the process leaves, the terminal is given back. */
static void end_screen(void)
{
	if (screen) {
		endwin();
		delscreen(screen);
		screen = NULL;
	}
}

int rw_tui_open(struct rw_tui *t, bool no_color, char *err, size_t errlen)
{
	const char *nc = getenv("NO_COLOR");
	static bool registered;

	memset(t, 0, sizeof(*t));
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the terminal view needs a terminal on stdin and stdout");
		return -ENOTTY;
	}
	setlocale(LC_ALL, "");
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	/* newterm, not initscr: an unknown TERM is an error here, not an exit. */
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		snprintf(err, errlen, "cannot use the terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "");
		return -EINVAL;
	}
	if (!registered)
		registered = atexit(end_screen) == 0;
	t->open = true;
	cbreak();
	noecho();
	curs_set(0);
	keypad(stdscr, TRUE);
	set_escdelay(25); /* Esc alone closes the prompt at once */
	t->color = !no_color && !(nc && nc[0]) && has_colors();
	if (t->color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEAD, COLOR_CYAN, -1);
		init_pair(PAIR_LIMITED, COLOR_RED, -1);
		init_pair(PAIR_NOTE, COLOR_YELLOW, -1);
	}
	return 0;
}

void rw_tui_close(struct rw_tui *t)
{
	if (t->open)
		end_screen();
	t->open = false;
}

uint32_t rw_tui_rows(const struct rw_tui *t, const struct rw_view_head *h)
{
	int rows = LINES - rw_view_head_lines(h) - 1;

	(void)t;
	return rows > 0 ? (uint32_t)rows : 0;
}

/*
 * A line of text at row y, cut at the screen's edge (the last line one short:
 * writing the bottom-right cell would scroll), in the colour pair or mono.
 */
static void line(const struct rw_tui *t, int y, const char *text, int pair, attr_t mono)
{
	attr_t a = t->color && pair ? COLOR_PAIR(pair) : mono;
	int room = y == LINES - 1 ? COLS - 1 : COLS;

	attron(a);
	mvaddnstr(y, 0, text, room > 0 ? room : 0);
	attroff(a);
}

static void draw_help(const struct rw_tui *t)
{
	for (int i = 0; rw_view_help[i] && i < LINES - 1; i++)
		line(t, i, rw_view_help[i], i == 0 || strcmp(rw_view_help[i], "Columns") == 0 ?
						    PAIR_HEAD : 0, A_BOLD * (i == 0));
}

void rw_tui_draw(struct rw_tui *t, const struct rw_view *v, const struct rw_view_head *h,
		 const struct rw_view_input *in)
{
	struct rw_view_layout l = rw_view_layout(v, COLS);
	char text[512];
	int y = 0;

	erase();
	if (!l.ok || LINES < RW_VIEW_MIN_LINES) {
		snprintf(text, sizeof(text), "terminal too small (%dx%d): at least %dx%d; q quits",
			 COLS, LINES, RW_VIEW_MIN_COLS, RW_VIEW_MIN_LINES);
		line(t, 0, text, 0, A_BOLD);
		refresh();
		return;
	}
	if (v->o.help) {
		draw_help(t);
		refresh();
		return;
	}
	rw_view_title(v, h, text, sizeof(text));
	line(t, y++, text, PAIR_HEAD, A_REVERSE);
	rw_view_window_line(h, text, sizeof(text));
	line(t, y++, text, 0, 0);
	rw_view_since_line(h, text, sizeof(text));
	line(t, y++, text, 0, 0);
	if (rw_view_heavy_line(h, text, sizeof(text)))
		line(t, y++, text, 0, 0);
	rw_view_state_line(v, h, text, sizeof(text));
	line(t, y++, text, PAIR_HEAD, 0);
	rw_view_columns(v, &l, t->utf8, text, sizeof(text));
	line(t, y++, text, 0, A_UNDERLINE);
	for (uint32_t i = v->o.first; i < v->nrows && y < LINES - 1; i++, y++) {
		bool limited = rw_view_row_limited(v, i);

		rw_view_row_text(v, h, &l, i, t->utf8, text, sizeof(text));
		attron(limited ? (t->color ? COLOR_PAIR(PAIR_LIMITED) : A_BOLD) : 0);
		/* Built to fit the layout: multibyte sparkline cells are one column each. */
		mvaddstr(y, 0, text);
		attroff(limited ? (t->color ? COLOR_PAIR(PAIR_LIMITED) : A_BOLD) : 0);
	}
	if (rw_view_empty_line(v, text, sizeof(text)))
		line(t, y, text, 0, 0);
	if (in->active)
		snprintf(text, sizeof(text), "filter (CIDR or address, empty clears, Esc keeps): %s_",
			 in->buf);
	else
		snprintf(text, sizeof(text), "%s", in->msg[0] ? in->msg : "? help  q quit");
	line(t, LINES - 1, text, PAIR_NOTE, A_BOLD);
	refresh();
}

int rw_tui_key(struct rw_tui *t, int timeout_ms)
{
	int ch;

	(void)t;
	timeout(timeout_ms);
	ch = getch();
	switch (ch) {
	case ERR:
		return -1;
	case KEY_RESIZE:
		return RW_TUI_RESIZE;
	case KEY_ENTER:
		return RW_VK_ENTER;
	case KEY_BACKSPACE:
	case KEY_DC:
		return RW_VK_BACKSPACE;
	case KEY_DOWN:
		return RW_VK_DOWN;
	case KEY_UP:
		return RW_VK_UP;
	case KEY_NPAGE:
		return RW_VK_PGDOWN;
	case KEY_PPAGE:
		return RW_VK_PGUP;
	case KEY_HOME:
		return RW_VK_HOME;
	}
	return ch >= KEY_MIN ? 0 : ch; /* other function keys mean nothing here */
}
