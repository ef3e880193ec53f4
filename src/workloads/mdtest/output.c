/* SPDX-License-Identifier: BSD-3-Clause */
/* mdtest's text output: the SUMMARY tables with mdtest's column widths and its N-1 standard
 * deviation, --print-all-procs, the -v lines of each iteration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workloads/mdtest/mdtest.h"

/* mdtest's name of each operation, and the phase name of the results records. */
static const struct {
	const char *title, *phase;
} names[MDTEST_NOPS] = {
    [MDTEST_DIR_CREATE] = {"Directory creation", "dir-create"},
    [MDTEST_DIR_STAT] = {"Directory stat", "dir-stat"},
    [MDTEST_DIR_READ] = {"Directory read", "dir-read"},
    [MDTEST_DIR_RENAME] = {"Directory rename", "dir-rename"},
    [MDTEST_DIR_REMOVE] = {"Directory removal", "dir-remove"},
    [MDTEST_FILE_CREATE] = {"File creation", "file-create"},
    [MDTEST_FILE_STAT] = {"File stat", "file-stat"},
    [MDTEST_FILE_READ] = {"File read", "file-read"},
    [MDTEST_FILE_REMOVE] = {"File removal", "file-remove"},
    [MDTEST_TREE_CREATE] = {"Tree creation", "tree-create"},
    [MDTEST_TREE_REMOVE] = {"Tree removal", "tree-remove"},
};

const char *mdtest_op_title(enum mdtest_op op)
{
	return names[op].title;
}

const char *mdtest_op_phase(enum mdtest_op op)
{
	return names[op].phase;
}

double mdtest_sample_stddev(const double *v, int n)
{
	if (n < 2)
		return 0;
	double mean = 0, var = 0;
	for (int i = 0; i < n; i++)
		mean += v[i];
	mean /= n;
	for (int i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	return sqrt(var / (n - 1));
}

/* A figure of one iteration as a table shows it: the aggregate rate, or the phase time. */
static double iteration_value(const struct mdtest_figure *f, int time_table)
{
	if (!f->ran)
		return 0;
	return time_table ? f->seconds : f->rate;
}

/* One rank's figure before the closing barrier. */
static double rank_value(const struct mdtest_figure *f, int rank, int time_table)
{
	if (!f->ran || !f->rank_seconds)
		return 0;
	double t = f->rank_seconds[rank];
	if (time_table)
		return t;
	return t > 0 ? (double)f->rank_items[rank] / t : 0;
}

static void row(FILE *out, const struct mdtest_summary *s, enum mdtest_op op, int time_table,
                int rank_statistics)
{
	double *values = calloc((size_t)s->iterations, sizeof *values);
	if (!values)
		abort();
	double imax = 0, imin = INFINITY, isum = 0;
	double rmax = 0, rmin = INFINITY, rsum = 0;
	for (int j = 0; j < s->iterations; j++) {
		const struct mdtest_figure *f = &s->fig[j][op];
		values[j] = iteration_value(f, time_table);
		imax = fmax(imax, values[j]);
		imin = fmin(imin, values[j]);
		isum += values[j];
		for (int r = 0; r < s->tasks; r++) {
			double v = rank_value(f, r, time_table);
			rmax = fmax(rmax, v);
			rmin = fmin(rmin, v);
			rsum += v;
		}
	}
	int tree = op == MDTEST_TREE_CREATE || op == MDTEST_TREE_REMOVE;
	fprintf(out, tree ? "   %-22s " : "   %-18s ", names[op].title);
	if (rank_statistics) {
		fprintf(out, "%14.3f ", rmax);
		fprintf(out, "%14.3f ", rmin);
		fprintf(out, "%14.3f ", rsum / s->iterations / s->tasks);
		fprintf(out, "    ");
	}
	if (!tree)
		fprintf(out, "    ");
	fprintf(out, "%14.3f ", imax);
	fprintf(out, "%14.3f ", imin);
	fprintf(out, "%14.3f ", isum / s->iterations);
	fprintf(out, "%14.3f\n", mdtest_sample_stddev(values, s->iterations));
	free(values);
}

void mdtest_print_summary(FILE *out, const struct mdtest_summary *s, int time_table,
                          int rank_statistics)
{
	if (time_table)
		fprintf(out, "\nSUMMARY time (in seconds): (of %d iterations)\n", s->iterations);
	else
		fprintf(out, "\nSUMMARY rate (in ops/sec): (of %d iterations)\n", s->iterations);
	fprintf(out, "   Operation     %s Max            Min           Mean        Std Dev\n",
	        rank_statistics ? "per Rank: Max            Min           Mean      per Iteration:"
	                        : "               ");
	fprintf(out,
	        "   ---------      %s               ---            ---           ----        "
	        "-------\n",
	        rank_statistics ? "         ---            ---           ----       " : "");
	for (int op = s->first_op; op < s->last_op; op++)
		if (op != MDTEST_DIR_READ)
			row(out, s, (enum mdtest_op)op, time_table, rank_statistics);
	row(out, s, MDTEST_TREE_CREATE, time_table, rank_statistics);
	row(out, s, MDTEST_TREE_REMOVE, time_table, rank_statistics);
	fflush(out);
}

static void all_procs_row(FILE *out, const struct mdtest_summary *s, int j, enum mdtest_op op,
                          int time_table)
{
	fprintf(out, "Test %s", names[op].title);
	for (int r = 0; r < s->tasks; r++)
		fprintf(out, "%c%e", r == 0 ? ' ' : ',', rank_value(&s->fig[j][op], r, time_table));
	fprintf(out, "\n");
}

void mdtest_print_all_procs(FILE *out, const struct mdtest_summary *s, int time_table)
{
	fprintf(out, "\nPer process result (%s):\n", time_table ? "time" : "rate");
	for (int j = 0; j < s->iterations; j++) {
		fprintf(out, "iteration: %d\n", j);
		for (int op = s->first_op; op < s->last_op; op++)
			if (op != MDTEST_DIR_READ)
				all_procs_row(out, s, j, (enum mdtest_op)op, time_table);
		all_procs_row(out, s, j, MDTEST_TREE_CREATE, time_table);
		all_procs_row(out, s, j, MDTEST_TREE_REMOVE, time_table);
	}
}

static void iteration_line(FILE *out, const struct mdtest_figure *f, enum mdtest_op op)
{
	if (f->ran)
		fprintf(out, "V-1: Rank   0    %-18s: %14.3f sec, %14.3f ops/sec\n",
		        names[op].title, f->seconds, f->rate);
}

void mdtest_print_iteration(FILE *out, const struct mdtest_summary *s, int j)
{
	iteration_line(out, &s->fig[j][MDTEST_TREE_CREATE], MDTEST_TREE_CREATE);
	for (int op = s->first_op; op < s->last_op; op++)
		if (op != MDTEST_DIR_READ)
			iteration_line(out, &s->fig[j][op], (enum mdtest_op)op);
	iteration_line(out, &s->fig[j][MDTEST_TREE_REMOVE], MDTEST_TREE_REMOVE);
	fflush(out);
}

void mdtest_timestamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(buf, len, "%m/%d/%Y %T", &tm);
}

/* -v: the parameters as mdtest lists them (after its defaults are settled). */
void mdtest_print_params(FILE *out, const struct mdtest_params *p, char *const *dirs, int ndirs)
{
#define ROW(name, fmt, value) fprintf(out, "V-1: Rank   0 %-24s: " fmt "\n", name, value)
#define TF(v)                 ((v) ? "True" : "False")
	ROW("api", "%s", p->api);
	ROW("barriers", "%s", TF(!p->no_barriers));
	ROW("collective_creates", "%s", TF(p->collective));
	ROW("create_only", "%s", TF(p->create));
	fprintf(out, "V-1: Rank   0 dirpath(s):\n");
	for (int i = 0; i < ndirs; i++)
		fprintf(out, "V-1: Rank   0 \t%s\n", dirs[i]);
	ROW("dirs_only", "%s", TF(p->dirs_only));
	ROW("read_bytes", "%lld", (long long)p->read_bytes);
	ROW("read_only", "%s", TF(p->read));
	ROW("first", "%d", p->first_tasks);
	ROW("files_only", "%s", TF(p->files_only));
	ROW("iterations", "%d", p->iterations);
	ROW("items_per_dir", "%lld", (long long)p->items_per_dir);
	ROW("last", "%d", p->last_tasks);
	ROW("leaf_only", "%s", TF(p->leaf_only));
	ROW("items", "%lld", (long long)p->items);
	ROW("nstride", "%d", p->stride);
	ROW("pre_delay", "%d", p->pre_delay);
	ROW("remove_only", "%s", TF(p->remove));
	ROW("random_seed", "%d", p->random_seed);
	ROW("stride", "%d", p->step_tasks);
	ROW("shared_file", "%s", TF(p->shared_file));
	ROW("time_unique_dir_overhead", "%s", TF(p->time_unique_dir));
	ROW("stone_wall_timer_seconds", "%d", p->stonewall);
	ROW("stat_only", "%s", TF(p->stat));
	ROW("unique_dir_per_task", "%s", TF(p->unique_dir));
	ROW("write_bytes", "%lld", (long long)p->write_bytes);
	ROW("sync_file", "%s", TF(p->fsync_each));
	ROW("call_sync", "%s", TF(p->sync_phase));
	ROW("depth", "%d", p->depth);
	ROW("make_node", "%d", p->mknod);
#undef ROW
#undef TF
}
