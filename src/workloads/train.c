/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train: emulates the I/O of AI training as the DLIO benchmark defines it. --generate
 * writes the dataset (files split over the ranks); --train runs the epochs: each rank reads its
 * block of the epoch's samples, shuffled (order.c), in batches that reader threads read ahead
 * (reader.c), while the main thread emulates the accelerator by sleeping the compute time of
 * each batch. The time the main thread waits for a batch is what the storage costs; AU = compute
 * / (compute + wait) per rank. --verify checks each batch between the wait and the compute,
 * timed apart from both, in a thread of its own with the readers paused, so that the waits
 * stay as they would be without it. Checkpoints (checkpoint.c) come after a step or an epoch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "fail.h"
#include "finish.h"
#include "json.h"
#include "progress.h"
#include "results.h"
#include "space.h"
#include "stats.h"
#include "timeseries.h"
#include "units.h"
#include "workloads/train/checkpoint.h"
#include "workloads/train/presets.h"
#include "workloads/train/train.h"

#define STREAM_COMPUTE 4

struct train {
	struct sonde_context *ctx;
	struct train_params p;
	const struct sonde_clock *clock;
	uint64_t random_seed; /* the seed of the "random" shuffles, drawn once for the run */
	char *params;         /* the parameters' JSON object */
	struct train_checkpoint_run ckpt;
	int checkpoints;       /* written so far */
	int64_t step;          /* this rank's batches so far, over the epochs */
	struct train_part run; /* this rank over every epoch */
	int exit_code;
};

static int report_here(const struct train *t)
{
	return t->ctx->rank == 0;
}

static double global(const struct train *t, double local)
{
	return sonde_clock_global(t->clock, local);
}

static double reduce_double(const struct train *t, double v, MPI_Op op)
{
	double r;
	MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, t->ctx->comm);
	return r;
}

static int64_t reduce_int(const struct train *t, int64_t v, MPI_Op op)
{
	int64_t r;
	MPI_Allreduce(&v, &r, 1, MPI_INT64_T, op, t->ctx->comm);
	return r;
}

static char *params_json(const struct train *t)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(&train_options, &t->p, &j);
	sonde_json_object_end(&j);
	return j.buf;
}

/* A measurement record on rank 0: start and end are the global ones, back on rank 0's clock. */
static void measurement(const struct train *t, struct sonde_measurement *rec, double start,
                        double end)
{
	rec->params_json = t->params;
	rec->start = start - t->clock->offset + t->clock->zero;
	rec->end = end - t->clock->offset + t->clock->zero;
	if (report_here(t))
		sonde_results_measurement(t->ctx->workload, rec);
}

/* ---- the command line --------------------------------------------------------------------- */

static void usage_error(const char *err)
{
	sonde_error("%s", err);
	sonde_exit(SONDE_EXIT_USAGE);
}

/* An accelerator without a sample has no AU (nothing computed, nothing waited for), and one of
 * 1 would count in the mean as a busy one: the blocks of ceil(samples / ranks) (order.c) must
 * leave no rank without a sample. */
static void every_rank_has_samples(const struct train_params *p, int ranks)
{
	int64_t total = p->num_files * p->samples_per_file;
	int64_t block = total / ranks + (total % ranks != 0);
	int64_t busy = total / block + (total % block != 0); /* the ranks with a block */
	if (busy >= ranks)
		return;
	char err[512], idle[64];
	if (busy == ranks - 1)
		snprintf(idle, sizeof idle, "rank %d", ranks - 1);
	else
		snprintf(idle, sizeof idle, "ranks %lld to %d", (long long)busy, ranks - 1);
	snprintf(
	    err, sizeof err,
	    "--train: %lld samples (--num-files x --samples-per-file) in blocks of %lld a rank "
	    "leave %s without a sample: give more samples or fewer ranks",
	    (long long)total, (long long)block, idle);
	usage_error(err);
}

static void parse(struct train *t, int argc, char **argv)
{
	struct sonde_context *ctx = t->ctx;
	train_params_defaults(&t->p);
	struct sonde_parse_result pos;
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &train_options, &t->p, argc, argv, &pos);
	if (pos.npositional > 0) {
		sonde_error("unexpected argument '%s' (sonde train --help lists the options)",
		            pos.positional[0]);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	sonde_parse_result_free(&pos);
	char err[1024] = "";
	if (t->p.preset &&
	    train_preset_apply(t->p.preset, t->p.accelerator, &t->p, set, err, sizeof err) < 0)
		usage_error(err);
	if (t->p.accelerator && !t->p.preset)
		usage_error("--accelerator chooses a --preset's compute time: give --preset");
	if (train_params_check(&t->p, err, sizeof err) < 0 ||
	    train_checkpoint_check(&t->p.ckpt, set, &ctx->topo, err, sizeof err) < 0)
		usage_error(err);
	if (!t->p.generate && !t->p.train && !train_checkpoint_wanted(&t->p.ckpt))
		usage_error("nothing to do: give --generate, --train or both");
	if (t->p.train)
		every_rank_has_samples(&t->p, ctx->size);
	if (t->p.train && t->p.fmt == TRAIN_HDF5 && t->p.read_threads > 1)
		sonde_warn(
		    "--read-threads %d with --format hdf5: HDF5 is not thread-safe here, so a "
		    "rank's reader threads read one at a time",
		    t->p.read_threads);
	sonde_options_warn_inert(set);
}

static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct train t = {.ctx = ctx};
	parse(&t, argc, argv);
	return params_json(&t);
}

/* What a path that should be a dataset file is instead. */
static const char *not_a_file(mode_t mode)
{
	return S_ISDIR(mode) ? "directory" : S_ISLNK(mode) ? "symbolic link" : "special file";
}

/* The dataset files this rank writes: file f is rank f % ranks's. */
static int64_t files_of_rank(const struct train *t)
{
	int64_t rank = t->ctx->rank, ranks = t->ctx->size;
	return rank < t->p.num_files ? (t->p.num_files - rank + ranks - 1) / ranks : 0;
}

static void setup(struct train *t, int argc, char **argv)
{
	struct sonde_context *ctx = t->ctx;
	parse(t, argc, argv);
	const struct train_params *p = &t->p;
	char err[1024] = "";
	int ok = 1;
	if (p->generate) {
		/* cheap for any --num-files: a dataset too large is refused at once */
		int exact;
		int64_t bytes = train_dataset_bytes(p, &exact);
		if (sonde_space_check(ctx, p->data_dir, bytes, NULL,
		                      exact ? "the dataset's files"
		                            : "the dataset's files (at the least)") < 0)
			sonde_exit(SONDE_EXIT_USAGE);
		/* the files this rank writes must not be the results files, nor take the place of
		 * something that is not a file: refused before any rank writes */
		if (files_of_rank(t) > TRAIN_SUMMED_FILES)
			sonde_warn(
			    "--generate --num-files %lld: each rank looks at each of its %lld "
			    "files (lstat) before any is written, so that none takes the place "
			    "of a directory or a results file: that alone takes a while",
			    (long long)p->num_files, (long long)files_of_rank(t));
		for (int64_t f = ctx->rank; ok && f < p->num_files; f += ctx->size)
			for (int index = 0; ok && index <= (p->fmt == TRAIN_INDEXED); index++) {
				char path[4096];
				train_file_path(p, f, index, path, sizeof path);
				ok = sonde_results_collision(path, "dataset file", err,
				                             sizeof err) == 0;
				struct stat st;
				if (ok && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
					snprintf(err, sizeof err,
					         "%.900s is a %s, not a dataset file", path,
					         not_a_file(st.st_mode));
					ok = 0;
				}
			}
		if (!sonde_agree(ctx->comm, ok, "%s", err))
			sonde_exit(SONDE_EXIT_USAGE);
	}
	if (p->fmt == TRAIN_HDF5 &&
	    !sonde_agree(ctx->comm, train_hdf5_start(err, sizeof err) == 0, "%s", err))
		sonde_exit(SONDE_EXIT_RUNTIME);
	t->clock = sonde_run_clock(ctx->comm);
	/* "random" shuffles: a seed for the run, the same on every rank */
	uint64_t drawn = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
	MPI_Bcast(&drawn, 1, MPI_UINT64_T, 0, ctx->comm);
	t->random_seed = drawn >> 1; /* fits the records' 64-bit signed integers */
	t->params = params_json(t);
	sonde_results_header(ctx, t->params, p->data_dir);
	t->ckpt = (struct train_checkpoint_run){.ctx = ctx,
	                                        .cfg = &p->ckpt,
	                                        .seed = (uint64_t)p->seed,
	                                        .clock = t->clock,
	                                        .params_json = t->params};
	if (report_here(t) && !p->generate && !p->train) { /* checkpoints alone: no dataset */
		printf("sonde train: checkpoints only, %d written and %d read, %lld bytes each, in "
		       "%s; %d rank%s\n",
		       p->ckpt.writes, p->ckpt.reads, (long long)p->ckpt.model_size, p->ckpt.folder,
		       ctx->size, ctx->size == 1 ? "" : "s");
		fflush(stdout);
	} else if (report_here(t)) {
		printf("sonde train: %lld files x %lld samples of %lld bytes (stdev %lld), %s, in "
		       "%s/train; %d rank%s\n",
		       (long long)p->num_files, (long long)p->samples_per_file,
		       (long long)p->record_size, (long long)p->record_size_stdev, p->format,
		       p->data_dir, ctx->size, ctx->size == 1 ? "" : "s");
		fflush(stdout);
	}
}

/* ---- --generate --------------------------------------------------------------------------- */

static int make_folder(const char *path)
{
	int rc = sonde_backend_posix.mkdir(path, 0755);
	return rc == -EEXIST ? 0 : rc;
}

/* Rank 0 makes DIR/train and its subfolders; DIR itself must exist. */
static void make_folders(struct train *t)
{
	const struct train_params *p = &t->p;
	char path[4096] = "";
	int rc = 0;
	if (report_here(t)) {
		snprintf(path, sizeof path, "%s/train", p->data_dir);
		rc = make_folder(path);
		for (int k = 0; rc == 0 && p->num_subfolders > 1 && k < p->num_subfolders; k++) {
			train_folder_path(p, k, path, sizeof path);
			rc = make_folder(path);
		}
	}
	int err = sonde_agree_path(t->ctx->comm, -rc, path, "%s", rc ? sonde_io_last_error() : "");
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_INPUT));
}

static void generate(struct train *t)
{
	make_folders(t);
	struct train_generated g;
	sonde_series_begin(t->ctx->comm, "generate", -1);
	MPI_Barrier(t->ctx->comm);
	sonde_series_start();
	/* rank 0's bytes, which each rank writes about as much as */
	int64_t mine = 0;
	if (t->p.record_size_stdev == 0) /* one size for every file */
		mine = files_of_rank(t) * train_file_size(&t->p, 0);
	for (int64_t f = t->ctx->rank; t->p.record_size_stdev && f < t->p.num_files;
	     f += t->ctx->size)
		mine += train_file_size(&t->p, f);
	struct sonde_progress live;
	sonde_progress_begin(&live, t->ctx, "generate", SONDE_PROGRESS_BYTES, mine, t->ctx->size,
	                     0);
	train_generate(&t->p, t->ctx->rank, t->ctx->size, &g, &live);
	sonde_progress_end(&live);
	sonde_series_stop();
	int err = sonde_agree_path(t->ctx->comm, g.err, g.path, "%s", g.why);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_RUN));
	double start = reduce_double(t, global(t, g.start), MPI_MIN);
	double end = reduce_double(t, global(t, g.end), MPI_MAX);
	int64_t bytes = reduce_int(t, g.bytes, MPI_SUM);
	int64_t calls = reduce_int(t, g.calls, MPI_SUM);
	int64_t files = reduce_int(t, g.files, MPI_SUM);
	struct sonde_stats per_rank;
	sonde_stats_across(t->ctx->comm, g.end - g.start, &per_rank);
	struct sonde_finish fin = {0};
	sonde_finish_across(&t->ctx->topo, t->ctx->comm, global(t, g.start), global(t, g.end),
	                    g.bytes, g.calls, &fin);
	struct sonde_json extra;
	sonde_json_init(&extra);
	sonde_json_object_begin(&extra, NULL);
	sonde_json_int(&extra, "files", files);
	sonde_json_object_end(&extra);
	struct sonde_measurement rec = {.phase = "generate",
	                                .iteration = -1,
	                                .bytes = bytes,
	                                .seconds = end - start,
	                                .ops = calls,
	                                .per_rank = &per_rank,
	                                .finish = &fin,
	                                .extra_json = extra.buf};
	measurement(t, &rec, start, end);
	sonde_json_free(&extra);
	sonde_series_report();
	if (report_here(t)) {
		printf("generate: %lld files, %.2f MiB in %.3f s: %.2f MiB/s\n", (long long)files,
		       (double)bytes / SONDE_MIB, end - start,
		       end > start ? (double)bytes / SONDE_MIB / (end - start) : 0.0);
		fflush(stdout);
	}
}

/* ---- --train ------------------------------------------------------------------------------ */

/* hdf5: an HDF5 file's size depends on the library's metadata, so the file is opened instead:
 * its records_0 must have the type and shape the options make (hdf5.c), and HDF5 refuses a
 * file cut short. It reads the file's metadata (a few KiB), not its samples. */
static int check_hdf5_file(const struct train_params *p, int64_t file, const char *path)
{
	struct train_hdf5_layout lay;
	struct sonde_io_options opt;
	train_open_options(p, file, &lay, &opt);
	struct sonde_file *f = NULL;
	int rc = train_hdf5_backend.open(path, SONDE_IO_RDONLY, &opt, &f);
	if (rc == 0)
		rc = train_hdf5_backend.close(f);
	return rc;
}

/* Before the first epoch, off its clock: every file of the dataset (rank r looks at files r, r +
 * ranks, ...) is a regular file of the size the options make, so that no figure is for another
 * dataset than the one named (one generated with other sizes, a file cut short or grown, a
 * directory in a file's place). A look at the size (stat) reads no data: the page cache stays
 * as it was. Just generated (--generate --train), a change is a fault of the run; otherwise the
 * input is wrong (exit 2). */
static void check_dataset(struct train *t)
{
	const struct train_params *p = &t->p;
	char path[4096] = "", why[4600] = "";
	int err = 0;
	for (int64_t f = t->ctx->rank; !err && f < p->num_files; f += t->ctx->size)
		for (int index = 0; !err && index <= (p->fmt == TRAIN_INDEXED); index++) {
			train_file_path(p, f, index, path, sizeof path);
			int64_t want = index ? 16 * p->samples_per_file : train_file_size(p, f);
			struct stat st;
			int rc = sonde_backend_posix.stat(path, &st);
			if (rc < 0) {
				err = -rc;
				snprintf(why, sizeof why, "%s", sonde_io_last_error());
			} else if (!S_ISREG(st.st_mode)) {
				err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
				snprintf(why, sizeof why, "%s is a %s, not a dataset file", path,
				         not_a_file(st.st_mode));
			} else if (p->fmt == TRAIN_HDF5) {
				err = -check_hdf5_file(p, f, path);
				if (err)
					snprintf(why, sizeof why, "%s", sonde_io_last_error());
			} else if (st.st_size != want) {
				err = EINVAL;
				snprintf(why, sizeof why,
				         "%s is %lld bytes, not the %lld the options make: a file "
				         "cut short or grown, or a dataset generated with other "
				         "options",
				         path, (long long)st.st_size, (long long)want);
			}
		}
	err = sonde_agree_path(t->ctx->comm, err, path, "%s", why);
	if (err)
		sonde_exit(
		    sonde_exit_class(err, p->generate ? SONDE_STAGE_RUN : SONDE_STAGE_INPUT));
}

/* The emulated accelerator computes batch b: a sleep of the time drawn for it, which is the
 * time returned. The sleep may end late (the thread woke when a core was free: readers busy on
 * every core, or readers that had stood still for a check and so came first): *overrun is by how
 * much. An accelerator takes its time and no more, so the lateness is the harness's, never the
 * accelerator's: counted as compute it raised AU (2x with --verify on tmpfs, where the paused
 * readers took the cores when the sleeps ended). */
static double compute(const struct train *t, int epoch, int64_t batch, double *overrun)
{
	const struct train_params *p = &t->p;
	double want = p->compute_time;
	if (p->compute_time_stdev > 0)
		want += p->compute_time_stdev *
		        train_normal((uint64_t)p->seed,
		                     sonde_pattern_stream(STREAM_COMPUTE, epoch, t->ctx->rank),
		                     (uint64_t)batch);
	if (!(want > 0))
		return 0;
	double took = train_sleep(want);
	*overrun = took > want ? took - want : 0;
	return want;
}

/* Samples whose mismatches a rank prints, per epoch (the count of all is in the error line). */
#define VERIFY_SHOWN 4

/* Checks every sample of batch b against the pattern its file was written with; the first
 * VERIFY_SHOWN bad samples' mismatches are printed with their file and file offsets. */
static void verify_batch(struct train_reader *r, const struct train_params *p, int rank, int64_t b,
                         int64_t n, struct sonde_verify *v, int *shown)
{
	for (int k = 0; k < n; k++) {
		int64_t id;
		const unsigned char *data = train_reader_sample(r, b, k, &id);
		int64_t file = id / p->samples_per_file, s = id % p->samples_per_file;
		int64_t size = train_sample_size(p, file);
		struct sonde_pattern pat = train_pattern(p, file);
		struct sonde_verify one = {0};
		sonde_pattern_check(&pat, data, (size_t)size, (uint64_t)(s * size), &one);
		v->bytes_checked += one.bytes_checked;
		v->errors += one.errors;
		if (one.errors && (*shown)++ < VERIFY_SHOWN) {
			char path[4096];
			int64_t head = p->fmt == TRAIN_INDEXED ? 0 : train_data_offset(p, file);
			for (int m = 0; m < one.kept; m++)
				one.first[m].offset += (uint64_t)head;
			train_file_path(p, file, 0, path, sizeof path);
			/* hdf5: the offsets are in records_0's array (with more data sets, in
			 * the samples', each sample's parts in turn) */
			if (p->fmt == TRAIN_HDF5)
				strncat(path,
				        p->num_dset > 1
				            ? " (data sets records_*, a sample's parts in turn)"
				            : " (data set records_0)",
				        sizeof path - strlen(path) - 1);
			sonde_verify_report(&one, rank, path);
		}
	}
}

struct batch_check {
	struct train_reader *r;
	const struct train_params *p;
	int rank;
	int64_t b, n;
	struct sonde_verify *v;
	int *shown;
};

/* verify_batch, in the readers' checker thread. */
static void check_batch(void *arg)
{
	const struct batch_check *c = arg;
	verify_batch(c->r, c->p, c->rank, c->b, c->n, c->v, c->shown);
}

/* The steps every rank makes in an epoch (the last rank's block may be shorter: order.c):
 * checkpoints by steps come only at these, collective. */
static int64_t common_steps(const struct train *t)
{
	int64_t total = t->p.num_files * t->p.samples_per_file, ranks = t->ctx->size;
	int64_t least = total - (ranks - 1) * ((total + ranks - 1) / ranks);
	if (least < 0)
		least = 0;
	return (least + t->p.batch_size - 1) / t->p.batch_size;
}

/* Returns 0 or the exit code of a failed checkpoint (its line printed); adds the stall to part. */
static int checkpoint(struct train *t, int epoch, struct train_part *part)
{
	double stalled = 0;
	int rc = train_checkpoint_write(&t->ckpt, t->checkpoints++, epoch, t->step, &stalled);
	part->stalled += stalled;
	return rc;
}

/* The bytes the reads of samples ids[0..n) cover (their sizes, or --odirect's spans): what the
 * rank reads, to the progress line's total. */
static int64_t span_bytes(const struct train_params *p, const int64_t *ids, int64_t n)
{
	int64_t bytes = 0;
	for (int64_t k = 0; k < n; k++) {
		int64_t file = ids[k] / p->samples_per_file, size = train_sample_size(p, file);
		int64_t offset = (p->fmt == TRAIN_INDEXED ? 0 : train_data_offset(p, file)) +
		                 ids[k] % p->samples_per_file * size;
		int64_t start, len;
		train_read_span(p, offset, size, &start, &len);
		bytes += len;
	}
	return bytes;
}

struct epoch {
	int64_t *order, count, batches;
	struct train_part part;
	struct sonde_verify verify;
	double start, end; /* local */
	int failed;
	int exit_code; /* a checkpoint failed: the run ends once the readers are joined */
	int shown;     /* bad samples printed */
};

static void epoch_loop(struct train *t, int e, struct epoch *ep, struct train_reader *r)
{
	const struct train_params *p = &t->p;
	int64_t shared = common_steps(t);
	struct sonde_progress live;
	int64_t got = 0; /* bytes of the batches the accelerator got */
	sonde_progress_begin(&live, t->ctx, "train", SONDE_PROGRESS_BYTES,
	                     span_bytes(p, ep->order, ep->count), t->ctx->size, 0);
	ep->start = sonde_now();
	/* The emulated accelerator's wait for a batch runs from when its last compute was due to
	 * end (or the epoch or a checkpoint ended) until the batch's last sample was handed over:
	 * a batch that was whole by then is no wait, even if this thread woke later. */
	double free_at = ep->start;
	train_reader_go(r);
	for (int64_t b = 0; b < ep->batches; b++) {
		int64_t n = ep->count - b * p->batch_size < p->batch_size
		                ? ep->count - b * p->batch_size
		                : p->batch_size;
		double ready = 0, from = 0; /* when batch b was whole; the accelerator free */
		if (!ep->failed) {
			double t0 = sonde_now();
			ep->failed = train_reader_wait(r, b) < 0;
			double t1 = sonde_now();
			if (!ep->failed) {
				/* without reader threads the reads start when it asks */
				from = p->read_threads > 0 ? free_at : t0;
				ready = train_reader_ready_at(r, b);
				ep->part.wait += ready > from ? ready - from : 0;
			}
			/* the time series and the progress line count batches as the accelerator
			 * gets them: their samples, their bytes, and the wait for them as the
			 * latency */
			int64_t bytes = ep->failed ? 0 : train_reader_batch_bytes(r, b);
			got += bytes;
			if (!ep->failed && sonde_series_recording())
				sonde_series_call(t1, t1 - t0, bytes, n);
		}
		if (!ep->failed) {
			double paused = 0;
			if (p->verify) {
				/* the readers pause while the batch is checked, in a thread of its
				 * own: reading ahead meanwhile would shorten the next waits
				 * (reader.c) */
				struct batch_check c = {r, p,           t->ctx->rank, b,
				                        n, &ep->verify, &ep->shown};
				ep->part.verify += train_reader_check(r, check_batch, &c, &paused);
			}
			train_reader_release(r, b);
			double overrun = 0, begun = sonde_now();
			double drawn = compute(t, e, b, &overrun);
			ep->part.compute += drawn;
			ep->part.overrun += overrun;
			/* A batch the accelerator waited for: it computes from when the batch was
			 * whole, however late this thread woke to it (the readers' clock stood
			 * still during a check). One that was there already: from when this thread
			 * began, so that late wakes while the readers were ahead never pile up into
			 * waits. */
			free_at = (ready > from ? ready + paused : begun) + drawn;
			ep->part.batches++;
			t->step++;
			sonde_progress_update(&live, got);
		}
		/* a rank that failed still meets the others where checkpoints are collective */
		if (p->ckpt.steps_between > 0 && (b + 1) % p->ckpt.steps_between == 0 &&
		    b + 1 <= shared) {
			int any_failed = reduce_int(t, ep->failed, MPI_MAX) != 0;
			if (any_failed) /* the failure is agreed on and named after the loop */
				break;
			ep->exit_code = checkpoint(t, e, &ep->part);
			if (ep->exit_code)
				break;
			free_at = sonde_now();
		}
		if (ep->failed && p->ckpt.steps_between == 0)
			break;
	}
	ep->end = sonde_now();
	sonde_progress_end(&live);
}

static void conclude_epoch(struct train *t, int e, struct epoch *ep)
{
	struct train_figures f;
	train_figures_reduce(t->ctx->comm, &ep->part, e, t->p.au_threshold, &f);
	int64_t errors = 0, checked = 0;
	if (t->p.verify) {
		sonde_verify_total(t->ctx->comm, &ep->verify, &errors, &checked);
		if (errors) {
			sonde_error(
			    "verify: %lld of %lld bytes read in epoch %d differ from the data "
			    "written",
			    (long long)errors, (long long)checked, e + 1);
			t->exit_code = SONDE_EXIT_VERIFY;
		}
	}
	struct sonde_latency lat;
	sonde_latency_of_acc(t->ctx->comm, &ep->part.io.latency, &lat);
	struct sonde_finish fin = {0};
	sonde_finish_across(&t->ctx->topo, t->ctx->comm, global(t, ep->start), global(t, ep->end),
	                    ep->part.io.bytes, ep->part.io.calls, &fin);
	double start = reduce_double(t, global(t, ep->start), MPI_MIN);
	double end = reduce_double(t, global(t, ep->end), MPI_MAX);
	struct sonde_json extra;
	sonde_json_init(&extra);
	sonde_json_object_begin(&extra, NULL);
	train_figures_json(&f, &extra);
	sonde_json_object_end(&extra);
	struct sonde_measurement rec = {.phase = "train",
	                                .iteration = e,
	                                .bytes = f.bytes,
	                                .seconds = f.seconds,
	                                .ops = f.calls,
	                                .per_rank = &f.busy,
	                                .latency = &lat,
	                                .finish = &fin,
	                                .verified = t->p.verify,
	                                .verify_errors = errors,
	                                .bytes_checked = checked,
	                                .extra_json = extra.buf};
	measurement(t, &rec, start, end);
	sonde_json_free(&extra);
	if (report_here(t))
		train_figures_print(stdout, &f);
	train_figures_free(&f);
}

static void add_part(struct train_part *to, const struct train_part *from)
{
	to->compute += from->compute;
	to->wait += from->wait;
	to->verify += from->verify;
	to->stalled += from->stalled;
	to->overrun += from->overrun;
	to->batches += from->batches;
	to->io.samples += from->io.samples;
	to->io.bytes += from->io.bytes;
	to->io.calls += from->io.calls;
	to->io.index_bytes += from->io.index_bytes;
	to->io.index_calls += from->io.index_calls;
}

static void epoch(struct train *t, int e)
{
	const struct train_params *p = &t->p;
	struct epoch ep;
	memset(&ep, 0, sizeof ep);
	ep.order = train_epoch_order(p, e, t->random_seed, t->ctx->rank, t->ctx->size, &ep.count);
	struct train_reader *r =
	    ep.order ? train_reader_start(p, ep.order, ep.count, p->verify) : NULL;
	/* the batches' buffers are most of it: --prefetch (1 without threads) x --batch-size x the
	 * epoch's largest sample, worked out only where the message is printed (a failed rank) */
	if (!sonde_agree(t->ctx->comm, r != NULL,
	                 "out of memory or threads for the readers of %lld samples, %d threads, "
	                 "%d batches of %d samples of up to %lld bytes in memory",
	                 (long long)ep.count, p->read_threads,
	                 p->read_threads > 0 ? p->prefetch : 1, p->batch_size,
	                 !r && ep.order ? (long long)train_max_sample_size(p, ep.order, ep.count)
	                                : 0LL))
		sonde_exit(SONDE_EXIT_RUNTIME);
	ep.batches = (ep.count + p->batch_size - 1) / p->batch_size;
	sonde_series_begin(t->ctx->comm, "train", e);
	MPI_Barrier(t->ctx->comm);
	sonde_series_start();
	epoch_loop(t, e, &ep, r);
	sonde_series_stop();
	train_reader_finish(r, &ep.part.io);
	free(ep.order);
	if (ep.exit_code)
		sonde_exit(ep.exit_code);
	int err =
	    sonde_agree_path(t->ctx->comm, ep.part.io.err, ep.part.io.path, "%s", ep.part.io.why);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_RUN));
	conclude_epoch(t, e, &ep);
	sonde_series_report();
	add_part(&t->run, &ep.part);
	if (p->ckpt.epochs_between > 0 && (e + 1) % p->ckpt.epochs_between == 0) {
		int rc = checkpoint(t, e, &t->run);
		if (rc)
			sonde_exit(rc);
	}
}

/* The summary record and line of the whole run. */
static void conclude_run(struct train *t)
{
	struct train_figures f;
	train_figures_reduce(t->ctx->comm, &t->run, -1, t->p.au_threshold, &f);
	if (report_here(t)) {
		struct sonde_json j;
		sonde_json_init(&j);
		sonde_json_object_begin(&j, NULL);
		sonde_json_string(&j, "phase", "train");
		sonde_json_int(&j, "epochs", t->p.epochs);
		sonde_json_int(&j, "bytes", f.bytes);
		sonde_json_int(&j, "read_calls", f.calls);
		sonde_json_double(&j, "seconds", f.seconds);
		sonde_json_double(&j, "bandwidth_mib_s", f.mib_per_s);
		train_figures_json(&f, &j);
		sonde_json_int(&j, "random_seed", (int64_t)t->random_seed);
		sonde_json_object_end(&j);
		sonde_results_record("summary", t->ctx->workload, j.buf);
		sonde_json_free(&j);
		train_figures_print(stdout, &f);
	}
	train_figures_free(&f);
}

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	struct train t = {.ctx = ctx};
	setup(&t, argc, argv);
	if (t.p.generate)
		generate(&t);
	if (t.p.train) {
		check_dataset(&t);
		for (int e = 0; e < t.p.epochs; e++)
			epoch(&t, e);
		conclude_run(&t);
	}
	/* checkpoint-only: writes, then reads of what was written */
	for (int k = 0; k < t.p.ckpt.writes; k++) {
		int rc = checkpoint(&t, -1, &t.run);
		if (rc)
			sonde_exit(rc);
	}
	for (int k = 0; k < t.p.ckpt.reads; k++) {
		int rc = train_checkpoint_read(&t.ckpt, k);
		if (rc)
			sonde_exit(rc);
	}
	free(t.params);
	return t.exit_code;
}

const struct sonde_workload sonde_workload_train = {
    .name = "train",
    .summary = "AI training I/O as DLIO: dataset generation, shuffled epochs, AU",
    .options = &train_options,
    .run = run,
    .params = params_only,
};
