/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde ior: the state one run shares between its phases, and the per-phase reports
 * (src/workloads/ior/report.c) that read it. */
#ifndef SONDE_IOR_RUN_H
#define SONDE_IOR_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "clock.h"
#include "finish.h"
#include "json.h"
#include "pattern.h"
#include "workload.h"
#include "workloads/ior/ior.h"
#include "workloads/ior/reorder.h"

/* What a phase does: -w, -r, -W's untimed check of what was written, -R's checked read. */
enum ior_access { IOR_WRITE, IOR_READ, IOR_WRITECHECK, IOR_READCHECK };
/* A phase's time stamps on this rank: the start and end of open, transfers and close. */
enum { IOR_T_OPEN0, IOR_T_OPEN1, IOR_T_XFER0, IOR_T_XFER1, IOR_T_CLOSE0, IOR_T_CLOSE1, IOR_T_N };

/* What a run shares between its phases. */
struct ior_run {
	struct sonde_context *ctx;
	MPI_Comm comm;
	int rank, ntasks;
	struct ior_mapping map;
	struct ior_where where;
	struct sonde_clock clock;
	const struct sonde_backend *backend;
	struct sonde_strlist hints;
	void *buf;
	uint64_t seed; /* pattern seed of this repetition */
	int64_t stream_rep;
	FILE *out; /* IOR's results (its out_resultfile): stdout, the default-format summaryFile,
	              NULL when a summary format replaces the text */
	FILE *log; /* IOR's log lines (its out_logfile): stdout */
	FILE *rank_csv;
	int64_t verify_errors;
	int64_t bad_transfers; /* transfers of the current phase that read wrong data */
	int64_t pairs_limit;   /* stoneWallingWearOutIterations in force */
	double *lat;           /* per-call latencies of the current phase */
	int64_t nlat, caplat;
	/* -C's read-back in the current test, as rank 0 works it out before the test: the shift
	 * in ranks, and how many ranks read what their own node wrote (-1, -1 without -C) */
	int read_shift, same_node_reads;
	int dir_fd1; /* -u: descriptor + 1 of the directory of this rank's file (ior.c) */
};

/* The rank whose data this rank handles in a phase, and the file it is in. */
struct ior_target {
	int pretend;
	char path[4096];
	char io_path[4200]; /* what open, truncate and remove use (enter_dir in ior.c) */
	struct sonde_pattern pat;
};

/* What a phase's transfers left: bytes and transfers made, and this rank's first failure. */
struct ior_phase_out {
	int64_t moved, pairs;
	int failed, err; /* err: the errno value of the failure, when known */
	char why[4096];
};

/* transfer.c: the timed transfer loop of a phase (collective where IOR's is: the stonewall
 * broadcast, the wear-out reductions, collective I/O). */
void ior_transfer_all(struct ior_run *r, const struct ior_params *p, struct sonde_file *f,
                      const struct ior_target *tg, enum ior_access acc, struct ior_point *pt,
                      struct sonde_verify *v, struct ior_phase_out *po);

/* report.c */
const char *ior_phase_name(enum ior_access acc);
/* Per-rank figures of a phase (collective): on rank 0, 4 per rank (total s, transfer s, bytes;
 * free()), NULL elsewhere. */
double *ior_rank_figures(struct ior_run *r, const double *tm, int64_t moved);
/* Rank 0: --rank-details and saveRankPerformanceDetailsCSV from those figures. */
void ior_rank_details(struct ior_run *r, const struct ior_params *p, enum ior_access acc, int rep,
                      const double *all);
/* The phase's measurement record (--json/--csv), and the latency figures --latency prints
 * (collective). Returns whether lat was worked out (results files or --latency asked). */
int ior_json_record(struct ior_run *r, const struct ior_test *t, enum ior_access acc, int rep,
                    const struct ior_point *pt, double my_xfer, const struct sonde_verify *v,
                    int verified, int64_t errors, const double *ranks,
                    const struct sonde_finish *fin, struct sonde_latency *lat);
/* Rank 0: --latency's line. */
void ior_print_latency(const struct ior_run *r, enum ior_access acc, int rep,
                       const struct sonde_latency *lat);
/* -j outlier warnings (collective). */
void ior_outliers(struct ior_run *r, const struct ior_params *p, enum ior_access acc,
                  const double *tm);
/* Summary records of a test (rank 0). */
void ior_json_summary(const struct ior_run *r, const struct ior_test *t);

/* cache.c: --drop-cache on one file; resident and total pages afterwards. */
void ior_drop_cache(const char *path, int64_t *resident, int64_t *total);

#endif
