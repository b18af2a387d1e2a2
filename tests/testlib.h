/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A tiny test runner: TEST() functions, CHECK*() assertions that record and go
 * on, and a closing "N passed, N failed" line for CI. A test passes when none
 * of its checks failed; the binary exits 1 if any test failed.
 */
#ifndef RW_TESTLIB_H
#define RW_TESTLIB_H

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One count for every file of a test binary (weak: each file may define it). */
__attribute__((weak)) int tl_failed_checks;
__attribute__((weak)) int tl_passed, tl_failed;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		if (!(cond)) {                                                          \
			tl_failed_checks++;                                             \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		}                                                                       \
	} while (0)

#define CHECK_EQ(a, b)                                                                  \
	do {                                                                            \
		unsigned long long tl_a = (unsigned long long)(a), tl_b = (unsigned long long)(b); \
		if (tl_a != tl_b) {                                                     \
			tl_failed_checks++;                                             \
			fprintf(stderr, "  %s:%d: %s == %s failed: %llu != %llu\n", __FILE__, \
				__LINE__, #a, #b, tl_a, tl_b);                          \
		}                                                                       \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *tl_a = (a), *tl_b = (b);                                    \
		if (strcmp(tl_a, tl_b) != 0) {                                          \
			tl_failed_checks++;                                             \
			fprintf(stderr, "  %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, tl_a, tl_b); \
		}                                                                       \
	} while (0)

/* TL_ONLY=part runs only the tests whose name holds it (to repeat one while chasing a flake). */
static inline void tl_run(const char *name, void (*fn)(void))
{
	const char *only = getenv("TL_ONLY");
	int before = tl_failed_checks;

	if (only && *only && !strstr(name, only))
		return;
	fn();
	if (tl_failed_checks == before) {
		tl_passed++;
		printf("ok   %s\n", name);
	} else {
		tl_failed++;
		printf("FAIL %s\n", name);
	}
	fflush(stdout);
}

#define RUN(fn) tl_run(#fn, fn)

static inline int tl_finish(void)
{
	printf("%d passed, %d failed\n", tl_passed, tl_failed);
	return tl_failed ? 1 : 0;
}

/* The fds this process has open now (a leak shows as a difference). */
static inline int tl_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

#endif
