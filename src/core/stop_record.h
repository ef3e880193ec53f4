/* SPDX-License-Identifier: BSD-3-Clause */
/* What a stop signal (SIGTERM, SIGINT) leaves of a run: its end record and the one line on
 * stderr, built inside the signal handler, so without stdio or malloc (async-signal-safe).
 * results.c writes them for the open run, and for the run of sonde mix set aside while its
 * groups run (sonde_results_hold). */
#ifndef SONDE_STOP_RECORD_H
#define SONDE_STOP_RECORD_H

#include <stddef.h>
#include <time.h>

struct stop_record {
	const char *run_id, *workload;
	int group;             /* sonde mix: the group whose run it is; 0 otherwise */
	int code;              /* the exit code the run ends with */
	int peer;              /* >= 0: the rank that ended first (reason peer-failed) */
	const char *signal;    /* otherwise the signal's name (reason signal) */
	struct timespec start; /* CLOCK_MONOTONIC when the run began */
	unsigned long long measurements;
	int counted; /* the line says how many measurements were recorded (a mix has none) */
	int kept;    /* a results file was named: the line says its records are kept */
};

/* The end record, a whole line with its newline, into line (cap bytes); its length. */
size_t stop_end_record(const struct stop_record *s, char *line, size_t cap);

/* The line on stderr saying what stopped the run, with its newline; its length. */
size_t stop_message(const struct stop_record *s, char *line, size_t cap);

#endif
