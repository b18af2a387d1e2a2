/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one-line reasons parsers and loaders hand back to their caller. */
#ifndef RW_ERRMSG_H
#define RW_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Formats the reason into err and returns ret (a negative errno). */
__attribute__((format(printf, 4, 5))) static inline int rw_fail(char *err, size_t errlen, int ret,
								 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

#endif
