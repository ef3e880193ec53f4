/* SPDX-License-Identifier: BSD-3-Clause */
/* Results: one schema for every workload (docs/results-schema.md, docs/results.schema.json).
 *
 * A run appends to the --json file (JSON Lines): one "header" record, then "measurement" records
 * as they are measured (each written and flushed at once, so a run killed halfway keeps what it
 * measured), optional "summary" and "profile" records, and a closing "end" record with the exit
 * status. --csv appends one row per measurement. Only rank 0 writes; the calls are no-ops on the
 * other ranks, and when no file was asked for. Human output is printed from the same figures. */
#ifndef SONDE_RESULTS_H
#define SONDE_RESULTS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "finish.h"
#include "stats.h"

#define SONDE_SCHEMA_VERSION 2

struct sonde_context;

struct sonde_measurement {
	const char *phase; /* "write", "read", "open", "close", "Bcast", "dump", ... */
	int iteration;     /* 0-based; -1 when not iterated */
	int64_t bytes;     /* aggregate bytes moved in the phase (0 for pure latency) */
	double seconds;    /* the phase time as the original defines it */
	int64_t ops;       /* calls/transfers in the phase (0 if not counted) */
	const struct sonde_stats *per_rank;  /* per-rank phase seconds, or NULL */
	const struct sonde_latency *latency; /* per-call latency, or NULL */
	const struct sonde_finish *finish;   /* when each rank finished, or NULL */
	int verified;                        /* 1 checked, 0 not checked */
	int64_t verify_errors;               /* mismatching bytes/elements when verified */
	int64_t bytes_checked;
	const char *params_json; /* JSON object of the parameters of this measurement, or NULL */
	const char
	    *extra_json; /* JSON object of workload-specific figures (stonewall, ...), or NULL */
	/* The phase's start and end on the writing rank's clock (sonde_now()), 0 when the workload
	 * does not say: in `sonde mix` they go into the record on the mix's global clock. */
	double start, end;
};

/* Rank 0 of comm (the workload's communicator; MPI_COMM_NULL without MPI) opens the files for
 * appending (never truncating) and writes every record of the run. Returns 0 or -1 with err. */
int sonde_results_open(MPI_Comm comm, const char *workload, const char *json_path,
                       const char *csv_path, char *err, size_t errlen);

/* sonde mix, world rank 0, after the mix's header: its run is set aside, still open, while its
 * groups' runs open and close theirs. Set aside, it still ends with an end record when a stop
 * signal comes (the same reason as the group's run that was open, "signal" or "peer-failed"),
 * so that a mix stopped early says so. */
void sonde_results_hold(void);

/* After the groups' runs: the run set aside is the open one again (its mix records, then
 * sonde_results_close writes its end record). */
void sonde_results_resume(void);

/* Any rank: whether path, a file the workload writes or reads (what: "test file", "summary
 * file", ...), is the same file as --json or --csv (sonde_same_file). Returns 0, or -1 with a
 * one-line reason in err; the workload agrees over its ranks and stops with a usage error, so
 * that results are never overwritten by data or by another output. */
int sonde_results_collision(const char *path, const char *what, char *err, size_t errlen);

/* Rank 0: writes the header record. params_json: the workload's effective parameters (a JSON
 * object). target: a path on the file system under test (its type and mount go in the
 * header), or NULL for workloads without files. */
void sonde_results_header(const struct sonde_context *ctx, const char *params_json,
                          const char *target);

/* Rank 0: one measurement record (bandwidth_mib_s and ops_per_s are derived here). */
void sonde_results_measurement(const char *workload, const struct sonde_measurement *m);

/* Rank 0: any other record type ("summary", "profile", ...); body is a JSON object whose
 * members are added after "type", "run_id" and "workload". */
void sonde_results_record(const char *type, const char *workload, const char *body_json);

/* Rank 0: opens --live FILE for appending, as --json (after sonde_results_open; the other
 * ranks only note the path for sonde_results_collision). Returns 0, or -1 with err. */
int sonde_results_open_live(const char *path, char *err, size_t errlen);

/* Rank 0: one record to the --live file, the line sonde_results_record writes to --json. */
void sonde_results_live(const char *type, const char *workload, const char *body_json);

/* Rank 0: the cause of the failure that ends the run, for the end record: the failing rank (-1
 * when not known), the path (or NULL) and the one-line message. The first note wins. */
void sonde_results_note_failure(int rank, const char *path, const char *message);

/* Rank 0: writes the "end" record (its reason from the exit code and the failure noted) and
 * closes. Returns the exit code the run ends with: 1 instead of 0 when a results file could not
 * be written. Safe to call twice and from sonde_exit(). */
int sonde_results_close(int exit_code);

/* Whether a JSON file is open (so workloads can skip building costly records). */
int sonde_results_active(void);

/* The run id of this run (UTC start time + pid of rank 0), shared by all its records (sonde mix
 * names its groups' runs after it). */
const char *sonde_results_run_id(void);

/* One measurement of a run in `sonde mix`, as its record says it, with its start and end on
 * the mix's global clock (NaN when the workload does not time its phases). */
struct sonde_mix_span {
	char phase[32];
	int iteration;
	int64_t bytes, ops;
	double seconds, start, end;
};

/* `sonde mix`, before the workload's run opens its results: every record of the run names
 * group and carries run_id (its own); the header also says stage ("solo" or "concurrent");
 * measurements get start and end on the mix's clock, a local time + offset - zero
 * (sonde_clock_global); the spans of the measurements are kept for the mix record. */
void sonde_results_join_mix(int group, const char *run_id, const char *stage, double offset,
                            double zero);
/* The world rank the failure noted for the end record names, -1 when none is. */
int sonde_results_failed_rank(void);
/* The spans of the measurements written since sonde_results_join_mix (the writing rank's). */
const struct sonde_mix_span *sonde_results_mix_spans(int *count);

#endif
