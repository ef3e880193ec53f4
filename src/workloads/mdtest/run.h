/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mdtest: the state a run shares between src/workloads/mdtest.c (the algorithm), items.c
 * (the timed work on the items) and report.c (records and per-rank figures). */
#ifndef SONDE_MDTEST_RUN_H
#define SONDE_MDTEST_RUN_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>

#include "backend.h"
#include "stats.h"
#include "workload.h"
#include "workloads/mdtest/mdtest.h"

struct mdtest_run {
	struct sonde_context *ctx;
	struct mdtest_params p;
	struct mdtest_tree tree;
	const struct sonde_backend *io;
	char **dirs; /* -d split at '@' */
	int ndirs;
	int made_base;      /* this rank made its -d directory (removed again after -r) */
	uint64_t seed;      /* data seed (-G, or drawn by rank 0) */
	int stride;         /* -N in ranks: times the tasks per node with block placement */
	int64_t file_items; /* items of the file phases: the status file's count without -C */
	char *params;       /* the run's parameters as JSON */
	/* the round of -f/-l/-s being run */
	MPI_Comm comm;
	int rank, tasks;
	struct mdtest_summary summary;
	/* per-rank buffers, sized before the timed phases */
	double *lat; /* per-item latency of the current phase */
	int64_t caplat;
	uint64_t *order; /* -R: the items in the order they are stat-ed and read */
	void *read_buf;
	int64_t verify_errors; /* of the round, summed over its ranks */
};

/* One rank's part of one phase. */
struct mdtest_pass {
	enum mdtest_op op;
	enum mdtest_step step;
	int iteration;
	double start;          /* after the opening barrier */
	double before_barrier; /* when this rank finished its items */
	double end;            /* after the closing barrier */
	int64_t items;         /* items this rank worked on */
	int64_t bytes;         /* bytes it wrote or read */
	int64_t nlat;
	struct sonde_verify verify; /* mismatches kept are those of bad_item */
	char bad_item[PATH_MAX];    /* the first item whose data did not verify */
	char error[PATH_MAX + 256]; /* its first failure, "" when none */
	int err;                    /* that failure's errno value */
	char err_path[PATH_MAX];
	/* file creation under a stonewall (-W) */
	double stonewall_seconds;
	int64_t stonewall_items;
	int64_t wearout_items; /* the count every rank caught up to (-1: stonewall not hit) */
};

/* items.c: the timed work. Each runs this rank's items of one phase and loop (test-dir
 * <iteration>-<loop>), appending latencies to run->lat; a failure stops this rank's items and
 * is kept in pass->error. */
void mdtest_items(struct mdtest_run *run, struct mdtest_pass *pass, int loop);
/* The tree's directories: made (parents first) or removed (children first) by this rank. */
void mdtest_tree_dirs(struct mdtest_run *run, struct mdtest_pass *pass, int loop);

/* Without -C: every directory of this rank's tree (rank 0: the shared one) is there and is a
 * directory, not a planted link. Returns 0, or an errno value with msg and the path. */
int mdtest_tree_check(const struct mdtest_run *run, int iteration, char *msg, size_t msglen,
                      char *path, size_t pathlen);

/* Paths (items.c). */
/* DIR/test-dir.<iteration>-<loop> of the -d directory rank `rank` works in. */
void mdtest_test_dir(const struct mdtest_run *run, int rank, int iteration, int loop, char *buf,
                     size_t len);
/* The root of the tree of rank `owner` (with -u), or the shared one. */
void mdtest_tree_root(const struct mdtest_run *run, int owner, int iteration, int loop, char *buf,
                      size_t len);

/* report.c (collective over run->comm): reduces the pass to the phase's figure, stores it in
 * the summary, writes its measurement record. */
void mdtest_report_phase(struct mdtest_run *run, const struct mdtest_pass *pass);
/* --saveRankPerformanceDetails (rank 0). Returns 0, or -1 with the reason in err. */
int mdtest_rank_csv(const struct mdtest_run *run, const char *path, char *err, size_t errlen);

#endif
