/* SPDX-License-Identifier: BSD-3-Clause */
/* What every workload gets from main, and what it gives back. */
#ifndef SONDE_WORKLOAD_H
#define SONDE_WORKLOAD_H

#include <mpi.h>

#include "clock.h"
#include "options.h"
#include "topology.h"

/* Options every workload accepts, besides its own. */
struct sonde_common {
	const char *json_path; /* --json FILE: append JSON Lines records */
	const char *csv_path;  /* --csv FILE: append CSV rows */
	int progress;          /* --progress: a live line on long phases (progress.h) */
	/* --progress-interval: lines on stderr, never redrawn, every progress_interval seconds */
	int progress_lines;
	double progress_interval;
	int strict;      /* --strict: a run predicted to fail (no room for its data) is refused */
	double interval; /* --interval: seconds per time-series interval; 0: off */
	const char *live_path; /* --live FILE: interval records as they are produced */
};

struct sonde_context {
	const char *workload;
	int mpi;       /* MPI initialised (0 only for workloads that run without it, mib -M) */
	MPI_Comm comm; /* MPI_COMM_WORLD, a group of it (sonde mix), or MPI_COMM_NULL */
	int rank, size;
	struct sonde_topology topo;
	/* The global clock every rank's time stamps share (finish times of phases); synced once
	 * at start when MPI is up, all zeros otherwise. */
	struct sonde_clock clock;
	int argc; /* the whole command line, for the results header */
	char **argv;
	struct sonde_common common;
	/* sonde --parse-only: the command line is parsed and checked as a run of size ranks on
	 * topo (a planned one) would check it, without MPI, without opening the results files
	 * and without the checks that look at the file system. */
	int parse_only;
	/* sonde mix: this run is a group of a mix, whose figures come from its intervals:
	 * --interval needs no --json or --live of the group's own (docs/workloads/mix.md). */
	int in_mix;
};

struct sonde_workload {
	const char *name;
	const char *summary; /* one line for `sonde --help` */
	const struct sonde_option_table *options;
	/* argv[0] is the workload name. Returns an exit code (enum sonde_exit). */
	int (*run)(struct sonde_context *ctx, int argc, char **argv);
	/* Optional: 0 when this command line runs without MPI (mib -M). NULL = always MPI. */
	int (*wants_mpi)(int argc, char **argv);
	/* The params of the header record a run of this command line writes (a malloc'd JSON
	 * object), from the function that parses and checks the command line for run() itself.
	 * Called by sonde --parse-only with ctx->parse_only set; a bad command line ends the
	 * process with the run's one error line and SONDE_EXIT_USAGE. */
	char *(*params)(struct sonde_context *ctx, int argc, char **argv);
	/* 1 when it has no I/O phase to make a time series of (it refuses --interval): sonde mix
	 * then adds no --interval to its group's command line. */
	int no_time_series;
};

/* Parses a workload's command line together with the common options. On --help, rank 0 prints
 * the help and every rank exits 0; on a bad command line rank 0 prints one line and every rank
 * exits SONDE_EXIT_USAGE. Opens the results files named by --json/--csv (not under
 * ctx->parse_only, where --help is refused: it names no run). Fills *positional
 * (caller frees with sonde_parse_result_free) and returns the workload's option set (for
 * sonde_option_given): one static set per process, kept until it exits, which the next call
 * replaces. */
struct sonde_option_set *sonde_parse_command_line(struct sonde_context *ctx,
                                                  const struct sonde_option_table *table, void *cfg,
                                                  int argc, char **argv,
                                                  struct sonde_parse_result *positional);

/* The common option table (for docs). */
extern const struct sonde_option_table sonde_common_options;

/* Version strings. */
extern const char sonde_version[];
extern const char sonde_git_describe[];
/* The licence, by its SPDX identifier; LICENSE holds its text. */
extern const char sonde_license[];

#endif
