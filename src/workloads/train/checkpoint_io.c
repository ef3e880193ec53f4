/* SPDX-License-Identifier: BSD-3-Clause */
/* One rank's pass over its shards of a checkpoint: the files of its (layer, shard) pairs
 * through the POSIX backend, or its pieces of the one shared file through MPI-IO's collective
 * calls. The clock of a pass runs from the barrier that opens it to the last close, fsync
 * included when writing (a checkpoint is durable); filling the buffers with the pattern and
 * checking what was read are timed apart (aside), so the records can leave them out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "clock.h"
#include "fail.h"
#include "progress.h"
#include "timeseries.h"
#include "workloads/train/checkpoint_io.h"

static int64_t part_of(int64_t bytes, int parts, int k)
{
	return bytes / parts + (k < bytes % parts ? 1 : 0);
}

static int64_t start_of(int64_t bytes, int parts, int k)
{
	int64_t extra = bytes % parts;
	return (int64_t)k * (bytes / parts) + (k < extra ? k : extra);
}

int64_t ckpt_layer_bytes(const struct ckpt_layout *l, int layer)
{
	return part_of(l->total, l->layers, layer);
}

int64_t ckpt_layer_start(const struct ckpt_layout *l, int layer)
{
	return start_of(l->total, l->layers, layer);
}

int64_t ckpt_shard_bytes(const struct ckpt_layout *l, int layer, int shard)
{
	return part_of(ckpt_layer_bytes(l, layer), l->writers, shard);
}

int64_t ckpt_shard_start(const struct ckpt_layout *l, int layer, int shard)
{
	return start_of(ckpt_layer_bytes(l, layer), l->writers, shard);
}

int64_t ckpt_file_count(const struct ckpt_layout *l)
{
	return l->shared ? 1 : (int64_t)l->layers * l->writers;
}

/* The shard a rank writes, -1 when it writes none (rank_zero's other ranks). */
static int shard_of(const struct ckpt_layout *l, int rank)
{
	return l->writers == 1 ? (rank == 0 ? 0 : -1) : rank;
}

int64_t ckpt_rank_bytes(const struct ckpt_layout *l, int rank)
{
	int shard = shard_of(l, rank);
	int64_t bytes = 0;
	for (int layer = 0; shard >= 0 && layer < l->layers; layer++)
		bytes += ckpt_shard_bytes(l, layer, shard);
	return bytes;
}

/* ckpt_check refused a folder whose names could pass PATH_MAX, so a cut name here is a caller's
 * too small buffer: it ends the run rather than touch another file. */
static void whole_name(int needed, const char *out, size_t len)
{
	if (needed < 0 || (size_t)needed >= len)
		sonde_fatal("checkpoint: a path needs %d bytes, its buffer has %zu: %s...", needed,
		            len, out);
}

void ckpt_dir_path(const char *folder, int index, char *out, size_t len)
{
	whole_name(snprintf(out, len, "%s/checkpoint-%d", folder, index), out, len);
}

void ckpt_file_path(const char *dir, const struct ckpt_layout *l, int layer, int shard, char *out,
                    size_t len)
{
	if (l->shared)
		whole_name(snprintf(out, len, "%s/checkpoint", dir), out, len);
	else
		whole_name(snprintf(out, len, "%s/layer-%d-shard-%d", dir, layer, shard), out, len);
}

struct sonde_pattern ckpt_pattern(uint64_t seed, const struct ckpt_layout *l, int index, int layer,
                                  int shard)
{
	struct sonde_pattern p = {.seed = seed};
	p.stream = l->shared ? sonde_pattern_stream(0, 0, index)
	                     : sonde_pattern_stream(shard, (int64_t)layer + 1, index);
	return p;
}

static void fail(struct ckpt_pass *pass, int err, const char *path, const char *why)
{
	if (pass->err)
		return;
	pass->err = err;
	snprintf(pass->path, sizeof pass->path, "%s", path);
	snprintf(pass->why, sizeof pass->why, "%s", why);
}

/* A checkpoint is read whole: its file holds exactly what the layout puts there, else another
 * layout wrote it, or it was cut. Returns 1, or 0 with the failure noted. */
static int size_matches(struct ckpt_pass *pass, const struct sonde_backend *io,
                        struct sonde_file *f, const char *path, int64_t want)
{
	int64_t have = io->size(f);
	if (have < 0) {
		fail(pass, (int)-have, path, sonde_io_last_error());
		return 0;
	}
	if (have == want)
		return 1;
	char why[CKPT_WHY_MAX];
	snprintf(
	    why, sizeof why,
	    "%s holds %lld bytes where this checkpoint's layout has %lld (written with another "
	    "--model-size, --num-layers, --checkpoint-type or number of ranks?)",
	    path, (long long)have, (long long)want);
	fail(pass, EINVAL, path, why);
	return 0;
}

/* What one pass needs besides the pass itself. */
struct ckpt_walk {
	const struct ckpt_layout *l;
	const char *dir;
	uint64_t seed;
	int index, writing, check, shard; /* shard: this rank's, -1 when it writes none */
	struct sonde_progress *live;
	unsigned char *buf;
	size_t buflen;
};

/* One data call of len bytes at file offset off (pattern offset pat_off). A failure is noted
 * in pass; later calls of a failed rank move nothing. */
static void data_call(const struct ckpt_walk *w, struct ckpt_pass *pass, struct sonde_file *f,
                      const struct sonde_backend *io, const char *path,
                      const struct sonde_pattern *pat, int64_t off, size_t len)
{
	if (pass->err)
		len = 0;
	if (w->writing && len) {
		double f0 = sonde_now();
		sonde_pattern_fill(pat, w->buf, len, (uint64_t)off);
		pass->aside += sonde_now() - f0;
	}
	double t0 = sonde_now();
	ssize_t n =
	    w->writing ? io->write_at(f, w->buf, len, off) : io->read_at(f, w->buf, len, off);
	double t1 = sonde_now();
	if (!len && n >= 0)
		return;
	sonde_latency_acc_add(&pass->latency, t1 - t0);
	if (pass->series) /* not into an epoch's series that is recording around it */
		sonde_series_call(t1, t1 - t0, n > 0 ? (int64_t)n : 0, 1);
	pass->calls++;
	if (n < 0) {
		fail(pass, (int)-n, path, sonde_io_last_error());
		return;
	}
	pass->bytes += n;
	sonde_progress_update(w->live, pass->bytes);
	if ((size_t)n < len) {
		char why[CKPT_WHY_MAX];
		snprintf(why, sizeof why,
		         "read %s: %lld of %zu bytes at offset %lld: the file is shorter than the "
		         "checkpoint written",
		         path, (long long)n, len, (long long)off);
		fail(pass, EIO, path, why);
		return;
	}
	if (!w->writing && w->check) {
		double c0 = sonde_now();
		if (sonde_pattern_check(pat, w->buf, len, (uint64_t)off, &pass->verify) &&
		    !pass->bad[0])
			snprintf(pass->bad, sizeof pass->bad, "%s", path);
		pass->aside += sonde_now() - c0;
	}
}

static void sync_and_close(const struct ckpt_walk *w, struct ckpt_pass *pass,
                           const struct sonde_backend *io, struct sonde_file *f, const char *path)
{
	if (w->writing) {
		double s0 = sonde_now();
		int rc = io->sync(f);
		pass->sync += sonde_now() - s0;
		if (rc < 0)
			fail(pass, -rc, path, sonde_io_last_error());
	}
	int rc = io->close(f);
	if (rc < 0)
		fail(pass, -rc, path, sonde_io_last_error());
}

/* One file per (layer, shard): the rank's own files, nothing collective. */
static void files_pass(const struct ckpt_walk *w, struct ckpt_pass *pass)
{
	const struct sonde_backend *io = &sonde_backend_posix;
	unsigned flags =
	    w->writing ? SONDE_IO_WRONLY | SONDE_IO_CREATE | SONDE_IO_TRUNC : SONDE_IO_RDONLY;
	struct sonde_io_options opt = {.comm = MPI_COMM_SELF};
	for (int layer = 0; w->shard >= 0 && layer < w->l->layers && !pass->err; layer++) {
		char path[4096];
		ckpt_file_path(w->dir, w->l, layer, w->shard, path, sizeof path);
		struct sonde_file *f = NULL;
		int rc = io->open(path, flags, &opt, &f);
		if (rc < 0) {
			fail(pass, -rc, path, sonde_io_last_error());
			break;
		}
		pass->files++;
		struct sonde_pattern pat = ckpt_pattern(w->seed, w->l, w->index, layer, w->shard);
		int64_t bytes = ckpt_shard_bytes(w->l, layer, w->shard);
		if (!w->writing)
			size_matches(pass, io, f, path, bytes);
		for (int64_t off = 0; off < bytes && !pass->err; off += (int64_t)w->buflen) {
			int64_t left = bytes - off;
			data_call(w, pass, f, io, path, &pat, off,
			          (size_t)(left < (int64_t)w->buflen ? left : (int64_t)w->buflen));
		}
		sync_and_close(w, pass, io, f, path);
	}
}

/* The shared file: opened, written or read, synced and closed by every rank together; each
 * layer in as many collective calls as its largest shard needs (shard 0), every rank making
 * each call, with nothing to move when it has no more of the layer (or writes no shard). */
static void shared_pass(MPI_Comm comm, int rank, const struct ckpt_walk *w, struct ckpt_pass *pass)
{
	const struct sonde_backend *io = &sonde_backend_mpiio;
	char path[4096];
	ckpt_file_path(w->dir, w->l, 0, 0, path, sizeof path);
	unsigned flags =
	    w->writing ? SONDE_IO_WRONLY | SONDE_IO_CREATE | SONDE_IO_TRUNC : SONDE_IO_RDONLY;
	struct sonde_io_options opt = {.comm = comm, .collective = 1};
	struct sonde_file *f = NULL;
	int rc = io->open(path, flags, &opt, &f);
	if (rc < 0)
		fail(pass, -rc, path, sonde_io_last_error());
	int opened = rc == 0, all_opened = 0;
	/* MPI opens a file together or not at all; a rank whose open failed calls nothing more */
	MPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, comm);
	if (!all_opened) {
		if (opened)
			io->close(f);
		return;
	}
	pass->files = rank == 0; /* one file, counted once */
	if (!w->writing)         /* a rank that finds another size moves nothing, but still calls */
		size_matches(pass, io, f, path, w->l->total);
	struct sonde_pattern pat = ckpt_pattern(w->seed, w->l, w->index, 0, 0);
	int64_t step = (int64_t)w->buflen;
	for (int layer = 0; layer < w->l->layers; layer++) {
		int64_t largest = ckpt_shard_bytes(w->l, layer, 0);
		int64_t mine = w->shard >= 0 ? ckpt_shard_bytes(w->l, layer, w->shard) : 0;
		int64_t base = ckpt_layer_start(w->l, layer) +
		               (w->shard >= 0 ? ckpt_shard_start(w->l, layer, w->shard) : 0);
		for (int64_t off = 0; off < largest; off += step) {
			int64_t len = mine - off < 0 ? 0 : mine - off < step ? mine - off : step;
			data_call(w, pass, f, io, path, &pat, base + off, (size_t)len);
		}
	}
	sync_and_close(w, pass, io, f, path);
}

void ckpt_pass_run(MPI_Comm comm, int rank, int source, const struct ckpt_layout *l,
                   const char *dir, uint64_t seed, int index, int writing, int check,
                   struct sonde_progress *live, struct ckpt_pass *pass)
{
	memset(pass, 0, sizeof *pass);
	struct ckpt_walk w = {.l = l,
	                      .dir = dir,
	                      .seed = seed,
	                      .index = index,
	                      .writing = writing,
	                      .check = check,
	                      .live = live,
	                      .shard = shard_of(l, source)};
	/* The largest piece moved in one call, at least one byte to point at: this rank's; for
	 * the shared file every rank's step is shard 0's (the largest), so that all make the
	 * same collective calls. */
	int64_t largest = 1;
	int sized = l->shared ? 0 : w.shard;
	for (int layer = 0; sized >= 0 && layer < l->layers; layer++)
		if (ckpt_shard_bytes(l, layer, sized) > largest)
			largest = ckpt_shard_bytes(l, layer, sized);
	w.buflen = (size_t)(largest < CKPT_CALL_BYTES ? largest : CKPT_CALL_BYTES);
	w.buf = malloc(w.buflen);
	if (!w.buf)
		fail(pass, ENOMEM, dir, "out of memory for the checkpoint's buffer");
	/* --interval: the checkpoint's own time series, unless it falls inside an epoch's (steps
	 * between checkpoints), where it shows as the time without batches */
	pass->series = !sonde_series_recording();
	if (pass->series)
		sonde_series_begin(comm, writing ? "checkpoint-write" : "checkpoint-read", index);
	MPI_Barrier(comm);
	pass->start = sonde_now();
	if (pass->series)
		sonde_series_start();
	if (l->shared)
		shared_pass(comm, rank, &w, pass);
	else if (w.buf)
		files_pass(&w, pass);
	pass->end = sonde_now();
	if (pass->series)
		sonde_series_stop();
	free(w.buf);
}
