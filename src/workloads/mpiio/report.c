/* SPDX-License-Identifier: BSD-3-Clause */
/* The report in mpi_io_test's format: the header, the Input Parameters and MPI environment
 * blocks, then per phase the "=== ..." lines of min [rank] / avg / max [rank] over the ranks,
 * -verbose per-rank lines, the hints the file carried; and the same figures as JSON records.
 *
 * Every bandwidth is the job's bytes (N' x nobj x size, in MiB) over one rank's time: min is
 * over the slowest rank's time, avg over the mean time, max over the fastest rank's time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fail.h"
#include "json.h"
#include "results.h"
#include "stats.h"
#include "units.h"
#include "workloads/mpiio/mpiio.h"

extern char **environ;

static const char *type_label(int type)
{
	static const char *const labels[] = {
	    "", "N -> N", "N -> 1", "N -> M -> M", "N -> M -> 1", "N -> M"};
	return labels[type];
}

/* The input parameters and the layout they make: how many ranks write, how many files. */
static void params_members(struct sonde_json *j, const struct mpiio_run *run)
{
	sonde_options_json(&mpiio_table, run->p, j);
	sonde_json_int(j, "writers", run->writers);
	sonde_json_int(j, "files", run->nfiles);
}

/* What the original printed as -csize: types 1 and 2 buffer one object, types 3 and 4 have
 * their aggregator buffer, type 5 has none (its value was whatever -csize said, else 0). */
static int64_t shown_csize(const struct mpiio_params *p)
{
	if (p->type == MPIIO_N_TO_N || p->type == MPIIO_N_TO_1)
		return p->size;
	if (p->type == MPIIO_N_TO_M)
		return p->csize;
	return p->csize ? p->csize : p->size * p->nobj;
}

static void print_words(FILE *f, const char *label, const struct sonde_strlist *l, const char *none)
{
	fprintf(f, "%s: %s", label, l->count ? "" : none);
	for (int i = 0; i < l->count; i++)
		fprintf(f, "%s%s", i ? " " : "", l->items[i]);
	fprintf(f, "\n");
}

/* -lhosts: "RANK r: host" for every rank, in rank order. */
static void print_lhosts(const struct mpiio_run *run)
{
	fprintf(run->out, "\nHosts List:\n");
	for (int r = 0; r < run->nranks; r++)
		fprintf(run->out, "RANK %d: %s\n", r, sonde_host_of(&run->ctx->topo, r));
}

/* The Input Parameters block: every line mpi_io_test 1.00.009 prints, with its label and in its
 * place, then sonde's own lines. */
static void print_parameters(const struct mpiio_run *run, FILE *f)
{
	const struct mpiio_params *p = run->p;
	fprintf(f, "Input Parameters:\n");
	fprintf(f, "I/O Testing type %s: %d\n", type_label(p->type), p->type);
	fprintf(f, "Total number of processors (N): %d\n", run->nranks);
	fprintf(f, "Total number of I/O processors (M): %d\n", run->writers);
	if (mpiio_aggregating(p->type)) {
		char all[32];
		snprintf(all, sizeof all, "%d", run->writers); /* no -num_io: every process */
		print_words(f, "Number of I/O processors per host", &p->num_io, all);
	}
	print_words(f, "Host Name List", &p->host, "None");
	fprintf(f, "Number of circular buffers (-ahead): %d\n", p->ahead);
	fprintf(f, "Number of objects (-nobj): %d\n", p->nobj);
	fprintf(f, "Number of bytes in each object (-size): %lld\n", (long long)p->size);
	fprintf(f, "Circular buffer size (-csize): %lld\n", (long long)shown_csize(p));
	fprintf(f, "Preallocate file size (-preallocate): %lld\n", (long long)p->preallocate);
	fprintf(f, "Check data read (-chkdata): %d\n", p->chkdata);
	fprintf(f, "Use collective read/write calls (-collective): %d\n", p->collective);
	fprintf(f, "Call MPI_Barrier before each write (-barrier): %d\n", p->barrier);
	fprintf(f, "Flush data before file close (-sync): %d\n", p->sync);
	fprintf(f, "Strided data layout (-strided): %d\n", p->strided);
	fprintf(f, "Delete data file when done reading (-deletefile): %d\n", p->deletefile);
	fprintf(f, "Write output data to file (-nofile): %d\n", !p->nofile);
	fprintf(f, "Aggregators send data to themselves (-norsend): %d\n", !p->norsend);
	if (p->targets)
		fprintf(f, "File containing target files (-targets): %s\n", p->targets);
	else
		fprintf(f, "Test data written to (-target): %s\n",
		        p->nofile ? "(none)" : run->shown);
	fprintf(f, "Touch object option (-touch): %d\n", p->touch);
	fprintf(f, "Timing results written to (-output): %s\n", p->output ? p->output : "stdout");
	fprintf(f, "Errors and warnings written to (-errout): %s\n",
	        p->errout ? p->errout : "stderr");
	fprintf(f, "Number of files: %d\n", p->nofile ? 0 : run->nfiles);
	fprintf(f, "Operation (-op): %s\n", p->op ? p->op : "write, read");
	fprintf(f, "Sleep between write and read (-sleep): %d\n", p->sleep);
	fprintf(f, "Direct I/O (-dio): %d\n", p->dio);
	print_words(f, "MPI-IO hints (-hints)", &p->hints, "None");
	fprintf(f, "Page size stamped by -touch 3 (bytes): %lld\n", (long long)run->page);
}

void mpiio_print_header(const struct mpiio_run *run)
{
	if (run->rank == 0) {
		/* The header line goes to stdout even with -output, as the original's did. */
		time_t now = time(NULL);
		char when[64];
		struct tm tm;
		strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", localtime_r(&now, &tm));
		printf("MPI-IO TEST v1.00.009 (sonde %s): %s\n\n", sonde_version, when);
		fflush(stdout);
		FILE *f = run->out;
		print_parameters(run, f);
		fprintf(f, "\nEnvironment Variables (MPI):\n");
		for (char **e = environ; *e; e++)
			if (strstr(*e, "MPI"))
				fprintf(f, "%s\n", *e);
		fprintf(f, "\n");
		fflush(f);
	}
	if (run->rank == 0 && run->p->lhosts)
		print_lhosts(run);
	if (run->rank == 0)
		fflush(run->out);
}

void mpiio_print_phase_start(const struct mpiio_run *run, int write)
{
	if (run->rank != 0)
		return;
	const char *target = run->p->nofile ? "(no file)" : run->shown;
	if (write)
		fprintf(run->out, "=== MPI write [%d->%d->%d %s] Starting ...\n", run->nranks,
		        run->writers, run->nfiles, target);
	else
		fprintf(run->out, "=== MPI read [%d->%d->%d %s] Starting ...\n", run->nfiles,
		        run->writers, run->nranks, target);
	fflush(run->out);
}

/* Timers in the order the report prints them. */
enum { T_TOTAL, T_OP, T_OPEN, T_WAIT, T_BARRIER, T_PREALLOC, T_SYNC, T_CLOSE, T_SEND, T_RECV, NT };

static void timer_values(const struct mpiio_times *t, double *v)
{
	v[T_TOTAL] = t->total;
	v[T_OP] = t->op;
	v[T_OPEN] = t->open;
	v[T_WAIT] = t->wait;
	v[T_BARRIER] = t->barrier;
	v[T_PREALLOC] = t->prealloc;
	v[T_SYNC] = t->sync;
	v[T_CLOSE] = t->close;
	v[T_SEND] = t->send;
	v[T_RECV] = t->recv;
}

struct bw {
	double min, avg, max;
	int min_rank, max_rank;
};

static struct bw bandwidth(double mib, const struct sonde_stats *s)
{
	struct bw b = {mib / s->max, mib / s->mean, mib / s->min, s->max_rank, s->min_rank};
	return b;
}

static void bw_line(FILE *f, const char *label, struct bw b)
{
	fprintf(f, "=== %s (min [rank] avg max [rank]): %e [%d] %e %e [%d] Mbytes/s.\n", label,
	        b.min, b.min_rank, b.avg, b.max, b.max_rank);
}

/* The "=== ..." time lines keep the original's spacing, which differs from line to line: tail
 * is " sec." or "  sec.", head "min [rank] avg max [rank]" or (Close) "min [rank]  avg max
 * [rank]", and the send wait line has two blanks after its first rank. */
static void time_line(FILE *f, const char *label, const char *head, const char *gap,
                      const struct sonde_stats *s, const char *tail)
{
	fprintf(f, "=== %s (%s): %e [%d]%s%e %e [%d]%s\n", label, head, s->min, s->min_rank, gap,
	        s->mean, s->max, s->max_rank, tail);
}

static void receive_line(FILE *f, const struct sonde_stats *s)
{
	fprintf(f, "=== MPI Processor Receive Wait Time (min avg max): %e[%d]  %e %e[%d]  sec.\n",
	        s->min, s->min_rank, s->mean, s->max, s->max_rank);
}

/* Who sends and who receives: senders send and aggregators receive when writing; reading
 * reverses it. */
static int takes_part(const struct mpiio_run *run, int write, int timer)
{
	int agg = run->plan.my_agg >= 0;
	if (timer == T_SEND)
		return write ? !agg : agg;
	return write ? agg : !agg;
}

/* -verbose: every rank's value after the summary line it belongs to, in rank order, with the
 * original's labels ("[r] Write Bandwidth = %e", "[r] Processor send wait time: %e sec."). */
struct per_rank {
	const double *all; /* rank 0: NT values per rank; NULL without -verbose */
	int nranks;
	double mib;
};

static void rank_lines(FILE *f, const struct per_rank *pr, int timer, const char *label,
                       int bandwidth)
{
	for (int r = 0; pr->all && r < pr->nranks; r++) {
		double v = pr->all[(size_t)r * NT + (size_t)timer];
		if (timer == T_SEND)
			fprintf(f, "[%d] %s: %e sec.\n", r, label, v);
		else
			fprintf(f, "[%d] %s = %e\n", r, label, bandwidth ? pr->mib / v : v);
	}
}

static void print_phase(const struct mpiio_run *run, int write, const struct sonde_stats *s,
                        const struct per_rank *pr)
{
	const struct mpiio_params *p = run->p;
	FILE *f = run->out;
	const char *op = write ? "Write" : "Read";
	const char *h = "min [rank] avg max [rank]";
	char label[64];
	bw_line(f, "Effective Bandwidth", bandwidth(pr->mib, &s[T_TOTAL]));
	time_line(f, "Total Time", h, " ", &s[T_TOTAL], " sec.");
	rank_lines(f, pr, T_TOTAL, "Effective Bandwidth", 1);
	snprintf(label, sizeof label, "%s Bandwidth", op);
	bw_line(f, label, bandwidth(pr->mib, &s[T_OP]));
	snprintf(label, sizeof label, "%s Time", op);
	time_line(f, label, h, " ", &s[T_OP], " sec.");
	snprintf(label, sizeof label, "%s Bandwidth", op);
	rank_lines(f, pr, T_OP, label, 1);
	time_line(f, "MPI File Open Time", h, " ", &s[T_OPEN], " sec.");
	rank_lines(f, pr, T_OPEN, "File Open Time", 0);
	snprintf(label, sizeof label, "MPI File %s Wait Time", op);
	time_line(f, label, h, " ", &s[T_WAIT], "  sec.");
	rank_lines(f, pr, T_WAIT, label + strlen("MPI "), 0);
	/* The original's per-rank preallocate line showed the sync time; this one shows its own. */
	time_line(f, "MPI File Preallocate Time", h, " ", &s[T_PREALLOC], " sec.");
	rank_lines(f, pr, T_PREALLOC, "File Preallocate Time", 0);
	if (write && p->barrier) {
		time_line(f, "MPI Barrier Wait Time", h, " ", &s[T_BARRIER], " sec.");
		rank_lines(f, pr, T_BARRIER, "MPI_Barrier Time before each write", 0);
	}
	if (write && p->sync) {
		time_line(f, "MPI File Sync Time", h, " ", &s[T_SYNC], " sec.");
		rank_lines(f, pr, T_SYNC, "File Sync Time", 0);
	}
	time_line(f, "MPI File Close Wait Time", "min [rank]  avg max [rank]", " ", &s[T_CLOSE],
	          "  sec.");
	rank_lines(f, pr, T_CLOSE, "File Close Time", 0);
	if (mpiio_aggregating(p->type)) {
		time_line(f, "MPI Processor send wait time", h, "  ", &s[T_SEND], "  sec.");
		receive_line(f, &s[T_RECV]);
		rank_lines(f, pr, T_SEND, "Processor send wait time", 0);
	}
	fprintf(f, "=== Completed MPI-IO %s.\n", op);
	fflush(f);
}

static void json_stats(struct sonde_json *j, const char *key, const struct sonde_stats *s)
{
	sonde_json_object_begin(j, key);
	sonde_json_double(j, "min", s->min);
	sonde_json_int(j, "min_rank", s->min_rank);
	sonde_json_double(j, "avg", s->mean);
	sonde_json_double(j, "max", s->max);
	sonde_json_int(j, "max_rank", s->max_rank);
	sonde_json_int(j, "ranks", s->n);
	sonde_json_object_end(j);
}

static void json_bw(struct sonde_json *j, const char *key, struct bw b)
{
	sonde_json_object_begin(j, key);
	sonde_json_double(j, "min", b.min);
	sonde_json_int(j, "min_rank", b.min_rank);
	sonde_json_double(j, "avg", b.avg);
	sonde_json_double(j, "max", b.max);
	sonde_json_int(j, "max_rank", b.max_rank);
	sonde_json_object_end(j);
}

static const char *const timer_names[NT] = {"total",       "op",   "open",  "wait", "barrier",
                                            "preallocate", "sync", "close", "send", "recv"};

static void record(const struct mpiio_run *run, int write, const struct sonde_stats *s,
                   const struct sonde_finish *fin, const int64_t *verify, double mib,
                   const double span[2])
{
	const struct mpiio_params *p = run->p;
	struct sonde_json x, par;
	sonde_json_init(&x);
	sonde_json_object_begin(&x, NULL);
	json_bw(&x, "effective_bandwidth_mib_s", bandwidth(mib, &s[T_TOTAL]));
	json_bw(&x, "raw_bandwidth_mib_s", bandwidth(mib, &s[T_OP]));
	sonde_json_object_begin(&x, "times_s");
	for (int k = 0; k < NT; k++)
		json_stats(&x, timer_names[k], &s[k]);
	sonde_json_object_end(&x);
	sonde_json_int(&x, "bad_objects", verify[1]);
	sonde_json_int(&x, "short_reads", verify[3]);
	sonde_json_object_end(&x);

	sonde_json_init(&par);
	sonde_json_object_begin(&par, NULL);
	params_members(&par, run);
	sonde_json_object_end(&par);

	struct sonde_measurement m = {
	    .phase = write ? "write" : "read",
	    .iteration = -1,
	    .bytes = run->job_bytes,
	    .seconds = s[T_TOTAL].max,
	    .ops = run->senders * p->nobj,
	    .per_rank = &s[T_TOTAL],
	    .finish = fin,
	    .verified = !write && p->chkdata > 0,
	    .verify_errors = verify[0],
	    .bytes_checked = verify[2] * 8,
	    .params_json = par.buf,
	    .extra_json = x.buf,
	    .start = span[0],
	    .end = span[1],
	};
	sonde_results_measurement("mpiio", &m);
	sonde_json_free(&x);
	sonde_json_free(&par);
}

int mpiio_report_phase(const struct mpiio_run *run, int write, const struct mpiio_times *t,
                       const struct mpiio_verify *v)
{
	const struct mpiio_params *p = run->p;
	MPI_Comm comm = run->ctx->comm;
	/* A phase with a failure has no figures: one line names it, and the run ends. */
	int err = sonde_agree_path(comm, run->failure.err, run->path, "%s", run->failure.msg);
	if (err)
		return sonde_exit_class(err, SONDE_STAGE_RUN);
	double mine[NT];
	timer_values(t, mine);
	struct sonde_stats s[NT];
	for (int k = 0; k < NT; k++)
		sonde_stats_across_some(comm, mine[k],
		                        k == T_SEND || k == T_RECV ? takes_part(run, write, k) : 1,
		                        &s[k]);
	int64_t local[4] = {v->errors, v->bad_objects, v->checked, v->short_reads}, verify[4];
	MPI_Allreduce(local, verify, 4, MPI_INT64_T, MPI_SUM, comm);
	double mib = (double)run->job_bytes / (double)SONDE_MIB;
	/* A rank's own objects count for it when its data is moved (every rank's in the direct
	 * types; a sender's, through its aggregator, in types 3 and 4); its finish is the end of
	 * its timed span (checks and the open agreement left out, as in total). */
	int moved = !run->plan.slot || run->plan.slot[run->rank] >= 0;
	struct sonde_finish fin;
	const struct sonde_clock *clock = &run->ctx->clock;
	sonde_finish_across(&run->ctx->topo, comm, sonde_clock_global(clock, t->start),
	                    sonde_clock_global(clock, t->start + t->total),
	                    moved ? p->nobj * p->size : 0, moved ? p->nobj : 0, &fin);
	/* the phase's span for sonde mix: each rank's start to its close, checks included */
	double span[2];
	sonde_clock_span(comm, clock, t->start, t->end, &span[0], &span[1]);

	struct per_rank pr = {.nranks = run->nranks, .mib = mib};
	double *all = NULL;
	if (p->verbose) {
		if (run->rank == 0)
			all = malloc(sizeof *all * NT * (size_t)run->nranks);
		MPI_Gather(mine, NT, MPI_DOUBLE, all, NT, MPI_DOUBLE, 0, comm);
		pr.all = all;
	}
	if (run->rank == 0) {
		/* the record first: a rate on the screen always has one in the results, even when
		 * a stop signal comes in between */
		record(run, write, s, &fin, verify, mib, span);
		print_phase(run, write, s, &pr);
	}
	free(all);
	int code = SONDE_EXIT_OK;
	if (verify[3] > 0) {
		sonde_error("%lld read(s) returned less data than asked for (files shorter than "
		            "this run's layout?)",
		            (long long)verify[3]);
		code = SONDE_EXIT_RUNTIME;
	}
	if (verify[0] > 0) {
		sonde_error("data check failed: %lld elements in %lld objects did not match "
		            "(-chkdata %d, -touch %d)",
		            (long long)verify[0], (long long)verify[1], p->chkdata, p->touch);
		code = SONDE_EXIT_VERIFY;
	}
	return code;
}

void mpiio_print_hints(const struct mpiio_run *run)
{
	char text[8192] = "";
	size_t at = 0;
	if (run->rank == run->io_leader && run->used != MPI_INFO_NULL) {
		int n = 0;
		MPI_Info_get_nkeys(run->used, &n);
		for (int i = 0; i < n && at < sizeof text; i++) {
			char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
			int flag = 0;
			MPI_Info_get_nthkey(run->used, i, key);
			MPI_Info_get(run->used, key, MPI_MAX_INFO_VAL, value, &flag);
			if (flag)
				at += (size_t)snprintf(text + at, sizeof text - at,
				                       "Key: %s  = %s\n", key, value);
		}
	}
	if (run->io_leader != 0) {
		if (run->rank == run->io_leader)
			MPI_Send(text, (int)sizeof text, MPI_CHAR, 0, 1, run->ctx->comm);
		else if (run->rank == 0)
			MPI_Recv(text, (int)sizeof text, MPI_CHAR, run->io_leader, 1,
			         run->ctx->comm, MPI_STATUS_IGNORE);
	}
	if (run->rank == 0) {
		fprintf(run->out, "\nMPI_info Hints Used (RANK %d):\n%s\n", run->io_leader, text);
		fflush(run->out);
	}
}

char *mpiio_params_json(const struct mpiio_run *run)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	params_members(&j, run);
	sonde_json_int(&j, "page_size", run->page);
	sonde_json_object_end(&j);
	return j.buf;
}
