/* SPDX-License-Identifier: BSD-3-Clause */
/* Sizes and counts as the originals read them. Every parser rejects junk, trailing garbage,
 * negatives and overflow with a message that names the bad text. */
#ifndef SONDE_UNITS_H
#define SONDE_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum sonde_size_style {
	/* IOR/mib: integer with an optional k/m/g/t (either case) binary multiplier, e.g. 16m, 2G.
	 */
	SONDE_SIZE_BINARY,
	/* LANL mpi_io_test dd-like: w=2, b=512, KB=1000, K=1024, MB=10^6, M=2^20, GB=10^9, G=2^30.
	 */
	SONDE_SIZE_LANL,
	/* mpiBench byte strings: decimal float (".5", "2.5") + optional k/m/g (binary) + optional
	 * b/B, e.g. 32K, 2.5kb, .5GB; the result must be a whole number of bytes. */
	SONDE_SIZE_MPIBENCH,
};

/* Parses text into *out. Returns 0, or -1 with a one-line reason in err (-2 when the size is
 * beyond int64_t: "too large (at most ...)"). */
int sonde_parse_size(const char *text, enum sonde_size_style style, int64_t *out, char *err,
                     size_t errlen);

/* The one range check of every number sonde reads: 0 when min <= v <= max, else -1 with the
 * reason in why: "too large (at most MAX)", "must be at least MIN" (no upper limit but the
 * type's) or "must be between MIN and MAX". beyond: the text's value did not even fit int64_t
 * (v is then INT64_MAX or INT64_MIN, by its sign). */
int sonde_check_range(int64_t v, int beyond, int64_t min, int64_t max, char *why, size_t len);

/* Parses a whole decimal integer (no suffix) into *out, within [min, max]. Returns -2 when
 * the number does not even fit int64_t, -1 for any other error; *out is untouched on error. */
int sonde_parse_int(const char *text, int64_t min, int64_t max, int64_t *out, char *err,
                    size_t errlen);

/* Parses a finite decimal floating-point number. */
int sonde_parse_double(const char *text, double *out, char *err, size_t errlen);

/* A size as IOR prints one (its HumanReadable, base two): "4096 bytes" below 1 MiB, then
 * "16 MiB", "2 GiB", "1 TiB", with two decimals when not a whole number ("1.50 MiB"). */
char *sonde_format_size(int64_t bytes, char *buf, size_t buflen);

/* The decimal digits of v at buf (at most 20, no NUL); returns how many. Async-signal-safe, and
 * cheaper than printf in loops that name millions of files. */
int sonde_u64_digits(char *buf, uint64_t v);

#define SONDE_KIB ((int64_t)1 << 10)
#define SONDE_MIB ((int64_t)1 << 20)
#define SONDE_GIB ((int64_t)1 << 30)

#endif
