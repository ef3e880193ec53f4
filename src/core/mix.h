/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mix: one launch split into groups of ranks, each running one workload with its own
 * options on its own communicator, all started together after one barrier (docs/workloads/mix.md).
 *
 *   sonde mix [--json FILE] [--solo] [--strict] [--interval SECONDS] --group SPEC: WORKLOAD
 * [ARGS...] [--group ...]
 *
 * SPEC: N (the next N free ranks, in world rank order), N/node (N free ranks of each node), either
 * followed by @NODES (only on these nodes: 0,2-3, numbered as sonde numbers them: node 0 holds
 * rank 0). Every rank belongs to exactly one group. */
#ifndef SONDE_MIX_H
#define SONDE_MIX_H

#include <stdint.h>
#include <stdio.h>

#include "results.h"
#include "timeseries.h"
#include "workload.h"

/* One group of the mix, as the command line gives it and as its ranks are placed. */
struct mix_group {
	const char *spec;               /* as given, without the colon */
	const struct sonde_workload *w; /* its workload */
	int argc;                       /* the group's own command line: argv[0] is the program, */
	char **argv;                    /* argv[1] the workload (as a run alone would have it) */
	int nranks, *ranks;             /* its world ranks, ascending */
	int leader;                     /* its lowest world rank: it writes the group's records */
	int code;                       /* its run's exit code (world rank 0, after the run) */
	int failed_rank;                /* the world rank its end record names, or -1 */
	struct sonde_mix_span *spans;   /* its concurrent measurements (world rank 0) */
	int nspans;
	struct sonde_mix_span *solo; /* its solo measurements (--solo, world rank 0) */
	int nsolo;
	struct sonde_series_interval *intervals; /* its concurrent phases' (world rank 0) */
	int nintervals;
	char run_id[96], solo_run_id[96]; /* the run ids of its records */
};

struct mix_plan {
	const char *json_path; /* --json: the mix's records, and the groups' unless they name one */
	int solo;              /* --solo */
	int strict;            /* --strict: every group's */
	const char *interval;  /* --interval: the groups' that give neither --interval nor --live */
	int ngroups;
	struct mix_group *groups;
	char run_id[64]; /* the mix's own */
};

/* The word that opens each group's part of the command line. */
#define SONDE_MIX_GROUP "--group"

/* The mix's own options (before the first --group): its parsing, --help and shell completion. */
extern const struct sonde_option_table sonde_mix_options;

/* `sonde mix --help` */
void sonde_mix_usage(FILE *out);

/* Runs the mix described by argv (argv[1] is "mix") on ctx (MPI_COMM_WORLD, its topology),
 * with the workloads of this binary. Returns the exit code of the launch. */
int sonde_mix_run(struct sonde_context *ctx, const struct sonde_workload *const *workloads,
                  int argc, char **argv);

/* sonde --parse-only RANKS TASKS_PER_NODE mix ...: the command line checked as a launch on
 * ctx->topo (a planned one) would check it, every group by its workload's parser; the params of
 * the mix's header record (malloc'd JSON), or the one error line and SONDE_EXIT_USAGE. */
char *sonde_mix_params(struct sonde_context *ctx, const struct sonde_workload *const *workloads,
                       int argc, char **argv);

/* mix_records.c: the params of the mix's header record (malloc'd JSON). */
char *mix_params(const struct mix_plan *plan);

/* mix_records.c, world rank 0 before the groups run: the mix's own run opens in
 * plan->json_path with its header, then is set aside (sonde_results_hold) until
 * mix_report_overlaps, so that a stop signal in between ends it too. 0, or -1 with a one-line
 * reason in err (the file cannot be written, or holds CSV). */
int mix_open_records(const struct mix_plan *plan, const struct sonde_context *ctx, char *err,
                     size_t errlen);

/* mix_records.c, world rank 0 after the run: the windows in which every group was in one phase,
 * on stdout and as the mix's own run's records (a "mix" record per window, an end record with
 * the launch's exit code). Returns the launch's exit code. */
int mix_report_overlaps(const struct mix_plan *plan, int code);

#endif
