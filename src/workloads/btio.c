/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde btio: the NAS BT-IO pattern as wkliao's BTIO runs it (docs/workloads/btio.md).
 *
 * P = n*n ranks share one global array of X*Y*Z points of five doubles; each rank owns n cells
 * of the multi-partition decomposition. A run writes (or reads) a number of dumps of the whole
 * array, appended record after record to one file, with one of four methods, and reports the
 * time from a barrier to the last rank's close, exactly as the original does. Unlike the
 * original, the values are a function of their place, so every read is checked. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fail.h"
#include "json.h"
#include "progress.h"
#include "results.h"
#include "space.h"
#include "timeseries.h"
#include "workload.h"
#include "workloads/btio/btio.h"

/* What rank 0 learned from the input file, sent to everyone in one piece. */
struct input_result {
	int ok, used;
	struct btio_setup setup;
	char name[BTIO_PATH_MAX];
	char err[1024];
};

/* The run's parameters: the input file's lines (when one is read), then the long options. */
static int resolve_setup(const struct sonde_context *ctx, const struct sonde_option_set *set,
                         const struct btio_options *o, const struct sonde_parse_result *pos,
                         struct btio_setup *s, struct input_result *in)
{
	if (pos->npositional > 1) {
		sonde_error(
		    "Usage: sonde btio [filename] (one input file at most; %d arguments given)",
		    pos->npositional);
		return -1;
	}
	int need_file = pos->npositional == 1 || !sonde_option_given(set, "method") ||
	                !sonde_option_given(set, "dumps") || !sonde_option_given(set, "grid");
	memset(in, 0, sizeof *in);
	snprintf(in->name, sizeof in->name, "%s",
	         pos->npositional ? pos->positional[0] : BTIO_DEFAULT_INPUT);
	int read_err = 0;
	in->ok = btio_read_input(ctx->comm, in->name, &in->setup, &read_err, in->err,
	                         sizeof in->err) == 0;
	/* the default file is read when it is there; it must be when the options do not say
	 * everything */
	in->used = in->ok || read_err != ENOENT || need_file;
	if (!in->used)
		in->ok = 1;
	if (!in->ok && !pos->npositional && need_file)
		snprintf(in->err + strlen(in->err), sizeof in->err - strlen(in->err), "%s",
		         " (or give --method, --dumps and --grid)");
	if (!in->ok) {
		sonde_error("%s", in->err);
		return -1;
	}
	if (in->used) {
		*s = in->setup;
	} else {
		memset(s, 0, sizeof *s);
		s->write = 1;
		snprintf(s->dir, sizeof s->dir, ".");
	}
	if (sonde_option_given(set, "mode")) {
		s->write = o->mode & 1;
		s->read = (o->mode & 2) != 0;
	}
	if (sonde_option_given(set, "method"))
		s->method = o->method;
	if (sonde_option_given(set, "dumps"))
		s->dumps = o->dumps;
	if (sonde_option_given(set, "grid"))
		memcpy(s->grid, o->grid, sizeof s->grid);
	if (sonde_option_given(set, "dir")) {
		if (strlen(o->dir) >= sizeof s->dir) {
			sonde_error("--dir: %zu characters, more than a path can have (%zu)",
			            strlen(o->dir), sizeof s->dir - 1);
			return -1;
		}
		snprintf(s->dir, sizeof s->dir, "%s", o->dir);
	}
	return 0;
}

/* The original's refusals, with its messages, and sonde's own limits. */
static int check_setup(const struct sonde_context *ctx, const struct btio_setup *s, int *ncells)
{
	int n = btio_ncells(ctx->size);
	if (!n) {
		sonde_error(
		    "Number of processes must be a square number. exit ... (%d ranks; run on 1, "
		    "4, 9, 16, ... ranks)",
		    ctx->size);
		return -1;
	}
	if (s->method >= BTIO_PNETCDF_BLOCKING && !btio_pnetcdf_ops(s->method)) {
		sonde_error(
		    "I/O method %d needs PnetCDF, and this sonde was built without it (methods 0 "
		    "and 1 need only MPI-IO)",
		    s->method);
		return -1;
	}
	int dim;
	int64_t smallest = btio_min_cell_size(n, s->grid, &dim);
	if (smallest < BTIO_MIN_CELL) {
		sonde_error(
		    "Cell size too small. Min size is %d (a %lldx%lldx%lld grid on %d ranks "
		    "makes cells of %lld points along %c)",
		    BTIO_MIN_CELL, (long long)s->grid[0], (long long)s->grid[1],
		    (long long)s->grid[2], ctx->size, (long long)smallest, "XYZ"[dim]);
		return -1;
	}
	/* MPI datatypes count in ints; the byte total must fit 63 bits. */
	double bytes = (double)s->grid[0] * (double)s->grid[1] * (double)s->grid[2] * BTIO_FIVE *
	               sizeof(double);
	if (s->grid[0] > INT32_MAX / BTIO_FIVE || s->grid[1] > INT32_MAX ||
	    s->grid[2] > INT32_MAX || bytes * (double)s->dumps > 9.0e18) {
		sonde_error("grid %lldx%lldx%lld with %lld dumps is too large",
		            (long long)s->grid[0], (long long)s->grid[1], (long long)s->grid[2],
		            (long long)s->dumps);
		return -1;
	}
	*ncells = n;
	return 0;
}

/* --hints a=b,c=d (repeatable) as an MPI_Info; with info NULL, only checked. */
static int make_hints(const struct sonde_strlist *list, MPI_Info *info)
{
	const char **hints = NULL;
	char **copies = calloc((size_t)list->count + 1, sizeof *copies);
	if (!copies)
		sonde_fatal("out of memory for the hints");
	int n = 0;
	for (int i = 0; i < list->count; i++) {
		copies[i] = strdup(list->items[i]);
		if (!copies[i])
			sonde_fatal("out of memory for the hints");
		char *save = NULL;
		for (char *h = strtok_r(copies[i], ",", &save); h; h = strtok_r(NULL, ",", &save)) {
			const char **more = realloc(hints, (size_t)(n + 1) * sizeof *hints);
			if (!more)
				sonde_fatal("out of memory for %d hints", n + 1);
			hints = more;
			hints[n++] = h;
		}
	}
	int rc = sonde_io_hints_info(hints, n, info);
	if (rc < 0)
		sonde_error("--hints: %s", sonde_io_last_error());
	for (int i = 0; i < list->count; i++)
		free(copies[i]);
	free(copies);
	free(hints);
	return rc;
}

/* The options as the run uses them, the input file's lines under the command line's, so that
 * the records' params are the effective ones. */
static void settle_options(struct btio_options *o, const struct btio_setup *s, const char *file)
{
	o->mode = s->write | s->read << 1;
	o->method = s->method;
	o->dumps = s->dumps;
	memcpy(o->grid, s->grid, sizeof o->grid);
	o->dir = s->dir;
	o->file = file;
}

static char *params_json(const struct btio_options *o, const struct input_result *in)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(&btio_option_table, o, &j);
	if (in)
		sonde_json_string(&j, "input_file", in->used ? in->name : NULL);
	sonde_json_object_end(&j);
	return j.buf;
}

static void record_header(const struct sonde_context *ctx, const struct btio_options *o,
                          const struct input_result *in, const char *dir)
{
	if (ctx->rank != 0 || !sonde_results_active())
		return;
	char *params = params_json(o, in);
	sonde_results_header(ctx, params, dir);
	free(params);
}

/* One write or read phase: barrier, then open, every dump, close, timed as the original times
 * them. Filling the buffer before a write and checking it after a read are not timed. */
static int run_phase(const struct sonde_context *ctx, const struct btio_setup *s,
                     const struct btio_options *o, struct btio_layout *L,
                     const struct btio_method_ops *ops, const char *path, MPI_Info info,
                     int writing, int verify)
{
	struct btio_job j = {.comm = ctx->comm,
	                     .writing = writing,
	                     .path = path,
	                     .info = info,
	                     .L = L,
	                     .dumps = s->dumps};
	struct btio_check chk = {0};
	double untimed = 0, post = 0, wait = 0;
	/* Per dump, the time in its data calls (posts and wait): the latency figures of the JSON
	 * record. */
	double *per_dump = malloc((size_t)s->dumps * sizeof *per_dump);
	if (!per_dump)
		sonde_fatal("out of memory for %lld dump times", (long long)s->dumps);
	if (!writing)
		btio_poison(L);

	/* this rank's bytes in one dump (its cells' points, 5 doubles each), in the calls the
	 * record counts per dump */
	int64_t dump_bytes = 0;
	for (int k = 0; k < L->n; k++)
		dump_bytes += L->cells[k].size[0] * L->cells[k].size[1] * L->cells[k].size[2] * 5 *
		              (int64_t)sizeof(double);
	int calls = s->method >= BTIO_PNETCDF_BLOCKING ? L->n : 1;
	sonde_series_begin(ctx->comm, writing ? "write" : "read", 0);
	MPI_Barrier(ctx->comm);
	sonde_series_start();
	double t0 = MPI_Wtime();
	int err = ops->open(&j);
	if (err < 0) {
		free(per_dump);
		/* The file this run wrote, gone or unreadable for its read, is a runtime fault. */
		return sonde_exit_class(err,
		                        writing || !s->write ? SONDE_STAGE_INPUT : SONDE_STAGE_RUN);
	}
	double open = MPI_Wtime() - t0;
	/* every rank takes part in every dump: rank 0's count of the job's bytes is the job's */
	struct sonde_progress live;
	sonde_progress_begin(&live, ctx, writing ? "write" : "read", SONDE_PROGRESS_BYTES,
	                     L->record_bytes * s->dumps, 1, 0);
	for (int64_t d = 0; d < s->dumps; d++) {
		double t = MPI_Wtime();
		if (writing) {
			btio_fill(L, d);
			untimed += MPI_Wtime() - t;
			t = MPI_Wtime();
		}
		ops->post(&j, d);
		double in_post = MPI_Wtime() - t, in_wait = 0;
		if (ops->wait) {
			t = MPI_Wtime();
			ops->wait(&j);
			in_wait = MPI_Wtime() - t;
		}
		post += in_post;
		wait += in_wait;
		per_dump[d] = in_post + in_wait;
		sonde_series_call(sonde_now(), per_dump[d], j.err ? 0 : dump_bytes, calls);
		if (!writing && verify && !j.err) {
			t = MPI_Wtime();
			btio_check_dump(L, d, path, &j.data, ctx->rank, &chk);
			untimed += MPI_Wtime() - t;
		}
		sonde_progress_update(&live, (d + 1) * L->record_bytes);
	}
	sonde_progress_end(&live);
	ops->close(&j);
	double t_end = MPI_Wtime();
	double elapsed = t_end - t0 - untimed;
	sonde_series_stop();
	/* A phase with a failure has no figures: one line names it. */
	err = sonde_agree_path(ctx->comm, j.err, path, "%s", j.why);
	if (err) {
		free(per_dump);
		return sonde_exit_class(err, SONDE_STAGE_RUN);
	}

	double mine[4] = {elapsed, open, post, wait}, most[4];
	MPI_Reduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
	struct sonde_stats per_rank;
	sonde_stats_across(ctx->comm, elapsed, &per_rank);
	int64_t counts[2] = {chk.checked, chk.errors}, total[2];
	MPI_Allreduce(counts, total, 2, MPI_INT64_T, MPI_SUM, ctx->comm);
	struct sonde_latency latency;
	sonde_latency_across(ctx->comm, per_dump, s->dumps, SONDE_LATENCY_MAX_EXACT, &latency);
	free(per_dump);
	/* this rank's share: its cells' points, 5 doubles each, every dump */
	int64_t points = 0;
	for (int c = 0; c < L->n; c++)
		points += L->cells[c].size[0] * L->cells[c].size[1] * L->cells[c].size[2];
	struct sonde_finish fin;
	sonde_finish_across(&ctx->topo, ctx->comm, sonde_clock_global(&ctx->clock, t0),
	                    sonde_clock_global(&ctx->clock, t0 + elapsed),
	                    points * 5 * (int64_t)sizeof(double) * s->dumps,
	                    s->dumps * (s->method >= BTIO_PNETCDF_BLOCKING ? L->n : 1), &fin);
	/* the phase's span for sonde mix: open to close, verification between dumps included */
	double first = 0, last = 0;
	sonde_clock_span(ctx->comm, &ctx->clock, t0, t_end, &first, &last);

	if (ctx->rank == 0) {
		char *params = params_json(o, NULL);
		struct sonde_json extra;
		sonde_json_init(&extra);
		sonde_json_object_begin(&extra, NULL);
		sonde_json_string(&extra, "file", path);
		sonde_json_string(&extra, "method_name", ops->banner);
		sonde_json_double(&extra, "open_s", most[1]);
		sonde_json_double(&extra, "post_s", most[2]);
		sonde_json_double(&extra, "wait_s", most[3]);
		sonde_json_int(&extra, "striping_count", j.striping_factor);
		sonde_json_int(&extra, "striping_size", j.striping_unit);
		sonde_json_object_end(&extra);
		struct sonde_measurement m = {
		    .phase = writing ? "write" : "read",
		    .iteration = 0, /* BTIO runs each phase once */
		    .bytes = L->record_bytes * s->dumps,
		    .seconds = most[0],
		    .ops = s->dumps * calls * (int64_t)ctx->size,
		    .per_rank = &per_rank,
		    .latency = &latency,
		    .finish = &fin,
		    .verified = !writing && verify,
		    .verify_errors = total[1],
		    .bytes_checked = total[0] * (int64_t)sizeof(double),
		    .params_json = params,
		    .extra_json = extra.buf,
		    .start = first,
		    .end = last,
		};
		sonde_results_measurement(ctx->workload, &m);
		sonde_json_free(&extra);
		free(params);
		/* after its record: a rate on the screen always has one in the results, even when
		 * a stop signal comes in between */
		struct btio_times t = {most[0], most[1], most[2], most[3]};
		btio_print_block(s, writing, ctx->size, &t, s->dumps, ops->banner,
		                 j.striping_factor, j.striping_unit);
	}
	sonde_series_report();
	if (total[1]) {
		sonde_error("verification failed: %lld of the %lld values read from %s differ (the "
		            "first ones are listed above with their (dump, z, y, x, f) index)",
		            (long long)total[1], (long long)total[0], path);
		return SONDE_EXIT_VERIFY;
	}
	return SONDE_EXIT_OK;
}

/* The command line and the input file, parsed and checked into s, with the cells per rank and
 * the hints (info NULL: only checked). Returns 0, or -1 after the one error line. By the run
 * and by sonde --parse-only. */
static int parse(struct sonde_context *ctx, int argc, char **argv, struct btio_options *o,
                 struct sonde_parse_result *pos, struct btio_setup *s, struct input_result *in,
                 int *n, MPI_Info *info)
{
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &btio_option_table, o, argc, argv, pos);
	if (resolve_setup(ctx, set, o, pos, s, in) < 0)
		return -1;
	if (in->used && ctx->rank == 0 && !ctx->parse_only) {
		printf(" Reading from input file %s\n", in->name);
		fflush(stdout);
	}
	if (check_setup(ctx, s, n) < 0 || make_hints(&o->hints, info) < 0)
		return -1;
	return 0;
}

/* The data file's name in s->dir: --file, else the method's default. */
static const char *file_name(const struct btio_options *o, const struct btio_setup *s)
{
	return o->file ? o->file : s->method >= BTIO_PNETCDF_BLOCKING ? "btio.nc" : "btio.mpi";
}

static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct btio_options o = {0};
	struct sonde_parse_result pos = {0};
	struct btio_setup s;
	static struct input_result in;
	int n = 0;
	if (parse(ctx, argc, argv, &o, &pos, &s, &in, &n, NULL) < 0)
		sonde_exit(SONDE_EXIT_USAGE);
	settle_options(&o, &s, file_name(&o, &s));
	char *params = params_json(&o, &in);
	sonde_strlist_free(&o.hints);
	sonde_parse_result_free(&pos);
	return params;
}

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	struct btio_options o = {0};
	struct sonde_parse_result pos = {0};
	struct btio_setup s;
	static struct input_result in;
	int n = 0, code = SONDE_EXIT_USAGE;
	MPI_Info info = MPI_INFO_NULL;
	if (parse(ctx, argc, argv, &o, &pos, &s, &in, &n, &info) < 0)
		goto out;

	const struct btio_method_ops *ops = s.method >= BTIO_PNETCDF_BLOCKING
	                                        ? btio_pnetcdf_ops(s.method)
	                                        : &btio_mpiio_ops[s.method];
	const char *name = file_name(&o, &s);
	char path[2 * BTIO_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", s.dir, name);
	char why[2 * BTIO_PATH_MAX + 256] = "";
	if (!sonde_agree(ctx->comm,
	                 sonde_results_collision(path, "data file", why, sizeof why) == 0, "%s",
	                 why))
		goto out;
	settle_options(&o, &s, name);
	record_header(ctx, &o, &in, s.dir);

	struct btio_layout L;
	int ok = btio_layout_init(&L, ctx->rank, n, s.grid) == 0;
	if (!sonde_agree(ctx->comm, ok, "cannot allocate the %lld-byte buffer of %d cells",
	                 (long long)(L.cell_stride * n * (int64_t)sizeof(double)), n)) {
		btio_layout_free(&L);
		code = SONDE_EXIT_RUNTIME;
		goto out;
	}
	code = SONDE_EXIT_OK;
	if (s.write &&
	    sonde_space_check(ctx, path, L.record_bytes * s.dumps, path, "the dumps") < 0)
		code = SONDE_EXIT_USAGE;
	else if (s.write)
		code = run_phase(ctx, &s, &o, &L, ops, path, info, 1, 0);
	if (s.read && code == SONDE_EXIT_OK)
		code = run_phase(ctx, &s, &o, &L, ops, path, info, 0, !o.no_verify);
	btio_layout_free(&L);
out:
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	sonde_strlist_free(&o.hints);
	sonde_parse_result_free(&pos);
	return code;
}

const struct sonde_workload sonde_workload_btio = {
    .name = "btio",
    .summary = "NAS BT-IO pattern (BTIO): MPI-IO and PnetCDF dumps of a 5-D array, verified",
    .options = &btio_option_table,
    .run = run,
    .params = params_only,
};
