/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by the libFuzzer targets. */
#ifndef RW_FUZZ_H
#define RW_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A property the parser promises: a violation is a crash libFuzzer keeps. */
#define FUZZ_ASSERT(cond)                                                              \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: %s does not hold\n", __FILE__, __LINE__, #cond); \
			abort();                                                       \
		}                                                                      \
	} while (0)

/* The input as a NUL-terminated string (the parsers take C strings); NULL if no memory. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* The input as a file (the file parsers read streams); NULL when empty or no memory. */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
	return size ? fmemopen((void *)data, size, "r") : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
