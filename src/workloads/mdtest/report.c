/* SPDX-License-Identifier: BSD-3-Clause */
/* What a phase of sonde mdtest measured: its verdict, the figure mdtest's summary shows, the
 * measurement record with per-item latencies, and --saveRankPerformanceDetails. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "files.h"
#include "json.h"
#include "results.h"
#include "workloads/mdtest/run.h"

enum { R_BEFORE, R_TIME, R_ITEMS, R_BYTES, R_N };

static int is_tree(enum mdtest_op op)
{
	return op == MDTEST_TREE_CREATE || op == MDTEST_TREE_REMOVE;
}

static void record(const struct mdtest_run *run, const struct mdtest_pass *pass,
                   const struct mdtest_figure *f, int64_t bytes, const double *all,
                   const struct sonde_stats *per_rank, const struct sonde_latency *lat,
                   const struct sonde_finish *fin, int verified, int64_t errors, int64_t checked,
                   int64_t made)
{
	struct sonde_json extra;
	sonde_json_init(&extra);
	sonde_json_object_begin(&extra, NULL);
	sonde_json_string(&extra, "operation", mdtest_op_title(pass->op));
	sonde_json_int(&extra, "tasks", run->tasks);
	if (is_tree(pass->op)) {
		sonde_json_int(&extra, "tree_directories", run->tree.dirs);
		sonde_json_int(&extra, "directories", made);
	}
	if (pass->op == MDTEST_FILE_CREATE && run->p.stonewall > 0) {
		sonde_json_double(&extra, "stonewall_seconds", pass->stonewall_seconds);
		sonde_json_int(&extra, "stonewall_items", pass->stonewall_items);
		sonde_json_int(&extra, "wearout_items_per_rank", pass->wearout_items);
	}
	sonde_json_array_begin(&extra, "rank_items");
	for (int r = 0; r < run->tasks; r++)
		sonde_json_int(&extra, NULL, (int64_t)all[r * R_N + R_ITEMS]);
	sonde_json_array_end(&extra);
	sonde_json_array_begin(&extra, "rank_seconds_before_barrier");
	for (int r = 0; r < run->tasks; r++)
		sonde_json_double(&extra, NULL, all[r * R_N + R_BEFORE]);
	sonde_json_array_end(&extra);
	sonde_json_object_end(&extra);
	struct sonde_measurement m = {
	    .phase = mdtest_op_phase(pass->op),
	    .iteration = pass->iteration,
	    .bytes = bytes,
	    .seconds = f->seconds,
	    .ops = f->items,
	    .per_rank = per_rank,
	    .latency = lat,
	    .finish = fin,
	    .verified = verified,
	    .verify_errors = errors,
	    .bytes_checked = checked,
	    .params_json = run->params,
	    .extra_json = extra.buf,
	    /* this rank's: after the opening barrier, after the closing one */
	    .start = pass->start,
	    .end = pass->end,
	};
	sonde_results_measurement(run->ctx->workload, &m);
	sonde_json_free(&extra);
}

/* Verification of the data read (-X) or read back (--verify-write): mismatches are named by
 * the rank that found them; the run's exit code says so, the figures stay. */
static int64_t verification(struct mdtest_run *run, const struct mdtest_pass *pass,
                            int64_t *checked)
{
	int64_t errors = 0;
	sonde_verify_report(&pass->verify, run->rank, pass->bad_item);
	sonde_verify_total(run->comm, &pass->verify, &errors, checked);
	run->verify_errors += errors;
	return errors;
}

void mdtest_report_phase(struct mdtest_run *run, const struct mdtest_pass *pass)
{
	int err = sonde_agree_path(run->comm, pass->error[0] ? (pass->err ? pass->err : EIO) : 0,
	                           pass->err_path, "%s", pass->error);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_RUN));
	double mine[R_N] = {pass->before_barrier - pass->start, pass->end - pass->start,
	                    (double)pass->items, (double)pass->bytes};
	double *all = calloc((size_t)run->tasks * R_N, sizeof *all);
	if (!all)
		sonde_fatal("out of memory");
	MPI_Gather(mine, R_N, MPI_DOUBLE, all, R_N, MPI_DOUBLE, 0, run->comm);
	struct sonde_stats per_rank;
	sonde_stats_across(run->comm, mine[R_BEFORE], &per_rank);
	struct sonde_latency lat;
	sonde_latency_across(run->comm, run->lat, pass->nlat, 1 << 20, &lat);
	/* each rank's own finish: its last item, before the barrier that closes the phase */
	const struct sonde_clock *clock = &run->ctx->clock;
	struct sonde_finish fin;
	sonde_finish_across(&run->ctx->topo, run->comm, sonde_clock_global(clock, pass->start),
	                    sonde_clock_global(clock, pass->before_barrier), pass->bytes,
	                    pass->items, &fin);
	int verified = (pass->op == MDTEST_FILE_READ && run->p.verify_read) ||
	               (pass->op == MDTEST_FILE_CREATE && run->p.verify_write);
	int64_t errors = 0, checked = 0;
	if (verified)
		errors = verification(run, pass, &checked);
	if (run->rank != 0) {
		free(all);
		return;
	}
	struct mdtest_figure *f = &run->summary.fig[pass->iteration][pass->op];
	f->ran = 1;
	f->rank_seconds = malloc(sizeof *f->rank_seconds * (size_t)run->tasks);
	f->rank_items = malloc(sizeof *f->rank_items * (size_t)run->tasks);
	if (!f->rank_seconds || !f->rank_items)
		sonde_fatal("out of memory");
	int64_t items = 0, bytes = 0;
	for (int r = 0; r < run->tasks; r++) {
		f->seconds = r == 0 || all[r * R_N + R_TIME] > f->seconds ? all[r * R_N + R_TIME]
		                                                          : f->seconds;
		f->rank_seconds[r] = all[r * R_N + R_BEFORE];
		f->rank_items[r] = (int64_t)all[r * R_N + R_ITEMS];
		items += f->rank_items[r];
		bytes += (int64_t)all[r * R_N + R_BYTES];
	}
	/* The tree rows count the directories of one tree, as mdtest's do. */
	f->items = is_tree(pass->op) ? run->tree.dirs : items;
	f->rate = f->seconds > 0 ? (double)f->items / f->seconds : 0;
	if (run->p.verbose >= 2)
		printf("V-2: Rank   0    %-18s: rank times %.6f s (rank %d) to %.6f s (rank %d)\n",
		       mdtest_op_title(pass->op), per_rank.min, per_rank.min_rank, per_rank.max,
		       per_rank.max_rank);
	record(run, pass, f, bytes, all, &per_rank, &lat, &fin, verified, errors, checked, items);
	free(all);
}

/* --saveRankPerformanceDetails: mdtest's columns (rank, items, then rate and time of every
 * operation); per iteration an "all" row (the summary's figures), then one row per rank (its
 * items over its time before the closing barrier). */
int mdtest_rank_csv(const struct mdtest_run *run, const char *path, char *err, size_t errlen)
{
	const struct mdtest_summary *s = &run->summary;
	FILE *out = sonde_fopen_nofollow(path, "w");
	if (!out) {
		snprintf(err, errlen, "--saveRankPerformanceDetails %s: %s", path,
		         sonde_strerror(errno));
		return -1;
	}
	fprintf(out, "rank,items");
	for (int op = 0; op < MDTEST_NOPS; op++)
		fprintf(out, ",rate-%s,time-%s", mdtest_op_title((enum mdtest_op)op),
		        mdtest_op_title((enum mdtest_op)op));
	fprintf(out, "\n");
	for (int j = 0; j < s->iterations; j++) {
		fprintf(out, "all,%lld", (long long)run->file_items);
		for (int op = 0; op < MDTEST_NOPS; op++) {
			const struct mdtest_figure *f = &s->fig[j][op];
			if (f->ran && f->items)
				fprintf(out, ",%.10e,%.10e", f->rate, f->seconds);
			else
				fprintf(out, ",,");
		}
		fprintf(out, "\n");
		for (int r = 0; r < s->tasks; r++) {
			fprintf(out, "%d,%lld", r, (long long)run->file_items);
			for (int op = 0; op < MDTEST_NOPS; op++) {
				const struct mdtest_figure *f = &s->fig[j][op];
				if (f->ran && f->rank_items && f->rank_items[r] &&
				    f->rank_seconds[r] > 0)
					fprintf(out, ",%.10e,%.10e",
					        (double)f->rank_items[r] / f->rank_seconds[r],
					        f->rank_seconds[r]);
				else
					fprintf(out, ",,");
			}
			fprintf(out, "\n");
		}
	}
	int e = sonde_fclose_checked(out);
	if (e) {
		snprintf(err, errlen, "--saveRankPerformanceDetails %s: %s", path,
		         sonde_strerror(e));
		sonde_results_note_failure(0, path, err);
		return -1;
	}
	return 0;
}
