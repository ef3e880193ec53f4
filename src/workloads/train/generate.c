/* SPDX-License-Identifier: BSD-3-Clause */
/* --generate: each rank writes its files (file i is rank i % ranks's) whole, in calls of up to
 * GENERATE_CHUNK bytes, and syncs each before closing it: the dataset is on the file system when
 * the phase ends. npz's local header carries the member's CRC-32, known once the member is
 * written: the header is written last, over the placeholder written first. hdf5: the data set's
 * bytes go through HDF5 (hdf5.c) in the same calls, at their offsets in records_0's array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "progress.h"
#include "timeseries.h"
#include "workloads/train/train.h"

#define GENERATE_CHUNK ((size_t)1 << 20)

struct writer {
	const struct sonde_backend *io;
	struct train_generated *g;
	struct sonde_progress *live;
	struct sonde_file *f;
	char path[4096]; /* the file open in f */
};

static int fail(struct writer *w, int rc)
{
	struct train_generated *g = w->g;
	if (!g->err) {
		g->err = -rc;
		snprintf(g->path, sizeof g->path, "%s", w->path);
		snprintf(g->why, sizeof g->why, "%s", sonde_io_last_error());
	}
	return -1;
}

static int put(struct writer *w, const void *buf, size_t len, int64_t offset)
{
	double t0 = sonde_now();
	ssize_t n = w->io->write_at(w->f, buf, len, offset);
	if (n < 0)
		return fail(w, (int)n);
	double t1 = sonde_now();
	sonde_series_call(t1, t1 - t0, n, 1);
	w->g->bytes += n;
	w->g->calls++;
	sonde_progress_update(w->live, w->g->bytes);
	return 0;
}

/* The data file of file (index 0) or its index file (1), created empty. */
static int open_for_writing(struct writer *w, const struct train_params *p, int64_t file, int index)
{
	struct train_hdf5_layout lay;
	struct sonde_io_options opt;
	train_open_options(p, file, &lay, &opt);
	train_file_path(p, file, index, w->path, sizeof w->path);
	w->f = NULL;
	int rc =
	    w->io->open(w->path, SONDE_IO_WRONLY | SONDE_IO_CREATE | SONDE_IO_TRUNC, &opt, &w->f);
	return rc < 0 ? fail(w, rc) : 0;
}

static int finish(struct writer *w, int ok)
{
	int rc = ok ? w->io->sync(w->f) : 0;
	if (rc < 0)
		ok = fail(w, rc) == 0;
	rc = w->io->close(w->f);
	if (rc < 0 && ok)
		ok = fail(w, rc) == 0;
	return ok ? 0 : -1;
}

/* The index of an indexed file: every sample's offset and length. */
static int write_index(struct writer *w, const struct train_params *p, int64_t file,
                       unsigned char *buf)
{
	if (open_for_writing(w, p, file, 1) < 0)
		return -1;
	int64_t size = train_sample_size(p, file);
	size_t per_call = GENERATE_CHUNK / 16;
	int ok = 1;
	for (int64_t s = 0; s < p->samples_per_file && ok;) {
		size_t n = 0;
		int64_t first = s;
		for (; s < p->samples_per_file && n < per_call; s++, n++)
			for (int k = 0; k < 8; k++) {
				buf[16 * n + (size_t)k] =
				    (unsigned char)((uint64_t)(s * size) >> (8 * k));
				buf[16 * n + 8 + (size_t)k] =
				    (unsigned char)((uint64_t)size >> (8 * k));
			}
		ok = put(w, buf, 16 * n, first * 16) == 0;
	}
	return finish(w, ok);
}

static int write_file(struct writer *w, const struct train_params *p, int64_t file,
                      unsigned char *buf)
{
	if (open_for_writing(w, p, file, 0) < 0)
		return -1;
	unsigned char head[TRAIN_HEADER_MAX];
	size_t head_len = train_file_head(p, file, 0, head);
	/* npz's CRC covers the member: the npy header (after the zip's local header) and data */
	size_t zip_local = p->fmt == TRAIN_NPZ ? TRAIN_ZIP_LOCAL_LEN : 0;
	uint32_t crc =
	    p->fmt == TRAIN_NPZ ? train_crc32(0, head + zip_local, head_len - zip_local) : 0;
	int ok = head_len == 0 || put(w, head, head_len, 0) == 0;
	struct sonde_pattern pat = train_pattern(p, file);
	int64_t total = p->samples_per_file * train_sample_size(p, file);
	for (int64_t done = 0; ok && done < total;) {
		size_t n = total - done < (int64_t)GENERATE_CHUNK ? (size_t)(total - done)
		                                                  : GENERATE_CHUNK;
		sonde_pattern_fill(&pat, buf, n, (uint64_t)done);
		if (p->fmt == TRAIN_NPZ)
			crc = train_crc32(crc, buf, n);
		ok = put(w, buf, n, (int64_t)head_len + done) == 0;
		done += (int64_t)n;
	}
	if (ok && p->fmt == TRAIN_NPZ) {
		unsigned char tail[TRAIN_HEADER_MAX];
		size_t tail_len = train_file_tail(p, file, crc, tail);
		ok = put(w, tail, tail_len, (int64_t)head_len + total) == 0;
		head_len = train_file_head(p, file, crc, head);
		ok = ok && put(w, head, head_len, 0) == 0;
	}
	if (finish(w, ok) < 0)
		return -1;
	return p->fmt == TRAIN_INDEXED ? write_index(w, p, file, buf) : 0;
}

void train_generate(const struct train_params *p, int rank, int ranks, struct train_generated *g,
                    struct sonde_progress *live)
{
	memset(g, 0, sizeof *g);
	struct writer w = {.io = train_backend(p), .g = g, .live = live};
	unsigned char *buf = malloc(GENERATE_CHUNK);
	g->start = sonde_now();
	if (!buf) {
		g->err = ENOMEM;
		snprintf(g->why, sizeof g->why, "out of memory for a buffer of %zu bytes",
		         GENERATE_CHUNK);
		g->end = sonde_now();
		return;
	}
	for (int64_t file = rank; file < p->num_files; file += ranks) {
		if (write_file(&w, p, file, buf) < 0)
			break;
		g->files++;
	}
	g->end = sonde_now();
	free(buf);
}
