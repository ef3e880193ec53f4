/* SPDX-License-Identifier: BSD-3-Clause */
/* The input parameters of the user's guide, the -setup master file and the checks that every
 * rank can make alike. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "workloads/mpiio/mpiio.h"

#define P(f) SONDE_FIELD(struct mpiio_params, f)

int mpiio_writes(const struct mpiio_params *p)
{
	return !p->op || strcmp(p->op, "write") == 0;
}

int mpiio_reads(const struct mpiio_params *p)
{
	return (!p->op || strcmp(p->op, "read") == 0) && !p->nofile;
}

int mpiio_aggregating(int type)
{
	return type == MPIIO_N_TO_M_TO_M || type == MPIIO_N_TO_M_TO_1;
}

/* Where options the original accepted have no effect (struct sonde_option .inert): mpi_io_test
 * parsed every option whatever the type and the phases, and users' command lines rely on it. */

static const char *unless_aggregating(const void *cfg)
{
	return mpiio_aggregating(((const struct mpiio_params *)cfg)->type)
	           ? NULL
	           : "applies to the aggregation types 3 and 4";
}

/* With types 1 and 2 every process does its own I/O: the original accepted -num_io there when
 * it named all N processes (anything else is refused in validate). */
static const char *unless_num_io_counts(const void *cfg)
{
	const struct mpiio_params *p = cfg;
	return p->type == MPIIO_N_TO_N || p->type == MPIIO_N_TO_1
	           ? "applies to types 3, 4 and 5 (with types 1 and 2 "
	             "every process does its own I/O)"
	           : NULL;
}

static const char *unless_shared_file(const void *cfg)
{
	const struct mpiio_params *p = cfg;
	return p->type == MPIIO_N_TO_1 || p->type == MPIIO_N_TO_M
	           ? NULL
	           : "applies to the shared-file types 2 and 5";
}

static const char *unless_file_io(const void *cfg)
{
	return ((const struct mpiio_params *)cfg)->nofile ? "applies to file I/O, which -nofile "
	                                                    "leaves out"
	                                                  : NULL;
}

static const char *unless_writing(const void *cfg)
{
	return mpiio_writes(cfg) ? unless_file_io(cfg)
	                         : "applies to the write phase, which -op read leaves out";
}

static const char *unless_reading(const void *cfg)
{
	return mpiio_reads(cfg)
	           ? NULL
	           : "applies to the read phase, which -op write or -nofile leaves out";
}

static const char *unless_both_phases(const void *cfg)
{
	return mpiio_writes(cfg) && mpiio_reads(cfg)
	           ? NULL
	           : "sleeps between the write and the read phase, and only one of them runs";
}

static const struct sonde_option mpiio_options[] = {
    {0, "type", SONDE_OPT_INT, P(type), "N",
     "data movement: 1 N->N files, 2 N->1 file, 3 N->M aggregators->M files, "
     "4 N->M aggregators->1 file, 5 N->M files (default 1)",
     1, 5},
    {0, "collective", SONDE_OPT_FLAG, P(collective), NULL,
     "collective MPI_File_write_at_all/read_at_all instead of MPI_File_iwrite_at/iread_at + wait",
     .inert = unless_file_io},
    {0, "num_io", SONDE_OPT_WORDS, P(num_io), "\"M ...\"",
     "I/O processes (types 3, 4) or files (type 5), the sum of the numbers; with -host, per listed "
     "host (one number for every host, or one each) (default: all N)",
     .inert = unless_num_io_counts},
    {0, "nobj", SONDE_OPT_INT, P(nobj), "N", "objects each process writes or sends (default 1)", 1,
     INT32_MAX},
    {0, "strided", SONDE_OPT_INT, P(strided), "0|1",
     "1: object j of process r at (j x N + r) x size in a shared file (types 2, 5); 0: each "
     "process has its own region (default 0)",
     0, 1, .inert = unless_shared_file},
    {0, "size", SONDE_OPT_SIZE, P(size), "BYTES",
     "bytes per object, a multiple of 8; suffixes w=2 b=512 KB=1000 K=1024 MB=10^6 M=2^20 GB=10^9 "
     "G=2^30 (default 64K)",
     8, INT64_MAX, SONDE_SIZE_LANL},
    {0, "csize", SONDE_OPT_SIZE, P(csize), "BYTES",
     "aggregator circular buffer size, a multiple of nobj x size (types 3, 4; default nobj x size)",
     1, INT64_MAX, SONDE_SIZE_LANL, .inert = unless_aggregating},
    {0, "target", SONDE_OPT_STRING, P(target), "PATH",
     "file to write and read; %r rank, %h host name, %p process id, %% a % "
     "(default ./test_file.out)",
     .inert = unless_file_io},
    {0, "targets", SONDE_OPT_STRING, P(targets), "FILE",
     "file of target names, line k+1 for I/O rank k (types 1, 3; required for type 5: line c+1 for "
     "file c); %r %h %p expand as in -target",
     .inert = unless_file_io},
    {0, "deletefile", SONDE_OPT_FLAG, P(deletefile), NULL,
     "delete the files at the end (with -op read: the files read, once read without error)",
     .inert = unless_file_io},
    {0, "barrier", SONDE_OPT_FLAG, P(barrier), NULL, "MPI_Barrier before every write",
     .inert = unless_writing},
    {0, "touch", SONDE_OPT_INT, P(touch), "1|2|3",
     "stamp 1 + the byte offset in the file: 1 never, 2 in each object's first element, 3 in the "
     "first element of every OS page of each object (default 1)",
     1, 3},
    {0, "sync", SONDE_OPT_FLAG, P(sync), NULL, "MPI_File_sync before closing after writing",
     .inert = unless_writing},
    {0, "sleep", SONDE_OPT_INT, P(sleep), "SECONDS",
     "sleep between closing the written file and opening it to read (default 0)", 0, INT32_MAX,
     .inert = unless_both_phases},
    {0, "chkdata", SONDE_OPT_INT, P(chkdata), "0..3",
     "check on read: 0 nothing, 1 the first element of each object, 2 the first two, 3 every "
     "element; stamps are checked whenever it is not 0 (default 1)",
     0, 3, .inert = unless_reading},
    {0, "preallocate", SONDE_OPT_SIZE, P(preallocate), "BYTES",
     "MPI_File_preallocate this many bytes before writing", 0, INT64_MAX, SONDE_SIZE_LANL,
     .inert = unless_writing},
    {0, "ahead", SONDE_OPT_INT, P(ahead), "N",
     "aggregators keep N+1 circular buffers, writing and reading asynchronously (types 3, 4; "
     "default 0)",
     0, 1024, .inert = unless_aggregating},
    {0, "host", SONDE_OPT_WORDS, P(host), "\"HOST ...\"",
     "hosts whose first -num_io processes aggregate (types 3, 4); others send to one on their "
     "host, or on an I/O host",
     .inert = unless_aggregating},
    {0, "lhosts", SONDE_OPT_FLAG, P(lhosts), NULL, "print the hosts running this program"},
    {0, "dio", SONDE_OPT_FLAG, P(dio), NULL,
     "direct I/O: the ROMIO hints direct_read and direct_write set to true",
     .inert = unless_file_io},
    {0, "hints", SONDE_OPT_WORDS, P(hints), "KEY VALUE ...",
     "MPI-IO hints, key value pairs up to the next option; printed as the file carries them after "
     "the write phase",
     .inert = unless_file_io},
    {0, "op", SONDE_OPT_STRING, P(op), "read|write",
     "only read (files of an earlier run) or only write (default: write, then read)"},
    {0, "nofile", SONDE_OPT_FLAG, P(nofile), NULL,
     "fill and send the objects but write no file (write phase only)"},
    {0, "norsend", SONDE_OPT_FLAG, P(norsend), NULL,
     "aggregators do not send their own objects to themselves (types 3, 4)",
     .inert = unless_aggregating},
    {0, "output", SONDE_OPT_STRING, P(output), "FILE",
     "append the report (parameters, environment, timings) to FILE (default stdout)"},
    {0, "errout", SONDE_OPT_STRING, P(errout), "FILE",
     "append errors and warnings to FILE (default stderr)"},
    {0, "verbose", SONDE_OPT_FLAG, P(verbose), NULL, "also print every process's times"},
    {0, "setup", SONDE_OPT_STRING, P(setup), "FILE",
     "master file of options (same words as the command line, # comments), read first; the "
     "command line overrides it"},
};

static void defaults(void *cfg);

const struct sonde_option_table mpiio_table = {
    .command = "sonde mpiio",
    .usage = "-type N -nobj N -size BYTES -target PATH [options]",
    .summary = "The LANL MPI-IO Test (mpi_io_test 1.00.009): N processes write and read N files, "
               "one shared file, or M files through M aggregators, with the original's data "
               "pattern (-touch), checks (-chkdata), timers and report.",
    .style = SONDE_STYLE_WORDS,
    .options = mpiio_options,
    .count = (int)(sizeof mpiio_options / sizeof mpiio_options[0]),
    .cfg_size = sizeof(struct mpiio_params),
    .defaults = defaults,
    .epilog = "Options are whole words after one dash (-type 2), as mpi_io_test reads them; "
              "--type 2 works too.\n"
              "Example: mpirun -n 4 sonde mpiio -type 2 -nobj 16 -size 64K -target "
              "/scratch/f -touch 3 -chkdata 3",
};

static void defaults(void *cfg)
{
	struct mpiio_params *p = cfg;
	memset(p, 0, sizeof *p);
	p->type = 1;
	p->nobj = 1;
	p->size = 64 * 1024;
	p->target = "./test_file.out";
	p->touch = 1;
	p->chkdata = 1;
	p->preallocate = -1;
}

/* Words as a shell would split them for a command line: blanks separate, double quotes group
 * ("-num_io "2 2""), '#' starts a comment. The words point into text, which is kept. */
static int split_words(char *text, char ***words_out)
{
	int n = 0, cap = 16;
	char **words = malloc(sizeof *words * (size_t)cap);
	char *r = text;
	while (*r) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (*r == '#') {
			while (*r && *r != '\n')
				r++;
			continue;
		}
		if (!*r)
			break;
		char *w = r, *dst = r;
		int quoted = 0;
		while (*r && (quoted || !(*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r'))) {
			if (*r == '"')
				quoted = !quoted;
			else
				*dst++ = *r;
			r++;
		}
		if (*r)
			r++;
		*dst = '\0';
		if (n + 1 >= cap)
			words = realloc(words, sizeof *words * (size_t)(cap *= 2));
		words[n++] = w;
	}
	*words_out = words;
	return n;
}

static size_t field_size(enum sonde_opt_type t)
{
	switch (t) {
	case SONDE_OPT_LONG:
	case SONDE_OPT_SIZE:
		return sizeof(int64_t);
	case SONDE_OPT_DOUBLE:
		return sizeof(double);
	case SONDE_OPT_STRING:
		return sizeof(const char *);
	case SONDE_OPT_LIST:
	case SONDE_OPT_WORDS:
		return sizeof(struct sonde_strlist);
	default:
		return sizeof(int);
	}
}

/* The setup file's values, with every option the command line gave taken from the command
 * line; given[] becomes what either of them gave. */
static void apply_setup(struct sonde_context *ctx, struct mpiio_params *p, unsigned char *given)
{
	char *text = mpiio_read_text(ctx->comm, "setup", p->setup);
	char **words;
	int n = split_words(text, &words);
	struct mpiio_params file;
	defaults(&file);
	struct sonde_option_set set = {.table = &mpiio_table, .cfg = &file};
	struct sonde_parse_result res;
	char err[512];
	if (sonde_options_parse(&set, 1, n, words, 0, &res, err, sizeof err) < 0)
		mpiio_usage_error("-setup %s: %s", p->setup, err);
	if (res.npositional > 0)
		mpiio_usage_error("-setup %s: unexpected word '%s'", p->setup, res.positional[0]);
	if (res.help || sonde_option_given(&set, "setup"))
		mpiio_usage_error("-setup %s: may hold options only (no -help, no -setup)",
		                  p->setup);
	for (int i = 0; i < mpiio_table.count; i++) {
		const struct sonde_option *o = &mpiio_table.options[i];
		if (given[i]) {
			if (set.given[i] &&
			    (o->type == SONDE_OPT_WORDS || o->type == SONDE_OPT_LIST))
				sonde_strlist_free(
				    (struct sonde_strlist *)((char *)&file + o->offset));
			memcpy((char *)&file + o->offset, (char *)p + o->offset,
			       field_size(o->type));
		} else {
			given[i] = set.given[i];
		}
	}
	*p = file;
	free(set.given);
	sonde_parse_result_free(&res);
	free(words);
	/* text stays: string options point into it. */
}

static int given_named(const unsigned char *given, const char *name)
{
	const struct sonde_option *o = sonde_option_find(&mpiio_table, name);
	return given[o - mpiio_table.options];
}

/* -host "nodeA nodeB" -num_io "1 1": the guide's quoted form is one word holding several, as
 * are unquoted repeats (-host nodeA nodeB); either way the list becomes one item per word. */
static void split_blanks(struct mpiio_params *p, struct sonde_strlist *l)
{
	struct sonde_strlist words = {0};
	for (int i = 0; i < l->count; i++) {
		char *copy = strdup(l->items[i]), *save = NULL;
		if (!copy)
			sonde_fatal("no memory");
		sonde_strlist_push(&p->owned, copy);
		for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			sonde_strlist_push(&words, w);
	}
	sonde_strlist_free(l);
	*l = words;
}

void mpiio_params_free(struct mpiio_params *p)
{
	for (int i = 0; i < p->owned.count; i++)
		free((char *)p->owned.items[i]);
	sonde_strlist_free(&p->owned);
	sonde_strlist_free(&p->num_io);
	sonde_strlist_free(&p->host);
	sonde_strlist_free(&p->hints);
}

static void validate(const struct mpiio_params *p, const unsigned char *given, int nranks)
{
	int agg = mpiio_aggregating(p->type);
	if (p->op && strcmp(p->op, "read") != 0 && strcmp(p->op, "write") != 0)
		mpiio_usage_error("-op '%s': must be read or write", p->op);
	if (p->size % 8 != 0)
		mpiio_usage_error("-size %lld: must be a multiple of 8 (objects are doubles)",
		                  (long long)p->size);
	if (p->size / 8 > INT32_MAX)
		mpiio_usage_error("-size %lld: objects are limited to %lld bytes",
		                  (long long)p->size, (long long)INT32_MAX * 8);
	/* Every offset is at most N x nobj x size: it must fit in a file offset. */
	if (p->size > INT64_MAX / p->nobj / nranks)
		mpiio_usage_error("%d processes x -nobj %d x -size %lld bytes do not fit in a file",
		                  nranks, p->nobj, (long long)p->size);
	if (p->strided && agg)
		mpiio_usage_error("-strided 1 is not available with aggregation (types 3 and 4)");
	/* Types 1 and 2: the original took -num_io only when it named every process. */
	int64_t m = mpiio_num_io_sum(&p->num_io);
	if ((p->type == MPIIO_N_TO_N || p->type == MPIIO_N_TO_1) && p->num_io.count && m != nranks)
		mpiio_usage_error("-num_io %lld: with type %d all %d processes do I/O (leave "
		                  "-num_io out, or give %d)",
		                  (long long)m, p->type, nranks, nranks);
	if (p->targets && (p->type == MPIIO_N_TO_1 || p->type == MPIIO_N_TO_M_TO_1))
		mpiio_usage_error(
		    "-targets cannot be used with type %d (one shared file): use -target", p->type);
	if (given_named(given, "target") && p->targets)
		mpiio_usage_error("-target and -targets are exclusive");
	if (p->type == MPIIO_N_TO_M && !p->targets)
		mpiio_usage_error("type 5 needs -targets FILE (line c+1 names file c)");
	if (agg && p->csize && p->csize % (p->size * p->nobj) != 0)
		mpiio_usage_error("-csize %lld: must be a multiple of nobj x size = %lld",
		                  (long long)p->csize, (long long)(p->size * p->nobj));
	if (agg && p->csize && p->csize / 8 > INT32_MAX)
		mpiio_usage_error("-csize %lld: buffers are limited to %lld bytes",
		                  (long long)p->csize, (long long)INT32_MAX * 8);
	if (p->hints.count % 2 != 0)
		mpiio_usage_error("-hints: expected key value pairs, got %d words", p->hints.count);
	for (int i = 0; i < p->hints.count; i += 2)
		if (strchr(p->hints.items[i], '='))
			mpiio_usage_error("-hints: key '%s' contains '=' (write -hints key value)",
			                  p->hints.items[i]);
	if (p->nofile && !mpiio_writes(p))
		mpiio_usage_error(
		    "-nofile writes no file, so there is nothing for -op read to read");
}

void mpiio_params_load(struct sonde_context *ctx, int argc, char **argv, struct mpiio_params *p)
{
	defaults(p);
	struct sonde_parse_result pos;
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &mpiio_table, p, argc, argv, &pos);
	if (pos.npositional > 0)
		mpiio_usage_error("unexpected argument '%s' (options start with '-')",
		                  pos.positional[0]);
	sonde_parse_result_free(&pos);
	/* As the original: a bare command line is more likely a mistake than a wish for every
	 * default (unknown words were reported above, by name). */
	if (argc < 3)
		mpiio_usage_error("Too few command-line args: give at least -type, -nobj, -size or "
		                  "-target (sonde mpiio --help lists the options)");
	unsigned char *given = set->given;
	if (p->setup)
		apply_setup(ctx, p, given);
	split_blanks(p, &p->host);
	split_blanks(p, &p->num_io);
	validate(p, given, ctx->size);
	sonde_options_warn_inert(set);
	if (p->deletefile && !mpiio_writes(p))
		sonde_warn("-deletefile with -op read deletes the files this run reads, once they "
		           "are read without error (as mpi_io_test did)");
}
