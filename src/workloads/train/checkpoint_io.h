/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train's checkpoints, the part below the records: where each byte of a checkpoint goes
 * (layers split into shards, files or one shared file) and one rank's timed pass writing or
 * reading its shards. checkpoint.c reduces the passes into records. */
#ifndef SONDE_TRAIN_CHECKPOINT_IO_H
#define SONDE_TRAIN_CHECKPOINT_IO_H

#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "pattern.h"
#include "stats.h"

/* Checkpoint files are written and read in calls of at most this many bytes (a shard smaller
 * than it is one call): the buffer each rank holds, whatever the model size. */
#define CKPT_CALL_BYTES ((int64_t)64 << 20)
/* A failure's line: its words around a whole path. */
#define CKPT_WHY_MAX (PATH_MAX + 256)
/* The longest name a checkpoint adds to its folder: /checkpoint-<int>/layer-<int>-shard-<int>. */
#define CKPT_NAME_MAX 64

/* One checkpoint's layout: total bytes in layers (the first total % layers layers a byte
 * more), each layer in shards, one per writer (the first ones a byte more). rank_zero: one
 * writer, rank 0; all_ranks: every rank writes shard <rank> of every layer. */
struct ckpt_layout {
	int64_t total;
	int layers;
	int writers;
	int shared; /* one file, layer after layer, each layer's shards in shard order */
};

int64_t ckpt_layer_bytes(const struct ckpt_layout *l, int layer);
/* Where the layer starts in the shared file. */
int64_t ckpt_layer_start(const struct ckpt_layout *l, int layer);
int64_t ckpt_shard_bytes(const struct ckpt_layout *l, int layer, int shard);
/* Where the shard starts in its layer. */
int64_t ckpt_shard_start(const struct ckpt_layout *l, int layer, int shard);
/* The files of one checkpoint: layers x writers, or 1 when shared. */
int64_t ckpt_file_count(const struct ckpt_layout *l);

/* FOLDER/checkpoint-<index>: one folder per checkpoint. */
void ckpt_dir_path(const char *folder, int index, char *out, size_t len);
/* The file of (layer, shard) in the checkpoint's folder: layer-<l>-shard-<s>, or checkpoint
 * for the shared file. */
void ckpt_file_path(const char *dir, const struct ckpt_layout *l, int layer, int shard, char *out,
                    size_t len);
/* The data pattern of the file of (layer, shard) in checkpoint index (the offset in the file
 * is the pattern's offset): a checkpoint's bytes are distinct from every other's. */
struct sonde_pattern ckpt_pattern(uint64_t seed, const struct ckpt_layout *l, int index, int layer,
                                  int shard);

/* One rank's pass over its shards of one checkpoint. */
struct ckpt_pass {
	int64_t bytes, calls, files;
	double start, end; /* local times: after the opening barrier, after the last close */
	double aside;      /* seconds filling buffers (write) or verifying (read) */
	double sync;       /* seconds in fsync (write) */
	struct sonde_latency_acc latency; /* per data call */
	struct sonde_verify verify;       /* read with check */
	char bad[4096];                   /* the first file whose check found a difference */
	int series;                       /* it has an --interval time series of its own */
	int err;                          /* errno of this rank's first failure, 0 */
	char path[4096];
	char why[CKPT_WHY_MAX];
};

/* Collective over comm (the shared file's open, calls and close are; the files' are not): the
 * rank's timed pass. writing: create and write, fsync before close; else read (and with check,
 * compare every byte with the pattern outside the timed calls). A rank that fails goes on
 * with empty calls where the others need it, so the failure is agreed on afterwards. source:
 * the rank whose shards this one moves (itself; on a read with --recovery-rank-shift, another
 * node's rank). */
struct sonde_progress;
/* live: --progress's line, updated with the rank's bytes after every call. */
void ckpt_pass_run(MPI_Comm comm, int rank, int source, const struct ckpt_layout *l,
                   const char *dir, uint64_t seed, int index, int writing, int check,
                   struct sonde_progress *live, struct ckpt_pass *pass);
/* The bytes rank moves in one pass (its shards of every layer; everything for the shared
 * file's writers is their pieces). */
int64_t ckpt_rank_bytes(const struct ckpt_layout *l, int rank);

#endif
