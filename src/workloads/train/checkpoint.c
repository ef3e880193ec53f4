/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train's checkpoints: the options' checks (a --checkpoint-preset fills what was not
 * given), and each checkpoint written or read as one collective pass (checkpoint_io.c) made
 * into one measurement record: bytes actually moved, the time actually spent in the calls,
 * fsync and close (the pattern fill and the check of what was read left out), and for a write
 * the time training stood still for it, the barrier that opens the checkpoint to the last
 * rank's close. Checkpoint k lives in FOLDER/checkpoint-<k>, so a checkpoint-only run with
 * --checkpoint-reads alone reads what an earlier run with the same options wrote. As DLIO's
 * checkpoint-only mode, each of its writes and reads may follow an emulated compute time
 * (outside the checkpoint's clock: it starts at the barrier after it), and the reads may be
 * shifted by the ranks per node, so that no rank reads what its own node wrote (and may hold
 * in its page cache). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "fail.h"
#include "finish.h"
#include "json.h"
#include "progress.h"
#include "results.h"
#include "space.h"
#include "timeseries.h"
#include "units.h"
#include "workloads/train/checkpoint.h"
#include "workloads/train/checkpoint_io.h"
#include "workloads/train/presets.h"

/* Checkpoints this process wrote: reading one of them again is the run's own data (a failure
 * is a runtime fault); reading an earlier run's is reading input. */
static int written_here;

int train_checkpoint_wanted(const struct train_checkpoint_config *c)
{
	return c->steps_between > 0 || c->epochs_between > 0 || c->writes > 0 || c->reads > 0;
}

/* One line in err; returns -1 for the check to return. */
__attribute__((format(printf, 3, 4))) static int refuse(char *err, size_t errlen, const char *fmt,
                                                        ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* --recovery-rank-shift: rank r reads what rank (r + ranks per node) % ranks wrote, DLIO's
 * shift; sonde asks that this rank be on another node, for every rank (the same count on every
 * node, filled in rank order), where DLIO shifts whatever the placement. */
static int check_rank_shift(const struct train_checkpoint_config *c,
                            const struct sonde_topology *topo, char *err, size_t errlen)
{
	if (c->reads == 0 && !c->verify)
		return refuse(err, errlen,
		              "--recovery-rank-shift applies to checkpoint reads: give "
		              "--checkpoint-reads or --checkpoint-verify");
	if (topo->size < 2 || topo->nnodes < 2)
		return refuse(err, errlen,
		              "--recovery-rank-shift: all %d rank%s on one node: no other node's "
		              "checkpoint to read (the shift is by the ranks per node)",
		              topo->size, topo->size == 1 ? " is" : "s are");
	if (topo->tasks_per_node_min != topo->tasks_per_node_max)
		return refuse(
		    err, errlen,
		    "--recovery-rank-shift: the nodes hold %d to %d ranks: shifting by the "
		    "ranks per node needs the same number on every node",
		    topo->tasks_per_node_min, topo->tasks_per_node_max);
	for (int r = 0; r < topo->size; r++) {
		int from = (r + topo->tasks_per_node_min) % topo->size;
		if (topo->node_of_rank[from] == topo->node_of_rank[r])
			return refuse(
			    err, errlen,
			    "--recovery-rank-shift: rank %d would read what rank %d wrote, "
			    "on its own node: the ranks must fill the nodes in rank order",
			    r, from);
	}
	return 0;
}

int train_checkpoint_check(struct train_checkpoint_config *c, const struct sonde_option_set *given,
                           const struct sonde_topology *topo, char *err, size_t errlen)
{
	static const char *const options[] = {
	    "checkpoint-folder",
	    "model-size",
	    "num-layers",
	    "checkpoint-type",
	    "checkpoint-shared-file",
	    "checkpoint-verify",
	    "checkpoint-preset",
	    "time-between-checkpoints",
	    "recovery-rank-shift",
	};
	int ranks = topo->size;
	if (c->preset && train_checkpoint_preset_apply(c->preset, c, given, err, errlen) < 0)
		return -1;
	int training = sonde_option_given(given, "train");
	if (!train_checkpoint_wanted(c)) {
		for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
			if (sonde_option_given(given, options[i]))
				return refuse(err, errlen,
				              "--%s: no checkpoint is asked for (give "
				              "--steps-between-checkpoints or "
				              "--epochs-between-checkpoints with "
				              "--train, or --checkpoint-writes/--checkpoint-reads)",
				              options[i]);
		return 0;
	}
	if ((c->writes > 0 || c->reads > 0) && training)
		return refuse(
		    err, errlen,
		    "--checkpoint-writes and --checkpoint-reads are checkpoint-only runs: "
		    "without --train");
	if ((c->steps_between > 0 || c->epochs_between > 0) && !training)
		return refuse(
		    err, errlen,
		    "--steps-between-checkpoints and --epochs-between-checkpoints apply to "
		    "--train");
	if (!(c->time_between >= 0)) /* the parser refuses nan and inf */
		return refuse(err, errlen,
		              "option --time-between-checkpoints: %g is not a time of 0 seconds or "
		              "more",
		              c->time_between);
	if (sonde_option_given(given, "time-between-checkpoints") && training)
		return refuse(err, errlen,
		              "--time-between-checkpoints paces checkpoint-only runs "
		              "(--checkpoint-writes/--checkpoint-reads); with --train the compute "
		              "between checkpoints is --compute-time per step");
	if (c->rank_shift && check_rank_shift(c, topo, err, errlen) < 0)
		return -1;
	if (!c->folder)
		return refuse(err, errlen, "--checkpoint-folder DIR is required for checkpoints");
	if (strlen(c->folder) + CKPT_NAME_MAX >= PATH_MAX)
		return refuse(
		    err, errlen,
		    "--checkpoint-folder: a path of %zu bytes leaves no room below PATH_MAX "
		    "(%d) for the checkpoints' names",
		    strlen(c->folder), PATH_MAX);
	if (c->model_size <= 0)
		return refuse(
		    err, errlen,
		    "--model-size BYTES (or --checkpoint-preset) is required for checkpoints");
	if (strcmp(c->type, "rank_zero") != 0 && strcmp(c->type, "all_ranks") != 0)
		return refuse(err, errlen,
		              "option --checkpoint-type: '%s' is not rank_zero or all_ranks",
		              c->type);
	if (c->num_layers <= 0)
		c->num_layers = 1;
	int writers = strcmp(c->type, "all_ranks") == 0 ? ranks : 1;
	if (c->model_size / c->num_layers < writers)
		return refuse(
		    err, errlen,
		    "--model-size %lld is less than a byte for each of %d layers x %d writing "
		    "ranks",
		    (long long)c->model_size, c->num_layers, writers);
	if (c->writes > 0 && c->reads > c->writes)
		return refuse(err, errlen,
		              "--checkpoint-reads %d is more than the %d checkpoints written",
		              c->reads, c->writes);
	if (c->shared_file && sonde_backend_mpiio.missing)
		return refuse(
		    err, errlen,
		    "--checkpoint-shared-file needs MPI-IO, which this build has not (%s)",
		    sonde_backend_mpiio.missing);
	return 0;
}

static struct ckpt_layout layout_of(const struct train_checkpoint_run *run)
{
	const struct train_checkpoint_config *c = run->cfg;
	return (struct ckpt_layout){.total = c->model_size,
	                            .layers = c->num_layers,
	                            .writers =
	                                strcmp(c->type, "all_ranks") == 0 ? run->ctx->size : 1,
	                            .shared = c->shared_file};
}

/* The rank whose shards this one reads: itself, or with --recovery-rank-shift the rank the
 * ranks per node further on (train_checkpoint_check saw that it is on another node). */
static int read_source(const struct train_checkpoint_run *run)
{
	if (!run->cfg->rank_shift)
		return run->ctx->rank;
	return (run->ctx->rank + run->ctx->topo.tasks_per_node_min) % run->ctx->size;
}

double train_sleep(double seconds)
{
	if (!(seconds > 0))
		return 0;
	double start = sonde_now();
	for (double left = seconds; left > 0; left = start + seconds - sonde_now()) {
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
		nanosleep(&ts, NULL);
	}
	return sonde_now() - start;
}

static double global(const struct train_checkpoint_run *run, double local)
{
	return sonde_clock_global(run->clock, local);
}

static double all_double(MPI_Comm comm, double v, MPI_Op op)
{
	double r;
	MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, comm);
	return r;
}

static int64_t all_int(MPI_Comm comm, int64_t v, MPI_Op op)
{
	int64_t r;
	MPI_Allreduce(&v, &r, 1, MPI_INT64_T, op, comm);
	return r;
}

/* Rank 0 makes FOLDER (its parent must exist) and FOLDER/checkpoint-<index>. */
static int make_dir(const struct train_checkpoint_run *run, int index, char *dir, size_t len)
{
	const char *folder = run->cfg->folder;
	ckpt_dir_path(folder, index, dir, len);
	int rc = 0;
	const char *at = folder;
	if (run->ctx->rank == 0) {
		rc = sonde_backend_posix.mkdir(folder, 0755);
		if (rc == -EEXIST)
			rc = 0;
		if (rc == 0) {
			at = dir;
			rc = sonde_backend_posix.mkdir(dir, 0755);
			if (rc == -EEXIST)
				rc = 0;
		}
	}
	int err = sonde_agree_path(run->ctx->comm, -rc, at, "checkpoint folder: %s",
	                           rc ? sonde_io_last_error() : "");
	return err ? sonde_exit_class(err, index == 0 ? SONDE_STAGE_INPUT : SONDE_STAGE_RUN) : 0;
}

/* The figures of one pass over the ranks, valid on rank 0 (stall on every rank). */
struct ckpt_figures {
	int64_t bytes, calls, files;
	double seconds; /* the longest rank's time in its calls, fsync and close */
	double stall;   /* the opening barrier to the last rank's close */
	double aside_max, sync_max;
	double start, end; /* global */
	double rank_min_mib_s;
	double compute_before; /* the longest rank's emulated compute before the checkpoint */
	struct sonde_stats per_rank;
	struct sonde_latency latency;
	struct sonde_finish finish;
	int64_t verify_errors, checked;
};

static void reduce(const struct train_checkpoint_run *run, const struct ckpt_pass *pass,
                   double compute_before, struct ckpt_figures *fig)
{
	MPI_Comm comm = run->ctx->comm;
	fig->compute_before = all_double(comm, compute_before, MPI_MAX);
	double mine = pass->end - pass->start - pass->aside;
	fig->bytes = all_int(comm, pass->bytes, MPI_SUM);
	fig->calls = all_int(comm, pass->calls, MPI_SUM);
	fig->files = all_int(comm, pass->files, MPI_SUM);
	fig->seconds = all_double(comm, mine, MPI_MAX);
	fig->start = all_double(comm, global(run, pass->start), MPI_MIN);
	fig->end = all_double(comm, global(run, pass->end), MPI_MAX);
	fig->stall = fig->end - fig->start;
	fig->aside_max = all_double(comm, pass->aside, MPI_MAX);
	fig->sync_max = all_double(comm, pass->sync, MPI_MAX);
	/* MLPerf Storage's throughput: the slowest rank's own (ranks that moved bytes) */
	double rate = pass->bytes > 0 && mine > 0 ? (double)pass->bytes / SONDE_MIB / mine : -1;
	fig->rank_min_mib_s = all_double(comm, rate < 0 ? 1e300 : rate, MPI_MIN);
	if (fig->rank_min_mib_s >= 1e300)
		fig->rank_min_mib_s = 0;
	sonde_stats_across(comm, mine, &fig->per_rank);
	sonde_latency_of_acc(comm, &pass->latency, &fig->latency);
	sonde_finish_across(&run->ctx->topo, comm, global(run, pass->start), global(run, pass->end),
	                    pass->bytes, pass->calls, &fig->finish);
	sonde_verify_total(comm, &pass->verify, &fig->verify_errors, &fig->checked);
}

static void record(const struct train_checkpoint_run *run, const char *phase, int index, int epoch,
                   int64_t step, int verified, const struct ckpt_figures *fig)
{
	if (run->ctx->rank != 0)
		return;
	const struct train_checkpoint_config *c = run->cfg;
	struct ckpt_layout l = layout_of(run);
	struct sonde_json extra;
	sonde_json_init(&extra);
	sonde_json_object_begin(&extra, NULL);
	sonde_json_int(&extra, "checkpoint", index);
	if (epoch >= 0)
		sonde_json_int(&extra, "epoch", epoch);
	else
		sonde_json_null(&extra, "epoch");
	sonde_json_int(&extra, "step", step);
	sonde_json_int(&extra, "files", fig->files);
	sonde_json_int(&extra, "layers", c->num_layers);
	sonde_json_int(&extra, "writing_ranks", l.writers);
	sonde_json_bool(&extra, "shared_file", c->shared_file);
	sonde_json_double(&extra, "compute_before_s", fig->compute_before);
	if (strcmp(phase, "checkpoint-write") == 0) {
		sonde_json_double(&extra, "stall_s", fig->stall);
		sonde_json_double(&extra, "fill_s_max", fig->aside_max);
		sonde_json_double(&extra, "fsync_s_max", fig->sync_max);
	} else {
		sonde_json_double(&extra, "verify_s_max", fig->aside_max);
		sonde_json_int(&extra, "rank_shift",
		               c->rank_shift ? run->ctx->topo.tasks_per_node_min : 0);
	}
	sonde_json_double(&extra, "rank_min_mib_s", fig->rank_min_mib_s);
	sonde_json_object_end(&extra);
	struct sonde_measurement rec = {
	    .phase = phase,
	    .iteration = index,
	    .bytes = fig->bytes,
	    .seconds = fig->seconds,
	    .ops = fig->calls,
	    .per_rank = &fig->per_rank,
	    .latency = &fig->latency,
	    .finish = &fig->finish,
	    .verified = verified,
	    .verify_errors = fig->verify_errors,
	    .bytes_checked = fig->checked,
	    .params_json = run->params_json,
	    .extra_json = extra.buf,
	    .start = fig->start - run->clock->offset + run->clock->zero,
	    .end = fig->end - run->clock->offset + run->clock->zero,
	};
	sonde_results_measurement(run->ctx->workload, &rec);
	sonde_json_free(&extra);
}

static double mib_per_s(const struct ckpt_figures *fig)
{
	return fig->seconds > 0 ? (double)fig->bytes / SONDE_MIB / fig->seconds : 0;
}

/* compute_before: the seconds of emulated compute this rank slept before it. */
static int read_checkpoint(const struct train_checkpoint_run *run, int index, double compute_before)
{
	struct ckpt_layout l = layout_of(run);
	char dir[4096];
	ckpt_dir_path(run->cfg->folder, index, dir, sizeof dir);
	struct ckpt_pass pass;
	struct sonde_progress live;
	int source = read_source(run);
	sonde_progress_begin(&live, run->ctx, "checkpoint-read", SONDE_PROGRESS_BYTES,
	                     ckpt_rank_bytes(&l, source), l.writers, 0);
	ckpt_pass_run(run->ctx->comm, run->ctx->rank, source, &l, dir, run->seed, index, 0,
	              run->cfg->verify, &live, &pass);
	sonde_progress_end(&live);
	int err = sonde_agree_path(run->ctx->comm, pass.err, pass.path, "checkpoint %d: %s", index,
	                           pass.why);
	if (err)
		return sonde_exit_class(err,
		                        index < written_here ? SONDE_STAGE_RUN : SONDE_STAGE_INPUT);
	struct ckpt_figures fig;
	reduce(run, &pass, compute_before, &fig);
	int rc = 0;
	if (run->cfg->verify) {
		sonde_verify_report(&pass.verify, run->ctx->rank, pass.bad);
		if (fig.verify_errors) {
			sonde_error(
			    "checkpoint %d: verify: %lld of %lld bytes read in %s differ from "
			    "what was written",
			    index, (long long)fig.verify_errors, (long long)fig.checked, dir);
			rc = SONDE_EXIT_VERIFY;
		}
	}
	record(run, "checkpoint-read", index, -1, 0, run->cfg->verify, &fig);
	if (pass.series)
		sonde_series_report();
	if (run->ctx->rank == 0) {
		printf("checkpoint %d read: %lld files, %.2f MiB in %.4f s: %.2f MiB/s%s\n", index,
		       (long long)fig.files, (double)fig.bytes / SONDE_MIB, fig.seconds,
		       mib_per_s(&fig),
		       run->cfg->verify ? (rc ? ", verify FAILED" : ", verified") : "");
		fflush(stdout);
	}
	return rc;
}

int train_checkpoint_read(const struct train_checkpoint_run *run, int index)
{
	return read_checkpoint(run, index, train_sleep(run->cfg->time_between));
}

int train_checkpoint_write(const struct train_checkpoint_run *run, int index, int epoch,
                           int64_t step, double *stalled)
{
	*stalled = 0;
	/* checkpoint-only: DLIO's compute before each, outside the checkpoint's clock (its pass
	 * starts at a barrier after it); during training the epochs' compute is the steps' */
	double compute_before = epoch < 0 ? train_sleep(run->cfg->time_between) : 0;
	struct ckpt_layout l = layout_of(run);
	char dir[4096];
	int rc = make_dir(run, index, dir, sizeof dir);
	if (rc)
		return rc;
	if (index == 0 && sonde_space_check(run->ctx, run->cfg->folder, l.total, NULL,
	                                    "the checkpoint's files") < 0)
		return SONDE_EXIT_USAGE;
	struct ckpt_pass pass;
	struct sonde_progress live;
	sonde_progress_begin(&live, run->ctx, "checkpoint-write", SONDE_PROGRESS_BYTES,
	                     ckpt_rank_bytes(&l, run->ctx->rank), l.writers, 0);
	ckpt_pass_run(run->ctx->comm, run->ctx->rank, run->ctx->rank, &l, dir, run->seed, index, 1,
	              0, &live, &pass);
	sonde_progress_end(&live);
	int err = sonde_agree_path(run->ctx->comm, pass.err, pass.path, "checkpoint %d: %s", index,
	                           pass.why);
	if (err)
		return sonde_exit_class(err, SONDE_STAGE_RUN);
	written_here = index + 1 > written_here ? index + 1 : written_here;
	struct ckpt_figures fig;
	reduce(run, &pass, compute_before, &fig);
	*stalled = fig.stall;
	record(run, "checkpoint-write", index, epoch, step, 0, &fig);
	if (pass.series)
		sonde_series_report();
	if (run->ctx->rank == 0) {
		printf("checkpoint %d write: %lld files, %.2f MiB in %.4f s: %.2f MiB/s; training "
		       "stalled %.4f s\n",
		       index, (long long)fig.files, (double)fig.bytes / SONDE_MIB, fig.seconds,
		       mib_per_s(&fig), fig.stall);
		fflush(stdout);
	}
	/* the read-back that --checkpoint-verify asks for, when no checkpoint-only reads will */
	if (run->cfg->verify && run->cfg->reads == 0)
		return read_checkpoint(run, index, 0);
	return 0;
}
