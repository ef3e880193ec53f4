/* SPDX-License-Identifier: BSD-3-Clause */
/* IOR's text output, section for section: header, test start, Options:, Results: rows,
 * remove rows, Max Write/Read, Summary of all tests (28 columns), Finished. Field widths are
 * IOR's, so scripts that parse IOR's output parse these lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "backend.h"
#include "files.h"
#include "stats.h"
#include "units.h"
#include "workload.h"
#include "workloads/ior/ior.h"

#define MIB ((double)SONDE_MIB)

void ior_time_string(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm);
}

void ior_platform(const struct ior_params *p, char *buf, size_t len)
{
	struct utsname u;
	if (p->platform) {
		snprintf(buf, len, "%s", p->platform);
		return;
	}
	if (uname(&u) != 0) {
		snprintf(buf, len, "Unknown(Unknown)");
		return;
	}
	size_t n = strlen(u.nodename);
	while (n > 1 && u.nodename[n - 1] >= '0' && u.nodename[n - 1] <= '9')
		n--;
	snprintf(buf, len, "%.*s(%s)", (int)n, u.nodename, u.sysname);
}

static void kv(FILE *out, const char *key, const char *value)
{
	fprintf(out, "%-20s: %s\n", key, value);
}

static void kvi(FILE *out, const char *key, long long value)
{
	fprintf(out, "%-20s: %lld\n", key, value);
}

void ior_print_header(FILE *out, const char *began, int argc, char **argv, int verbose)
{
	struct utsname u;
	fprintf(out, "IOR-4.1.0 (sonde %s): MPI Coordinated Test of Parallel I/O\n", sonde_version);
	kv(out, "Began", began);
	fprintf(out, "%-20s: sonde", "Command line");
	for (int i = 1; i < argc; i++)
		fprintf(out, " %s", argv[i]);
	fprintf(out, "\n");
	if (uname(&u) != 0) {
		kv(out, "Machine", "Unknown");
	} else {
		fprintf(out, "%-20s: %s %s", "Machine", u.sysname, u.nodename);
		if (verbose >= 2)
			fprintf(out, " %s %s %s", u.release, u.version, u.machine);
		fprintf(out, "\n");
	}
}

int ior_fs_of(const char *path, struct sonde_fs_usage *fs)
{
	char dir[4096];
	sonde_parent_dir(path, dir, sizeof dir);
	return sonde_fs_usage(dir, fs);
}

void ior_print_test_start(FILE *out, const struct ior_test *t)
{
	struct sonde_fs_usage fs;
	kvi(out, "TestID", t->p.id);
	kv(out, "StartTime", t->start_time);
	kv(out, "Path", t->path);
	if (ior_fs_of(t->path, &fs) == 0)
		sonde_fs_usage_print(out, &fs);
}

static struct ior_item *item(struct ior_item *it, int *n, const char *key)
{
	struct ior_item *i = &it[(*n)++];
	memset(i, 0, sizeof *i);
	i->key = key;
	return i;
}

static void text_item(struct ior_item *it, int *n, const char *key, const char *value)
{
	item(it, n, key)->text = value;
}

static void num_item(struct ior_item *it, int *n, const char *key, long long value)
{
	item(it, n, key)->num = value;
}

static void size_item(struct ior_item *it, int *n, const char *key, int64_t bytes)
{
	struct ior_item *i = item(it, n, key);
	i->text = sonde_format_size(bytes, i->buf, sizeof i->buf);
}

/* IOR's ShowSetup, line for line; sonde's read-back shift line among them. */
int ior_options_items(const struct ior_test *t, const struct ior_where *w,
                      struct ior_item items[IOR_MAX_ITEMS])
{
	const struct ior_params *p = &t->p;
	int n = 0;
	text_item(items, &n, "api", p->api);
	const struct sonde_backend *be = sonde_backend_find(p->api);
	text_item(items, &n, "apiVersion", be && be->version ? be->version() : "");
	text_item(items, &n, "test filename", p->test_file);
	text_item(items, &n, "access", p->fpp ? "file-per-process" : "single-shared-file");
	text_item(items, &n, "type", p->collective ? "collective" : "independent");
	num_item(items, &n, "segments", p->segments);
	text_item(items, &n, "ordering in a file", p->random_offset ? "random" : "sequential");
	if (p->reorder) {
		text_item(items, &n, "ordering inter file", "constant task offset");
		num_item(items, &n, "task offset", p->task_offset);
	} else if (p->reorder_random) {
		text_item(items, &n, "ordering inter file", "random task offset");
		num_item(items, &n, "task offset", p->task_offset);
		num_item(items, &n, "reorder random seed", p->reorder_seed);
	} else {
		text_item(items, &n, "ordering inter file", "no tasks offsets");
	}
	/* sonde's: which ranks -C/-Z make read; not "read..." so that parsers looking for the
	 * result rows by their first word do not take it for one */
	if (t->shift[0])
		text_item(items, &n, "shift on read-back", t->shift);
	num_item(items, &n, "nodes", w->nnodes);
	num_item(items, &n, "tasks", w->ntasks);
	num_item(items, &n, "clients per node", w->tpn);
	int64_t node = 0, task = 0;
	char err[256];
	if (ior_hog_sizes(p->memory_per_node, p->memory_per_task, &node, &task, err, sizeof err) ==
	    0) {
		if (task)
			size_item(items, &n, "memoryPerTask", task);
		if (node)
			size_item(items, &n, "memoryPerNode", node);
	}
	text_item(items, &n, "memoryBuffer", "CPU");
	text_item(items, &n, "dataAccess", "CPU");
	text_item(items, &n, "GPUDirect", "0");
	num_item(items, &n, "repetitions", p->reps);
	size_item(items, &n, "xfersize", p->xfer);
	size_item(items, &n, "blocksize", p->block);
	size_item(items, &n, "aggregate filesize", t->expected);
	if (p->dry_run)
		num_item(items, &n, "dryRun", p->dry_run);
	if (p->verbose)
		num_item(items, &n, "verbose", p->verbose);
	if (p->deadline > 0) {
		num_item(items, &n, "stonewallingTime", p->deadline);
		num_item(items, &n, "stoneWallingWearOut", p->wearout);
	}
	return n;
}

void ior_print_options(FILE *out, const struct ior_test *t, const struct ior_where *w)
{
	struct ior_item items[IOR_MAX_ITEMS];
	int n = ior_options_items(t, w, items);
	fprintf(out, "\nOptions: \n");
	for (int i = 0; i < n; i++) {
		if (items[i].text)
			kv(out, items[i].key, items[i].text);
		else
			kvi(out, items[i].key, items[i].num);
	}
}

void ior_print_table_header(FILE *out)
{
	fprintf(out, "\nResults: \n\n");
	fprintf(out, "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    "
	             "wr/rd(s)   close(s)   total(s)   iter\n");
	fprintf(out, "------    ---------  ----       ----------  ---------- ---------  --------   "
	             "--------   --------   --------   ----\n");
}

/* IOR's number style: 6 decimals below 1, 2 below 3600, none above; left-justified in 10. */
static void pp(FILE *out, double v, const char *append)
{
	if (v < 0) {
		fprintf(out, "   -      %s", append);
		return;
	}
	int prec = v < 1 ? 6 : v < 3600 ? 2 : 0;
	fprintf(out, "%-10.*f%s", prec, v, append);
}

void ior_print_row(FILE *out, const struct ior_params *p, const char *access,
                   const struct ior_point *pt, int rep)
{
	fprintf(out, "%-10s", access);
	pp(out, pt->bw / MIB, " ");
	pp(out, pt->iops, " ");
	pp(out, pt->latency, "  ");
	pp(out, (double)p->block / 1024, " ");
	pp(out, (double)p->xfer / 1024, " ");
	pp(out, pt->open, " ");
	pp(out, pt->xfer, " ");
	pp(out, pt->close, " ");
	pp(out, pt->total, " ");
	fprintf(out, "%-4d\n", rep);
	fflush(out);
}

void ior_print_remove(FILE *out, double seconds, int rep)
{
	fprintf(out, "remove    -          -          -           -          -          -          "
	             "-          -          ");
	pp(out, seconds, " ");
	fprintf(out, "%-4d\n", rep);
	fflush(out);
}

/* IOR prints these only with -v. */
void ior_print_max(FILE *out, const struct ior_test *t)
{
	if (t->p.verbose < 1)
		return;
	double w = 0, r = 0;
	for (int i = 0; i < t->reps_done; i++) {
		if (t->write[i].done && t->write[i].bw > w)
			w = t->write[i].bw;
		if (t->read[i].done && t->read[i].bw > r)
			r = t->read[i].bw;
	}
	if (t->p.write)
		fprintf(out, "Max Write: %.2f MiB/sec (%.2f MB/sec)\n", w / MIB, w / 1e6);
	if (t->p.read || t->p.check_read)
		fprintf(out, "Max Read:  %.2f MiB/sec (%.2f MB/sec)\n", r / MIB, r / 1e6);
	/* IOR's Stonewall(MiB) is a per-rank mean; the aggregate is what users expect */
	struct ior_summary s;
	for (int op = 1; op >= 0 && t->p.wearout && t->p.verbose >= 1; op--)
		if (ior_summarize(t, op, t->ntasks, &s) == 0 && s.stonewall)
			fprintf(out, "Aggregate %s bandwidth at the stonewall: %.2f MiB/s\n",
			        op ? "write" : "read", s.sw_aggregate_mib);
}

int ior_summarize(const struct ior_test *t, int write, int ntasks, struct ior_summary *s)
{
	memset(s, 0, sizeof *s);
	const struct ior_point *pts = write ? t->write : t->read;
	double *bw = malloc(sizeof *bw * (size_t)(t->reps_done > 0 ? t->reps_done : 1));
	if (!bw)
		return -1;
	double sw_bytes = 0, sw_time = 0, sw_total = 0;
	for (int i = 0; i < t->reps_done; i++) {
		if (!pts[i].done)
			continue;
		if (s->n == 0)
			s->agg_bytes = pts[i].bytes;
		bw[s->n++] = pts[i].bw;
		s->mean_time += pts[i].total;
		sw_bytes += (double)pts[i].sw_total_bytes / ntasks;
		sw_total += (double)pts[i].sw_total_bytes;
		sw_time += pts[i].sw_time;
	}
	struct sonde_stats st;
	sonde_stats_of(bw, s->n, &st);
	free(bw);
	if (s->n == 0)
		return -1;
	s->bw_max = st.max;
	s->bw_min = st.min;
	s->bw_mean = st.mean;
	s->bw_sd = st.stddev;
	/* IOR's OPs: the same bandwidths divided by the transfer size (total time, not access) */
	double x = (double)t->p.xfer;
	s->ops_max = s->bw_max / x;
	s->ops_min = s->bw_min / x;
	s->ops_mean = s->bw_mean / x;
	s->ops_sd = s->bw_sd / x;
	s->bw_max /= MIB;
	s->bw_min /= MIB;
	s->bw_mean /= MIB;
	s->bw_sd /= MIB;
	s->mean_time /= s->n;
	s->stonewall = t->p.wearout && t->p.deadline > 0;
	if (s->stonewall && sw_time > 0) {
		s->sw_time = sw_time / s->n;
		s->sw_mib = sw_bytes / sw_time / MIB;
		s->sw_aggregate_mib = sw_total / sw_time / MIB;
	}
	return 0;
}

static void summary_line(FILE *out, const struct ior_test *t, int write, int ntasks, int tpn)
{
	struct ior_summary s;
	const struct ior_params *p = &t->p;
	if (ior_summarize(t, write, ntasks, &s) < 0)
		return;
	fprintf(out, "%-9s ", write ? "write" : "read");
	fprintf(out, "%10.2f %10.2f %10.2f %10.2f ", s.bw_max, s.bw_min, s.bw_mean, s.bw_sd);
	fprintf(out, "%10.2f %10.2f %10.2f %10.2f ", s.ops_max, s.ops_min, s.ops_mean, s.ops_sd);
	fprintf(out, "%10.5f ", s.mean_time);
	if (s.stonewall)
		fprintf(out, "%10.2f %13.2f ", s.sw_time, s.sw_mib);
	else
		fprintf(out, "%10s %13s ", "NA", "NA");
	fprintf(out, "%5d %6d %3d %4d %3d %5d %8d %9d %4d ", p->id, ntasks, tpn, p->reps, p->fpp,
	        p->reorder, p->task_offset, p->reorder_random, p->reorder_seed);
	fprintf(out, "%6lld %8lld %8lld %9.1f %3s %6d\n", (long long)p->segments,
	        (long long)p->block, (long long)p->xfer, (double)s.agg_bytes / MIB, p->api,
	        p->refnum);
}

void ior_print_summary(FILE *out, const struct ior_test *tests, int ntests, int ntasks, int tpn)
{
	fprintf(out, "\nSummary of all tests:\n");
	fprintf(out, "%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s", "Operation", "Max(MiB)",
	        "Min(MiB)", "Mean(MiB)", "StdDev", "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev",
	        "Mean(s)");
	fprintf(out,
	        " Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand "
	        "seed segcnt ");
	fprintf(out, "%8s %8s %9s %5s RefNum\n", " blksiz", "xsize", "aggs(MiB)", "API");
	for (int k = 0; k < ntests; k++) {
		const struct ior_test *t = &tests[k];
		if (t->p.write)
			summary_line(out, t, 1, ntasks, tpn);
		if (t->p.read || t->p.check_read)
			summary_line(out, t, 0, ntasks, tpn);
	}
}

void ior_print_finished(FILE *out)
{
	char ts[40];
	ior_time_string(ts, sizeof ts);
	kv(out, "Finished", ts);
	fflush(out);
}
