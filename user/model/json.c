// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/json.h"

void rw_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}
