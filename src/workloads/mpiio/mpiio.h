/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mpiio, the LANL MPI-IO Test: the pieces shared by src/workloads/mpiio.c and its helpers
 * in src/workloads/mpiio/. */
#ifndef SONDE_MPIIO_H
#define SONDE_MPIIO_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "completion.h"
#include "options.h"
#include "workload.h"

/* The I/O testing types of mpi_io_test, by the numbers -type takes: N processes write N files,
 * one shared file, M files through M aggregators, one file through M aggregators, or M files
 * shared by N/M processes each. */
enum mpiio_type {
	MPIIO_N_TO_N = 1,
	MPIIO_N_TO_1 = 2,
	MPIIO_N_TO_M_TO_M = 3,
	MPIIO_N_TO_M_TO_1 = 4,
	MPIIO_N_TO_M = 5,
};

/* Types 3 and 4: M aggregators do the I/O for the others. */
int mpiio_aggregating(int type);

/* The input parameters, named as the user's guide names them. */
struct mpiio_params {
	int type; /* enum mpiio_type (an int for the option table) */
	int collective;
	struct sonde_strlist num_io;
	int nobj;
	int strided;
	int64_t size;
	int64_t csize; /* 0: nobj x size (one sender per buffer) */
	const char *target;
	const char *targets;
	int deletefile;
	int barrier;
	int touch;
	int sync;
	int sleep;
	int chkdata;
	int64_t preallocate; /* -1: not asked */
	int ahead;
	struct sonde_strlist host;
	int lhosts;
	int dio;
	struct sonde_strlist hints;
	const char *op;
	int nofile;
	int norsend;
	const char *output;
	const char *errout;
	int verbose;
	const char *setup;
	struct sonde_strlist owned; /* copies made when splitting -host and -num_io words */
};

extern const struct sonde_option_table mpiio_table;

/* Defaults, the -setup master file, then the command line over it; validates everything that
 * every rank can judge alike. On bad input rank 0 prints one line and every rank exits 2. */
void mpiio_params_load(struct sonde_context *ctx, int argc, char **argv, struct mpiio_params *p);

void mpiio_params_free(struct mpiio_params *p);
/* The phases this run has: writing unless -op read; reading unless -op write or -nofile. */
int mpiio_writes(const struct mpiio_params *p);
int mpiio_reads(const struct mpiio_params *p);

/* Bad input every rank sees alike: rank 0 prints one line, every rank exits 2. */
_Noreturn void mpiio_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Collective: rank 0 reads a small text file (-setup, -targets) and every rank gets the text
 * (sonde_input_read), so a missing file is one line ("-<option> <path>: <reason>") and exit 2. */
char *mpiio_read_text(MPI_Comm comm, const char *option, const char *path);

/* Aggregation (types 3 and 4): who writes, who sends to whom, and where each sender's objects
 * land. Every rank computes the same plan. Senders of an aggregator are kept in rank order, and
 * a sender's objects are contiguous at its slot, so the files' layout follows from the plan. */
struct mpiio_plan {
	int naggs;
	int *agg_rank;   /* [naggs] world rank of aggregator i, ascending */
	int *agg_of;     /* [N] aggregator index each rank belongs to */
	int *slot;       /* [N] position among its aggregator's senders, -1 when it sends nothing */
	int *nsenders;   /* [naggs] */
	int64_t *first;  /* [naggs] objects before aggregator i's region of a shared file */
	int my_agg;      /* this rank's aggregator index when it is one, else -1 */
	int *my_senders; /* when aggregator: its senders' world ranks in rank order */
};

struct mpiio_run;
void mpiio_plan_build(struct mpiio_run *run);
void mpiio_plan_free(struct mpiio_plan *pl);
/* The sum of the -num_io numbers (0 when none were given). */
int64_t mpiio_num_io_sum(const struct sonde_strlist *num_io);

/* Everything a phase needs, settled before the first phase. */
struct mpiio_run {
	const struct mpiio_params *p;
	struct sonde_context *ctx;
	int rank, nranks;
	int64_t blk;  /* doubles per object */
	int64_t page; /* OS page size in bytes: -touch 3 stamps one element per page */
	int writers;  /* M: processes that do I/O */
	int nfiles;
	int64_t senders;   /* N': processes whose data is moved */
	int64_t job_bytes; /* N' x nobj x size */
	struct mpiio_plan plan;
	MPI_Comm file_comm; /* who opens this rank's file with it; MPI_COMM_NULL: no file */
	int file_rank, file_ranks;
	int color;           /* type 5: file index (rank mod M) */
	char path[PATH_MAX]; /* this rank's file */
	/* What the MPI-IO calls open: path, or, where a template made directories of it, the
	 * file reached through a descriptor of its directory (mpiio_enter_dirs). */
	char io_path[PATH_MAX];
	int literal; /* path's leading characters the user wrote, before a directory made by %x */
	int dir_fd1; /* the descriptor of io_path's directory + 1; 0: none */
	char shown[PATH_MAX]; /* the first file's name, as the headers show it (rank 0) */
	int io_leader;        /* lowest world rank with a file: its hints are printed */
	int owns_file;        /* deletes the file with -deletefile */
	int64_t file_bytes;   /* read phase: the file's size when opened */
	int64_t layout_bytes; /* what this run writes to this rank's file */
	MPI_Comm agg_comm;    /* types 3, 4: the aggregators */
	MPI_Info info;        /* -hints and -dio, for every open */
	MPI_Info used;        /* io_leader: what its written file carried */
	FILE *out;            /* rank 0: the report (-output or stdout) */
	const char *hostname; /* this rank's (topology) */
	int wrote; /* a write phase ran: its file missing for the read is a runtime fault */
	/* This rank's first I/O failure in the phase (errno, the error line): its transfers stop
	 * (collective ones go on empty so that the others never wait), and the phase's report
	 * agrees on it instead of printing rates. */
	struct {
		int err;
		char msg[1024];
	} failure;
};

/* Expands %r %h %p (and %%) in a -target template. Returns 0, or -1 with a reason in err (an
 * unknown escape, a host name that would leave the directory, a name too long). */
int mpiio_expand_target(const char *tmpl, int rank, const char *host, long pid, char *out,
                        size_t outlen, char *err, size_t errlen);

/* Collective: settles writers, files, names and the aggregation plan; exits 2 on bad input. */
void mpiio_run_setup(struct mpiio_run *run);
/* mpiio_run_setup's first part, alone under sonde --parse-only: the page size, and writers,
 * files and senders of the run (and the aggregation plan they come from), from run->p and
 * run->nranks; no file, and no MPI call under ctx->parse_only (mpiio_plan_build). Exits 2 on
 * bad input. */
void mpiio_run_counts(struct mpiio_run *run);
void mpiio_run_free(struct mpiio_run *run);

/* Data: object elements are the doubles rank, rank+1, ...; -touch 2 and 3 stamp 1 + the byte
 * offset in the file of the object (element 0) or of each page of it. */
void mpiio_fill_base(double *obj, int64_t blk, int rank);
void mpiio_touch(double *obj, const struct mpiio_run *run, int64_t file_offset);
/* -chkdata: returns how many elements differ from what rank wrote at file_offset; leaves the
 * stamps reset to the base values. */
int64_t mpiio_check(double *obj, const struct mpiio_run *run, int rank, int64_t file_offset);
/* Elements -chkdata looks at in one object (for bytes_checked). */
int64_t mpiio_checked_elements(const struct mpiio_run *run);

/* Per-rank timers of one phase, in seconds. */
struct mpiio_times {
	double start; /* sonde_now() at this rank's start of the phase */
	double end;   /* sonde_now() at its end (after its close; checks included) */
	double total; /* open .. close (Effective Bandwidth) */
	double op;    /* first .. last transfer (Write/Read Bandwidth) */
	double open, wait, prealloc, close, sync, barrier, send, recv;
	double check; /* subtracted from total and op */
	double agree; /* agreeing on open errors across ranks: subtracted from total */
};

/* What a read phase found. */
struct mpiio_verify {
	int64_t errors; /* mismatching elements */
	int64_t bad_objects;
	int64_t checked; /* elements looked at */
	int64_t short_reads;
	int printed; /* mismatch lines this rank printed */
};

/* Records one object's check outcome and prints the original's line for a bad object. */
void mpiio_verify_note(struct mpiio_verify *v, int rank, int64_t obj, int64_t errors);
/* -chkdata of this rank's object j, at file_offset: checked (timed into t->check, which the
 * bandwidths leave out), counted and noted in v. */
void mpiio_check_object(const struct mpiio_run *run, double *obj, int64_t j, int64_t file_offset,
                        struct mpiio_times *t, struct mpiio_verify *v);

/* Page-aligned buffers (direct I/O needs it); a failure ends the job. */
double *mpiio_alloc(int64_t bytes);
/* io_leader, write phase with -hints or -dio: keeps MPI_File_get_info of its file. */
void mpiio_keep_hints(struct mpiio_run *run, MPI_File fh, int write);

/* Phases. write != 0 for the write phase. */
void mpiio_direct_phase(struct mpiio_run *run, int write, struct mpiio_times *t,
                        struct mpiio_verify *v);
void mpiio_aggregate_phase(struct mpiio_run *run, int write, struct mpiio_times *t,
                           struct mpiio_verify *v);

/* Opening and closing the files the way every type does; the open is collective over
 * run->file_comm and failures are agreed over the world (exit 2 or 1). */
MPI_File mpiio_open(struct mpiio_run *run, int write, struct mpiio_times *t);
void mpiio_close(struct mpiio_run *run, MPI_File *fh, int write, struct mpiio_times *t);
/* One nonblocking transfer in flight, checked by the completion module (src/io/completion.h). */
struct mpiio_xfer {
	MPI_Request req;
	MPI_File fh;
	int64_t offset;
	int start_rc;
	int64_t count; /* doubles asked for */
	double start;  /* when it was started */
	struct sonde_mpio_op op;
};
/* One transfer of count doubles at offset: started (MPI_File_i{write,read}_at, their _all
 * forms with -collective), then completed; the wait is added to *wait. finish returns the
 * doubles moved; what a short read left is set to NaN; a short write is finished with blocking
 * writes; a failure is kept as this rank's failure (mpiio_fail). */
void mpiio_start(struct mpiio_run *run, MPI_File fh, int64_t offset, double *buf, int64_t count,
                 int write, struct mpiio_xfer *x);
int64_t mpiio_finish(struct mpiio_run *run, struct mpiio_xfer *x, double *buf, int write,
                     double *wait);
/* Keeps the first failure of the phase (err: a negative errno value from the completion
 * module, whose error line is sonde_io_last_error()); 0 is ignored. */
void mpiio_fail(struct mpiio_run *run, int err);

/* Report (rank 0 prints; every rank calls the collective ones). */
void mpiio_print_header(const struct mpiio_run *run);
void mpiio_print_phase_start(const struct mpiio_run *run, int write);
/* Collective: statistics, report lines and the JSON record of one phase; returns the exit code
 * the phase earns (verification failures, short reads), the same on every rank. */
int mpiio_report_phase(const struct mpiio_run *run, int write, const struct mpiio_times *t,
                       const struct mpiio_verify *v);
/* Collective: the hints the first I/O rank's file really carries (MPI_File_get_info). */
void mpiio_print_hints(const struct mpiio_run *run);
char *mpiio_params_json(const struct mpiio_run *run);

#endif
