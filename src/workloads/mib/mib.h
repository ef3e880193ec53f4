/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mib: the pieces of src/workloads/mib.c that are not the algorithm itself. */
#ifndef SONDE_MIB_H
#define SONDE_MIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "options.h"
#include "pattern.h"
#include "workload.h"

/* The version mib's -V and -S print: the release whose output sonde reproduces. */
#define MIB_COMPAT_VERSION "1.9.8"

struct mib_params {
	const char *test_dir;  /* -t */
	int call_limit;        /* -l, per phase */
	int time_limit;        /* -L, seconds per phase */
	int64_t call_size;     /* -s */
	int random;            /* -b given */
	int64_t granularity;   /* -b's value */
	int new_files;         /* -n */
	int remove;            /* -r */
	int write_only;        /* -W */
	int read_only;         /* -R */
	const char *profiles;  /* -p */
	int direct;            /* -d */
	int force;             /* -F */
	int show_env;          /* -E */
	int show_headers;      /* -H */
	int show_intermediate; /* -I */
	int show_progress;     /* -P */
	int show_signon;       /* -S */
	int version;           /* -V */
	int no_mpi;            /* -M */
	int64_t seed;          /* --seed */
	int verify;            /* --verify */
};

extern const struct sonde_option_table mib_options;
void mib_params_defaults(struct mib_params *p);
/* 0 when the command line asks for -M / --no_mpi. */
int mib_wants_mpi(int argc, char **argv);

/* -F safety and -E's file-system line. Returns 0, or -1 with the reason in err (the original's
 * refusal message when the type is not a parallel file system and force is 0). */
int mib_check_fs(const struct sonde_backend *io, const char *dir, int force, char *line,
                 size_t linelen, char *err, size_t errlen);

/* Data. Every byte is a function of (seed, writer task, file offset): a 4 KiB block of pattern
 * words that depends on the writer, with the word at each 512-byte boundary replaced by the
 * pattern word of its own offset, so misplaced sectors are caught as well as other tasks' and
 * stale data. The write buffer is a window into a prepared area, so a call costs call_size/512
 * word stamps and no fill. */
#define MIB_DATA_PERIOD 4096
#define MIB_DATA_STAMP  512

struct mib_data {
	struct sonde_pattern pattern;
	unsigned char *area; /* MIB_DATA_PERIOD + call_size bytes, page aligned */
	size_t call_size;
};

/* Returns 0 or -1 (out of memory). */
int mib_data_init(struct mib_data *d, uint64_t seed, int writer, size_t call_size);
/* The bytes the writer puts at [offset, offset + call_size), for any offset; the pointer is
 * valid until the next call. */
const void *mib_data_block(struct mib_data *d, uint64_t offset);
/* Checks len bytes read at offset; adds to v. */
void mib_data_check(struct mib_data *d, const void *buf, size_t len, uint64_t offset,
                    struct sonde_verify *v);
void mib_data_free(struct mib_data *d);

/* The original's human output. */
void mib_print_signon(FILE *out);
void mib_print_version(FILE *out);
void mib_print_environment(FILE *out, const struct mib_params *p, int tasks);
void mib_print_result(FILE *out, const struct mib_params *p, int tasks, int task_column, int task,
                      double write_rate, double read_rate);

/* -P: the original's bar of 49 stars per phase. */
struct mib_bar {
	int enabled, shown;
	const struct mib_params *params;
};
void mib_bar_begin(struct mib_bar *b, int enabled, const struct mib_params *p, const char *phase);
void mib_bar_update(struct mib_bar *b, int calls, double elapsed);
void mib_bar_end(struct mib_bar *b);

#endif
