/* SPDX-License-Identifier: BSD-3-Clause */
/* One result: mpiBench's tab-separated line on stdout (reference 5.5) and one measurement
 * record (JSON Lines / CSV), both from the same figures. Collective over cfg->whole: as in
 * mpiBench, every world rank's time per iteration counts, also for sub-communicator tests. */
#include <stdio.h>

#include "clock.h"
#include "json.h"
#include "results.h"
#include "workloads/coll/coll.h"

static void params_json(struct sonde_json *j, const struct coll_cfg *cfg, const struct coll_call *c,
                        const char *comm_name, int comm_ranks, const struct coll_result *r)
{
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "operation", c->op->name);
	sonde_json_int(j, "size", c->size);
	sonde_json_string(j, "comm", comm_name);
	sonde_json_int(j, "comm_ranks", comm_ranks);
	sonde_json_bool(j, "estimate_only", r->estimate_only);
	sonde_json_string(j, "timing", coll_timing_name(cfg->timing));
	sonde_json_int(j, "count", c->count);
	sonde_json_string(j, "datatype", c->type == MPI_DOUBLE ? "MPI_DOUBLE" : "MPI_BYTE");
	sonde_json_int(j, "root", 0);
	sonde_options_json(&coll_option_table, cfg, j);
	sonde_json_object_end(j);
}

static void extra_json(struct sonde_json *j, const struct sonde_stats *it, double overlap_pct,
                       const struct coll_result *r, int overlap)
{
	sonde_json_object_begin(j, NULL);
	sonde_json_double(j, "avg_us", it->mean * 1e6);
	sonde_json_double(j, "min_us", it->min * 1e6);
	sonde_json_double(j, "max_us", it->max * 1e6);
	if (overlap) {
		sonde_json_double(j, "overlap_pct", overlap_pct);
		sonde_json_double(j, "overall_us", r->overall_s * 1e6);
		sonde_json_double(j, "compute_us", r->compute_s * 1e6);
		sonde_json_double(j, "pure_us", r->pure_s * 1e6);
	}
	sonde_json_object_end(j);
}

static double overlap_percent(const struct coll_result *r)
{
	if (r->pure_s <= 0)
		return 0;
	double pct = 100.0 * (1.0 - (r->overall_s - r->compute_s) / r->pure_s);
	return pct < 0 ? 0 : pct > 100 ? 100 : pct;
}

void coll_report(const struct coll_cfg *cfg, const struct coll_call *c, const char *comm_name,
                 int comm_ranks, const struct coll_result *r, int64_t total_errors)
{
	struct sonde_stats it;
	sonde_stats_across(cfg->whole, r->per_iter_s, &it);
	/* per-call durations in the per-call kernel; in the loop kernels each rank's time per
	 * iteration (a loop gives no per-call durations) */
	struct sonde_latency lat;
	if (r->samples)
		sonde_latency_across(cfg->whole, r->samples, r->nsamples, SONDE_LATENCY_MAX_EXACT,
		                     &lat);
	else
		sonde_latency_across(cfg->whole, &r->per_iter_s, 1, SONDE_LATENCY_MAX_EXACT, &lat);
	int overlap = cfg->overlap && (c->op->flags & COLL_NONBLOCKING);
	double pct = overlap_percent(r), mean_pct = 0;
	if (overlap)
		MPI_Reduce(&pct, &mean_pct, 1, MPI_DOUBLE, MPI_SUM, 0, cfg->whole);
	int64_t checked = 0;
	MPI_Reduce(&r->bytes_checked, &checked, 1, MPI_INT64_T, MPI_SUM, 0, cfg->whole);
	/* the measured loop's span for sonde mix, on the run's clock (synced when the run began) */
	double first = 0, last = 0;
	sonde_clock_span(cfg->whole, sonde_run_clock(cfg->whole), r->start, r->end, &first, &last);
	int whole_rank, whole_size;
	MPI_Comm_rank(cfg->whole, &whole_rank);
	MPI_Comm_size(cfg->whole, &whole_size);
	if (whole_rank != 0)
		return;
	mean_pct /= whole_size;

	/* The phase is the measured loop: ops = iterations, seconds = loop time (so bandwidth is
	 * the per-process message rate and ops_per_s the call rate); per_rank holds each rank's
	 * loop time; the time per call is latency.mean and extra.avg_us. */
	struct sonde_stats loop = it;
	loop.min *= r->iters;
	loop.max *= r->iters;
	loop.mean *= r->iters;
	loop.stddev *= r->iters;
	loop.sum *= r->iters;
	struct sonde_json pj, ej;
	sonde_json_init(&pj);
	sonde_json_init(&ej);
	params_json(&pj, cfg, c, comm_name, comm_ranks, r);
	extra_json(&ej, &it, mean_pct, r, overlap);
	struct sonde_measurement m = {
	    .phase = c->op->name,
	    .iteration = -1,
	    .bytes = c->size * r->iters,
	    .seconds = loop.mean,
	    .ops = r->iters,
	    .per_rank = &loop,
	    .latency = &lat,
	    .verified = c->op->check && (cfg->check_last || cfg->check_all),
	    .verify_errors = total_errors,
	    .bytes_checked = checked,
	    .params_json = pj.buf,
	    .extra_json = ej.buf,
	    .start = first,
	    .end = last,
	};
	sonde_results_measurement("coll", &m);
	sonde_json_free(&pj);
	sonde_json_free(&ej);
	/* after its record: a figure on the screen always has one in the results, even when a
	 * stop signal comes in between */
	printf("%-20.20s\t", c->op->name);
	printf("Bytes:\t%8lld\tIters:\t%7d\t", (long long)c->size, r->iters);
	printf("Avg:\t%8.4f\tMin:\t%8.4f\tMax:\t%8.4f\t", it.mean * 1e6, it.min * 1e6,
	       it.max * 1e6);
	printf("Comm: %s\tRanks: %d", comm_name, comm_ranks);
	if (cfg->timing != COLL_TIMING_BARRIER)
		printf("\tTiming: %s", coll_timing_name(cfg->timing));
	if (cfg->percentiles)
		printf("\tP50:\t%8.4f\tP90:\t%8.4f\tP99:\t%8.4f\tPMax:\t%8.4f", lat.p50 * 1e6,
		       lat.p90 * 1e6, lat.p99 * 1e6, lat.max * 1e6);
	if (overlap)
		printf("\tOverlap(%%):\t%6.2f", mean_pct);
	printf("\n");
	fflush(stdout);
}
