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
#include "ior.h"
#include "json.h"
#include "units.h"
#include "workload.h"

#define MIB 1048576.0

static double r4(double v)
{
	return round(v * 1e4) / 1e4;
}

static void strf(struct sonde_json *j, const char *key, const char *fmt, double v, const char *u)
{
	char b[64];
	snprintf(b, sizeof b, fmt, v, u);
	sonde_json_string(j, key, b);
}

static void parameters(struct sonde_json *j, const struct ior_params *p, int tpn)
{
	sonde_json_object_begin(j, "Parameters");
	sonde_json_int(j, "testID", p->id);
	sonde_json_int(j, "refnum", p->refnum);
	sonde_json_string(j, "api", p->api);
	sonde_json_string(j, "platform", "");
	sonde_json_string(j, "testFileName", p->test_file);
	sonde_json_string(j, "hintsFileName", p->hints_file ? p->hints_file : "");
	sonde_json_int(j, "deadlineForStonewall", p->deadline);
	sonde_json_int(j, "stoneWallingWearOut", p->wearout);
	sonde_json_int(j, "maxTimeDuration", p->max_minutes);
	sonde_json_int(j, "outlierThreshold", p->outlier);
	sonde_json_string(j, "options", "");
	sonde_json_int(j, "tasksPerNode", tpn);
	sonde_json_int(j, "repetitions", p->reps);
	sonde_json_int(j, "multiFile", p->multi_file);
	sonde_json_int(j, "interTestDelay", p->delay);
	sonde_json_int(j, "fsync", p->fsync);
	sonde_json_int(j, "fsyncperwrite", p->fsync_per_write);
	sonde_json_int(j, "useExistingTestFile", p->use_existing);
	sonde_json_int(j, "uniqueDir", p->unique_dir);
	sonde_json_int(j, "readFile", p->read);
	sonde_json_int(j, "writeFile", p->write);
	sonde_json_int(j, "filePerProc", p->fpp);
	sonde_json_int(j, "reorderTasks", p->reorder);
	sonde_json_int(j, "reorderTasksRandom", p->reorder_random);
	sonde_json_int(j, "reorderTasksRandomSeed", p->reorder_seed);
	sonde_json_int(j, "randomOffset", p->random_offset);
	sonde_json_int(j, "checkWrite", p->check_write);
	sonde_json_int(j, "checkRead", p->check_read);
	sonde_json_int(j, "useO_DIRECT", p->odirect);
	sonde_json_int(j, "keepFile", p->keep);
	sonde_json_int(j, "keepFileWithError", p->keep_on_error);
	sonde_json_int(j, "verbose", p->verbose);
	sonde_json_string(j, "data packet type", p->packet_name);
	sonde_json_int(j, "setTimeStampSignature/incompressibleSeed", p->signature);
	sonde_json_int(j, "collective", p->collective);
	sonde_json_int(j, "segmentCount", p->segments);
	sonde_json_int(j, "transferSize", p->xfer);
	sonde_json_int(j, "blockSize", p->block);
	sonde_json_object_end(j);
}

static void options_obj(struct sonde_json *j, const struct ior_test *t, int ntasks, int tpn)
{
	const struct ior_params *p = &t->p;
	char b[64];
	sonde_json_object_begin(j, "Options");
	sonde_json_string(j, "api", p->api);
	sonde_json_string(j, "apiVersion", "");
	sonde_json_string(j, "test filename", p->test_file);
	sonde_json_string(j, "access", p->fpp ? "file-per-process" : "single-shared-file");
	sonde_json_string(j, "type", p->collective ? "collective" : "independent");
	snprintf(b, sizeof b, "%lld", (long long)p->segments);
	sonde_json_string(j, "segments", b);
	sonde_json_string(j, "ordering in a file", p->random_offset ? "random" : "sequential");
	sonde_json_string(j, "ordering inter file",
	                  p->reorder          ? "constant task offset"
	                  : p->reorder_random ? "random task offset"
	                                      : "no tasks offsets");
	snprintf(b, sizeof b, "%d", ntasks);
	sonde_json_string(j, "tasks", b);
	snprintf(b, sizeof b, "%d", tpn);
	sonde_json_string(j, "clients per node", b);
	snprintf(b, sizeof b, "%d", p->reps);
	sonde_json_string(j, "repetitions", b);
	sonde_json_string(j, "xfersize", sonde_format_size(p->xfer, b, sizeof b));
	sonde_json_string(j, "blocksize", sonde_format_size(p->block, b, sizeof b));
	sonde_json_string(j, "aggregate filesize", sonde_format_size(t->expected, b, sizeof b));
	sonde_json_object_end(j);
}

static void result_obj(struct sonde_json *j, const struct ior_params *p, const char *access,
                       const struct ior_point *pt)
{
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "access", access);
	sonde_json_double(j, "bwMiB", r4(pt->bw / MIB));
	sonde_json_double(j, "blockKiB", r4((double)p->block / 1024));
	sonde_json_double(j, "xferKiB", r4((double)p->xfer / 1024));
	sonde_json_double(j, "iops", r4(pt->iops));
	sonde_json_double(j, "latency", r4(pt->latency));
	sonde_json_double(j, "openTime", r4(pt->open));
	sonde_json_double(j, "wrRdTime", r4(pt->xfer));
	sonde_json_double(j, "closeTime", r4(pt->close));
	sonde_json_double(j, "totalTime", r4(pt->total));
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
		sonde_json_double(j, "writeMiB", r4(w / MIB));
		sonde_json_double(j, "writeMB", r4(w / 1e6));
	}
	if (t->p.read || t->p.check_read) {
		sonde_json_double(j, "readMiB", r4(r / MIB));
		sonde_json_double(j, "readMB", r4(r / 1e6));
	}
	sonde_json_object_end(j);
}

static void summary_obj(struct sonde_json *j, const struct ior_test *t, int write, int ntasks,
                        int tpn)
{
	const struct ior_params *p = &t->p;
	struct ior_summary s;
	if (ior_summarize(t, write, ntasks, &s) < 0)
		return;
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "operation", write ? "write" : "read");
	sonde_json_string(j, "API", p->api);
	sonde_json_int(j, "TestID", p->id);
	sonde_json_int(j, "ReferenceNumber", p->refnum);
	sonde_json_int(j, "segmentCount", p->segments);
	sonde_json_int(j, "blockSize", p->block);
	sonde_json_int(j, "transferSize", p->xfer);
	sonde_json_int(j, "numTasks", ntasks);
	sonde_json_int(j, "tasksPerNode", tpn);
	sonde_json_int(j, "repetitions", p->reps);
	sonde_json_int(j, "filePerProc", p->fpp);
	sonde_json_int(j, "reorderTasks", p->reorder);
	sonde_json_int(j, "taskPerNodeOffset", p->task_offset);
	sonde_json_int(j, "reorderTasksRandom", p->reorder_random);
	sonde_json_int(j, "reorderTasksRandomSeed", p->reorder_seed);
	sonde_json_double(j, "bwMaxMIB", r4(s.bw_max));
	sonde_json_double(j, "bwMinMIB", r4(s.bw_min));
	sonde_json_double(j, "bwMeanMIB", r4(s.bw_mean));
	sonde_json_double(j, "bwStdMIB", r4(s.bw_sd));
	sonde_json_double(j, "OPsMax", r4(s.ops_max));
	sonde_json_double(j, "OPsMin", r4(s.ops_min));
	sonde_json_double(j, "OPsMean", r4(s.ops_mean));
	sonde_json_double(j, "OPsSD", r4(s.ops_sd));
	sonde_json_double(j, "MeanTime", r4(s.mean_time));
	if (s.stonewall) {
		sonde_json_double(j, "StoneWallTime", r4(s.sw_time));
		sonde_json_double(j, "StoneWallbwMeanMIB", r4(s.sw_mib));
	}
	sonde_json_double(j, "xsizeMiB", r4((double)s.agg_bytes / MIB));
	sonde_json_object_end(j);
}

static void write_json(FILE *f, const struct ior_test *tests, int ntests, const char *began,
                       int argc, char **argv, int ntasks, int tpn)
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
		parameters(&j, &t->p, tpn);
		options_obj(&j, t, ntasks, tpn);
		sonde_json_array_begin(&j, "Results");
		for (int i = 0; i < t->reps_done; i++) {
			if (t->write[i].done)
				result_obj(&j, &t->p, "write", &t->write[i]);
			if (t->read[i].done)
				result_obj(&j, &t->p, "read", &t->read[i]);
		}
		sonde_json_array_end(&j);
		max_obj(&j, t);
		sonde_json_object_end(&j);
	}
	sonde_json_array_end(&j);
	sonde_json_array_begin(&j, "summary");
	for (int k = 0; k < ntests; k++) {
		if (tests[k].p.write)
			summary_obj(&j, &tests[k], 1, ntasks, tpn);
		if (tests[k].p.read || tests[k].p.check_read)
			summary_obj(&j, &tests[k], 0, ntasks, tpn);
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
                     char **argv, int ntasks, int tpn, char *err, size_t errlen)
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
		write_json(f, tests, ntests, began, argc, argv, ntasks, tpn);
	else
		write_csv(f, tests, ntests, ntasks);
	if (f != stdout && fclose(f) != 0) {
		snprintf(err, errlen, "cannot write summaryFile %s", p->summary_file);
		return -1;
	}
	fflush(stdout);
	return 0;
}
