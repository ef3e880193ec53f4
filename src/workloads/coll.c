/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde coll: MPI collective latency over message sizes, replacing LLNL's mpiBench 1.5.
 *
 * Reads top to bottom as mpiBench runs: options and operation names; the START line and the
 * rank layout; the buffers (the -m limit lowers the largest size, and sonde says so); the
 * communicators (MPI_COMM_WORLD, then -d Cartesian lines, then -p halving partitions); for
 * each communicator, each selected operation in the fixed order, each size from -b doubling to
 * -e: measure (src/workloads/coll/kernel.c) and report (report.c); the buffer total and END. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fail.h"
#include "json.h"
#include "progress.h"
#include "results.h"
#include "workload.h"
#include "workloads/coll/coll.h"

#define CFG(f) SONDE_FIELD(struct coll_cfg, f)

/* mpiBench accepted -c next to -C, which checks every iteration anyway. */
static const char *unless_not_every(const void *cfg)
{
	return ((const struct coll_cfg *)cfg)->check_all ? "adds nothing to -C, which checks every "
	                                                   "iteration"
	                                                 : NULL;
}

/* mpiBench 1.5 README's defaults: 0 to 1K bytes, 1000 iterations, no time limit, 1 GiB. */
static void coll_defaults(void *cfg)
{
	*(struct coll_cfg *)cfg = (struct coll_cfg){
	    .begin = 0,
	    .end = SONDE_KIB,
	    .mem_limit = SONDE_GIB,
	    .iters = 1000,
	    .time_limit_us = 0,
	};
}

static const struct sonde_option coll_options[] = {
    {'b', NULL, SONDE_OPT_SIZE, CFG(begin), "BYTES", "first message size (default 0)", 0, INT64_MAX,
     SONDE_SIZE_MPIBENCH, .key = "begin"},
    {'e', NULL, SONDE_OPT_SIZE, CFG(end), "BYTES", "last message size, inclusive (default 1K)", 0,
     INT64_MAX, SONDE_SIZE_MPIBENCH, .key = "end"},
    {'m', NULL, SONDE_OPT_SIZE, CFG(mem_limit), "BYTES",
     "per-process limit for the send + receive buffers (default 1G); lowers -e, with a warning "
     "(-m 0: only size 0 runs)",
     0, INT64_MAX, SONDE_SIZE_MPIBENCH, .key = "mem_limit"},
    {'i', NULL, SONDE_OPT_INT, CFG(iters), "N",
     "maximum iterations per operation and size (default 1000)", 1, INT_MAX, .key = "iterations"},
    {'t', NULL, SONDE_OPT_LONG, CFG(time_limit_us), "USEC",
     "time limit per operation and size in microseconds, from a 5-iteration estimate on rank 0 "
     "(default 0 = none)",
     0, INT64_MAX, .key = "time_limit_us"},
    {'d', NULL, SONDE_OPT_INT, CFG(dims), "NDIMS",
     "also test the 1-D lines of an NDIMS-dimensional Cartesian grid (CartDim-<d>of<NDIMS>)", 0,
     INT_MAX, .key = "dims"},
    {'p', NULL, SONDE_OPT_INT, CFG(part_min), "SIZE",
     "also test MPI_COMM_WORLD halved down to partitions of at least SIZE ranks (PartSize-<n>)", 0,
     INT_MAX, .key = "part_min"},
    {'c', NULL, SONDE_OPT_FLAG, CFG(check_last), NULL,
     "check the data of the last iteration of every timing loop (outside the timer)",
     .inert = unless_not_every, .key = "check_last"},
    {'C', NULL, SONDE_OPT_FLAG, CFG(check_all), NULL,
     "check the data of every iteration (outside the timer)", .key = "check_all"},
    {0, "no-barrier", SONDE_OPT_FLAG, CFG(no_barrier), NULL,
     "time back-to-back calls without the barrier after each (mpiBench's 'make nobar' kernel)"},
    {0, "per-call", SONDE_OPT_FLAG, CFG(per_call), NULL,
     "time each call alone, after a barrier outside the timer (the OSU/IMB method)"},
    {0, "percentiles", SONDE_OPT_FLAG, CFG(percentiles), NULL,
     "add P50/P90/P99/PMax columns (microseconds) of the per-iteration times; the loop kernels "
     "then read the clock after every iteration"},
    {0, "overlap", SONDE_OPT_FLAG, CFG(overlap), NULL,
     "for non-blocking operations, also measure overlap with computation (Overlap(%) column)"},
    {'o', NULL, SONDE_OPT_REFUSED, 0, NULL,
     "mpiBench 1.5 has no -o (its README's example uses it for the iteration count): use -i"},
};

/* The operations, then "all", for shell completion. */
static const char *operation_word(int i)
{
	return i < coll_nops ? coll_ops[i].name : i == coll_nops ? "all" : NULL;
}

const struct sonde_option_table coll_option_table = {
    .command = "sonde coll",
    .usage = "[options] [operations...]",
    .summary = "MPI collective latency over message sizes, as LLNL's mpiBench 1.5 measures and "
               "prints it (sizes from -b doubling to -e, the barrier kernel, Avg/Min/Max over "
               "ranks), with per-call timing, percentiles, checks outside the timer and JSON/CSV "
               "records.",
    .style = SONDE_STYLE_SHORT,
    .options = coll_options,
    .count = (int)(sizeof coll_options / sizeof coll_options[0]),
    .cfg_size = sizeof(struct coll_cfg),
    .defaults = coll_defaults,
    .epilog = "Operations (case-insensitive; none named = mpiBench's eleven, 'all' = every one):\n"
              "  mpiBench: Barrier Bcast Alltoall Alltoallv Allgather Allgatherv Gather Gatherv\n"
              "            Scatter Allreduce Reduce\n"
              "  sonde:    Scatterv Reduce_scatter_block Reduce_scatter Scan Exscan\n"
              "            Ibarrier Ibcast Ialltoall Iallgather Igather Iscatter Iallreduce "
              "Ireduce\n"
              "They always run in this order. Byte values: a decimal number with an optional\n"
              "K, M or G (binary) and an optional B: 32K, 2.5kb, .5GB.",
    .positional_word = operation_word,
};

/* Operation names -> selection; an unknown word is an error (mpiBench ignored it). */
static int select_ops(struct sonde_parse_result *pos, int *selected)
{
	int any = 0;
	for (int i = 0; i < pos->npositional; i++) {
		const char *w = pos->positional[i];
		int hit = 0;
		for (int k = 0; k < coll_nops; k++) {
			if (strcasecmp(w, "all") == 0 || strcasecmp(w, coll_ops[k].name) == 0) {
				selected[k] = 1;
				hit = 1;
			}
		}
		if (!hit) {
			sonde_error("unknown operation '%s' (sonde coll --help lists them)", w);
			return -1;
		}
		any = 1;
	}
	if (!any)
		for (int k = 0; k < coll_nops; k++)
			selected[k] = (coll_ops[k].flags & COLL_MPIBENCH) != 0;
	return 0;
}

/* Bad input is the same on every rank, so every rank decides alike and rank 0 prints. */
static int validate(struct coll_cfg *cfg, const int *selected, int world_size)
{
	if (cfg->no_barrier && cfg->per_call) {
		sonde_error("--no-barrier and --per-call are two different kernels: choose one");
		return -1;
	}
	cfg->timing = cfg->per_call     ? COLL_TIMING_PERCALL
	              : cfg->no_barrier ? COLL_TIMING_NOBARRIER
	                                : COLL_TIMING_BARRIER;
	if (cfg->begin > cfg->end) {
		sonde_error("-b %lld is larger than -e %lld: no message size to run",
		            (long long)cfg->begin, (long long)cfg->end);
		return -1;
	}
	if (cfg->dims > world_size) {
		sonde_error("-d %d: more Cartesian dimensions than the %d ranks can fill",
		            cfg->dims, world_size);
		return -1;
	}
	if (cfg->part_min > world_size) {
		sonde_error("-p %d: partitions larger than the %d ranks of MPI_COMM_WORLD",
		            cfg->part_min, world_size);
		return -1;
	}
	if (cfg->check_all && cfg->no_barrier)
		sonde_warn(
		    "-C with --no-barrier: each call is timed alone between its checks, so "
		    "calls no longer overlap as back-to-back calls do (expect higher figures "
		    "than without -C)");
	int nonblocking = 0;
	for (int k = 0; k < coll_nops; k++)
		if (selected[k])
			nonblocking |= (coll_ops[k].flags & COLL_NONBLOCKING) != 0;
	if (cfg->overlap && !nonblocking) {
		sonde_error("--overlap measures non-blocking operations (Ibcast, Iallreduce, ...), "
		            "and none is selected");
		return -1;
	}
	return 0;
}

/* mpiBench halves the largest size until both buffers fit -m; sonde does the same but says
 * what it cut. */
static int apply_mem_limit(struct coll_cfg *cfg, int world_size)
{
	int64_t end = cfg->end;
	while (end > 0 && end * world_size * 2 > cfg->mem_limit)
		end /= 2;
	if (end == cfg->end)
		return 0;
	if (end < cfg->begin) {
		sonde_error(
		    "-m %lld: even -b %lld needs %lld bytes of send + receive buffers on %d "
		    "ranks",
		    (long long)cfg->mem_limit, (long long)cfg->begin,
		    (long long)(cfg->begin * world_size * 2), world_size);
		return -1;
	}
	sonde_warn("-m %lld: sizes above %lld bytes not run (-e %lld needs %lld bytes of send + "
	           "receive buffers on %d ranks)",
	           (long long)cfg->mem_limit, (long long)end, (long long)cfg->end,
	           (long long)(cfg->end * world_size * 2), world_size);
	cfg->end = end;
	return 0;
}

/* Counts and displacements are C ints before MPI-4's large-count (_c) calls. */
static int check_counts(const struct coll_cfg *cfg, const int *selected, int world_size)
{
	int v_variant = 0;
	for (int k = 0; k < coll_nops; k++)
		if (selected[k])
			v_variant |= coll_ops[k].setup != NULL;
	int64_t largest = cfg->end;
	if (largest <= INT_MAX && (!v_variant || largest * world_size <= INT_MAX))
		return 0;
#if MPI_VERSION >= 4
	const char *why = "sonde does not use the MPI-4 large-count (_c) collectives yet";
#else
	const char *why = "this MPI library (before MPI-4) has no large-count (_c) collectives";
#endif
	sonde_error("-e %lld: counts or displacements past %d elements need large-count MPI "
	            "calls, and %s",
	            (long long)largest, INT_MAX, why);
	return -1;
}

/* ---- communicators: MPI_COMM_WORLD (the communicator coll was given, labelled as mpiBench
 * does), -d lines, -p partitions (reference 5.7) ---- */

struct comm_entry {
	MPI_Comm comm;
	char name[64];
};

static int build_comms(const struct coll_cfg *cfg, int rank, int size, struct comm_entry **out)
{
	int partitions = 0;
	if (cfg->part_min > 0)
		for (int cur = size; cur >= cfg->part_min; cur >>= 1)
			partitions++;
	int n = 1 + cfg->dims + partitions, k = 0;
	struct comm_entry *e = calloc((size_t)n, sizeof *e);
	if (!e)
		sonde_fatal("no memory for %d communicators", n);
	e[k].comm = cfg->whole;
	snprintf(e[k++].name, sizeof e->name, "MPI_COMM_WORLD");
	if (cfg->dims > 0) {
		int *dims = calloc((size_t)cfg->dims, sizeof *dims);
		int *periods = calloc((size_t)cfg->dims, sizeof *periods);
		int *keep = calloc((size_t)cfg->dims, sizeof *keep);
		if (!dims || !periods || !keep)
			sonde_fatal("no memory for %d dimensions", cfg->dims);
		MPI_Comm cart;
		MPI_Dims_create(size, cfg->dims, dims);
		MPI_Cart_create(cfg->whole, cfg->dims, dims, periods, 0, &cart);
		for (int d = 0; d < cfg->dims; d++) {
			for (int d2 = 0; d2 < cfg->dims; d2++)
				keep[d2] = d2 == d;
			MPI_Cart_sub(cart, keep, &e[k].comm);
			snprintf(e[k++].name, sizeof e->name, "CartDim-%dof%d", d + 1, cfg->dims);
		}
		MPI_Comm_free(&cart);
		free(dims);
		free(periods);
		free(keep);
	}
	for (int p = 0, cur = size; p < partitions; p++, cur >>= 1) {
		MPI_Comm_split(cfg->whole, rank / cur, rank, &e[k].comm);
		snprintf(e[k++].name, sizeof e->name, "PartSize-%d", cur);
	}
	*out = e;
	return n;
}

static void free_comms(struct comm_entry *e, int n)
{
	for (int k = 1; k < n; k++)
		MPI_Comm_free(&e[k].comm);
	free(e);
}

/* ---- output around the results ---- */

static void print_rank_layout(const struct sonde_topology *topo)
{
	if (topo->rank == 0)
		for (int k = 0; k < topo->size; k++)
			printf("%d : %s\n", k, sonde_host_of(topo, k));
}

static const char *check_name(const struct coll_cfg *cfg)
{
	return cfg->check_all ? "every" : cfg->check_last ? "last" : "none";
}

/* One line with the effective settings (mpiBench printed none); it carries no "Bytes:" field,
 * so scripts that pick result lines by their fields skip it. */
static void print_settings(const struct coll_cfg *cfg, int rank)
{
	if (rank != 0)
		return;
	printf("Settings:\tbegin=%lld\tend=%lld\titerations=%d\ttime_limit_us=%lld\t"
	       "mem_limit=%lld\ttiming=%s\tcheck=%s\n",
	       (long long)cfg->begin, (long long)cfg->end, cfg->iters,
	       (long long)cfg->time_limit_us, (long long)cfg->mem_limit,
	       coll_timing_name(cfg->timing), check_name(cfg));
}

/* The options, and what follows from them: the kernel and the operations. */
static char *header_params(const struct coll_cfg *cfg, const int *selected)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(&coll_option_table, cfg, &j);
	sonde_json_string(&j, "timing", coll_timing_name(cfg->timing));
	sonde_json_array_begin(&j, "operations");
	for (int k = 0; k < coll_nops; k++)
		if (selected[k])
			sonde_json_string(&j, NULL, coll_ops[k].name);
	sonde_json_array_end(&j);
	sonde_json_object_end(&j);
	return j.buf;
}

/* ---- the run ---- */

/* Measures one operation at one size on one communicator; returns the bad bytes found. */
static int64_t run_test(const struct coll_cfg *cfg, struct coll_call *c,
                        const struct comm_entry *ce)
{
	struct coll_result r;
	coll_measure(cfg, c, &r);
	int64_t errors = 0;
	MPI_Allreduce(&r.check_errors, &errors, 1, MPI_INT64_T, MPI_SUM, cfg->whole);
	/* "Comm:" and "Ranks:" describe rank 0's communicator, as in mpiBench. */
	int ranks = c->nranks;
	MPI_Bcast(&ranks, 1, MPI_INT, 0, cfg->whole);
	coll_report(cfg, c, ce->name, ranks, &r, errors);
	coll_result_free(&r);
	if (errors > 0)
		sonde_error("data check failed: %lld corrupt %s in %s at %lld bytes on %s",
		            (long long)errors, c->type == MPI_DOUBLE ? "doubles" : "bytes",
		            c->op->name, (long long)c->size, ce->name);
	return errors;
}

/* The tests of one operation on one communicator: one, or one per message size it runs at. */
static int64_t tests_of(const struct coll_cfg *cfg, const struct coll_op *op)
{
	if (op->flags & COLL_NO_SIZE)
		return 1;
	int64_t n = 0;
	for (int64_t size = cfg->begin; size <= cfg->end; size = size > 0 ? size * 2 : 1)
		n += coll_op_runs_at(op, size);
	return n;
}

static int64_t run_op(const struct coll_cfg *cfg, const struct coll_op *op,
                      const struct comm_entry *ce, struct coll_buffers *b, int world_rank,
                      struct sonde_progress *live, int64_t *done)
{
	struct coll_call c = {.op = op, .comm = ce->comm, .world_rank = world_rank, .b = b};
	MPI_Comm_rank(ce->comm, &c.rank);
	MPI_Comm_size(ce->comm, &c.nranks);
	if (op->flags & COLL_NO_SIZE) {
		c.type = MPI_BYTE;
		int64_t errors = run_test(cfg, &c, ce);
		sonde_progress_update(live, ++*done);
		return errors;
	}
	int reduction = (op->flags & COLL_REDUCTION) != 0;
	c.type = reduction ? MPI_DOUBLE : MPI_BYTE;
	for (int64_t size = cfg->begin; size <= cfg->end; size = size > 0 ? size * 2 : 1) {
		if (!coll_op_runs_at(op, size))
			continue;
		c.size = size;
		c.count = (int)(reduction ? size / (int64_t)sizeof(double) : size);
		int64_t errors = run_test(cfg, &c, ce);
		sonde_progress_update(live, ++*done);
		if (errors)
			return errors;
	}
	return 0;
}

/* The command line, parsed and checked into cfg; returns the operations selected (malloc'd,
 * one flag per coll_ops entry). By the run and by sonde --parse-only. */
static int *parse(struct sonde_context *ctx, int argc, char **argv, struct coll_cfg *cfg)
{
	coll_defaults(cfg);
	struct sonde_parse_result pos;
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &coll_option_table, cfg, argc, argv, &pos);
	if (ctx->common.interval > 0 || ctx->common.live_path) {
		sonde_error(
		    "--interval and --live are for I/O phases: coll has none to make a time "
		    "series of");
		sonde_exit(SONDE_EXIT_USAGE);
	}
	int *selected = calloc((size_t)coll_nops, sizeof *selected);
	if (!selected)
		sonde_fatal("no memory");
	if (select_ops(&pos, selected) < 0 || validate(cfg, selected, ctx->size) < 0 ||
	    apply_mem_limit(cfg, ctx->size) < 0 || check_counts(cfg, selected, ctx->size) < 0)
		sonde_exit(SONDE_EXIT_USAGE);
	sonde_options_warn_inert(set);
	sonde_parse_result_free(&pos);
	return selected;
}

static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct coll_cfg cfg;
	int *selected = parse(ctx, argc, argv, &cfg);
	char *params = header_params(&cfg, selected);
	free(selected);
	return params;
}

static int coll_run(struct sonde_context *ctx, int argc, char **argv)
{
	struct coll_cfg cfg;
	int *selected = parse(ctx, argc, argv, &cfg);
	cfg.whole = ctx->comm;
	char err[256] = "";
	int hook_ok = coll_test_hooks_init(err, sizeof err) == 0;
	if (!sonde_agree(ctx->comm, hook_ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	coll_test_hooks_announce();

	char *params = header_params(&cfg, selected);
	sonde_results_header(ctx, params, NULL);
	free(params);

	if (ctx->rank == 0)
		printf("START mpiBench v1.5\n");
	print_rank_layout(&ctx->topo);
	print_settings(&cfg, ctx->rank);
	fflush(stdout);

	struct coll_buffers b;
	int ok = coll_buffers_alloc(&b, cfg.end, ctx->size) == 0;
	if (!sonde_agree(ctx->comm, ok, "no memory for two %lld-byte message buffers",
	                 (long long)b.len))
		sonde_exit(SONDE_EXIT_RUNTIME);

	struct comm_entry *comms;
	int ncomms = build_comms(&cfg, ctx->rank, ctx->size, &comms);
	int64_t errors = 0, tests = 0, done = 0;
	for (int o = 0; o < coll_nops; o++)
		if (selected[o])
			tests += ncomms * tests_of(&cfg, &coll_ops[o]);
	struct sonde_progress live;
	sonde_progress_begin(&live, ctx, "tests", SONDE_PROGRESS_ITEMS, tests, 1, 0);
	sonde_progress_in_lines(&live);
	for (int k = 0; k < ncomms && !errors; k++)
		for (int o = 0; o < coll_nops && !errors; o++)
			if (selected[o])
				errors = run_op(&cfg, &coll_ops[o], &comms[k], &b, ctx->rank, &live,
				                &done);
	sonde_progress_end(&live);
	free_comms(comms, ncomms);

	if (ctx->rank == 0 && !errors) {
		printf("Message buffers (KB):\t%zu\n", b.allocated / 1024);
		printf("END mpiBench\n");
		fflush(stdout);
	}
	coll_buffers_free(&b);
	free(selected);
	return errors ? SONDE_EXIT_VERIFY : SONDE_EXIT_OK;
}

const struct sonde_workload sonde_workload_coll = {
    .name = "coll",
    .summary = "MPI collective latency over message sizes (mpiBench)",
    .options = &coll_option_table,
    .run = coll_run,
    .params = params_only,
    .no_time_series = 1,
};
