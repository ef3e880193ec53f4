/* SPDX-License-Identifier: BSD-3-Clause */
/* -O summaryFormat=JSON|CSV: IOR's machine-readable results, with IOR's keys, written to
 * summaryFile (the text log stays on stdout) or to stdout in place of the text. Unlike IOR's,
 * the JSON is always valid: it is built by a JSON writer, and nothing else is mixed in. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "fail.h"
#include "files.h"
#include "json.h"
#include "results.h"
#include "units.h"
#include "workload.h"
#include "workloads/ior/ior.h"

#define MIB ((double)SONDE_MIB)

/* IOR writes its figures with four decimals ("blockKiB": 64.0000). */
static void dbl4(struct sonde_json *j, const char *key, double v)
{
	char b[64];
	if (!isfinite(v)) {
		sonde_json_null(j, key);
		return;
	}
	snprintf(b, sizeof b, "%.4f", v);
	sonde_json_raw(j, key, b);
}

static void strf(struct sonde_json *j, const char *key, const char *fmt, double v, const char *u)
{
	char b[64];
	snprintf(b, sizeof b, fmt, v, u);
	sonde_json_string(j, key, b);
}

static void parameters(struct sonde_json *j, const struct ior_params *p, const struct ior_where *w)
{
	int64_t node = 0, task = 0;
	char err[256], platform[600];
	ior_hog_sizes(p->memory_per_node, p->memory_per_task, &node, &task, err, sizeof err);
	ior_platform(p, platform, sizeof platform);
	sonde_json_object_begin(j, "Parameters");
	sonde_json_int(j, "testID", p->id);
	sonde_json_int(j, "refnum", p->refnum);
	sonde_json_string(j, "api", p->api);
	sonde_json_string(j, "platform", platform);
	sonde_json_string(j, "testFileName", p->test_file);
	sonde_json_int(j, "deadlineForStonewall", p->deadline);
	sonde_json_int(j, "stoneWallingWearOut", p->wearout);
	sonde_json_int(j, "maxTimeDuration", p->max_minutes);
	sonde_json_int(j, "outlierThreshold", p->outlier);
	sonde_json_string(j, "options", "(null)");
	sonde_json_int(j, "dryRun", p->dry_run);
	sonde_json_int(j, "nodes", w->nnodes);
	sonde_json_int(j, "memoryPerTask", task);
	sonde_json_int(j, "memoryPerNode", node);
	sonde_json_int(j, "tasksPerNode", w->tpn);
	sonde_json_int(j, "repetitions", p->reps);
	sonde_json_int(j, "multiFile", p->multi_file);
	sonde_json_int(j, "interTestDelay", p->delay);
	sonde_json_int(j, "fsync", p->fsync);
	sonde_json_int(j, "fsyncperwrite", p->fsync_per_write);
	sonde_json_int(j, "useExistingTestFile", p->use_existing);
	sonde_json_int(j, "uniqueDir", p->unique_dir);
	sonde_json_int(j, "singleXferAttempt", 0);
	sonde_json_int(j, "readFile", p->read);
	sonde_json_int(j, "writeFile", p->write);
	sonde_json_int(j, "filePerProc", p->fpp);
	sonde_json_int(j, "reorderTasks", p->reorder);
	sonde_json_int(j, "reorderTasksRandom", p->reorder_random);
	sonde_json_int(j, "reorderTasksRandomSeed", p->reorder_seed);
	sonde_json_int(j, "randomOffset", p->random_offset);
	sonde_json_int(j, "checkWrite", p->check_write);
	sonde_json_int(j, "checkRead", p->check_read);
	sonde_json_int(j, "dataPacketType", p->packet);
	sonde_json_int(j, "keepFile", p->keep);
	sonde_json_int(j, "keepFileWithError", p->keep_on_error);
	sonde_json_int(j, "warningAsErrors", 0);
	sonde_json_int(j, "verbose", p->verbose);
	sonde_json_string(j, "data packet type", p->packet_name);
	sonde_json_int(j, "setTimeStampSignature/incompressibleSeed", p->signature);
	sonde_json_int(j, "collective", p->collective);
	sonde_json_int(j, "segmentCount", p->segments);
	sonde_json_int(j, "transferSize", p->xfer);
	sonde_json_int(j, "blockSize", p->block);
	sonde_json_object_end(j);
}

static void options_obj(struct sonde_json *j, const struct ior_test *t, const struct ior_where *w)
{
	struct ior_item items[IOR_MAX_ITEMS];
	int n = ior_options_items(t, w, items);
	sonde_json_object_begin(j, "Options");
	for (int i = 0; i < n; i++) {
		if (items[i].text)
			sonde_json_string(j, items[i].key, items[i].text);
		else
			sonde_json_int(j, items[i].key, items[i].num);
	}
	sonde_json_object_end(j);
}

static void result_obj(struct sonde_json *j, const struct ior_params *p, const char *access,
                       const struct ior_point *pt)
{
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "access", access);
	dbl4(j, "bwMiB", pt->bw / MIB);
	dbl4(j, "blockKiB", (double)p->block / 1024);
	dbl4(j, "xferKiB", (double)p->xfer / 1024);
	dbl4(j, "iops", pt->iops);
	dbl4(j, "latency", pt->latency);
	dbl4(j, "openTime", pt->open);
	dbl4(j, "wrRdTime", pt->xfer);
	dbl4(j, "closeTime", pt->close);
	dbl4(j, "totalTime", pt->total);
	sonde_json_object_end(j);
}

/* With -v, IOR lists each repetition's delete after its results. */
static void remove_obj(struct sonde_json *j, double seconds)
{
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "access", "remove");
	dbl4(j, "totalTime", seconds);
	sonde_json_object_end(j);
}

/* IOR's "max" section: the best iteration of each operation, MiB/s and MB/s */
static void max_obj(struct sonde_json *j, const struct ior_test *t)
{
	double w = 0, r = 0;
	for (int i = 0; i < t->reps_done; i++) {
		if (t->write[i].done)
			w = fmax(w, t->write[i].bw);
		if (t->read[i].done)
			r = fmax(r, t->read[i].bw);
	}
	sonde_json_object_begin(j, "max");
	if (t->p.write) {
		dbl4(j, "writeMiB", w / MIB);
		dbl4(j, "writeMB", w / 1e6);
	}
	if (t->p.read || t->p.check_read) {
		dbl4(j, "readMiB", r / MIB);
		dbl4(j, "readMB", r / 1e6);
	}
	sonde_json_object_end(j);
}

static void summary_obj(struct sonde_json *j, const struct ior_test *t, int write,
                        const struct ior_where *w)
{
	const struct ior_params *p = &t->p;
	struct ior_summary s;
	if (ior_summarize(t, write, w->ntasks, &s) < 0)
		return;
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "operation", write ? "write" : "read");
	sonde_json_string(j, "API", p->api);
	sonde_json_int(j, "TestID", p->id);
	sonde_json_int(j, "ReferenceNumber", p->refnum);
	sonde_json_int(j, "segmentCount", p->segments);
	sonde_json_int(j, "blockSize", p->block);
	sonde_json_int(j, "transferSize", p->xfer);
	sonde_json_int(j, "numTasks", w->ntasks);
	sonde_json_int(j, "tasksPerNode", w->tpn);
	sonde_json_int(j, "repetitions", p->reps);
	sonde_json_int(j, "filePerProc", p->fpp);
	sonde_json_int(j, "reorderTasks", p->reorder);
	sonde_json_int(j, "taskPerNodeOffset", p->task_offset);
	sonde_json_int(j, "reorderTasksRandom", p->reorder_random);
	sonde_json_int(j, "reorderTasksRandomSeed", p->reorder_seed);
	dbl4(j, "bwMaxMIB", s.bw_max);
	dbl4(j, "bwMinMIB", s.bw_min);
	dbl4(j, "bwMeanMIB", s.bw_mean);
	dbl4(j, "bwStdMIB", s.bw_sd);
	dbl4(j, "OPsMax", s.ops_max);
	dbl4(j, "OPsMin", s.ops_min);
	dbl4(j, "OPsMean", s.ops_mean);
	dbl4(j, "OPsSD", s.ops_sd);
	dbl4(j, "MeanTime", s.mean_time);
	if (s.stonewall) {
		dbl4(j, "StoneWallTime", s.sw_time);
		dbl4(j, "StoneWallbwMeanMIB", s.sw_mib);
	}
	dbl4(j, "xsizeMiB", (double)s.agg_bytes / MIB);
	sonde_json_object_end(j);
}

static void write_json(FILE *f, const struct ior_test *tests, int ntests, const char *began,
                       int argc, char **argv, const struct ior_where *w)
{
	struct sonde_json j;
	char b[8192], ts[40];
	struct utsname u;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	snprintf(b, sizeof b, "4.1.0 (sonde %s)", sonde_version);
	sonde_json_string(&j, "Version", b);
	sonde_json_string(&j, "Began", began);
	size_t n = (size_t)snprintf(b, sizeof b, "sonde");
	for (int i = 1; i < argc && n < sizeof b; i++)
		n += (size_t)snprintf(b + n, sizeof b - n, " %s", argv[i]);
	sonde_json_string(&j, "Command line", b);
	if (uname(&u) == 0)
		snprintf(b, sizeof b, "%s %s", u.sysname, u.nodename);
	else
		snprintf(b, sizeof b, "Unknown");
	sonde_json_string(&j, "Machine", b);
	sonde_json_array_begin(&j, "tests");
	for (int k = 0; k < ntests; k++) {
		const struct ior_test *t = &tests[k];
		struct sonde_fs_usage fs;
		sonde_json_object_begin(&j, NULL);
		sonde_json_int(&j, "TestID", t->p.id);
		sonde_json_string(&j, "StartTime", t->start_time);
		sonde_json_string(&j, "Path", t->path);
		if (ior_fs_of(t->path, &fs) == 0) {
			strf(&j, "Capacity", "%.1f %s", fs.size, fs.unit);
			strf(&j, "Used Capacity", "%2.1f%%%s", fs.used_pct, "");
			strf(&j, "Inodes", "%.1f Mi%s", fs.inodes_mi, "");
			strf(&j, "Used Inodes", "%2.1f%%%s", fs.used_inodes_pct, "");
		}
		parameters(&j, &t->p, w);
		options_obj(&j, t, w);
		sonde_json_array_begin(&j, "Results");
		for (int i = 0; i < t->reps_done; i++) {
			if (t->write[i].done)
				result_obj(&j, &t->p, "write", &t->write[i]);
			if (t->read[i].done)
				result_obj(&j, &t->p, "read", &t->read[i]);
			if (t->p.verbose >= 1 && t->remove_s[i] >= 0)
				remove_obj(&j, t->remove_s[i]);
		}
		sonde_json_array_end(&j);
		max_obj(&j, t);
		sonde_json_object_end(&j);
	}
	sonde_json_array_end(&j);
	sonde_json_array_begin(&j, "summary");
	for (int k = 0; k < ntests; k++) {
		if (tests[k].p.write)
			summary_obj(&j, &tests[k], 1, w);
		if (tests[k].p.read || tests[k].p.check_read)
			summary_obj(&j, &tests[k], 0, w);
	}
	sonde_json_array_end(&j);
	ior_time_string(ts, sizeof ts);
	sonde_json_string(&j, "Finished", ts);
	sonde_json_object_end(&j);
	fprintf(f, "%s\n", j.buf);
	sonde_json_free(&j);
}

static void csv_row(FILE *f, const struct ior_params *p, const char *access,
                    const struct ior_point *pt, int ntasks, int rep)
{
	fprintf(f, "%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d\n", access, pt->bw / MIB,
	        pt->iops, pt->latency, (double)p->block / 1024, (double)p->xfer / 1024, pt->open,
	        pt->xfer, pt->close, pt->total, ntasks, rep);
}

static void write_csv(FILE *f, const struct ior_test *tests, int ntests, int ntasks)
{
	fprintf(f, "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),"
	           "total(s),numTasks,iter\n");
	for (int k = 0; k < ntests; k++) {
		const struct ior_test *t = &tests[k];
		for (int i = 0; i < t->reps_done; i++) {
			if (t->write[i].done)
				csv_row(f, &t->p, "write", &t->write[i], ntasks, i);
			if (t->read[i].done)
				csv_row(f, &t->p, "read", &t->read[i], ntasks, i);
		}
	}
}

int ior_summary_file(const struct ior_test *tests, int ntests, const char *began, int argc,
                     char **argv, const struct ior_where *w, char *err, size_t errlen)
{
	const struct ior_params *p = &tests[0].p;
	FILE *f = stdout;
	if (p->summary_file) {
		f = sonde_fopen_nofollow(p->summary_file, "w");
		if (!f) {
			snprintf(err, errlen, "cannot create summaryFile %s: %s", p->summary_file,
			         sonde_strerror(errno));
			return -1;
		}
	}
	if (p->format == IOR_FORMAT_JSON)
		write_json(f, tests, ntests, began, argc, argv, w);
	else
		write_csv(f, tests, ntests, w->ntasks);
	int e = f != stdout ? sonde_fclose_checked(f) : 0;
	if (e) {
		snprintf(err, errlen, "cannot write summaryFile %s: %s", p->summary_file,
		         sonde_strerror(e));
		sonde_results_note_failure(0, p->summary_file, err);
		return -1;
	}
	fflush(stdout);
	return 0;
}
