/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mdtest: the pieces of src/workloads/mdtest.c that are not the algorithm itself. */
#ifndef SONDE_MDTEST_H
#define SONDE_MDTEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "options.h"
#include "pattern.h"
#include "stats.h"

/* The release whose command line and output sonde mdtest reproduces. */
#define MDTEST_COMPAT_VERSION "4.1.0"

/* Deeper trees name paths longer than PATH_MAX. */
#define MDTEST_MAX_DEPTH 256

struct mdtest_params {
	const char *api;         /* -a: a backend mdtest runs on (SONDE_CAP_MDTEST) */
	int branch;              /* -b */
	const char *dirs;        /* -d: dir or dir1@dir2@... */
	int no_barriers;         /* -B */
	int create;              /* -C */
	int stat;                /* -T */
	int read;                /* -E */
	int remove;              /* -r */
	int rename;              /* -U */
	int dirs_only;           /* -D */
	int files_only;          /* -F */
	int64_t read_bytes;      /* -e */
	int64_t write_bytes;     /* -w */
	int first_tasks;         /* -f */
	int last_tasks;          /* -l */
	int step_tasks;          /* -s */
	int64_t seed;            /* -G: data seed; -1 = drawn from the clock by rank 0 */
	int iterations;          /* -i */
	int64_t items_per_dir;   /* -I */
	int mknod;               /* -k */
	int leaf_only;           /* -L */
	int64_t items;           /* -n, per rank */
	int stride;              /* -N */
	int pre_delay;           /* -p */
	int print_rate_and_time; /* -P */
	int print_time;          /* -Z */
	int random_order;        /* -R */
	int random_seed;         /* --random-seed */
	int shared_file;         /* -S */
	int collective;          /* -c */
	int time_unique_dir;     /* -t */
	int unique_dir;          /* -u */
	int verbose;             /* -v (counts), -V N */
	int verify_read;         /* -X, --verify-read */
	int verify_write;        /* --verify-write */
	int fsync_each;          /* -y */
	int sync_phase;          /* -Y */
	int stonewall;           /* -W seconds */
	const char *status_file; /* -x */
	int depth;               /* -z */
	const char *packet_type; /* --dataPacketType */
	const char *prologue;    /* --run-cmd-before-phase */
	const char *epilogue;    /* --run-cmd-after-phase */
	const char *rank_csv;    /* --saveRankPerformanceDetails */
	int rank_statistics;     /* --showRankStatistics */
	int print_all_procs;     /* --print-all-procs */
	int warnings_as_errors;  /* --warningAsErrors: accepted, no effect */
	/* the backends' own options (--posix.odirect) */
	struct sonde_backend_params backends;
};

extern const struct sonde_option_table mdtest_options;
void mdtest_params_defaults(struct mdtest_params *p);

/* ---- the operations mdtest times, in its summary order ---------------------------------- */

enum mdtest_op {
	MDTEST_DIR_CREATE,
	MDTEST_DIR_STAT,
	MDTEST_DIR_READ, /* timed by mdtest, does nothing, never shown */
	MDTEST_DIR_RENAME,
	MDTEST_DIR_REMOVE,
	MDTEST_FILE_CREATE,
	MDTEST_FILE_STAT,
	MDTEST_FILE_READ,
	MDTEST_FILE_REMOVE,
	MDTEST_TREE_CREATE,
	MDTEST_TREE_REMOVE,
	MDTEST_NOPS
};

/* "File creation" as mdtest's tables name it. */
const char *mdtest_op_title(enum mdtest_op op);
/* "file-create": the phase name of the results records. */
const char *mdtest_op_phase(enum mdtest_op op);

/* ---- the tree: which directories and items exist, and where ------------------------------ */

/* The shape every rank's (or the one shared) tree has, derived from -n, -I, -z, -b, -L as mdtest
 * derives it. Directories are numbered as a heap: 0 is the root, the children of d are
 * d*branch+1 .. d*branch+branch, so d's parent is (d-1)/branch. */
struct mdtest_tree {
	int depth, branch;
	int64_t dirs;           /* directories of one tree */
	int64_t leaves;         /* directories at the deepest level */
	int64_t first_item_dir; /* items live in dirs first_item_dir .. dirs-1 */
	int64_t items_per_dir;
	int64_t items; /* per rank and directory loop */
	int loops;     /* test directories test-dir.<iteration>-<loop> (-n with -I) */
};

/* Fills *t from the options. Returns 0, or -1 with the reason in err (mdtest's rules, plus
 * shapes mdtest would mis-count or overflow). */
int mdtest_tree_plan(const struct mdtest_params *p, struct mdtest_tree *t, char *err,
                     size_t errlen);

/* Depth of directory d (0 for the root). */
int mdtest_tree_level(const struct mdtest_tree *t, int64_t d);

/* The path of directory d below the tree root: "" for the root, else "base.a/base.b/base.d"
 * (ancestors from level 1 down). Returns the length, or -1 when it does not fit. */
int mdtest_tree_subpath(const struct mdtest_tree *t, const char *base, int64_t d, char *buf,
                        size_t len);

/* v[0..n) = a permutation of 0..n-1 drawn from seed (-R's order). */
void mdtest_shuffle(uint64_t *v, int64_t n, uint64_t seed);

/* Which rank's items (names) and which rank's tree a rank works on in a phase: mdtest shifts
 * by -N for each phase in turn (create 0, stat 1, read 2, remove 3), and with -u the items of
 * rank c live in the tree of rank c + N. */
enum mdtest_step { MDTEST_STEP_CREATE, MDTEST_STEP_STAT, MDTEST_STEP_READ, MDTEST_STEP_REMOVE };
int mdtest_item_owner(int rank, int tasks, int stride, enum mdtest_step step);
int mdtest_tree_owner(int rank, int tasks, int stride, enum mdtest_step step);

/* ---- data of -w / -e / -X ---------------------------------------------------------------- */

/* Every byte of a file is a function of (seed, the rank that created it, item number): a
 * per-creator pattern with the item number stamped every 512 bytes, so another item's data,
 * another rank's and stale data are all caught, and preparing a file costs a few stamps. */
#define MDTEST_DATA_STAMP 512

struct mdtest_data {
	struct sonde_pattern pattern;
	unsigned char *buf; /* size bytes, page aligned */
	size_t size;
};

int mdtest_data_init(struct mdtest_data *d, uint64_t seed, int creator, size_t size);
/* Prepares the buffer with the bytes of item `item` of the creator. */
void mdtest_data_stamp(struct mdtest_data *d, uint64_t item);
/* Checks len (<= d->size) bytes read from the start of item `item` of d's creator. */
void mdtest_data_check(const struct mdtest_data *d, const void *buf, size_t len, uint64_t item,
                       struct sonde_verify *v);
void mdtest_data_free(struct mdtest_data *d);

/* ---- human output ----------------------------------------------------------------------- */

/* One measured figure of one operation in one iteration, as rank 0 keeps it. */
struct mdtest_figure {
	int ran;              /* the phase ran in this iteration */
	double seconds;       /* phase time: slowest rank, barrier included */
	double rate;          /* items of all ranks / seconds */
	int64_t items;        /* items of all ranks */
	double *rank_seconds; /* [tasks] each rank's time before the closing barrier, or NULL */
	int64_t *rank_items;  /* [tasks] */
};

struct mdtest_summary {
	int iterations, tasks;
	int first_op, last_op; /* rows shown: [first_op, last_op) plus the tree rows */
	struct mdtest_figure (*fig)[MDTEST_NOPS]; /* [iterations] */
};

/* "SUMMARY rate (in ops/sec): (of N iterations)" or the time table, mdtest's widths. */
void mdtest_print_summary(FILE *out, const struct mdtest_summary *s, int time_table,
                          int rank_statistics);
/* --print-all-procs: each rank's rate (or time) before the closing barrier. */
void mdtest_print_all_procs(FILE *out, const struct mdtest_summary *s, int time_table);
/* -v: one line per phase of an iteration. */
void mdtest_print_iteration(FILE *out, const struct mdtest_summary *s, int iteration);
/* The Std Dev column: sample standard deviation (N-1), 0 for one value. */
double mdtest_sample_stddev(const double *v, int n);

/* -v: the parameter list. */
void mdtest_print_params(FILE *out, const struct mdtest_params *p, char *const *dirs, int ndirs);

/* "-- started at 11/22/2026 21:33:51 --" */
void mdtest_timestamp(char *buf, size_t len);

#endif
