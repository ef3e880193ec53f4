/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde ior: the parts of the IOR workload shared by its files (src/workloads/ior.c and
 * src/workloads/ior/[*].c). One struct of parameters per test, as IOR's IOR_param_t, and the
 * figures of each phase of each repetition. */
#ifndef SONDE_IOR_H
#define SONDE_IOR_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "backend.h"
#include "fsinfo.h"
#include "options.h"
#include "stats.h"

struct sonde_context;

enum ior_packet {
	IOR_PACKET_TIMESTAMP,
	IOR_PACKET_OFFSET,
	IOR_PACKET_INCOMPRESSIBLE,
	IOR_PACKET_RANDOM
};
enum ior_format { IOR_FORMAT_DEFAULT, IOR_FORMAT_JSON, IOR_FORMAT_CSV };

struct ior_params {
	/* IOR's own parameters, with its defaults */
	const char *api;                 /* -a */
	int refnum;                      /* -A */
	int64_t block;                   /* -b */
	int collective;                  /* -c */
	int reorder;                     /* -C */
	int delay;                       /* -d seconds before each phase */
	int deadline;                    /* -D seconds */
	int fsync;                       /* -e */
	int use_existing;                /* -E */
	const char *script;              /* -f */
	int fpp;                         /* -F */
	int barriers;                    /* -g */
	int64_t signature;               /* -G */
	int reps;                        /* -i */
	int outlier;                     /* -j seconds */
	int keep;                        /* -k */
	int keep_on_error;               /* -K */
	const char *packet_name;         /* -l */
	int multi_file;                  /* -m */
	const char *test_file;           /* -o */
	struct sonde_strlist directives; /* -O */
	int task_offset;                 /* -Q */
	int read, check_read;            /* -r -R */
	int write, check_write;          /* -w -W */
	int64_t segments;                /* -s */
	int64_t xfer;                    /* -t */
	int max_minutes;                 /* -T */
	int unique_dir;                  /* -u */
	int verbose;                     /* -v */
	int reorder_seed;                /* -X */
	int fsync_per_write;             /* -Y */
	int random_offset;               /* -z (count) */
	int reorder_random;              /* -Z (count) */
	int dry_run;                     /* --dryRun */
	int quit_on_error;               /* -q */
	int64_t random_seed;             /* --random-offset-seed, -1 = time */
	/* the backends' own options (--posix.odirect, --mpiio.hintsFileName, --mmap.* ...) */
	struct sonde_backend_params backends;
	/* -O directives (and script keys) */
	int wearout;
	int64_t wearout_pairs;   /* stoneWallingWearOutIterations */
	int min_time;            /* minTimeDuration: loop over the file for at least S seconds */
	const char *status_file; /* stoneWallingStatusFile */
	const char *summary_format;
	const char *summary_file;
	const char *rank_csv;        /* saveRankPerformanceDetailsCSV */
	const char *memory_per_node; /* -M, memoryPerNode: size or N% of the node's memory */
	const char *memory_per_task; /* memoryPerTask */
	const char *platform;        /* platform: a name for the JSON summary */
	/* sonde's additions */
	const char *preset;
	int rank_details;
	int drop_cache;
	int latency_lines;
	/* derived */
	enum ior_packet packet;
	enum ior_format format;
	int id; /* test number in a script */
};

/* Figures of one phase (write or read) of one repetition, as IOR reduces them. */
struct ior_point {
	int done;
	double open, xfer, close, total; /* latest stop - earliest start of each span */
	int64_t bytes;                   /* aggregate bytes moved */
	int64_t stat_bytes;              /* aggregate size from stat() */
	double bw, iops, latency;        /* B/s, transfers/s (access time), s per transfer */
	int64_t pairs;                   /* transfers per rank: local, or MAX with wear-out */
	double sw_time;                  /* stonewall time (wear-out only) */
	int64_t sw_min_bytes, sw_total_bytes;
	int64_t errors; /* verification errors (-R) */
	/* earliest open start, latest close end (the run's global clock) */
	double start, end;
};

struct ior_test {
	struct ior_params p;
	int reps_done;
	struct ior_point *write, *read; /* [reps] */
	double *remove_s;               /* [reps] the delete after each repetition, s; < 0: none */
	int64_t expected;               /* expected aggregate file size */
	int ntasks;
	char start_time[40];
	char path[4096]; /* rank 0's test file, as IOR's "Path" */
	char shift[256]; /* which ranks -C/-Z make read (rank 0), "" without them */
};

/* options.c */
extern const struct sonde_option_table ior_option_table;
void ior_params_defaults(struct ior_params *p);
/* Applies "key=value[,key=value]" directives (-O or a script line) to set->cfg, a struct
 * ior_params, through the option table (ior_option_table), counting them in set->given when
 * that is not NULL. Returns 0 or -1 with err. */
int ior_directive(struct sonde_option_set *set, const char *kv, char *err, size_t errlen);
/* --posix.odirect (-B) and the hints file (-U, --mpiio.hintsFileName), which sonde ior reads
 * itself: O_DIRECT for POSIX and direct I/O hints for MPIIO; the hints it hands the backend. */
int ior_odirect(const struct ior_params *p);
/* What a test will do with its files, for the backend's check and open (struct
 * sonde_io_options' plan fields and the backend's own parameters): every file holds
 * -b x -s of each of its ranks (all ntasks, or one with -F), moved -t at a time. */
void ior_io_plan(const struct ior_params *p, int ntasks, struct sonde_io_options *plan);
const char *ior_hints_file(const struct ior_params *p);
/* Whether the hints of each open are shown: the API's own showHints, or -H. */
int ior_show_hints(const struct ior_params *p);
/* Checks a test's parameters with IOR's rules and messages. Returns 0 or -1 with err. */
int ior_validate(struct ior_params *p, int ntasks, char *err, size_t errlen);

/* preset.c: applies --preset, refusing a conflicting fixed option; prints nothing. */
int ior_preset_apply(struct ior_params *p, const struct sonde_option_set *given, int tasks_per_node,
                     char *err, size_t errlen);
/* The expanded IOR command line of a test, for the log. */
void ior_command_line(const struct ior_params *p, char *buf, size_t len);

/* script.c: reads -f FILE into tests (malloc'd array), each starting from *defaults.
 * Collective over comm (rank 0 reads the file, every rank parses it; MPI_COMM_NULL: alone). */
int ior_script_read(MPI_Comm comm, const char *path, const struct ior_params *defaults,
                    struct ior_test **tests, int *ntests, char *err, size_t errlen);

/* hints.c: MPI-IO hints from IOR_HINT__MPI__key=value in the environment and the hints
 * file; "key=value" strings (malloc'd). Collective; returns 0, or -1 with err on rank 0 only
 * (the caller agrees on it). */
int ior_hints_collect(MPI_Comm comm, const char *hints_file, struct sonde_strlist *out,
                      int *ignored, char *err, size_t errlen);
/* The warnings about hints at the start of a run: hints given or shown with an API that has
 * none; the IOR_HINT__ variables of other layers than MPI ("ignored" of them). */
void ior_hints_warn(const struct ior_params *p, int nhints, int ignored);

/* output.c: IOR's text layout (rank 0 only) */
void ior_print_header(FILE *out, const char *began, int argc, char **argv, int verbose);
void ior_print_test_start(FILE *out, const struct ior_test *t);
/* Where the tests run, as their Options sections show it. */
struct ior_where {
	int nnodes, ntasks, tpn;
};
/* One line of IOR's Options section, for the text ("key : value") and for JSON, where IOR
 * wrote it as a number (text NULL) or as a string. */
struct ior_item {
	const char *key;
	const char *text;
	long long num;
	char buf[64];
};
enum { IOR_MAX_ITEMS = 32 };
int ior_options_items(const struct ior_test *t, const struct ior_where *w,
                      struct ior_item items[IOR_MAX_ITEMS]);
void ior_print_options(FILE *out, const struct ior_test *t, const struct ior_where *w);
void ior_print_table_header(FILE *out);
void ior_print_row(FILE *out, const struct ior_params *p, const char *access,
                   const struct ior_point *pt, int rep);
void ior_print_remove(FILE *out, double seconds, int rep);
void ior_print_max(FILE *out, const struct ior_test *t);
void ior_print_summary(FILE *out, const struct ior_test *tests, int ntests, int ntasks, int tpn);
void ior_print_finished(FILE *out);
/* Summary statistics of one operation over the repetitions done (IOR's formulas). */
struct ior_summary {
	int n;
	double bw_max, bw_min, bw_mean, bw_sd;     /* MiB/s */
	double ops_max, ops_min, ops_mean, ops_sd; /* bw / transfer size */
	double mean_time;
	int stonewall;           /* stonewall columns apply */
	double sw_time, sw_mib;  /* IOR's Stonewall(s), Stonewall(MiB) */
	double sw_aggregate_mib; /* sonde: aggregate bandwidth at the deadline, MiB/s */
	int64_t agg_bytes;       /* bytes of repetition 0 */
};
int ior_summarize(const struct ior_test *t, int write, int ntasks, struct ior_summary *s);
void ior_time_string(char *buf, size_t len);
/* The platform name of the JSON summary: -O platform=, else as IOR named it, the host name
 * without its trailing digits and the OS ("node(Linux)"). */
void ior_platform(const struct ior_params *p, char *buf, size_t len);

/* hog.c: the bytes of memoryPerNode (-M, a size or N% of the node's memory) and memoryPerTask,
 * and the bytes this rank hogs for both (the node's share split over its ranks). */
int ior_hog_sizes(const char *per_node, const char *per_task, int64_t *node_bytes,
                  int64_t *task_bytes, char *err, size_t errlen);
int ior_hog_size(const char *per_node, const char *per_task, int tasks_on_node, int64_t *bytes,
                 char *err, size_t errlen);
/* Allocates and touches bytes (NULL when 0 or when it cannot). */
void *ior_hog(int64_t bytes);

/* summary.c: -O summaryFormat=JSON|CSV into summaryFile (or stdout) */
int ior_summary_file(const struct ior_test *tests, int ntests, const char *began, int argc,
                     char **argv, const struct ior_where *w, char *err, size_t errlen);
/* The file system line of the file system holding the test file path (fsinfo.h). */
int ior_fs_of(const char *path, struct sonde_fs_usage *fs);

/* Refuses (-1, a one-line reason in err) a test file name of this rank that is a directory, and
 * test files, summaryFile, the rank CSV or the status file that are the same file as a results
 * file or as each other. */
int ior_check_files(const struct ior_params *p, int rank, char *err, size_t errlen);

/* setup.c: the command line, parsed and checked into its tests (the run and sonde
 * --parse-only); 0, or SONDE_EXIT_USAGE after the one error line. No file is looked at but
 * the -f script. */
int ior_parse_tests(struct sonde_context *ctx, int argc, char **argv, struct ior_params *cli,
                    const struct sonde_option_set **given, struct ior_test **tests, int *ntests);
/* The file system's part of the checks (the directory of each test file exists, -E's files),
 * then the options given that do nothing in the run; 0, or -1 after the one error line. */
int ior_check_test_files(struct sonde_context *ctx, const struct ior_params *cli,
                         const struct sonde_option_set *given, struct ior_test *tests, int ntests);
/* The header record's params: the first test's parameters (malloc'd JSON). */
char *ior_params_json(const struct ior_params *p0);
/* sonde --parse-only: the params of the command line, or exit 2 after its error line. */
char *ior_params_only(struct sonde_context *ctx, int argc, char **argv);

#endif
