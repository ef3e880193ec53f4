/* SPDX-License-Identifier: BSD-3-Clause */
/* The readers of one rank's epoch: threads that take the rank's samples in order, each whole
 * sample by one thread in calls of --transfer-size, at most --prefetch batches ahead of the batch
 * the main thread consumes (a batch's slot is free again once it is released). A sample's bytes
 * go to its place in its batch's slot, as a loader holds the batches it has read in memory: with
 * or without --verify the same memory, so that a read from memory costs the same (one buffer a
 * thread, reused, stayed in the CPU's caches where the slots do not always, and --verify, which
 * needs the bytes, read 0.87 of the samples/s without it on tmpfs). Each thread keeps the file
 * of its last sample open (and, for indexed files, that file's index). With --odirect a read
 * covers the aligned span around the sample, into aligned buffers, and the sample is found
 * inside it. The first failure stops every reader; the waiting consumer is told. Without
 * threads the consumer reads each batch itself when it waits for it.
 * hdf5: a sample is a byte range of the file's records_0, read through HDF5 (hdf5.c).
 *
 * --verify checks a batch in the consumer between its wait and its compute, and the checks must
 * leave the figures as they would be without them: readers that went on reading meanwhile would
 * shorten the next waits, raising AU and samples/s (a pass bought with --verify). So the
 * consumer pauses the readers around a check, and the pipeline behaves as if time stood still
 * during it: no reader claims a sample while paused; the samples being read finish before the
 * check starts (a check sharing a core with them would slow them), and a sample whose reading a
 * pause overlapped is handed over only the pause's length after its reads ended, as if its reads
 * had stopped with the clock. Its read calls are timed as they happened (latency); what moves is
 * when the consumer can have the sample. The check itself runs in a checker thread while the
 * consumer waits: the scheduler charges its CPU time to that thread, so the consumer wakes from
 * its compute sleeps as promptly as without checks (charged to the consumer, a check of a few
 * milliseconds let the readers sharing its core run first, and its sleeps overran). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "clock.h"
#include "stop.h"
#include "workloads/train/train.h"

struct worker {
	struct train_reader *r;
	pthread_t thread;
	int64_t file; /* the file open in f, -1: none */
	struct sonde_file *f;
	int64_t size, head;   /* its samples' size and where its array starts */
	char path[4096];      /* its path */
	unsigned char *index; /* indexed: the (offset, length) pairs of file */
	struct train_io io;
};

struct train_reader {
	const struct train_params *p;
	const struct sonde_backend *backend;
	const int64_t *samples;
	int64_t count, batches;
	int bs, slots, keep;
	size_t stride;      /* bytes per sample in a slot: the largest read span */
	size_t call;        /* bytes per read call */
	unsigned char *buf; /* slots x bs x stride: the batches in memory */
	int64_t *skip;      /* per place, where its sample starts in its span */
	pthread_mutex_t mu;
	pthread_cond_t ready, space;
	int64_t next;     /* the next sample to claim */
	int64_t released; /* batches released */
	int64_t *done;    /* per slot: samples read of its batch */
	int64_t *moved;   /* per slot: bytes read for its batch */
	double *ready_at; /* per slot: when the last sample of its batch was handed over */
	int failed;
	int stop;              /* the consumer is done: readers end */
	int started;           /* train_reader_go was called: readers may read */
	int paused;            /* the consumer checks a batch: no sample is claimed */
	int reading;           /* keep: samples claimed whose reads are not over */
	double pause_start;    /* when the current pause began */
	double paused_total;   /* seconds of the pauses that ended */
	pthread_t checker;     /* keep: runs the consumer's checks */
	pthread_cond_t posted; /* a check posted or done, or the end */
	void (*check)(void *); /* the check posted, NULL: none */
	void *check_arg;
	double check_seconds; /* the last check's time */
	int nworkers;
	struct worker *workers; /* nworkers, or one for the consumer without threads */
};

static int64_t batch_len(const struct train_reader *r, int64_t b)
{
	int64_t left = r->count - b * r->bs;
	return left < r->bs ? left : r->bs;
}

static int fail(struct worker *w, int err, const char *path, const char *why)
{
	if (!w->io.err) {
		w->io.err = err;
		snprintf(w->io.path, sizeof w->io.path, "%s", path);
		snprintf(w->io.why, sizeof w->io.why, "%s", why);
	}
	return -1;
}

/* Reads len bytes at offset of f in calls of r->call into dst; the end of the file may come
 * after need bytes (a direct read's aligned span past it), not before. */
static int read_range(struct worker *w, struct sonde_file *f, const char *path, unsigned char *dst,
                      int64_t len, int64_t need, int64_t offset, int64_t *bytes, int64_t *calls)
{
	const struct train_reader *r = w->r;
	/* hdf5: the bytes counted are those HDF5 took from the file (deflated chunks are read
	 * whole) */
	int hdf5 = r->p->fmt == TRAIN_HDF5;
	for (int64_t done = 0; done < len;) {
		size_t n = len - done < (int64_t)r->call ? (size_t)(len - done) : r->call;
		int64_t before = hdf5 ? train_hdf5_read_bytes(f) : 0;
		double t0 = sonde_now();
		ssize_t got = r->backend->read_at(f, dst + done, n, offset + done);
		sonde_latency_acc_add(&w->io.latency, sonde_now() - t0);
		if (got < 0)
			return fail(w, (int)-got, path, sonde_io_last_error());
		(*calls)++;
		*bytes += hdf5 ? train_hdf5_read_bytes(f) - before : got;
		if ((size_t)got < n && done + got >= need)
			break;
		if ((size_t)got < n) {
			char why[4400];
			snprintf(
			    why, sizeof why,
			    "read %s at offset %lld: the file ends after %zd of %zu bytes (a short "
			    "sample file)",
			    path, (long long)(offset + done), got, n);
			return fail(w, EIO, path, why);
		}
		done += got;
	}
	return 0;
}

static void close_file(struct worker *w)
{
	if (w->f)
		w->r->backend->close(w->f);
	w->f = NULL;
	w->file = -1;
}

static int open_file(struct worker *w, int64_t file)
{
	const struct train_params *p = w->r->p;
	close_file(w);
	char path[4096];
	struct train_hdf5_layout lay;
	struct sonde_io_options opt;
	train_open_options(p, file, &lay, &opt);
	if (p->fmt == TRAIN_INDEXED) {
		train_file_path(p, file, 1, path, sizeof path);
		struct sonde_file *idx = NULL;
		int rc = w->r->backend->open(path, SONDE_IO_RDONLY, &opt, &idx);
		if (rc < 0)
			return fail(w, -rc, path, sonde_io_last_error());
		rc =
		    read_range(w, idx, path, w->index, 16 * p->samples_per_file,
		               16 * p->samples_per_file, 0, &w->io.index_bytes, &w->io.index_calls);
		w->r->backend->close(idx);
		if (rc < 0)
			return -1;
	}
	train_file_path(p, file, 0, w->path, sizeof w->path);
	opt.alignment = TRAIN_DIRECT_ALIGN;
	int rc = w->r->backend->open(w->path, SONDE_IO_RDONLY | (p->odirect ? SONDE_IO_DIRECT : 0),
	                             &opt, &w->f);
	if (rc < 0) {
		w->f = NULL;
		return fail(w, -rc, w->path, sonde_io_last_error());
	}
	w->file = file;
	w->size = train_sample_size(p, file);
	w->head = train_data_offset(p, file);
	return 0;
}

static int64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | b[k];
	return (int64_t)v;
}

/* Sample id into dst (its place in its batch's slot): adds the bytes read to *moved and sets
 * *skip to where the sample starts at dst. */
static int read_sample(struct worker *w, int64_t id, unsigned char *dst, int64_t *moved,
                       int64_t *skip)
{
	const struct train_reader *r = w->r;
	const struct train_params *p = r->p;
	int64_t file = id / p->samples_per_file, s = id % p->samples_per_file;
	if (file != w->file && open_file(w, file) < 0)
		return -1;
	int64_t size = w->size;
	int64_t offset = w->head + s * size;
	if (p->fmt == TRAIN_INDEXED) {
		offset = le64(w->index + 16 * s);
		int64_t len = le64(w->index + 16 * s + 8);
		if (len != size || offset < 0) {
			char path[4096], why[4200];
			train_file_path(p, file, 1, path, sizeof path);
			snprintf(why, sizeof why,
			         "%s: sample %lld is %lld bytes at offset %lld in the index, the "
			         "dataset "
			         "has %lld",
			         path, (long long)s, (long long)len, (long long)offset,
			         (long long)size);
			return fail(w, EIO, path, why);
		}
	}
	int64_t start, len, before = w->io.bytes;
	train_read_span(p, offset, size, &start, &len);
	/* hdf5 with several data sets: the sample's part in each is read on its own (DLIO's
	 * records_<k>[s], one after the other) */
	int parts = p->fmt == TRAIN_HDF5 ? p->num_dset : 1;
	for (int k = 0; k < parts; k++) {
		int64_t piece = len / parts, at = k * piece;
		if (read_range(w, w->f, w->path, dst + at, piece,
		               parts == 1 ? offset + size - start : piece, start + at, &w->io.bytes,
		               &w->io.calls) < 0)
			return -1;
	}
	*moved += w->io.bytes - before;
	*skip = offset - start;
	w->io.samples++;
	return 0;
}

/* Sample i's place among the slots'. */
static size_t place_of(const struct train_reader *r, int64_t i)
{
	return (size_t)((i / r->bs) % r->slots) * (size_t)r->bs + (size_t)(i % r->bs);
}

/* Reads sample i of the rank's list; the caller adds *moved to its batch's bytes. */
static int read_place(struct train_reader *r, struct worker *w, int64_t i, int64_t *moved)
{
	int64_t skip = 0;
	int rc = read_sample(w, r->samples[i], r->buf + place_of(r, i) * r->stride, moved, &skip);
	r->skip[place_of(r, i)] = skip;
	return rc;
}

static void sleep_for(double seconds)
{
	struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	nanosleep(&ts, NULL);
}

/* keep: a sample's reads are over; a pausing consumer may wait for the last of them. */
static void read_over(struct train_reader *r)
{
	pthread_mutex_lock(&r->mu);
	if (--r->reading == 0 && r->paused)
		pthread_cond_broadcast(&r->ready);
	pthread_mutex_unlock(&r->mu);
}

/* A sample claimed when the pauses so far totalled before, read by ended: waits until the pauses
 * since (the one going on included) have passed after ended. */
static void hold(struct train_reader *r, double before, double ended)
{
	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (r->paused)
			pthread_cond_wait(&r->space, &r->mu);
		double until = ended + (r->paused_total - before);
		pthread_mutex_unlock(&r->mu);
		double left = until - sonde_now();
		if (left <= 0)
			return;
		sleep_for(left); /* then a look again: a pause meanwhile holds the sample longer */
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct train_reader *r = w->r;
#ifdef PR_SET_TIMERSLACK
	/* a hold's sleep ends when due, not up to the default slack (50 us, as long as a sample's
	 * read from memory) later; spinning instead would take the core from the other threads.
	 * Refused, the default slack stays: holds end that much late, nothing else changes. */
	if (r->keep)
		(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (!r->failed && !r->stop && r->next < r->count &&
		       (!r->started || r->paused || r->next / r->bs >= r->released + r->slots))
			pthread_cond_wait(&r->space, &r->mu);
		if (r->failed || r->stop || r->next >= r->count) {
			pthread_mutex_unlock(&r->mu);
			break;
		}
		int64_t i = r->next++;
		double before = r->paused_total;
		r->reading += r->keep;
		pthread_mutex_unlock(&r->mu);
		int64_t moved = 0;
		int rc = read_place(r, w, i, &moved);
		if (r->keep) {
			double ended = sonde_now();
			read_over(r);
			if (rc == 0)
				hold(r, before, ended);
		}
		int whole = 0;
		pthread_mutex_lock(&r->mu);
		r->moved[(i / r->bs) % r->slots] += moved;
		if (rc < 0)
			r->failed = 1;
		else if (++r->done[(i / r->bs) % r->slots] == batch_len(r, i / r->bs)) {
			r->ready_at[(i / r->bs) % r->slots] = sonde_now();
			whole = 1;
		}
		pthread_mutex_unlock(&r->mu);
		/* woken after the unlock: woken under it, the consumer would only block on the
		 * mutex (strace: 4.4 futex calls a batch against 3.2, and switches on the core
		 * they share) */
		if (whole || rc < 0)
			pthread_cond_broadcast(&r->ready);
		if (rc < 0)
			pthread_cond_broadcast(&r->space);
	}
	close_file(w);
	return NULL;
}

static int worker_init(struct train_reader *r, struct worker *w)
{
	memset(w, 0, sizeof *w);
	w->r = r;
	w->file = -1;
	if (r->p->fmt == TRAIN_INDEXED && !(w->index = malloc(16 * (size_t)r->p->samples_per_file)))
		return -1;
	return 0;
}

static void reader_free(struct train_reader *r)
{
	for (int t = 0; t < r->nworkers; t++)
		free(r->workers[t].index);
	free(r->workers);
	free(r->done);
	free(r->moved);
	free(r->ready_at);
	free(r->skip);
	free(r->buf);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->ready);
	pthread_cond_destroy(&r->space);
	pthread_cond_destroy(&r->posted);
	free(r);
}

static void *run_checks(void *arg)
{
	struct train_reader *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->check && !r->stop)
			pthread_cond_wait(&r->posted, &r->mu);
		if (!r->check)
			break;
		void (*check)(void *) = r->check;
		void *check_arg = r->check_arg;
		pthread_mutex_unlock(&r->mu);
		double start = sonde_now();
		check(check_arg);
		double took = sonde_now() - start;
		pthread_mutex_lock(&r->mu);
		r->check = NULL;
		r->check_seconds = took;
		pthread_cond_broadcast(&r->posted);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct train_reader *train_reader_start(const struct train_params *p, const int64_t *samples,
                                        int64_t count, int keep)
{
	struct train_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->ready, NULL);
	pthread_cond_init(&r->space, NULL);
	pthread_cond_init(&r->posted, NULL);
	r->p = p;
	r->backend = train_backend(p);
	r->samples = samples;
	r->count = count;
	r->bs = p->batch_size;
	r->batches = (count + r->bs - 1) / r->bs;
	r->slots = p->read_threads > 0 ? p->prefetch : 1;
	r->keep = keep;
	/* the largest span: a direct read's of the epoch's largest sample may start up to an
	 * alignment before it and end up to one after it; slots start aligned */
	int64_t most = train_max_sample_size(p, samples, count), a = TRAIN_DIRECT_ALIGN;
	if (p->odirect)
		most = (most + a - 1) / a * a + a;
	r->stride = (size_t)((most + a - 1) / a * a);
	r->call = p->transfer_size > 0 && p->transfer_size < most ? (size_t)p->transfer_size
	                                                          : (size_t)most;
	r->nworkers = p->read_threads > 0 ? p->read_threads : 1;
	r->done = calloc((size_t)r->slots, sizeof *r->done);
	r->moved = calloc((size_t)r->slots, sizeof *r->moved);
	r->ready_at = calloc((size_t)r->slots, sizeof *r->ready_at);
	r->workers = calloc((size_t)r->nworkers, sizeof *r->workers);
	void *buf = NULL;
	/* slots x batch x span can pass 64 bits (--prefetch, --batch-size, --record-size at their
	 * largest): no buffer then, rather than a wrapped small one */
	size_t places = (size_t)r->slots * (size_t)r->bs;
	if (places <= SIZE_MAX / r->stride &&
	    posix_memalign(&buf, TRAIN_DIRECT_ALIGN, places * r->stride) == 0) {
		r->buf = buf;
		r->skip = calloc(places, sizeof *r->skip);
		/* touched now, before the epoch's clock: else the first batches' reads would fault
		 * in the slots' pages, a cost of the harness's memory, not of the storage */
		memset(buf, 0, places * r->stride);
	}
	int ok = r->done && r->moved && r->ready_at && r->workers && r->buf && r->skip;
	for (int t = 0; ok && t < r->nworkers; t++)
		ok = worker_init(r, &r->workers[t]) == 0;
	if (!ok) {
		reader_free(r);
		return NULL;
	}
	int want = p->read_threads > 0 ? r->nworkers : 0, made = 0;
	/* The threads start with SIGTERM and SIGINT blocked, as MPI's own do (main.c): a stop
	 * signal comes to the workload's thread, whose handler writes the end record, also while
	 * that thread defers it around a record it writes (results.c). */
	sigset_t before;
	sonde_stop_defer(&before);
	while (made < want &&
	       pthread_create(&r->workers[made].thread, NULL, work, &r->workers[made]) == 0)
		made++;
	int started =
	    made == want && (!keep || pthread_create(&r->checker, NULL, run_checks, r) == 0);
	sonde_stop_allow(&before);
	if (started)
		return r;
	/* the started ones end at once, then nothing was read */
	pthread_mutex_lock(&r->mu);
	r->failed = 1;
	pthread_cond_broadcast(&r->space);
	pthread_mutex_unlock(&r->mu);
	for (int k = 0; k < made; k++)
		pthread_join(r->workers[k].thread, NULL);
	reader_free(r);
	return NULL;
}

void train_reader_go(struct train_reader *r)
{
	pthread_mutex_lock(&r->mu);
	r->started = 1;
	pthread_cond_broadcast(&r->space);
	pthread_mutex_unlock(&r->mu);
}

int train_reader_wait(struct train_reader *r, int64_t b)
{
	if (r->p->read_threads == 0) {
		struct worker *w = &r->workers[0];
		for (int64_t i = b * r->bs; i < b * r->bs + batch_len(r, b); i++)
			if (read_place(r, w, i, &r->moved[0]) < 0)
				return -1;
		r->ready_at[0] = sonde_now();
		return 0;
	}
	pthread_mutex_lock(&r->mu);
	while (!r->failed && r->done[b % r->slots] < batch_len(r, b))
		pthread_cond_wait(&r->ready, &r->mu);
	int failed = r->failed;
	pthread_mutex_unlock(&r->mu);
	return failed ? -1 : 0;
}

double train_reader_ready_at(struct train_reader *r, int64_t b)
{
	pthread_mutex_lock(&r->mu);
	double at = r->ready_at[b % r->slots];
	pthread_mutex_unlock(&r->mu);
	return at;
}

int64_t train_reader_batch_bytes(struct train_reader *r, int64_t b)
{
	pthread_mutex_lock(&r->mu);
	int64_t bytes = r->moved[b % r->slots];
	pthread_mutex_unlock(&r->mu);
	return bytes;
}

const unsigned char *train_reader_sample(struct train_reader *r, int64_t b, int k, int64_t *id)
{
	int64_t i = b * r->bs + k;
	*id = r->samples[i];
	return r->buf + place_of(r, i) * r->stride + r->skip[place_of(r, i)];
}

double train_reader_check(struct train_reader *r, void (*check)(void *), void *arg, double *paused)
{
	pthread_mutex_lock(&r->mu);
	r->paused = 1;
	r->pause_start = sonde_now();
	while (r->reading > 0)
		pthread_cond_wait(&r->ready, &r->mu);
	r->check = check;
	r->check_arg = arg;
	pthread_cond_broadcast(&r->posted);
	while (r->check)
		pthread_cond_wait(&r->posted, &r->mu);
	double took = r->check_seconds;
	*paused = sonde_now() - r->pause_start;
	r->paused_total += *paused;
	r->paused = 0;
	pthread_cond_broadcast(&r->space);
	pthread_mutex_unlock(&r->mu);
	return took;
}

void train_reader_release(struct train_reader *r, int64_t b)
{
	pthread_mutex_lock(&r->mu);
	r->done[b % r->slots] = 0;
	r->moved[b % r->slots] = 0;
	r->released = b + 1;
	pthread_mutex_unlock(&r->mu);
	pthread_cond_broadcast(&r->space); /* after the unlock, as the readers' ready */
}

static void add_io(struct train_io *to, const struct train_io *from)
{
	to->samples += from->samples;
	to->bytes += from->bytes;
	to->calls += from->calls;
	to->index_bytes += from->index_bytes;
	to->index_calls += from->index_calls;
	for (int k = 0; k < SONDE_HIST_BUCKETS; k++)
		to->latency.hist.count[k] += from->latency.hist.count[k];
	to->latency.count += from->latency.count;
	to->latency.sum += from->latency.sum;
	if (from->latency.max > to->latency.max)
		to->latency.max = from->latency.max;
	if (!to->err && from->err) {
		to->err = from->err;
		memcpy(to->path, from->path, sizeof to->path);
		memcpy(to->why, from->why, sizeof to->why);
	}
}

void train_reader_finish(struct train_reader *r, struct train_io *io)
{
	/* readers waiting for room (the consumer stopped early) end */
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_broadcast(&r->space);
	pthread_cond_broadcast(&r->posted);
	pthread_mutex_unlock(&r->mu);
	if (r->keep)
		pthread_join(r->checker, NULL);
	for (int t = 0; t < r->nworkers; t++) {
		if (r->p->read_threads > 0)
			pthread_join(r->workers[t].thread, NULL);
		else
			close_file(&r->workers[t]);
		add_io(io, &r->workers[t].io);
	}
	reader_free(r);
}
