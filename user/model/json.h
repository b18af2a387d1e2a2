/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Writing JSON: what every JSON output (the report, events, status, history) shares. */
#ifndef RW_MODEL_JSON_H
#define RW_MODEL_JSON_H

#include <stdio.h>

/* A JSON string: quotes, backslashes and control bytes escaped (names may hold any). */
void rw_json_string(FILE *out, const char *s);

#endif
