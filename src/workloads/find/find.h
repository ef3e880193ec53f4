/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde find: the pieces of src/workloads/find.c that are not the traversal itself. */
#ifndef SONDE_FIND_H
#define SONDE_FIND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "options.h"

struct find_params {
	const char *newer;     /* -newer FILE */
	const char *size_text; /* -size [+-]N[cwbkMG] */
	const char *name;      /* -name PATTERN */
	int count_only;        /* -C: count, do not print the names */
	int per_process;       /* -P: one result line per rank */
	const char *debug;     /* -D rates */
	int stonewall;         /* -s SECONDS */
	int queue_length;      /* -q N */
	int max_entries;       /* -M N: entries read from a directory before looking at messages */
	int steal_next;        /* -N */
	int verbose;           /* -v */
	const char *results_dir; /* -r DIR: <rank>.txt with each rank's matches */
};

extern const struct sonde_option_table find_options;
void find_params_defaults(struct find_params *p);

/* ---- the tests of an entry (find(1)'s meaning) ---------------------------------------- */

struct find_size {
	int given;
	char cmp;      /* '+', '-' or '=' */
	int64_t count; /* in units */
	int64_t unit;  /* bytes per unit: c 1, w 2, b 512 (the default), k, M, G */
};

struct find_tests {
	const char *name; /* fnmatch pattern on the base name, or NULL */
	struct find_size size;
	int newer;                  /* -newer given */
	struct timespec newer_than; /* the reference file's modification time */
};

/* Parses -size's text as find(1) reads it. Returns 0, or -1 with the reason in err. */
int find_size_parse(const char *text, struct find_size *out, char *err, size_t errlen);

/* Whether the tests need a stat of the entry (beyond its name and type). */
int find_needs_stat(const struct find_tests *t);
/* The name test alone. */
int find_name_matches(const struct find_tests *t, const char *base);
/* The tests that need the entry's stat (size, modification time). */
int find_stat_matches(const struct find_tests *t, const struct stat *st);

/* ---- work items and their transfer between ranks -------------------------------------- */

enum find_item_kind { FIND_DIR = 'd', FIND_FILE = 'f' };

/* A stack of paths to read (directories) or to stat (files whose name matched). */
struct find_queue {
	char **paths;
	char *kinds;
	int64_t count, cap;
};

void find_queue_push(struct find_queue *q, enum find_item_kind kind, const char *path, size_t len);
/* Removes the top item; the caller frees *path. Returns 0 when empty. */
int find_queue_pop(struct find_queue *q, enum find_item_kind *kind, char **path);
void find_queue_free(struct find_queue *q);

/* Moves the bottom n items into one message buffer (kind byte, path, NUL per item); returns
 * the malloc'd buffer and its length in *len. */
char *find_queue_pack(struct find_queue *q, int64_t n, int *len);
/* Pushes the items of a packed buffer; returns how many. */
int64_t find_queue_unpack(struct find_queue *q, const char *buf, int len);

#endif
