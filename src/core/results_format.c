/* SPDX-License-Identifier: BSD-3-Clause */
#include "results_format.h"

#include <math.h>

#include "units.h"

static double ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

static void csv_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, ",%.9g", v);
	else
		fputs(",", out);
}

/* docs/results-schema.md lists them; python/sonde/results/__init__.py reads them by these names. */
void results_csv_header(FILE *out)
{
	fputs("run_id,workload,ranks,nodes,tasks_per_node,phase,iteration,bytes,seconds,"
	      "bandwidth_mib_s,ops,ops_per_s,rank_min_s,rank_min_rank,rank_max_s,rank_max_rank,"
	      "rank_mean_s,rank_stddev_s,lat_count,lat_p50_s,lat_p90_s,lat_p99_s,lat_p999_s,"
	      "lat_max_s,lat_mean_s,lat_percentiles,lat_error_rel,verify_checked,verify_errors,"
	      "params,extra\n",
	      out);
}

/* A JSON object as one quoted CSV field (quotes doubled). */
static void csv_json(FILE *out, const char *json)
{
	fputs(",\"", out);
	for (const char *p = json ? json : "{}"; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

/* A latency figure, or NaN (null, an empty field) when no call was counted: never a 0. */
static double counted(const struct sonde_latency *l, double figure)
{
	return l->count > 0 ? figure : NAN;
}

static const char *percentile_method(const struct sonde_latency *l)
{
	return l->from_histogram ? "log-linear-bucket-midpoint" : "exact";
}

static void per_rank(struct sonde_json *j, const struct sonde_stats *s)
{
	if (!s) {
		sonde_json_null(j, "per_rank");
		return;
	}
	sonde_json_object_begin(j, "per_rank");
	sonde_json_int(j, "n", s->n);
	sonde_json_double(j, "min", s->min);
	sonde_json_int(j, "min_rank", s->min_rank);
	sonde_json_double(j, "max", s->max);
	sonde_json_int(j, "max_rank", s->max_rank);
	sonde_json_double(j, "mean", s->mean);
	sonde_json_double(j, "stddev", s->stddev);
	sonde_json_object_end(j);
}

static void latency(struct sonde_json *j, const struct sonde_latency *l)
{
	if (!l) {
		sonde_json_null(j, "latency");
		return;
	}
	sonde_json_object_begin(j, "latency");
	sonde_json_int(j, "count", l->count);
	sonde_json_double(j, "p50", counted(l, l->p50));
	sonde_json_double(j, "p90", counted(l, l->p90));
	sonde_json_double(j, "p99", counted(l, l->p99));
	sonde_json_double(j, "p999", counted(l, l->p999));
	sonde_json_double(j, "max", counted(l, l->max));
	sonde_json_double(j, "mean", counted(l, l->mean));
	sonde_json_string(j, "percentiles", percentile_method(l));
	sonde_json_double(j, "error_rel", counted(l, l->error_rel));
	/* Only the buckets that counted something, each with its edges: a few dozen entries
	 * where the whole histogram has thousands. */
	sonde_json_array_begin(j, "histogram_ns");
	for (int b = 0; b < SONDE_HIST_BUCKETS; b++) {
		if (l->hist.count[b] == 0)
			continue;
		sonde_json_array_begin(j, NULL);
		sonde_json_double(j, NULL, sonde_hist_lower_ns(b));
		sonde_json_double(j, NULL, sonde_hist_upper_ns(b));
		sonde_json_int(j, NULL, l->hist.count[b]);
		sonde_json_array_end(j);
	}
	sonde_json_array_end(j);
	sonde_json_object_end(j);
}

static void finish(struct sonde_json *j, const struct sonde_finish *f)
{
	if (!f || f->n == 0) {
		sonde_json_null(j, "finish");
		return;
	}
	sonde_json_object_begin(j, "finish");
	sonde_json_int(j, "n", f->n);
	sonde_json_double(j, "min_s", f->min);
	sonde_json_double(j, "p50_s", f->p50);
	sonde_json_double(j, "max_s", f->max);
	sonde_json_double(j, "mean_s", f->mean);
	sonde_json_double(j, "lost_s", f->lost_s);
	sonde_json_array_begin(j, "slowest");
	for (int i = 0; i < f->nslowest; i++) {
		sonde_json_object_begin(j, NULL);
		sonde_json_int(j, "rank", f->slowest_rank[i]);
		sonde_json_int(j, "node", f->slowest_node[i]);
		sonde_json_string(j, "host", f->slowest_host[i] ? f->slowest_host[i] : "");
		sonde_json_double(j, "seconds", f->slowest_s[i]);
		sonde_json_object_end(j);
	}
	sonde_json_array_end(j);
	sonde_json_object_begin(j, "first_done");
	sonde_json_double(j, "bandwidth_mib_s", f->first_done_mib_s);
	sonde_json_double(j, "ops_per_s", f->first_done_ops_s);
	sonde_json_object_end(j);
	sonde_json_object_begin(j, "last_done");
	sonde_json_double(j, "bandwidth_mib_s", f->last_done_mib_s);
	sonde_json_double(j, "ops_per_s", f->last_done_ops_s);
	sonde_json_object_end(j);
	sonde_json_object_end(j);
}

void results_csv_row(FILE *out, const struct results_csv_run *run,
                     const struct sonde_measurement *m)
{
	const struct sonde_stats *s = m->per_rank;
	const struct sonde_latency *l = m->latency;
	fprintf(out, "%s,%s,%d,%d,%d,%s,%d,%lld", run->run_id, run->workload, run->ranks,
	        run->nodes, run->tasks_per_node, m->phase, m->iteration, (long long)m->bytes);
	csv_number(out, m->seconds);
	csv_number(out, ratio((double)m->bytes / (double)SONDE_MIB, m->seconds));
	fprintf(out, ",%lld", (long long)m->ops);
	csv_number(out, ratio((double)m->ops, m->seconds));
	csv_number(out, s ? s->min : NAN);
	fprintf(out, ",%s", "");
	if (s)
		fprintf(out, "%d", s->min_rank);
	csv_number(out, s ? s->max : NAN);
	fputs(",", out);
	if (s)
		fprintf(out, "%d", s->max_rank);
	csv_number(out, s ? s->mean : NAN);
	csv_number(out, s ? s->stddev : NAN);
	fputs(",", out);
	if (l)
		fprintf(out, "%lld", (long long)l->count);
	csv_number(out, l ? counted(l, l->p50) : NAN);
	csv_number(out, l ? counted(l, l->p90) : NAN);
	csv_number(out, l ? counted(l, l->p99) : NAN);
	csv_number(out, l ? counted(l, l->p999) : NAN);
	csv_number(out, l ? counted(l, l->max) : NAN);
	csv_number(out, l ? counted(l, l->mean) : NAN);
	fprintf(out, ",%s", l ? percentile_method(l) : "");
	csv_number(out, l ? counted(l, l->error_rel) : NAN);
	fprintf(out, ",%s,%lld", m->verified ? "true" : "false", (long long)m->verify_errors);
	csv_json(out, m->params_json);
	csv_json(out, m->extra_json);
	fputc('\n', out);
}

void results_json_measurement(struct sonde_json *j, const struct sonde_measurement *m)
{
	sonde_json_string(j, "phase", m->phase);
	sonde_json_int(j, "iteration", m->iteration);
	sonde_json_int(j, "bytes", m->bytes);
	sonde_json_double(j, "seconds", m->seconds);
	sonde_json_double(j, "bandwidth_mib_s",
	                  ratio((double)m->bytes / (double)SONDE_MIB, m->seconds));
	sonde_json_int(j, "ops", m->ops);
	sonde_json_double(j, "ops_per_s", ratio((double)m->ops, m->seconds));
	per_rank(j, m->per_rank);
	latency(j, m->latency);
	finish(j, m->finish);
	sonde_json_object_begin(j, "verify");
	sonde_json_bool(j, "checked", m->verified);
	sonde_json_int(j, "errors", m->verify_errors);
	sonde_json_int(j, "bytes_checked", m->bytes_checked);
	sonde_json_object_end(j);
	sonde_json_raw(j, "params", m->params_json ? m->params_json : "{}");
	sonde_json_raw(j, "extra", m->extra_json ? m->extra_json : "{}");
}
