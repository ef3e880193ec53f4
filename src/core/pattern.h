/* SPDX-License-Identifier: BSD-3-Clause */
/* Data patterns and verification. Every 8-byte word of data written is a function of
 * (seed, stream, word index in the file), where the stream names who wrote it and when
 * (rank, file, repetition), so misplaced, stale and torn data are all caught. The byte at file
 * offset o is byte (o % 8) of word (o / 8), little-endian, so any offset and length works. */
#ifndef SONDE_PATTERN_H
#define SONDE_PATTERN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct sonde_pattern {
	uint64_t seed;
	uint64_t stream;
};

/* A stream id from the parts that make data distinct. */
uint64_t sonde_pattern_stream(int64_t rank, int64_t file, int64_t repetition);

uint64_t sonde_pattern_word(const struct sonde_pattern *p, uint64_t word_index);
void sonde_pattern_fill(const struct sonde_pattern *p, void *buf, size_t len, uint64_t offset);

#define SONDE_VERIFY_KEEP 8 /* mismatches kept for the report */

struct sonde_mismatch {
	uint64_t offset;
	uint8_t expected, found;
};

struct sonde_verify {
	int64_t bytes_checked;
	int64_t errors; /* bytes that differ */
	int kept;
	struct sonde_mismatch first[SONDE_VERIFY_KEEP];
};

/* Checks buf against the pattern; adds to v. Returns the number of bad bytes in this call. */
int64_t sonde_pattern_check(const struct sonde_pattern *p, const void *buf, size_t len,
                            uint64_t offset, struct sonde_verify *v);

/* Checks found against expected, len bytes at file offset offset, for data that is not a
 * sonde_pattern (mib's); adds to v like sonde_pattern_check. Returns the bad bytes. */
int64_t sonde_verify_compare(const void *expected, const void *found, size_t len, uint64_t offset,
                             struct sonde_verify *v);

/* Prints the kept mismatches as "verify: rank R: FILE: offset O: expected 0xEE, found 0xFF"
 * lines on stderr, then a count line if more were found. */
void sonde_verify_report(const struct sonde_verify *v, int rank, const char *file);

/* Collective over comm (MPI_COMM_NULL: this process alone): total errors and bytes checked
 * over ranks, on every rank. */
void sonde_verify_total(MPI_Comm comm, const struct sonde_verify *local, int64_t *errors,
                        int64_t *bytes_checked);

#endif
