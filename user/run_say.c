// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What `ratewall run` says: a line for the operator, an error kept for `status`. */
#include "run_say.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "service/persist.h"

/*
 * A line for the operator: on stderr, or under the terminal view's table
 * (and on stderr once the view is closed).
 */
void rw_run_tell(struct rw_session *s, const char *msg)
{
	size_t n = strlen(s->said);

	if (!s->watch) {
		fprintf(stderr, "ratewall: %s\n", msg);
		return;
	}
	rw_watch_note(s->watch, msg);
	snprintf(s->said + n, sizeof(s->said) - n, "ratewall: %s\n", msg);
}

/*
 * Says an error and, for a pinned instance, keeps it where `status` shows it
 * (its first RW_META_ERROR_LEN - 1 bytes: stderr has the whole line).
 */
void rw_run_say_error(struct rw_session *s, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rw_run_tell(s, msg);
	rw_persist_error(s, msg);
}

/* What the act room says: a line, or an error kept in a pinned instance's record too. */
void rw_run_act_say(void *arg, bool error, const char *msg)
{
	if (error)
		rw_run_say_error(arg, "%s", msg);
	else
		rw_run_tell(arg, msg);
}
