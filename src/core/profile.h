/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-call timing profiles: every rank keeps the (start, end) local times of its calls in
 * fixed-size chunks (no reallocation, so recording costs the same at call 10 and call 10^7),
 * and a collective write streams them, converted to the global zero of a sonde_clock, to
 *  - mib's text layout: row 0 the phase start of every task, then one row per call with the
 *    time each task finished that call, one column per task in rank order, each value "%f"
 *    followed by a tab, 0.000000 for tasks that made fewer calls;
 *  - "profile" result records (sonde_results_record), for sonde-report: one "tasks" record
 *    (per task: phase start, calls, clock error) and "calls" records of up to chunk_rows rows
 *    each, with per task the start and end of that call (null when the task made fewer calls).
 * Rank 0 gathers chunk_rows rows at a time, so it never holds the ranks x calls table. Works
 * with comm == MPI_COMM_NULL (one process, no MPI). */
#ifndef SONDE_PROFILE_H
#define SONDE_PROFILE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

struct sonde_profile_chunk;

struct sonde_profile {
	double phase_start; /* local time; row 0 of the text layout */
	int64_t calls;
	struct sonde_profile_chunk *first, *last;
};

void sonde_profile_init(struct sonde_profile *p, double phase_start);
/* Records one call (local times). Returns 0, or -1 when memory runs out. */
int sonde_profile_add(struct sonde_profile *p, double start, double end);
void sonde_profile_free(struct sonde_profile *p);

struct sonde_profile_output {
	const char *text_path; /* mib text layout; NULL for none (opened by rank 0) */
	const char *workload;  /* for the "profile" records; NULL for none */
	const char *phase;     /* "write", "read", ... */
	int64_t chunk_rows;    /* rows gathered at a time; 0 = a bound of a few MiB on rank 0 */
};

/* Collective over comm (or alone with MPI_COMM_NULL). Returns the row count (the most calls of
 * any task) on every rank, or -1 on every rank with a one-line reason in err when rank 0
 * could not create or write the text file. */
int64_t sonde_profile_write(const struct sonde_profile *p, MPI_Comm comm,
                            const struct sonde_clock *clock, const struct sonde_profile_output *out,
                            char *err, size_t errlen);

#endif
