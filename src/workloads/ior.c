/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde ior: IOR's benchmark, phase by phase as IOR runs it.
 *
 * For every test (one, or one per RUN of an -f script) and every repetition: write (timed
 * open, transfers, close, with barriers where IOR puts them), optional -W check, read (from
 * another rank's data with -C/-Z), optional remove. Each phase is reduced with IOR's formulas
 * (earliest start to latest stop, bytes actually moved over total time, IOPS over access time,
 * best rank's mean latency) and printed in IOR's layout; the same figures go to --json. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "fail.h"
#include "files.h"
#include "input.h"
#include "json.h"
#include "pattern.h"
#include "results.h"
#include "space.h"
#include "timeseries.h"
#include "units.h"
#include "workload.h"
#include "workloads/ior/ior.h"
#include "workloads/ior/layout.h"
#include "workloads/ior/reorder.h"
#include "workloads/ior/run.h"

static double now(const struct ior_run *r)
{
	return sonde_clock_global(&r->clock, sonde_now());
}

/* The rank whose data this rank handles in a phase, and the file it is in. */
static void target_of(const struct ior_run *r, const struct ior_params *p, int offset, int rep,
                      struct ior_target *tg)
{
	tg->pretend = (r->rank + offset) % r->ntasks;
	if (ior_file_name(p->test_file, p->fpp, p->unique_dir, tg->pretend,
	                  p->multi_file ? rep : -1, tg->path, sizeof tg->path) < 0)
		sonde_fatal("test file name too long: %s", p->test_file);
	snprintf(tg->io_path, sizeof tg->io_path, "%s", tg->path);
	tg->pat.seed = r->seed;
	tg->pat.stream = sonde_pattern_stream(tg->pretend, p->fpp ? tg->pretend : 0, r->stream_rep);
}

/* -u: the rank's directory is one sonde creates, and its file is reached through a descriptor of
 * it (kept in r until the next one), so that a symbolic link planted as the directory can never
 * redirect sonde's writes or removals (IOR followed one: it wrote into the link's target and
 * removed the file there). Returns 0, or a negative errno value with the message set. */
static int enter_dir(struct ior_run *r, const struct ior_params *p, struct ior_target *tg)
{
	if (!p->unique_dir)
		return 0;
	char dir[4096];
	ior_dir_of(tg->path, dir, sizeof dir);
	if (r->dir_fd1)
		close(r->dir_fd1 - 1);
	r->dir_fd1 = 0;
	int fd = sonde_open_dir_nofollow(dir);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP || e == ENOTDIR)
			sonde_io_set_error("directory %s is a symbolic link or no directory; sonde "
			                   "does not follow links at the directories it creates",
			                   dir);
		else
			sonde_io_set_error("directory %s: %s", dir, sonde_strerror(e));
		return -e;
	}
	r->dir_fd1 = fd + 1;
	sonde_path_in_dir(fd, strrchr(tg->path, '/') + 1, tg->io_path, sizeof tg->io_path);
	return 0;
}

/* IOR's GetFileSize for CheckFileSize: a file that cannot be looked at counts as empty, and the
 * check then warns about the difference. */
static int64_t stat_size(const struct ior_run *r, const char *path)
{
	struct stat st;
	return r->backend->stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Opens the target: POSIX on each rank, MPI-IO collectively over the ranks sharing the file. */
static struct sonde_file *open_target(struct ior_run *r, const struct ior_params *p,
                                      const struct ior_target *tg, int writing, int *err)
{
	struct sonde_io_options opt;
	ior_io_plan(p, r->ntasks, &opt);
	opt.comm = p->fpp ? MPI_COMM_SELF : r->comm;
	opt.collective = p->collective;
	opt.hints = r->hints.items;
	opt.nhints = r->hints.count;
	opt.alignment = ior_odirect(p) ? 4096 : 0;
	/* as IOR: rank 0 shows them, on IOR's log stream */
	opt.show_hints = r->rank == 0 && ior_show_hints(p) ? r->log : NULL;
	/* as IOR: every rank opens (and may create) the file at once; the file was emptied
	 * before the barrier that starts the phase (in phase()) */
	unsigned flags = writing ? SONDE_IO_WRONLY | SONDE_IO_CREATE : SONDE_IO_RDONLY;
	if (ior_odirect(p))
		flags |= SONDE_IO_DIRECT;
	struct sonde_file *f = NULL;
	int rc = r->backend->open(tg->io_path, flags, &opt, &f);
	*err = rc;
	return rc < 0 ? NULL : f;
}

/* Empties a file that exists (the backend's truncate never follows a link planted at the path;
 * the open that follows reports the link). */
static void empty_file(const struct ior_run *r, const char *path)
{
	int rc = r->backend->truncate(path, 0);
	if (rc < 0 && rc != -ENOENT && rc != -ELOOP)
		sonde_warn("%s", sonde_io_last_error());
}

/* One phase as it goes: what it does, to which file, and what it measured so far. */
struct phase {
	enum ior_access acc;
	int rep, writing;
	struct ior_point *pt; /* the figures of the phase (-W's go nowhere) */
	struct ior_point scratch;
	struct ior_target tg;
	struct sonde_verify v;
	struct ior_phase_out po;
	double tm[IOR_T_N];
	int open_failed;
	int64_t errors; /* -R: bytes read that differ, over all ranks */
};

/* -u's directory: made for a write phase, entered for every phase. Returns 0, or an exit code
 * every rank agreed on. */
static int unique_dir(struct ior_run *r, const struct ior_params *p, struct phase *ph)
{
	char dir[4096];
	ior_dir_of(ph->tg.path, dir, sizeof dir);
	int err = ph->writing ? r->backend->mkdir(dir, 0700) : 0;
	if (err == 0 || err == -EEXIST)
		err = enter_dir(r, p, &ph->tg);
	err = sonde_agree_path(r->comm, -err, dir, "%s", sonde_io_last_error());
	return err ? sonde_exit_class(err, ph->rep == 0 ? SONDE_STAGE_INPUT : SONDE_STAGE_RUN) : 0;
}

/* --drop-cache before a read: one rank per node (or every rank with its own file) asks the
 * kernel to drop the file's pages; rank 0 logs how many stayed (collective). */
static void drop_cache(struct ior_run *r, const struct ior_params *p, const struct phase *ph)
{
	int64_t mine[2] = {0, 0}, sum[2] = {0, 0};
	if (p->fpp || r->ctx->topo.local_rank == 0)
		ior_drop_cache(ph->tg.io_path, &mine[0], &mine[1]);
	MPI_Reduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, 0, r->comm);
	if (r->rank == 0 && r->log)
		fprintf(r->log,
		        "drop-cache: %lld of %lld pages still resident after "
		        "posix_fadvise(DONTNEED) (%s)\n",
		        (long long)sum[0], (long long)sum[1],
		        sum[1] == 0       ? "nothing to check"
		        : sum[0] == 0     ? "honoured"
		        : sum[0] < sum[1] ? "partly honoured"
		                          : "not honoured");
}

/* Everything before the barrier that starts the timed phase. Returns 0 or an exit code. */
static int prepare(struct ior_run *r, const struct ior_params *p, struct phase *ph)
{
	if (p->unique_dir) {
		int code = unique_dir(r, p, ph);
		if (code)
			return code;
	}
	if (!ph->writing && p->drop_cache)
		drop_cache(r, p, ph);
	if (p->verbose >= 3 && ph->acc != IOR_WRITECHECK) {
		printf("task %d %s %s\n", r->rank, ph->writing ? "writing" : "reading",
		       ph->tg.path);
		fflush(stdout);
	}
	/* IOR deletes the file here, before the barrier; sonde empties it instead (it keeps a
	 * file it did not create, and its striping), by one rank for a shared file */
	if (ph->writing && !p->use_existing && (p->fpp || r->rank == 0))
		empty_file(r, ph->tg.io_path);
	if (ph->acc != IOR_WRITECHECK && p->delay > 0)
		sleep((unsigned)p->delay);
	return 0;
}

/* The timed part, as IOR times it: open, transfers, close, each between global time stamps,
 * with -g's barriers. */
static void timed(struct ior_run *r, const struct ior_params *p, struct phase *ph)
{
	struct ior_phase_out *po = &ph->po;
	if (ph->acc != IOR_WRITECHECK)
		sonde_series_begin(r->comm, ior_phase_name(ph->acc), ph->rep);
	MPI_Barrier(r->comm);
	sonde_series_start();
	ph->tm[IOR_T_OPEN0] = now(r);
	int err = 0;
	struct sonde_file *f = open_target(r, p, &ph->tg, ph->writing, &err);
	ph->tm[IOR_T_OPEN1] = now(r);
	/* No agreement here: IOR does not synchronise between open and transfers without -g. A
	 * rank whose open failed moves nothing, takes part in the collective calls of the
	 * transfer loop, and says so at the agreement after close. (MPI-IO's collective open
	 * fails on every rank alike: both libraries share its error.) */
	ph->open_failed = !f;
	if (!f) {
		/* the backend's message names the call and the path ("open F: Permission
		 * denied"): said once, as "cannot open F: Permission denied" */
		const char *why = err < 0 ? sonde_io_last_error() : "unknown error";
		size_t n = strlen(ph->tg.io_path);
		if (strncmp(why, "open ", 5) == 0 && strncmp(why + 5, ph->tg.io_path, n) == 0 &&
		    strncmp(why + 5 + n, ": ", 2) == 0)
			why += 5 + n + 2;
		snprintf(po->why, sizeof po->why, "cannot open %.3000s: %s", ph->tg.path, why);
		sonde_path_shown(po->why, sizeof po->why, ph->tg.io_path, ph->tg.path);
		po->failed = 1;
		po->err = -err;
	}
	if (p->barriers)
		MPI_Barrier(r->comm);
	if (r->rank == 0 && p->verbose >= 3 && r->log && ph->acc != IOR_WRITECHECK) {
		char ts[40];
		ior_time_string(ts, sizeof ts);
		fprintf(r->log, "Commencing %s performance test: %s\n", ior_phase_name(ph->acc),
		        ts);
	}
	ph->tm[IOR_T_XFER0] = now(r);
	ior_transfer_all(r, p, f, &ph->tg, ph->acc, ph->pt, &ph->v, po);
	ph->tm[IOR_T_XFER1] = now(r);
	if (p->barriers)
		MPI_Barrier(r->comm);
	ph->tm[IOR_T_CLOSE0] = now(r);
	int crc = f ? r->backend->close(f) : 0;
	ph->tm[IOR_T_CLOSE1] = now(r);
	sonde_series_stop();
	if (!po->failed && crc < 0) {
		po->failed = 1;
		snprintf(po->why, sizeof po->why, "close of %.3000s failed: %s", ph->tg.path,
		         sonde_io_last_error());
	}
}

/* The ranks agree on the phase's first failure. A file that cannot be opened before the run
 * has used it is bad input when its path is (sonde_exit_class); anything else is an I/O error.
 * Returns 0 or an exit code. */
static int agree(struct ior_run *r, const struct ior_params *p, const struct phase *ph)
{
	int any_open_failed = 0;
	MPI_Allreduce(&ph->open_failed, &any_open_failed, 1, MPI_INT, MPI_MAX, r->comm);
	int first_use = ph->rep == 0 && (ph->writing || !p->write);
	const struct ior_phase_out *po = &ph->po;
	int err = sonde_agree_path(r->comm, po->failed ? (po->err > 0 ? po->err : EIO) : 0,
	                           ph->tg.path, "%s", po->why);
	if (!err)
		return 0;
	return sonde_exit_class(err,
	                        any_open_failed && first_use ? SONDE_STAGE_INPUT : SONDE_STAGE_RUN);
}

/* -W and -R: the mismatches each rank saw, and IOR's lines when there were any. */
static void verify(struct ior_run *r, const struct ior_params *p, struct phase *ph)
{
	int64_t checked = 0;
	if (ph->v.errors)
		sonde_verify_report(&ph->v, r->rank, ph->tg.path);
	sonde_verify_total(r->comm, &ph->v, &ph->errors, &checked);
	long long bad_transfers = 0, mine = r->bad_transfers;
	MPI_Reduce(&mine, &bad_transfers, 1, MPI_LONG_LONG, MPI_SUM, 0, r->comm);
	const char *what = ph->acc == IOR_WRITECHECK ? "write" : "read";
	if (ph->errors && r->rank == 0) {
		fprintf(stderr,
		        "sonde ior: error: incorrect data on %s (%lld bytes differ of %lld "
		        "checked)\n",
		        what, (long long)ph->errors, (long long)checked);
		/* IOR's lines on its log (stdout), where job logs and scripts look: its errors are
		 * the transfers holding wrong data */
		if (r->log)
			fprintf(r->log,
			        "WARNING: Incorrect data on %s (%lld errors found).\n\n"
			        "Used Time Stamp %u (0x%x) for Data Signature\n",
			        what, bad_transfers, (unsigned)r->seed, (unsigned)r->seed);
	}
	r->verify_errors += ph->errors;
	if (ph->acc == IOR_WRITECHECK && r->rank == 0 && p->verbose >= 1 && r->log && !ph->errors)
		fprintf(r->log, "Verified %lld bytes: no errors.\n", (long long)checked);
	ph->pt->errors = ph->errors;
}

/* IOR's CheckFileSize: stat sizes against the bytes actually moved. */
static void check_file_size(struct ior_run *r, const struct ior_test *t, struct phase *ph)
{
	const struct ior_params *p = &t->p;
	long long st = stat_size(r, ph->tg.io_path), st_sum = 0, st_min = 0, st_max = 0,
	          mv = ph->po.moved, mv_sum = 0;
	if (p->fpp) {
		MPI_Allreduce(&st, &st_sum, 1, MPI_LONG_LONG, MPI_SUM, r->comm);
	} else {
		MPI_Allreduce(&st, &st_min, 1, MPI_LONG_LONG, MPI_MIN, r->comm);
		MPI_Allreduce(&st, &st_max, 1, MPI_LONG_LONG, MPI_MAX, r->comm);
		if (st_min != st_max && r->rank == 0)
			sonde_warn("inconsistent file size by different tasks");
		st_sum = st_min;
	}
	MPI_Allreduce(&mv, &mv_sum, 1, MPI_LONG_LONG, MPI_SUM, r->comm);
	ph->pt->stat_bytes = st_sum;
	ph->pt->bytes = mv_sum;
	/* as IOR: an HDF5 or PnetCDF file holds its format besides the data */
	int formatted = (r->backend->caps & SONDE_CAP_FORMATTED) != 0;
	if (r->rank == 0 && !formatted && (t->expected != mv_sum || st_sum != mv_sum)) {
		sonde_warn("Expected aggregate file size       = %lld", (long long)t->expected);
		sonde_warn("Stat() of aggregate file size      = %lld", st_sum);
		sonde_warn("Using actual aggregate bytes moved = %lld", mv_sum);
		if (p->deadline)
			sonde_warn("Maybe caused by deadlineForStonewalling");
	}
}

/* IOR's ReduceIterResults: each span from its earliest start to its latest stop over the ranks,
 * and the figures IOR derives from them. */
static void reduce(struct ior_run *r, const struct ior_params *p, struct phase *ph)
{
	struct ior_point *pt = ph->pt;
	double red[IOR_T_N], send[IOR_T_N];
	for (int k = 0; k < IOR_T_N; k++)
		send[k] = k % 2 ? ph->tm[k] : -ph->tm[k];
	MPI_Allreduce(send, red, IOR_T_N, MPI_DOUBLE, MPI_MAX, r->comm);
	for (int k = 0; k < IOR_T_N; k += 2)
		red[k] = -red[k];
	pt->open = red[IOR_T_OPEN1] - red[IOR_T_OPEN0];
	pt->xfer = red[IOR_T_XFER1] - red[IOR_T_XFER0];
	pt->close = red[IOR_T_CLOSE1] - red[IOR_T_CLOSE0];
	pt->total = red[IOR_T_CLOSE1] - red[IOR_T_OPEN0];
	pt->start = red[IOR_T_OPEN0];
	pt->end = red[IOR_T_CLOSE1];
	pt->bw = pt->total > 0 ? (double)pt->bytes / pt->total : 0;
	pt->iops = pt->xfer > 0 ? (double)(pt->bytes / p->xfer) / pt->xfer : 0;
	double my_xfer = ph->tm[IOR_T_XFER1] - ph->tm[IOR_T_XFER0];
	double lat = pt->pairs ? my_xfer / (double)pt->pairs : 0;
	MPI_Allreduce(&lat, &pt->latency, 1, MPI_DOUBLE, MPI_MIN, r->comm);
	pt->done = 1;
}

/* -j's warnings, --rank-details, the measurement record and the row. */
static void report(struct ior_run *r, const struct ior_test *t, const struct phase *ph)
{
	const struct ior_params *p = &t->p;
	if (p->outlier > 0)
		ior_outliers(r, p, ph->acc, ph->tm);
	double *ranks = ior_rank_figures(r, ph->tm, ph->po.moved);
	struct sonde_latency lat;
	/* the phase as IOR spans it: each rank from its open to its close, on r->clock */
	struct sonde_finish fin;
	sonde_finish_across(&r->ctx->topo, r->comm, ph->tm[IOR_T_OPEN0], ph->tm[IOR_T_CLOSE1],
	                    ph->po.moved, p->xfer ? ph->po.moved / p->xfer : 0, &fin);
	int have_lat = ior_json_record(r, t, ph->acc, ph->rep, ph->pt,
	                               ph->tm[IOR_T_XFER1] - ph->tm[IOR_T_XFER0], &ph->v,
	                               ph->acc == IOR_READCHECK, ph->errors, ranks, &fin, &lat);
	/* after its record: a rate on the screen always has one in the results, even when a stop
	 * signal comes in between */
	if (r->rank == 0 && r->out)
		ior_print_row(r->out, p, ior_phase_name(ph->acc), ph->pt, ph->rep);
	ior_rank_details(r, p, ph->acc, ph->rep, ranks);
	if (have_lat && p->latency_lines)
		ior_print_latency(r, ph->acc, ph->rep, &lat);
	free(ranks);
}

/* One phase: prepare, the timed open-transfers-close, the agreement on failures, then (untimed)
 * verification, reduction and report; -W's check ends after its verification. Returns 0, or an
 * exit code after a failure every rank agreed on. */
static int phase(struct ior_run *r, struct ior_test *t, int rep, enum ior_access acc, int offset)
{
	const struct ior_params *p = &t->p;
	struct phase *ph = calloc(1, sizeof *ph);
	if (!ph)
		sonde_fatal("out of memory for a phase");
	ph->acc = acc;
	ph->rep = rep;
	ph->writing = acc == IOR_WRITE;
	ph->pt = acc == IOR_WRITE        ? &t->write[rep]
	         : acc == IOR_WRITECHECK ? &ph->scratch
	                                 : &t->read[rep];
	target_of(r, p, offset, rep, &ph->tg);
	r->bad_transfers = 0;
	r->nlat = 0;

	int code = prepare(r, p, ph);
	if (!code) {
		timed(r, p, ph);
		code = agree(r, p, ph);
	}
	if (!code && ph->writing)
		MPI_Barrier(r->comm);
	if (!code && (acc == IOR_WRITECHECK || acc == IOR_READCHECK))
		verify(r, p, ph);
	if (!code && acc != IOR_WRITECHECK) {
		check_file_size(r, t, ph);
		reduce(r, p, ph);
		report(r, t, ph);
		sonde_series_report();
	}
	free(ph);
	return code;
}

/* The read-back offset of this rank for repetition rep, and the line that explains it. */
static int read_offset(const struct ior_run *r, const struct ior_params *p, int rep, int rank)
{
	if (p->reorder)
		return ior_offset_constant(&r->map, p->task_offset);
	if (p->reorder_random == 1)
		return ior_offset_random(&r->map, p->task_offset, p->reorder_seed, rep, rank);
	if (p->reorder_random > 1)
		return ior_offset_shuffle(&r->map, p->reorder_seed, rep, rank);
	return 0;
}

static void describe_shift(struct ior_run *r, const struct ior_params *p, char *line, size_t len)
{
	line[0] = '\0';
	r->read_shift = r->same_node_reads = -1;
	/* rank 0 prints it, and computes every rank's offset itself (no gather needed) */
	if (r->rank != 0 || (!p->reorder && !p->reorder_random))
		return;
	int n = r->ntasks, *offs = malloc(sizeof *offs * (size_t)n);
	for (int k = 0; k < n; k++)
		offs[k] = read_offset(r, p, 0, k);
	int same = ior_same_node_reads(r->ctx->topo.node_of_rank, n, offs);
	const char *placement = r->map.block ? "block" : "round-robin";
	if (p->reorder) {
		int off = offs[0], stride = ior_node_stride(&r->map);
		r->read_shift = off;
		r->same_node_reads = same;
		snprintf(line, len, "%d ranks = %d node(s) of %d tasks (%s placement)", off,
		         stride ? off / stride : 0, r->map.tasks_on_node0, placement);
	} else {
		snprintf(line, len, "%s per rank (%s placement)",
		         p->reorder_random > 1 ? "shuffled" : "random", placement);
	}
	if (same > 0) {
		if (r->map.nnodes == 1)
			sonde_warn("all %d ranks run on one node: reads come from the node that "
			           "wrote the data (its page cache may serve them)",
			           n);
		else
			sonde_warn("%s: %d of %d ranks read data written on their own node%s",
			           p->reorder ? "-C" : "-Z", same, n,
			           p->reorder && offs[0] == 0
			               ? " (the shift wraps to 0: -Q x tasks on node 0 is a "
			                 "multiple of the task count)"
			               : "");
	}
	free(offs);
}

static void remove_files(struct ior_run *r, const struct ior_test *t, int rep)
{
	struct ior_target tg;
	target_of(r, &t->p, 0, rep, &tg);
	if ((t->p.fpp || r->rank == 0) &&
	    (enter_dir(r, &t->p, &tg) < 0 || r->backend->remove(tg.io_path) < 0) && r->rank == 0) {
		char why[4096];
		snprintf(why, sizeof why, "%s", sonde_io_last_error());
		sonde_path_shown(why, sizeof why, tg.io_path, tg.path);
		sonde_warn("cannot remove %s: %s", tg.path, why);
	}
}

/* After a failed write phase: each file that exists goes, as after a repetition. Not timed,
 * and no barrier: the ranks have agreed on the failure already. */
static void remove_left_behind(struct ior_run *r, const struct ior_test *t, int rep)
{
	struct ior_target tg;
	target_of(r, &t->p, 0, rep, &tg);
	if ((t->p.fpp || r->rank == 0) && r->backend->exists(tg.io_path) == 1)
		remove_files(r, t, rep);
}

static uint64_t time_seed(struct ior_run *r)
{
	uint64_t s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	MPI_Bcast(&s, 1, MPI_UINT64_T, 0, r->comm);
	return s;
}

/* stoneWallingStatusFile: the pairs an earlier run's wear-out reached (collective). */
static int read_status_file(struct ior_run *r, const char *path, int64_t *pairs)
{
	char why[256];
	int err;
	size_t len;
	char *text = sonde_input_read(r->comm, path, &len, &err, why, sizeof why);
	long long v = -1;
	if (!text || sscanf(text, "%lld", &v) != 1)
		v = -1;
	free(text);
	*pairs = v;
	return v < 0 ? -1 : 0;
}

/* A test's arrays, seeds and names, and the lines IOR prints before its table. */
static void begin_test(struct ior_run *r, struct ior_test *t)
{
	struct ior_params *p = &t->p;
	r->backend = sonde_backend_find(p->api);
	t->expected = p->block * p->segments * r->ntasks;
	t->ntasks = r->ntasks;
	t->write = calloc((size_t)p->reps, sizeof *t->write);
	t->read = calloc((size_t)p->reps, sizeof *t->read);
	t->remove_s = malloc(sizeof *t->remove_s * (size_t)p->reps);
	if (!t->write || !t->read || !t->remove_s)
		sonde_fatal("no memory for %d repetitions", p->reps);
	for (int k = 0; k < p->reps; k++)
		t->remove_s[k] = -1;
	if (posix_memalign(&r->buf, 4096, (size_t)p->xfer) != 0)
		sonde_fatal("cannot allocate a %lld-byte transfer buffer", (long long)p->xfer);
	if (p->random_offset && p->random_seed == -1) {
		/* IOR: a time seed, shared by all ranks for a shared file */
		int64_t s = (int64_t)time(NULL);
		if (!p->fpp)
			MPI_Bcast(&s, 1, MPI_INT64_T, 0, r->comm);
		p->random_seed = s & 0x7fffffff;
	}
	describe_shift(r, p, t->shift, sizeof t->shift);
	ior_time_string(t->start_time, sizeof t->start_time);
	ior_file_name(p->test_file, p->fpp, p->unique_dir, 0, p->multi_file ? 0 : -1, t->path,
	              sizeof t->path);
	if (r->rank == 0 && r->out) {
		ior_print_test_start(r->out, t);
		ior_print_options(r->out, t, &r->where);
	}
}

static void warn_existing_file(const struct ior_run *r, const struct ior_params *p)
{
	if (!(p->write || p->check_write) || !(p->fpp || r->rank == 0))
		return;
	char name[4096];
	ior_file_name(p->test_file, p->fpp, p->unique_dir, r->rank, p->multi_file ? 0 : -1, name,
	              sizeof name);
	if (r->backend->exists(name) == 1)
		fprintf(stderr,
		        "sonde ior: warning: the file \"%s\" exists already and will be %s\n", name,
		        p->use_existing ? "overwritten" : "truncated");
}

/* Whether the test files fit: the aggregate file size against the free space, plus what the
 * files this run overwrites hold already (a rerun over its own files needs no more room). */
static int space_check(const struct ior_run *r, const struct ior_test *t)
{
	const struct ior_params *p = &t->p;
	if (!(p->write || p->check_write))
		return 0;
	int64_t held = 0, existing = 0;
	if (p->fpp || r->rank == 0) {
		char name[4096];
		ior_file_name(p->test_file, p->fpp, p->unique_dir, r->rank, p->multi_file ? 0 : -1,
		              name, sizeof name);
		held = stat_size(r, name);
	}
	MPI_Allreduce(&held, &existing, 1, MPI_INT64_T, MPI_SUM, r->comm);
	int64_t need = t->expected > existing ? t->expected - existing : 0;
	return sonde_space_check(r->ctx, t->path, need, NULL,
	                         "the test files (aggregate filesize)");
}

/* The remove after a repetition, timed between barriers as IOR times it. */
static void remove_phase(struct ior_run *r, struct ior_test *t, int rep)
{
	MPI_Barrier(r->comm);
	double t0 = now(r);
	remove_files(r, t, rep);
	MPI_Barrier(r->comm);
	t->remove_s[rep] = now(r) - t0;
	/* IOR shows the remove rows only with -v */
	if (r->rank == 0 && r->out && t->p.verbose >= 1)
		ior_print_remove(r->out, t->remove_s[rep], rep);
}

/* One repetition: write, -W's check, read, remove. Returns 0 or an exit code. */
static int repetition(struct ior_run *r, struct ior_test *t, int rep, uint64_t base_seed)
{
	const struct ior_params *p = &t->p;
	r->seed = base_seed;
	r->stream_rep = p->signature ? 0 : rep;
	if (p->packet == IOR_PACKET_TIMESTAMP) {
		struct ior_target tg;
		target_of(r, p, 0, rep, &tg);
		sonde_pattern_fill(&tg.pat, r->buf, (size_t)p->xfer, 0);
	}
	int code = 0, wrote = 0;
	if (p->write) {
		r->pairs_limit = p->wearout_pairs;
		if ((code = phase(r, t, rep, IOR_WRITE, 0))) {
			/* a file cut short by the failure is no data set; left behind, it may
			 * keep a file system full (-k keeps it, for a look) */
			if (!p->keep)
				remove_left_behind(r, t, rep);
			return code;
		}
		wrote = 1;
		if (p->deadline > 0)
			r->pairs_limit = t->write[rep].pairs;
	}
	if (p->check_write) {
		MPI_Barrier(r->comm);
		if (r->rank == 0 && p->verbose >= 1 && r->log) {
			char ts[40];
			ior_time_string(ts, sizeof ts);
			fprintf(r->log, "Verifying contents of the file(s) just written.\n%s\n\n",
			        ts);
		}
		int off = p->reorder ? ior_offset_check(&r->map, p->task_offset) : 0;
		if ((code = phase(r, t, rep, IOR_WRITECHECK, off)))
			return code;
	}
	if (p->read || p->check_read) {
		/* the status file tells a read-only run how much an earlier run wrote; after a
		 * write in this run, its own count is the right one (IOR rereads the file even
		 * then, which still holds the previous run's count) */
		if (p->status_file && !wrote &&
		    read_status_file(r, p->status_file, &r->pairs_limit) < 0) {
			if (r->rank == 0)
				sonde_warn("Could not read back the stonewalling status from the "
				           "file!");
			r->pairs_limit = 0;
		}
		code = phase(r, t, rep, p->check_read ? IOR_READCHECK : IOR_READ,
		             read_offset(r, p, rep, r->rank));
		if (code)
			return code;
	}
	t->reps_done = rep + 1;
	int keep_for_error = r->verify_errors && p->keep_on_error;
	if (wrote && !p->keep && !keep_for_error)
		remove_phase(r, t, rep);
	else
		MPI_Barrier(r->comm);
	return 0;
}

/* stoneWallingStatusFile: the wear-out's count, for a later read run (or IOR's log line).
 * Collective: a file that cannot be written fails the run on every rank, as a read run would
 * otherwise take a count that was never saved. */
static int save_stonewall_pairs(const struct ior_run *r, const struct ior_test *t)
{
	const struct ior_params *p = &t->p;
	if (!p->wearout || !p->write || t->reps_done == 0)
		return 0;
	long long pairs = t->write[t->reps_done - 1].pairs;
	if (!p->status_file) {
		if (r->rank == 0 && r->log)
			fprintf(r->log, "Pairs deadlineForStonewalling accessed: %lld\n", pairs);
		return 0;
	}
	int err = 0;
	if (r->rank == 0) {
		FILE *f = sonde_fopen_nofollow(p->status_file, "w");
		err = f ? 0 : errno;
		if (f) {
			fprintf(f, "%lld\n", pairs);
			err = sonde_fclose_checked(f);
		}
	}
	return sonde_agree_path(r->comm, err, p->status_file,
	                        "cannot write the stonewalling status file %s: %s", p->status_file,
	                        sonde_strerror(err))
	           ? SONDE_EXIT_RUNTIME
	           : 0;
}

/* One test: its header, then its repetitions until they are done, -T's minutes have passed or
 * -q stops at a verification error; then its Max lines. */
static int run_test(struct ior_run *r, struct ior_test *t)
{
	const struct ior_params *p = &t->p;
	begin_test(r, t);
	int64_t hog_bytes = 0; /* the size was checked in setup_tests */
	char err[512];
	ior_hog_size(p->memory_per_node, p->memory_per_task, r->ctx->topo.local_size, &hog_bytes,
	             err, sizeof err);
	if (space_check(r, t) < 0)
		return SONDE_EXIT_USAGE;
	if (p->dry_run) {
		if (r->rank == 0 && r->out)
			fprintf(r->out, "\ndry run: parameters checked, no I/O done\n");
	} else {
		if (r->rank == 0 && r->out)
			ior_print_table_header(r->out);
		warn_existing_file(r, p);
	}
	void *hog = p->dry_run ? NULL : ior_hog(hog_bytes);
	int code = 0;
	if (!p->dry_run && !sonde_agree(r->comm, hog || !hog_bytes,
	                                "cannot hog %lld bytes of memory", (long long)hog_bytes))
		code = SONDE_EXIT_RUNTIME;
	if (!p->dry_run && !code) {
		uint64_t base_seed = p->signature ? (uint64_t)p->signature : time_seed(r);
		double start = MPI_Wtime();
		for (int rep = 0; rep < p->reps && !code; rep++) {
			if (p->max_minutes && MPI_Wtime() - start >= p->max_minutes * 60.0)
				break;
			code = repetition(r, t, rep, base_seed);
			if (p->quit_on_error && r->verify_errors)
				break; /* -q: no more repetitions */
		}
		if (!code && r->rank == 0 && r->out)
			ior_print_max(r->out, t);
		if (!code)
			code = save_stonewall_pairs(r, t);
	}
	free(hog);
	free(r->buf);
	r->buf = NULL;
	return code;
}

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	struct ior_params cli;
	const struct sonde_option_set *given;
	struct ior_test *tests = NULL;
	int ntests = 0;
	int code = ior_parse_tests(ctx, argc, argv, &cli, &given, &tests, &ntests);
	if (code)
		return code;
	if (ior_check_test_files(ctx, &cli, given, tests, ntests) < 0)
		return SONDE_EXIT_USAGE;

	struct ior_run r = {.ctx = ctx, .comm = ctx->comm, .rank = ctx->rank, .ntasks = ctx->size};
	r.map.ntasks = ctx->size;
	r.map.tasks_on_node0 = ctx->topo.tasks_per_node;
	r.map.nnodes = ctx->topo.nnodes;
	r.where = (struct ior_where){ctx->topo.nnodes, ctx->size, ctx->topo.tasks_per_node};
	r.map.block = ctx->size > 1 && ctx->topo.node_of_rank[1] == ctx->topo.node_of_rank[0];
	r.clock = *sonde_run_clock(ctx->comm);

	char err[512] = "";
	int ignored = 0;
	int ok = ior_hints_collect(ctx->comm, ior_hints_file(&tests[0].p), &r.hints, &ignored, err,
	                           sizeof err) == 0;
	if (!sonde_agree(ctx->comm, ok, "%s", err))
		return SONDE_EXIT_USAGE;
	ior_hints_warn(&tests[0].p, r.hints.count, ignored);

	/* IOR's two streams: results (the text report) and log lines. The text goes to stdout,
	 * or with the default format to summaryFile, as IOR's did; a JSON or CSV summary takes
	 * stdout's place unless it goes to summaryFile (then the text stays on stdout). */
	const struct ior_params *p0 = &tests[0].p;
	int summary_on_stdout = p0->format != IOR_FORMAT_DEFAULT && !p0->summary_file;
	r.out = summary_on_stdout ? NULL : stdout;
	r.log = summary_on_stdout ? NULL : stdout;
	int ok_out = 1;
	if (p0->format == IOR_FORMAT_DEFAULT && p0->summary_file && ctx->rank == 0) {
		r.out = sonde_fopen_nofollow(p0->summary_file, "w");
		ok_out = r.out != NULL;
		if (r.out)
			printf("Writing output to %s\n", p0->summary_file);
	}
	if (!sonde_agree(ctx->comm, ok_out, "cannot create summaryFile %s: %s",
	                 p0->summary_file ? p0->summary_file : "", sonde_strerror(errno)))
		return SONDE_EXIT_USAGE;
	if (p0->rank_csv && ctx->rank == 0) {
		r.rank_csv = sonde_fopen_nofollow(p0->rank_csv, "w");
		if (r.rank_csv)
			fprintf(r.rank_csv, "access,rank,runtime-with-openclose,runtime,"
			                    "throughput-withopenclose,throughput\n");
	}
	if (!sonde_agree(ctx->comm, !p0->rank_csv || ctx->rank != 0 || r.rank_csv,
	                 "cannot create %s: %s", p0->rank_csv ? p0->rank_csv : "",
	                 sonde_strerror(errno)))
		return SONDE_EXIT_USAGE;

	if (ctx->rank == 0) {
		char *params = ior_params_json(p0);
		sonde_results_header(ctx, params, p0->test_file);
		free(params);
	}
	char began[40];
	ior_time_string(began, sizeof began);
	if (ctx->rank == 0 && r.out) {
		ior_print_header(r.out, began, argc + 1, argv - 1, p0->verbose);
		if (p0->preset) {
			char line[1024];
			ior_command_line(p0, line, sizeof line);
			fprintf(r.out, "Preset              : %s = %s\n", p0->preset, line);
		}
	}

	for (int k = 0; k < ntests && !code; k++) {
		code = run_test(&r, &tests[k]);
		if (!code)
			ior_json_summary(&r, &tests[k]);
	}
	if (!code && !p0->dry_run && ctx->rank == 0) {
		if (r.out) {
			ior_print_summary(r.out, tests, ntests, ctx->size, r.map.tasks_on_node0);
			ior_print_finished(r.out);
		}
		if (p0->format != IOR_FORMAT_DEFAULT &&
		    ior_summary_file(tests, ntests, began, argc + 1, argv - 1, &r.where, err,
		                     sizeof err) < 0) {
			sonde_error("%s", err);
			code = SONDE_EXIT_RUNTIME;
		}
	}
	if (r.rank_csv) {
		int c =
		    sonde_close_output(r.rank_csv, "saveRankPerformanceDetailsCSV", p0->rank_csv);
		code = code ? code : c;
	}
	if (r.out && r.out != stdout) {
		int c = sonde_close_output(r.out, "summaryFile", p0->summary_file);
		code = code ? code : c;
	}
	MPI_Bcast(&code, 1, MPI_INT, 0, ctx->comm);
	fflush(stdout);
	for (int k = 0; k < ntests; k++) {
		free(tests[k].write);
		free(tests[k].read);
		free(tests[k].remove_s);
	}
	free(tests);
	sonde_strlist_free(&cli.directives); /* every test's copy of cli shares it */
	free(r.lat);
	if (r.dir_fd1)
		close(r.dir_fd1 - 1);
	if (!code && r.verify_errors)
		code = SONDE_EXIT_VERIFY;
	return code;
}

const struct sonde_workload sonde_workload_ior = {
    .name = "ior",
    .summary = "IOR-compatible bandwidth benchmark (POSIX, MPI-IO; -C/-Q/-Z reordering)",
    .options = &ior_option_table,
    .run = run,
    .params = ior_params_only,
};
