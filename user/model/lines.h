/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the line-based files operators write (config, rules). */
#ifndef RW_LINES_H
#define RW_LINES_H

#include <stddef.h>
#include <stdio.h>

/*
 * The next line with content: its '#' comment and surrounding blanks gone,
 * blank lines skipped, *lineno counting every line. buf holds size bytes, so
 * lines of up to size - 2 bytes fit. 1 with the text in *text, 0 at the end,
 * -EINVAL with "PATH:LINE: line longer than N bytes" in err.
 */
int rw_next_line(FILE *f, char *buf, size_t size, unsigned int *lineno, char **text,
		 const char *path, char *err, size_t errlen);

#endif
