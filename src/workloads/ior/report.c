/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde ior's per-phase reports: per-rank details (--rank-details, IOR's
 * saveRankPerformanceDetailsCSV), result records with per-rank statistics and per-call
 * latencies, IOR's -j outlier warnings, and the summary records. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fail.h"
#include "results.h"
#include "stats.h"
#include "units.h"
#include "workloads/ior/run.h"

const char *ior_phase_name(enum ior_access acc)
{
	return acc == IOR_WRITE                          ? "write"
	       : acc == IOR_READ || acc == IOR_READCHECK ? "read"
	                                                 : "check";
}

/* Per-rank figures of a phase, for --rank-details, saveRankPerformanceDetailsCSV and JSON. */
double *ior_rank_figures(struct ior_run *r, const double *tm, int64_t moved)
{
	double mine[4] = {tm[IOR_T_CLOSE1] - tm[IOR_T_OPEN0], tm[IOR_T_XFER1] - tm[IOR_T_XFER0],
	                  (double)moved, 0};
	double *all = r->rank == 0 ? malloc(sizeof *all * 4 * (size_t)r->ntasks) : NULL;
	MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, r->comm);
	return all;
}

void ior_rank_details(struct ior_run *r, const struct ior_params *p, enum ior_access acc, int rep,
                      const double *all)
{
	if (!all)
		return;
	if (r->rank_csv) {
		for (int k = 0; k < r->ntasks; k++) {
			const double *d = all + 4 * k;
			fprintf(r->rank_csv, "%s,%d,%.6f,%.6f,%.1f,%.1f\n", ior_phase_name(acc), k,
			        d[0], d[1], d[0] > 0 ? d[2] / d[0] : 0, d[1] > 0 ? d[2] / d[1] : 0);
		}
		fflush(r->rank_csv);
	}
	if (p->rank_details && r->out) {
		int slow = 0;
		fprintf(r->out, "\n%s rank details (iteration %d):\n", ior_phase_name(acc), rep);
		fprintf(r->out, "%-6s %-14s %-12s %-12s %-12s\n", "rank", "bytes", "total(s)",
		        "wr/rd(s)", "bw(MiB/s)");
		for (int k = 0; k < r->ntasks; k++) {
			const double *d = all + 4 * k;
			fprintf(r->out, "%-6d %-14.0f %-12.6f %-12.6f %-12.2f\n", k, d[2], d[0],
			        d[1], d[1] > 0 ? d[2] / d[1] / (double)SONDE_MIB : 0);
			if (d[0] > all[4 * slow])
				slow = k;
		}
		fprintf(r->out, "slowest rank: %d (%.6f s, %s)\n\n", slow, all[4 * slow],
		        sonde_host_of(&r->ctx->topo, slow));
	}
}

/* The straggler view for JSON: every rank's bytes, total and transfer time, and the (up to)
 * three slowest ranks by total time. */
static void rank_arrays(struct sonde_json *j, const double *all, int n)
{
	static const char *names[3] = {"rank_seconds", "rank_xfer_seconds", "rank_bytes"};
	for (int c = 0; c < 3; c++) {
		sonde_json_array_begin(j, names[c]);
		for (int k = 0; k < n; k++)
			sonde_json_double(j, NULL, all[4 * k + c]);
		sonde_json_array_end(j);
	}
	int slow[3] = {-1, -1, -1};
	for (int k = 0; k < n; k++)
		for (int s = 0; s < 3; s++)
			if (slow[s] < 0 || all[4 * k] > all[4 * slow[s]]) {
				for (int m = 2; m > s; m--)
					slow[m] = slow[m - 1];
				slow[s] = k;
				break;
			}
	sonde_json_array_begin(j, "slowest_ranks");
	for (int s = 0; s < 3 && slow[s] >= 0; s++)
		sonde_json_int(j, NULL, slow[s]);
	sonde_json_array_end(j);
}

/* The bytes each node's ranks moved in the phase (nodes as in the header: node 0 holds rank
 * 0), summed from every rank's own count: the data set a node really wrote or read, which a
 * stonewall (-D) can make smaller than blockSize x segmentCount x its tasks. */
static void node_bytes(struct sonde_json *j, const double *all, const struct sonde_topology *t,
                       int n)
{
	int64_t *sum = calloc((size_t)t->nnodes, sizeof *sum);
	if (!sum)
		sonde_fatal("out of memory for the bytes per node");
	for (int k = 0; k < n; k++)
		sum[t->node_of_rank[k]] += (int64_t)all[4 * k + 2];
	sonde_json_array_begin(j, "node_bytes");
	for (int i = 0; i < t->nnodes; i++)
		sonde_json_int(j, NULL, sum[i]);
	sonde_json_array_end(j);
	free(sum);
}

int ior_json_record(struct ior_run *r, const struct ior_test *t, enum ior_access acc, int rep,
                    const struct ior_point *pt, double my_xfer, const struct sonde_verify *v,
                    int verified, int64_t errors, const double *ranks,
                    const struct sonde_finish *fin, struct sonde_latency *lat)
{
	struct sonde_stats per_rank;
	/* gathering every rank's samples costs time at scale: only when someone reads them
	 * (--json, --csv and --latency are the same on every rank) */
	int recording = r->ctx->common.json_path || r->ctx->common.csv_path;
	if (!recording && !t->p.latency_lines)
		return 0;
	sonde_stats_across(r->comm, my_xfer, &per_rank);
	sonde_latency_across(r->comm, r->lat, r->nlat, SONDE_LATENCY_MAX_EXACT, lat);
	int64_t checked = 0, errs = 0;
	sonde_verify_total(r->comm, v, &errs, &checked);
	if (r->rank != 0 || !recording)
		return 1;
	const struct ior_params *p = &t->p;
	struct sonde_json pj, ej;
	sonde_json_init(&pj);
	sonde_json_object_begin(&pj, NULL);
	sonde_json_int(&pj, "test", p->id);
	sonde_options_json(sonde_options_full(&ior_option_table), p, &pj);
	sonde_json_object_end(&pj);
	sonde_json_init(&ej);
	sonde_json_object_begin(&ej, NULL);
	sonde_json_double(&ej, "open_s", pt->open);
	sonde_json_double(&ej, "wrrd_s", pt->xfer);
	sonde_json_double(&ej, "close_s", pt->close);
	sonde_json_double(&ej, "iops", pt->iops);
	sonde_json_double(&ej, "latency_s", pt->latency);
	sonde_json_int(&ej, "stat_bytes", pt->stat_bytes);
	sonde_json_int(&ej, "pairs", pt->pairs);
	if (p->wearout) {
		sonde_json_double(&ej, "stonewall_s", pt->sw_time);
		sonde_json_int(&ej, "stonewall_min_bytes", pt->sw_min_bytes);
		sonde_json_int(&ej, "stonewall_total_bytes", pt->sw_total_bytes);
		sonde_json_double(
		    &ej, "stonewall_aggregate_mib_s",
		    pt->sw_time > 0 ? pt->sw_total_bytes / pt->sw_time / (double)SONDE_MIB : 0);
	}
	if ((acc == IOR_READ || acc == IOR_READCHECK) && r->read_shift >= 0) {
		/* -C's effect, for the rules: a shift of 0 reads back each rank's own data */
		sonde_json_int(&ej, "read_shift_ranks", r->read_shift);
		sonde_json_int(&ej, "same_node_reads", r->same_node_reads);
	}
	if (ranks) {
		rank_arrays(&ej, ranks, r->ntasks);
		node_bytes(&ej, ranks, &r->ctx->topo, r->ntasks);
	}
	/* the hints every open passed (IOR_HINT__MPI__ variables, -U's file): part of the
	 * experiment, where the file's name is not (--compare leaves paths out of its match) */
	if (sonde_backend_find(p->api)->caps & SONDE_CAP_HINTS) {
		sonde_json_array_begin(&ej, "mpi_hints");
		for (int i = 0; i < r->hints.count; i++)
			sonde_json_string(&ej, NULL, r->hints.items[i]);
		sonde_json_array_end(&ej);
	}
	sonde_json_object_end(&ej);
	struct sonde_measurement m = {
	    .phase = ior_phase_name(acc),
	    .iteration = rep,
	    .bytes = pt->bytes,
	    .seconds = pt->total,
	    .ops = p->xfer ? pt->bytes / p->xfer : 0,
	    .per_rank = &per_rank,
	    .latency = lat,
	    .finish = fin,
	    .verified = verified,
	    .verify_errors = errors,
	    .bytes_checked = checked,
	    .params_json = pj.buf,
	    .extra_json = ej.buf,
	    /* back on this rank's own clock (the run's global one is rank 0's, from its zero) */
	    .start = pt->start - r->clock.offset + r->clock.zero,
	    .end = pt->end - r->clock.offset + r->clock.zero,
	};
	sonde_results_measurement("ior", &m);
	sonde_json_free(&pj);
	sonde_json_free(&ej);
	return 1;
}

void ior_print_latency(const struct ior_run *r, enum ior_access acc, int rep,
                       const struct sonde_latency *lat)
{
	if (r->rank == 0 && r->out)
		fprintf(
		    r->out,
		    "%s latency (iteration %d, %lld calls): p50 %.6f s  p90 %.6f s  p99 %.6f s  "
		    "max %.6f s\n",
		    ior_phase_name(acc), rep, (long long)lat->count, lat->p50, lat->p90, lat->p99,
		    lat->max);
}

/* -j: IOR's outlier warnings, one per rank and timer that is far from the mean. */
void ior_outliers(struct ior_run *r, const struct ior_params *p, enum ior_access acc,
                  const double *tm)
{
	const char *names[] = {"start time", "elapsed create time", "elapsed transfer time",
	                       "elapsed close time", "end time"};
	double v[5] = {tm[IOR_T_OPEN0], tm[IOR_T_OPEN1] - tm[IOR_T_OPEN0],
	               tm[IOR_T_XFER1] - tm[IOR_T_XFER0], tm[IOR_T_CLOSE1] - tm[IOR_T_CLOSE0],
	               tm[IOR_T_CLOSE1]};
	for (int k = 0; k < 5; k++) {
		struct sonde_stats s;
		sonde_stats_across(r->comm, v[k], &s);
		if (fabs(v[k] - s.mean) > p->outlier)
			fprintf(stderr,
			        "sonde ior: warning: for %s, task %d, %s %s is %f (mean=%f, "
			        "stddev=%f)\n",
			        sonde_host_of(&r->ctx->topo, r->rank), r->rank, ior_phase_name(acc),
			        names[k], v[k], s.mean, s.stddev);
	}
}

/* JSON summary records: IOR's summary figures per test and operation. */
void ior_json_summary(const struct ior_run *r, const struct ior_test *t)
{
	if (r->rank != 0 || !sonde_results_active())
		return;
	for (int w = 1; w >= 0; w--) {
		struct ior_summary s;
		if ((w ? !t->p.write : !(t->p.read || t->p.check_read)) ||
		    ior_summarize(t, w, r->ntasks, &s) < 0)
			continue;
		struct sonde_json j;
		sonde_json_init(&j);
		sonde_json_object_begin(&j, NULL);
		sonde_json_string(&j, "operation", w ? "write" : "read");
		sonde_json_int(&j, "test", t->p.id);
		sonde_json_int(&j, "repetitions", s.n);
		sonde_json_double(&j, "bw_max_mib_s", s.bw_max);
		sonde_json_double(&j, "bw_min_mib_s", s.bw_min);
		sonde_json_double(&j, "bw_mean_mib_s", s.bw_mean);
		sonde_json_double(&j, "bw_stddev_mib_s", s.bw_sd);
		sonde_json_double(&j, "ops_max", s.ops_max);
		sonde_json_double(&j, "ops_min", s.ops_min);
		sonde_json_double(&j, "ops_mean", s.ops_mean);
		sonde_json_double(&j, "ops_stddev", s.ops_sd);
		sonde_json_double(&j, "mean_time_s", s.mean_time);
		if (s.stonewall) {
			sonde_json_double(&j, "stonewall_s", s.sw_time);
			sonde_json_double(&j, "stonewall_mib_s_per_rank", s.sw_mib);
			sonde_json_double(&j, "stonewall_aggregate_mib_s", s.sw_aggregate_mib);
		}
		sonde_json_int(&j, "aggregate_bytes", s.agg_bytes);
		sonde_json_object_end(&j);
		sonde_results_record("summary", "ior", j.buf);
		sonde_json_free(&j);
	}
}
