// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/lines.h"

#include <errno.h>
#include <string.h>

#include "model/errmsg.h"

int rw_next_line(FILE *f, char *buf, size_t size, unsigned int *lineno, char **text,
		 const char *path, char *err, size_t errlen)
{
	while (fgets(buf, (int)size, f)) {
		char *line = buf, *end;

		(*lineno)++;
		if (strlen(buf) > size - 2 && !strchr(buf, '\n'))
			return rw_fail(err, errlen, -EINVAL, "%s:%u: line longer than %zu bytes", path,
				       *lineno, size - 2);
		line[strcspn(line, "#\r\n")] = '\0';
		line += strspn(line, " \t");
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*line) {
			*text = line;
			return 1;
		}
	}
	return 0;
}
