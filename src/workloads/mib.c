/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mib: LLNL's mib. Each task writes its own file with system calls of one size until a
 * call limit or a time limit (whichever trips first, checked after each call), fsyncs, then
 * reads the file of task (task + tasks/2) mod tasks the same way. Rates are all tasks' bytes
 * over (latest end - earliest start), on one clock whose per-rank offsets were measured. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "fail.h"
#include "files.h"
#include "json.h"
#include "profile.h"
#include "progress.h"
#include "results.h"
#include "space.h"
#include "stats.h"
#include "stop.h"
#include "timeseries.h"
#include "units.h"
#include "workloads/mib/mib.h"

enum stop { STOP_CALLS, STOP_TIME };

struct phase {
	const char *name; /* "write" or "read" */
	int writing;
	char path[PATH_MAX];
	/* Local times. */
	double start_open, start, last_end, end_fsync, end_test;
	int64_t calls, bytes, short_calls;
	enum stop stop;
	struct sonde_profile profile;
	struct sonde_latency_acc latency;
	struct sonde_verify verify;
	int err; /* this rank's failure in the phase (errno), agreed at its close */
	char why[1024];
};

struct mib {
	struct sonde_context *ctx;
	struct mib_params p;
	const struct sonde_backend *io;
	struct sonde_clock clock;
	int task, tasks;
	int keep_profile; /* -p: keep every call's times */
	struct mib_data data;
	void *read_buf;
	int lock_fd; /* the lock on the data file this task wrote, held to the end; -1: none */
	int exit_code;
};

/* Collectives that become the identity when mib runs without MPI (-M). */
static void barrier(const struct mib *m)
{
	if (m->ctx->mpi)
		MPI_Barrier(m->ctx->comm);
}

static double reduce_double(const struct mib *m, double v, MPI_Op op)
{
	double r = v;
	if (m->ctx->mpi)
		MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, m->ctx->comm);
	return r;
}

static int64_t reduce_int(const struct mib *m, int64_t v, MPI_Op op)
{
	int64_t r = v;
	if (m->ctx->mpi)
		MPI_Allreduce(&v, &r, 1, MPI_INT64_T, op, m->ctx->comm);
	return r;
}

static double global(const struct mib *m, double local)
{
	return sonde_clock_global(&m->clock, local);
}

static int report_here(const struct mib *m)
{
	return m->ctx->rank == 0;
}

static void say(const struct mib *m, int when, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(const struct mib *m, int when, const char *fmt, ...)
{
	if (!when || !report_here(m))
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* ---- checks before any file is touched ---------------------------------------------------- */

static int profile_prefix_ok(const char *prefix, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	sonde_parent_dir(prefix, dir, sizeof dir);
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "option -p %s: directory %s: %s", prefix, dir,
		         sonde_strerror(errno));
		return -1;
	}
	return 0;
}

static int check_params(struct mib *m, char *err, size_t errlen)
{
	struct mib_params *p = &m->p;
	if (!p->test_dir) {
		snprintf(err, errlen, "Mib requires a \"-t <test_dir>\" argument.");
		return -1;
	}
	/* under sonde --parse-only, the launch to come has ctx->size processes */
	int launched = m->ctx->parse_only ? m->ctx->size : sonde_launcher_size();
	if (p->no_mpi && launched > 1) {
		snprintf(err, errlen,
		         "-M runs one process without MPI, but the launcher started %d: processes "
		         "without MPI cannot coordinate their phases or their files; drop -M",
		         launched);
		return -1;
	}
	if (p->direct && p->call_size % 4096) {
		snprintf(err, errlen, "option -d: the call size (%lld) must be a multiple of 4096",
		         (long long)p->call_size);
		return -1;
	}
	if (p->direct && p->random && p->granularity % 4096) {
		snprintf(err, errlen,
		         "option -d: the -b granularity (%lld) must be a multiple of 4096",
		         (long long)p->granularity);
		return -1;
	}
	if (p->profiles && !m->ctx->parse_only && profile_prefix_ok(p->profiles, err, errlen) < 0)
		return -1;
	/* Both -W and -R: mib runs both phases. */
	if (p->write_only && p->read_only)
		p->write_only = p->read_only = 0;
	return 0;
}

/* ---- the phases --------------------------------------------------------------------------- */

static void data_path(const struct mib *m, int task, char *out, size_t len)
{
	snprintf(out, len, "%s/mibData.%08d", m->p.test_dir, task);
}

static void phase_init(struct mib *m, struct phase *ph, const char *name, int file_task)
{
	memset(ph, 0, sizeof *ph);
	ph->name = name;
	ph->writing = strcmp(name, "write") == 0;
	data_path(m, file_task, ph->path, sizeof ph->path);
}

static void record_call(struct mib *m, struct phase *ph, double t0, double t1, int64_t bytes)
{
	sonde_latency_acc_add(&ph->latency, t1 - t0);
	sonde_series_call(t1, t1 - t0, bytes, 1);
	if (m->keep_profile && sonde_profile_add(&ph->profile, t0, t1) < 0)
		sonde_fatal("out of memory for the profile after %lld calls", (long long)ph->calls);
}

/* Offsets of -b: uniform over the whole calls that fit in the file, in steps of the
 * granularity, from a per-task stream of the seed. */
struct random_reads {
	struct sonde_pattern rng;
	int64_t slots, gran;
};

static int64_t next_offset(const struct random_reads *r, int64_t call)
{
	return (int64_t)(sonde_pattern_word(&r->rng, (uint64_t)call) % (uint64_t)r->slots) *
	       r->gran;
}

/* The loop of mib: at least one call; each task stops on its own limit. */
static void io_loop(struct mib *m, struct phase *ph, struct sonde_file *f,
                    const struct random_reads *rr)
{
	const struct mib_params *p = &m->p;
	size_t size = (size_t)p->call_size;
	struct mib_bar bar;
	mib_bar_begin(&bar, p->show_progress && report_here(m), p, ph->name);
	struct sonde_progress live;
	sonde_progress_begin(&live, m->ctx, ph->name, SONDE_PROGRESS_BYTES,
	                     p->call_limit * p->call_size, m->tasks, p->time_limit);
	sonde_series_start();
	double t = sonde_now();
	ph->start = t;
	sonde_profile_init(&ph->profile, t);
	double limit = t + p->time_limit;
	int64_t offset = 0;
	do {
		ssize_t n;
		double t0;
		if (ph->writing) {
			const void *block = mib_data_block(&m->data, (uint64_t)offset);
			t0 = sonde_now();
			n = m->io->write_at(f, block, size, offset);
		} else {
			if (rr)
				offset = next_offset(rr, ph->calls);
			t0 = sonde_now();
			n = m->io->read_at(f, m->read_buf, size, offset);
		}
		t = sonde_now();
		/* This rank stops here; the others stop on their own limits, and the close
		 * agrees on the failure. */
		if (n < 0) {
			ph->err = (int)-n;
			snprintf(ph->why, sizeof ph->why, "%s", sonde_io_last_error());
			break;
		}
		if (p->verify && !ph->writing && n > 0)
			mib_data_check(&m->data, m->read_buf, (size_t)n, (uint64_t)offset,
			               &ph->verify);
		ph->bytes += n;
		if ((size_t)n < size)
			ph->short_calls++;
		offset += n;
		ph->calls++;
		record_call(m, ph, t0, t, n);
		mib_bar_update(&bar, (int)ph->calls, t - ph->start);
		sonde_progress_update(&live, ph->bytes);
	} while (ph->calls < p->call_limit && t < limit);
	mib_bar_end(&bar);
	sonde_progress_end(&live);
	ph->last_end = t;
	ph->stop = ph->calls >= p->call_limit ? STOP_CALLS : STOP_TIME;
}

/* Another mib run on the same files would mix its calls with this one's (two -M processes
 * started by hand both write mibData.00000000, silently): each task locks its data file,
 * exclusively the file it writes (to the end of the run), shared a file it only reads. Returns
 * the locked descriptor, -1 when another process holds a conflicting lock, -2 when there is
 * nothing to lock (no file yet, or a file system without locks, such as Lustre mounted
 * without -o flock: then nothing is detected). */
static int lock_data_file(const char *path, int exclusive)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -2;
	if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
		return fd;
	int busy = errno == EWOULDBLOCK;
	close(fd);
	return busy ? -1 : -2;
}

/* Collective: every task refuses when one found its data file in use. */
static void refuse_if_in_use(struct mib *m, int lock, const char *path)
{
	if (!sonde_agree(m->ctx->comm, lock != -1,
	                 "%s is in use by another process (another mib run on %s? two -M runs "
	                 "started by hand share mibData.00000000)",
	                 path, m->p.test_dir))
		sonde_exit(SONDE_EXIT_USAGE);
}

/* The phase's failures (a transfer, the sync, the close) are agreed here: one line, and the
 * run ends without figures for it. */
static void close_file(struct mib *m, struct phase *ph, struct sonde_file *f)
{
	int rc = m->io->close(f);
	if (rc < 0 && !ph->err) {
		ph->err = -rc;
		snprintf(ph->why, sizeof ph->why, "%s", sonde_io_last_error());
	}
	int err = sonde_agree_path(m->ctx->comm, ph->err, ph->path, "%s", ph->why);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_RUN));
}

/* A file missing or unusable before the run used it is bad input (sonde_exit_class); the file
 * this run wrote, gone by its read phase, is a runtime fault. */
static struct sonde_file *open_file(struct mib *m, struct phase *ph, unsigned flags,
                                    enum sonde_stage stage)
{
	struct sonde_file *f = NULL;
	if (m->p.direct)
		flags |= SONDE_IO_DIRECT;
	struct sonde_io_options opt = {.comm = MPI_COMM_SELF};
	int rc = m->io->open(ph->path, flags, &opt, &f);
	int err = sonde_agree_path(m->ctx->comm, -rc, ph->path, "%s",
	                           rc == 0 ? "" : sonde_io_last_error());
	if (err)
		sonde_exit(sonde_exit_class(err, stage));
	return f;
}

static void write_phase(struct mib *m, struct phase *ph)
{
	phase_init(m, ph, "write", m->task);
	barrier(m);
	if (m->p.new_files) {
		/* a file another run is writing is not this run's to remove */
		int old = lock_data_file(ph->path, 1);
		refuse_if_in_use(m, old, ph->path);
		int rc = m->io->remove(ph->path);
		if (rc < 0 && rc != -ENOENT)
			sonde_fatal("-n: %s", sonde_io_last_error());
		if (old >= 0)
			close(old);
	}
	ph->start_open = sonde_now();
	struct sonde_file *f =
	    open_file(m, ph, SONDE_IO_WRONLY | SONDE_IO_CREATE, SONDE_STAGE_INPUT);
	/* nothing is written before the lock: the open neither truncates nor writes */
	m->lock_fd = lock_data_file(ph->path, 1);
	refuse_if_in_use(m, m->lock_fd, ph->path);
	sonde_series_begin(m->ctx->comm, ph->name, -1);
	barrier(m);
	io_loop(m, ph, f, NULL);
	/* Part of the phase: the data must be on the file system, not in this client's cache. */
	int rc = ph->err ? 0 : m->io->sync(f);
	if (rc < 0) {
		ph->err = -rc;
		snprintf(ph->why, sizeof ph->why, "%s", sonde_io_last_error());
	}
	ph->end_fsync = sonde_now();
	sonde_series_stop();
	barrier(m);
	close_file(m, ph, f);
	barrier(m);
	ph->end_test = sonde_now();
}

static void read_phase(struct mib *m, struct phase *ph)
{
	phase_init(m, ph, "read", (m->task + m->tasks / 2) % m->tasks);
	enum sonde_stage stage = m->p.read_only ? SONDE_STAGE_INPUT : SONDE_STAGE_RUN;
	int there = m->io->exists(ph->path);
	int err = sonde_agree_path(m->ctx->comm,
	                           there == 1   ? 0
	                           : there == 0 ? ENOENT
	                                        : -there,
	                           ph->path, "%s%s", there == 0 ? "No file: " : "",
	                           there == 0 ? ph->path : sonde_io_last_error());
	if (err)
		sonde_exit(sonde_exit_class(err, stage));
	/* files this run wrote are locked by their writers; others by their readers */
	int lock = m->lock_fd < 0 ? lock_data_file(ph->path, 0) : -2;
	refuse_if_in_use(m, lock, ph->path);
	barrier(m);
	ph->start_open = sonde_now();
	struct sonde_file *f = open_file(m, ph, SONDE_IO_RDONLY, stage);
	struct random_reads rr, *rrp = NULL;
	if (m->p.random) {
		int64_t fsize = m->io->size(f);
		char why[256] = "";
		if (fsize < 0)
			snprintf(why, sizeof why, "%s", sonde_io_last_error());
		else if (fsize < m->p.granularity)
			snprintf(
			    why, sizeof why,
			    "In task %d, the file size (%lld) is too small for the granularity "
			    "(%lld)",
			    m->task, (long long)fsize, (long long)m->p.granularity);
		if (!sonde_agree(m->ctx->comm, !why[0], "%s", why))
			sonde_exit(SONDE_EXIT_USAGE);
		int64_t span = fsize > m->p.call_size ? fsize - m->p.call_size : 0;
		rr.gran = m->p.granularity;
		rr.slots = span / rr.gran + 1;
		rr.rng.seed = (uint64_t)m->p.seed;
		rr.rng.stream = sonde_pattern_stream(m->task, 1, 0);
		rrp = &rr;
	}
	/* The data check needs the writer's pattern; the write phase is over by now. */
	if (m->p.verify) {
		mib_data_free(&m->data);
		int file_task = (m->task + m->tasks / 2) % m->tasks;
		if (mib_data_init(&m->data, (uint64_t)m->p.seed, file_task,
		                  (size_t)m->p.call_size) < 0)
			sonde_fatal("out of memory for the data check");
	}
	sonde_series_begin(m->ctx->comm, ph->name, -1);
	barrier(m);
	io_loop(m, ph, f, rrp);
	sonde_series_stop();
	barrier(m);
	close_file(m, ph, f);
	if (lock >= 0)
		close(lock);
	if (m->p.remove && m->io->remove(ph->path) < 0)
		sonde_fatal("-r: %s", sonde_io_last_error());
	barrier(m);
	ph->end_test = sonde_now();
}

/* ---- what a phase measured ---------------------------------------------------------------- */

static const char *stop_name(enum stop s)
{
	return s == STOP_CALLS ? "call" : "time";
}

/* Rank 0 gets every task's calls and stop reason (O(tasks), never O(tasks x calls)). */
static int64_t *gather_calls(const struct mib *m, const struct phase *ph)
{
	int64_t mine[2] = {ph->calls, ph->stop};
	int64_t *all = report_here(m) ? malloc(sizeof *all * 2 * (size_t)m->tasks) : NULL;
	if (report_here(m) && !all)
		sonde_fatal("out of memory");
	if (m->ctx->mpi)
		MPI_Gather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, 0, m->ctx->comm);
	else
		memcpy(all, mine, sizeof mine);
	return all;
}

static void per_task_json(struct sonde_json *j, const int64_t *calls, int tasks)
{
	sonde_json_array_begin(j, "calls_per_task");
	for (int r = 0; r < tasks; r++)
		sonde_json_int(j, NULL, calls[2 * r]);
	sonde_json_array_end(j);
	sonde_json_array_begin(j, "stopped_by");
	for (int r = 0; r < tasks; r++)
		sonde_json_string(j, NULL, stop_name((enum stop)calls[2 * r + 1]));
	sonde_json_array_end(j);
}

static void write_profile(struct mib *m, struct phase *ph)
{
	char path[PATH_MAX + 16], err[600];
	snprintf(path, sizeof path, "%s.%s", m->p.profiles, ph->name);
	struct sonde_profile_output out = {path, m->ctx->workload, ph->name, 0};
	int64_t rows =
	    sonde_profile_write(&ph->profile, m->ctx->comm, &m->clock, &out, err, sizeof err);
	if (rows < 0) {
		sonde_results_note_failure(0, path, err);
		sonde_error("%s", err);
		sonde_exit(SONDE_EXIT_RUNTIME);
	}
	say(m, m->p.show_intermediate, "Table of %d tasks with up to %lld system calls\n", m->tasks,
	    (long long)rows + 1);
}

/* The run's parameters, for the header and every measurement record. */
static char *params_json(const struct mib *m)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(&mib_options, &m->p, &j);
	sonde_json_object_end(&j);
	return j.buf;
}

/* Reduces one phase, prints mib's intermediate values, records the measurement; returns the
 * rate in MB/s (MiB/s) on rank 0. */
static double conclude(struct mib *m, struct phase *ph)
{
	const struct mib_params *p = &m->p;
	int show = p->show_intermediate;
	int64_t last_call = reduce_int(m, ph->calls, MPI_MAX);
	say(m, show, "Call %lld was the last %s recorded\n", (long long)last_call, ph->name);
	say(m, show, "\nAfter %lld calls and %f seconds\n", (long long)last_call,
	    ph->end_test - ph->start_open);

	double start = reduce_double(m, global(m, ph->start), MPI_MIN);
	double end =
	    reduce_double(m, global(m, ph->writing ? ph->end_fsync : ph->last_end), MPI_MAX);
	int64_t bytes = reduce_int(m, ph->bytes, MPI_SUM);
	int64_t calls = reduce_int(m, ph->calls, MPI_SUM);
	int64_t shorts = reduce_int(m, ph->short_calls, MPI_SUM);
	double seconds = end - start;
	double mib = (double)bytes / (double)SONDE_MIB;
	double rate = seconds != 0 ? mib / seconds : 0;
	say(m, show, "%f MB %s in %f seconds\n", mib, ph->writing ? "written" : "read", seconds);
	if (shorts)
		say(m, show, "%lld short %ss\n", (long long)shorts, ph->name);

	int64_t *per_task = gather_calls(m, ph);
	if (report_here(m) && show)
		for (int r = 0; r < m->tasks; r++)
			printf("Task %d made %lld %s calls and was stopped by the %s limit\n", r,
			       (long long)per_task[2 * r], ph->name,
			       stop_name((enum stop)per_task[2 * r + 1]));

	int64_t verify_errors = 0, checked = 0;
	int verified = p->verify && !ph->writing;
	if (verified) {
		sonde_verify_report(&ph->verify, m->task, ph->path);
		sonde_verify_total(m->ctx->comm, &ph->verify, &verify_errors, &checked);
		if (verify_errors) {
			sonde_error("verify: %lld of %lld bytes read differ from what the writer "
			            "tasks wrote",
			            (long long)verify_errors, (long long)checked);
			m->exit_code = SONDE_EXIT_VERIFY;
		}
	}

	struct sonde_stats per_rank;
	double mine = global(m, ph->writing ? ph->end_fsync : ph->last_end) - global(m, ph->start);
	if (m->ctx->mpi)
		sonde_stats_across(m->ctx->comm, mine, &per_rank);
	else
		sonde_stats_of(&mine, 1, &per_rank);
	struct sonde_latency lat;
	sonde_latency_of_acc(m->ctx->comm, &ph->latency, &lat);
	/* one task alone (-M, without MPI) has no stragglers */
	struct sonde_finish fin = {0};
	if (m->ctx->mpi)
		sonde_finish_across(&m->ctx->topo, m->ctx->comm, global(m, ph->start),
		                    global(m, ph->writing ? ph->end_fsync : ph->last_end),
		                    ph->bytes, ph->calls, &fin);
	if (report_here(m) && sonde_results_active()) {
		struct sonde_json extra;
		sonde_json_init(&extra);
		sonde_json_object_begin(&extra, NULL);
		sonde_json_int(&extra, "last_call", last_call);
		sonde_json_int(&extra, "short_calls", shorts);
		per_task_json(&extra, per_task, m->tasks);
		sonde_json_object_end(&extra);
		char *params = params_json(m);
		struct sonde_measurement rec = {
		    .phase = ph->name,
		    .iteration = -1,
		    .bytes = bytes,
		    .seconds = seconds,
		    .ops = calls,
		    .per_rank = &per_rank,
		    .latency = &lat,
		    .finish = &fin,
		    .verified = verified,
		    .verify_errors = verify_errors,
		    .bytes_checked = checked,
		    .params_json = params,
		    .extra_json = extra.buf,
		    /* back on this rank's clock from mib's global one (rank 0's) */
		    .start = start - m->clock.offset + m->clock.zero,
		    .end = end - m->clock.offset + m->clock.zero,
		};
		sonde_results_measurement(m->ctx->workload, &rec);
		sonde_json_free(&extra);
		free(params);
	}
	free(per_task);
	sonde_series_report();
	if (p->profiles)
		write_profile(m, ph);
	sonde_profile_free(&ph->profile);
	say(m, show, "Aggregate %s rate = %10.2f\n", ph->name, rate);
	return rate;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* The command line, parsed and checked (but for -p's directory under sonde --parse-only):
 * m->p as the header's params hold it. By the run and by sonde --parse-only. */
static void parse(struct mib *m, int argc, char **argv)
{
	struct sonde_context *ctx = m->ctx;
	mib_params_defaults(&m->p);
	struct sonde_parse_result pos;
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &mib_options, &m->p, argc, argv, &pos);
	if (pos.npositional > 0) {
		sonde_error("unexpected argument '%s' (sonde mib --help lists the options)",
		            pos.positional[0]);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	sonde_parse_result_free(&pos);
	if (m->p.version && ctx->parse_only) {
		sonde_error("-V prints the version: there is no run to check");
		sonde_exit(SONDE_EXIT_USAGE);
	}
	if (m->p.version) {
		if (ctx->rank == 0)
			mib_print_version(stdout);
		sonde_exit(SONDE_EXIT_OK);
	}
	char err[PATH_MAX + 256] = "";
	if (check_params(m, err, sizeof err) < 0) {
		if (ctx->mpi || sonde_launcher_rank() == 0)
			sonde_error("%s", err);
		/* without MPI, the other processes of a launch wait: the launcher ends the job at
		 * the first non-zero exit, which otherwise could cut rank 0's line off; its stop
		 * signal meanwhile ends them without a line of their own */
		else {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			sonde_stop_linger();
		}
		sonde_exit(SONDE_EXIT_USAGE);
	}
	sonde_options_warn_inert(set);
}

static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct mib m = {.ctx = ctx};
	parse(&m, argc, argv);
	return params_json(&m);
}

static void setup(struct mib *m, int argc, char **argv)
{
	struct sonde_context *ctx = m->ctx;
	parse(m, argc, argv);
	char err[PATH_MAX + 256] = "", fsline[256] = "";
	m->io = &sonde_backend_posix;
	int ok = mib_check_fs(m->io, m->p.test_dir, m->p.force, fsline, sizeof fsline, err,
	                      sizeof err) == 0;
	if (!sonde_agree(m->ctx->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	m->task = ctx->rank;
	m->tasks = ctx->size;
	/* The most the write phase can put there: its time limit may stop it sooner. */
	if (!m->p.read_only &&
	    sonde_space_check(ctx, m->p.test_dir,
	                      (int64_t)ctx->size * m->p.call_limit * m->p.call_size, NULL,
	                      "the data files (-l calls of -s bytes per task, at most)") < 0)
		sonde_exit(SONDE_EXIT_USAGE);
	/* This task's data file and the profiles must not be the results files. */
	char data[PATH_MAX + 32], prof[PATH_MAX + 16];
	data_path(m, m->task, data, sizeof data);
	ok = sonde_results_collision(data, "data file", err, sizeof err) == 0;
	for (int k = 0; k < 2 && ok && m->p.profiles; k++) {
		snprintf(prof, sizeof prof, "%s.%s", m->p.profiles, k ? "read" : "write");
		ok = sonde_results_collision(prof, "profile", err, sizeof err) == 0;
	}
	if (!sonde_agree(m->ctx->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	m->keep_profile = m->p.profiles != NULL;
	ok = mib_data_init(&m->data, (uint64_t)m->p.seed, m->task, (size_t)m->p.call_size) == 0 &&
	     posix_memalign(&m->read_buf, 4096, (size_t)m->p.call_size) == 0;
	if (!sonde_agree(m->ctx->comm, ok, "out of memory for calls of %lld bytes",
	                 (long long)m->p.call_size))
		sonde_exit(SONDE_EXIT_RUNTIME);

	m->clock = *sonde_run_clock(ctx->mpi ? ctx->comm : MPI_COMM_NULL);
	char *pj = params_json(m);
	sonde_results_header(ctx, pj, m->p.test_dir);
	free(pj);
	say(m, m->p.show_env, "%s\n", fsline);
	if (m->p.show_signon && report_here(m))
		mib_print_signon(stdout);
	if (m->p.show_env && report_here(m))
		mib_print_environment(stdout, &m->p, m->tasks);
}

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	struct mib m = {.ctx = ctx, .lock_fd = -1};
	setup(&m, argc, argv);
	double write_rate = 0, read_rate = 0;
	struct phase ph;
	if (!m.p.read_only) {
		write_phase(&m, &ph);
		write_rate = conclude(&m, &ph);
	}
	if (!m.p.write_only) {
		read_phase(&m, &ph);
		read_rate = conclude(&m, &ph);
	}
	if (report_here(&m))
		mib_print_result(stdout, &m.p, m.tasks, !ctx->mpi, m.task, write_rate, read_rate);
	mib_data_free(&m.data);
	free(m.read_buf);
	if (m.lock_fd >= 0)
		close(m.lock_fd);
	return m.exit_code;
}

static int wants_mpi(int argc, char **argv)
{
	return mib_wants_mpi(argc, argv);
}

const struct sonde_workload sonde_workload_mib = {
    .name = "mib",
    .summary = "LLNL mib: fixed-size POSIX calls per task, call and time limits, profiles",
    .options = &mib_options,
    .run = run,
    .wants_mpi = wants_mpi,
    .params = params_only,
};
