/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal assertions for the C unit tests: a failed check prints file:line and the values and
 * makes the test exit non-zero at check_finish(). */
#ifndef SONDE_CHECK_H
#define SONDE_CHECK_H

#include <stdint.h>

extern int check_failures;
extern int check_count;
extern int check_skips;

/* The exit code of a test that passed every check it made but skipped some (a prerequisite
 * missing: the right to mount, free space, a file system's support): ctest's SKIP_RETURN_CODE
 * (CMakeLists.txt), so that ctest counts the test as skipped instead of passed. */
#define CHECK_SKIPPED 77

void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints "skipped <why>" and counts a skipped part of the test. */
void check_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a summary; returns the process exit code: 1 when a check failed, CHECK_SKIPPED when
 * none failed but a part was skipped, 0 otherwise. */
int check_finish(const char *name);

/* Makes a fresh directory "sonde-<name>-XXXXXX" under TEST_TMPDIR (or /tmp) and writes its
 * canonical path (links resolved) to out, PATH_MAX bytes; exits the test when it cannot. */
void check_temp_dir(const char *name, char *out);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		check_count++;                                                                     \
		if (!(cond))                                                                       \
			check_fail(__FILE__, __LINE__, "%s", #cond);                               \
	} while (0)

#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
		check_count++;                                                                     \
		if (check_a_ != check_b_)                                                          \
			check_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a,      \
			           check_a_, #b, check_b_);                                        \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
	do {                                                                                       \
		double check_a_ = (a), check_b_ = (b);                                             \
		check_count++;                                                                     \
		if (!(check_a_ - check_b_ <= (tol) && check_b_ - check_a_ <= (tol)))               \
			check_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g", #a, check_a_,  \
			           check_b_);                                                      \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *check_a_ = (a), *check_b_ = (b);                                       \
		check_count++;                                                                     \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)                     \
			check_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a,        \
			           check_a_ ? check_a_ : "(null)",                                 \
			           check_b_ ? check_b_ : "(null)");                                \
	} while (0)

#endif
