/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mix, world rank 0: the mix's own run in the --json file (its header before the groups
 * run, one "mix" record per overlap after them, an end record), and the overlaps of the groups'
 * phases on stdout.
 *
 * An overlap is a window in which every group was inside one phase (one measurement: its start
 * to its end on the mix's clock), the same phase throughout. Its figures are sums of the phase's
 * intervals (its --interval time series, on the same clock): what each group moved inside the
 * window and outside it, and the window's aggregate over the groups. An interval that straddles
 * an edge of the window counts in it by the share of its time inside (prorated): finer
 * intervals make that share smaller. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "json.h"
#include "mix.h"
#include "units.h"

static double rate(double amount, double seconds)
{
	return seconds > 0 ? amount / seconds : NAN;
}

static double mib_s(const struct sonde_mix_span *sp)
{
	return rate((double)sp->bytes / (double)SONDE_MIB, sp->seconds);
}

static double ops_s(const struct sonde_mix_span *sp)
{
	return rate((double)sp->ops, sp->seconds);
}

/* The group's solo measurement of the same phase and iteration, or NULL. */
static const struct sonde_mix_span *solo_of(const struct mix_group *g,
                                            const struct sonde_mix_span *sp)
{
	for (int i = 0; i < g->nsolo; i++)
		if (strcmp(g->solo[i].phase, sp->phase) == 0 &&
		    g->solo[i].iteration == sp->iteration)
			return &g->solo[i];
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The span of group g that covers [a, b], or -1. */
static int covering(const struct mix_group *g, double a, double b)
{
	for (int i = 0; i < g->nspans; i++)
		if (g->spans[i].start <= a && g->spans[i].end >= b)
			return i;
	return -1;
}

/* What a group moved during [a, b] of one phase: sums of the phase's intervals, each by the
 * share of its time inside [a, b]; and of all the phase's intervals. */
struct window_sums {
	int intervals; /* the phase's intervals that overlap [a, b] */
	double bytes, ops;
	double phase_bytes, phase_ops, phase_seconds; /* every interval of the phase */
};

static struct window_sums window_sums(const struct mix_group *g, const struct sonde_mix_span *sp,
                                      double a, double b)
{
	struct window_sums w = {0};
	for (int i = 0; i < g->nintervals; i++) {
		const struct sonde_series_interval *iv = &g->intervals[i];
		if (strcmp(iv->phase, sp->phase) != 0 || iv->iteration != sp->iteration)
			continue;
		double from = iv->start, to = iv->start + iv->seconds;
		double inside = fmin(to, b) - fmax(from, a);
		w.phase_bytes += (double)iv->bytes;
		w.phase_ops += (double)iv->ops;
		w.phase_seconds += iv->seconds;
		if (inside <= 0 || iv->seconds <= 0)
			continue;
		w.intervals++;
		w.bytes += (double)iv->bytes * inside / iv->seconds;
		w.ops += (double)iv->ops * inside / iv->seconds;
	}
	return w;
}

/* A group's window figures, NaN without intervals (a phase with no time series). */
static double in_window(const struct window_sums *w, double amount)
{
	return w->intervals ? amount : NAN;
}

static double window_mib_s(const struct window_sums *w, double seconds)
{
	return rate(in_window(w, w->bytes) / (double)SONDE_MIB, seconds);
}

static double window_ops_s(const struct window_sums *w, double seconds)
{
	return rate(in_window(w, w->ops), seconds);
}

static void group_figures(struct sonde_json *j, const struct mix_plan *plan, int k, int i, double a,
                          double b)
{
	const struct mix_group *g = &plan->groups[k];
	const struct sonde_mix_span *sp = &g->spans[i];
	struct window_sums w = window_sums(g, sp, a, b);
	double out_s = w.phase_seconds - (b - a);
	sonde_json_object_begin(j, NULL);
	sonde_json_int(j, "group", k + 1);
	sonde_json_string(j, "workload", g->w->name);
	sonde_json_string(j, "run_id", g->run_id);
	sonde_json_int(j, "ranks", g->nranks);
	sonde_json_string(j, "phase", sp->phase);
	sonde_json_int(j, "iteration", sp->iteration);
	sonde_json_double(j, "phase_start", sp->start);
	sonde_json_double(j, "phase_end", sp->end);
	sonde_json_int(j, "intervals", w.intervals);
	sonde_json_double(j, "bytes", in_window(&w, w.bytes));
	sonde_json_double(j, "ops", in_window(&w, w.ops));
	sonde_json_double(j, "bandwidth_mib_s", window_mib_s(&w, b - a));
	sonde_json_double(j, "ops_per_s", window_ops_s(&w, b - a));
	sonde_json_double(j, "outside_seconds", in_window(&w, fmax(out_s, 0)));
	sonde_json_double(j, "outside_bytes", in_window(&w, w.phase_bytes - w.bytes));
	sonde_json_double(j, "outside_ops", in_window(&w, w.phase_ops - w.ops));
	sonde_json_double(j, "outside_bandwidth_mib_s",
	                  rate(in_window(&w, w.phase_bytes - w.bytes) / (double)SONDE_MIB, out_s));
	sonde_json_double(j, "outside_ops_per_s", rate(in_window(&w, w.phase_ops - w.ops), out_s));
	sonde_json_int(j, "phase_bytes", sp->bytes);
	sonde_json_int(j, "phase_ops", sp->ops);
	sonde_json_double(j, "phase_seconds", sp->seconds);
	sonde_json_double(j, "phase_bandwidth_mib_s", mib_s(sp));
	sonde_json_double(j, "phase_ops_per_s", ops_s(sp));
	const struct sonde_mix_span *alone = plan->solo ? solo_of(g, sp) : NULL;
	if (alone) {
		sonde_json_string(j, "solo_run_id", g->solo_run_id);
		sonde_json_double(j, "solo_bandwidth_mib_s", mib_s(alone));
		sonde_json_double(j, "solo_ops_per_s", ops_s(alone));
		sonde_json_double(j, "bandwidth_ratio",
		                  rate(window_mib_s(&w, b - a), mib_s(alone)));
		sonde_json_double(j, "ops_ratio", rate(window_ops_s(&w, b - a), ops_s(alone)));
	}
	sonde_json_object_end(j);
}

/* The window's aggregates: the groups' window figures summed (the groups with intervals). */
static void aggregate(const struct mix_plan *plan, double a, double b, const int *idx, double *bw,
                      double *ops)
{
	*bw = *ops = 0;
	for (int k = 0; k < plan->ngroups; k++) {
		const struct mix_group *g = &plan->groups[k];
		struct window_sums w = window_sums(g, &g->spans[idx[k]], a, b);
		if (!w.intervals)
			continue;
		*bw += window_mib_s(&w, b - a);
		*ops += window_ops_s(&w, b - a);
	}
}

static void print_overlap(const struct mix_plan *plan, int n, double a, double b, const int *idx)
{
	double bw, ops;
	aggregate(plan, a, b, idx, &bw, &ops);
	printf("mix overlap %d: %.6f s to %.6f s (%.6f s), all %d groups active; inside it "
	       "together: %.2f MiB/s, %.2f ops/s\n",
	       n, a, b, b - a, plan->ngroups, bw, ops);
	for (int k = 0; k < plan->ngroups; k++) {
		const struct mix_group *g = &plan->groups[k];
		const struct sonde_mix_span *sp = &g->spans[idx[k]];
		struct window_sums w = window_sums(g, sp, a, b);
		printf("  group %d %-6s %-10s iteration %d: ", k + 1, g->w->name, sp->phase,
		       sp->iteration);
		if (w.intervals)
			printf("%.2f MiB/s, %.2f ops/s inside (%d interval%s)",
			       window_mib_s(&w, b - a), window_ops_s(&w, b - a), w.intervals,
			       w.intervals == 1 ? "" : "s");
		else
			printf("no intervals (no time series)");
		printf("; phase average %.2f MiB/s, %.2f ops/s", mib_s(sp), ops_s(sp));
		const struct sonde_mix_span *alone = plan->solo ? solo_of(g, sp) : NULL;
		if (alone) {
			/* a phase that moves no bytes (a stat) has its ratio in ops only */
			double bw_ratio = rate(window_mib_s(&w, b - a), mib_s(alone)),
			       ops_ratio = rate(window_ops_s(&w, b - a), ops_s(alone));
			printf("; alone %.2f MiB/s, %.2f ops/s: ratio ", mib_s(alone),
			       ops_s(alone));
			if (isfinite(bw_ratio))
				printf("%.3f", bw_ratio);
			else if (isfinite(ops_ratio))
				printf("%.3f (ops)", ops_ratio);
			else
				printf("none");
		}
		putchar('\n');
	}
}

static void overlap_record(const struct mix_plan *plan, int n, double a, double b, const int *idx)
{
	double bw, ops;
	aggregate(plan, a, b, idx, &bw, &ops);
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_int(&j, "overlap", n);
	sonde_json_double(&j, "start", a);
	sonde_json_double(&j, "end", b);
	sonde_json_double(&j, "seconds", b - a);
	sonde_json_string(&j, "figures", "intervals-prorated");
	sonde_json_double(&j, "aggregate_bandwidth_mib_s", bw);
	sonde_json_double(&j, "aggregate_ops_per_s", ops);
	sonde_json_array_begin(&j, "groups");
	for (int k = 0; k < plan->ngroups; k++)
		group_figures(&j, plan, k, idx[k], a, b);
	sonde_json_array_end(&j);
	sonde_json_object_end(&j);
	sonde_results_record("mix", "mix", j.buf);
	sonde_json_free(&j);
}

/* Every window in which each group was in one phase; returns how many. */
static int overlaps(const struct mix_plan *plan)
{
	int total = 0;
	for (int k = 0; k < plan->ngroups; k++)
		total += 2 * plan->groups[k].nspans;
	double *t = calloc((size_t)total + 1, sizeof *t);
	size_t ngroups = (size_t)(plan->ngroups > 0 ? plan->ngroups : 1);
	int *idx = calloc(ngroups, sizeof *idx);
	int *prev = calloc(ngroups, sizeof *prev);
	if (!t || !idx || !prev)
		sonde_fatal("no memory for the overlaps");
	int nt = 0;
	for (int k = 0; k < plan->ngroups; k++)
		for (int i = 0; i < plan->groups[k].nspans; i++) {
			const struct sonde_mix_span *sp = &plan->groups[k].spans[i];
			if (isfinite(sp->start) && isfinite(sp->end)) {
				t[nt++] = sp->start;
				t[nt++] = sp->end;
			}
		}
	qsort(t, (size_t)nt, sizeof *t, by_value);
	int n = 0;
	double from = 0, to = 0;
	for (int s = 0; s + 1 < nt; s++) {
		double a = t[s], b = t[s + 1];
		int all = b > a;
		for (int k = 0; all && k < plan->ngroups; k++)
			all = (idx[k] = covering(&plan->groups[k], a, b)) >= 0;
		/* elementary windows with the same phases, back to back, are one overlap */
		int same = n > 0 && to == a && memcmp(idx, prev, sizeof *idx * ngroups) == 0;
		if (all && same) {
			to = b;
			continue;
		}
		if (n > 0 && (!all || !same) && to > from) {
			print_overlap(plan, n, from, to, prev);
			overlap_record(plan, n, from, to, prev);
			from = to = 0;
		}
		if (all) {
			n++;
			from = a;
			to = b;
			memcpy(prev, idx, sizeof *idx * ngroups);
		}
	}
	if (n > 0 && to > from) {
		print_overlap(plan, n, from, to, prev);
		overlap_record(plan, n, from, to, prev);
	}
	free(t);
	free(idx);
	free(prev);
	return n;
}

char *mix_params(const struct mix_plan *plan)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_bool(&j, "solo", plan->solo);
	sonde_json_bool(&j, "strict", plan->strict);
	sonde_json_array_begin(&j, "groups");
	for (int k = 0; k < plan->ngroups; k++) {
		const struct mix_group *g = &plan->groups[k];
		sonde_json_object_begin(&j, NULL);
		sonde_json_int(&j, "group", k + 1);
		sonde_json_string(&j, "spec", g->spec);
		sonde_json_string(&j, "workload", g->w->name);
		sonde_json_array_begin(&j, "world_ranks");
		for (int i = 0; i < g->nranks; i++)
			sonde_json_int(&j, NULL, g->ranks[i]);
		sonde_json_array_end(&j);
		sonde_json_array_begin(&j, "command_line");
		for (int i = 1; i < g->argc; i++)
			sonde_json_string(&j, NULL, g->argv[i]);
		sonde_json_array_end(&j);
		sonde_json_string(&j, "run_id", g->run_id);
		sonde_json_string(&j, "solo_run_id", plan->solo ? g->solo_run_id : NULL);
		sonde_json_object_end(&j);
	}
	sonde_json_array_end(&j);
	sonde_json_object_end(&j);
	return j.buf;
}

int mix_open_records(const struct mix_plan *plan, const struct sonde_context *ctx, char *err,
                     size_t errlen)
{
	sonde_results_join_mix(0, plan->run_id, "mix", 0, 0);
	if (sonde_results_open(MPI_COMM_SELF, "mix", plan->json_path, NULL, err, errlen) < 0)
		return -1;
	char *params = mix_params(plan);
	sonde_results_header(ctx, params, NULL);
	free(params);
	sonde_results_hold();
	return 0;
}

int mix_report_overlaps(const struct mix_plan *plan, int code)
{
	sonde_results_resume();
	if (overlaps(plan) == 0)
		printf(
		    "mix: no window in which every group was inside a timed phase (a group whose "
		    "workload does not time its phases on the mix's clock has none)\n");
	fflush(stdout);
	for (int k = 0; k < plan->ngroups && code; k++)
		if (plan->groups[k].code) {
			char msg[256];
			snprintf(msg, sizeof msg, "group %d (%s) failed with exit code %d", k + 1,
			         plan->groups[k].w->name, plan->groups[k].code);
			sonde_results_note_failure(plan->groups[k].failed_rank, NULL, msg);
			break;
		}
	return sonde_results_close(code);
}
