/* SPDX-License-Identifier: BSD-3-Clause */
/* Each epoch's order, as DLIO's index sampler makes it: the list of every file's samples (the
 * files in order, or shuffled for the epoch), cut into consecutive blocks of ceil(samples /
 * ranks), rank r's the r-th; the sample shuffle permutes a rank's own block. Without a file
 * shuffle a rank reads the same samples every epoch, in a new order (as DLIO's PyTorch loader);
 * with it, other files each epoch (as its file-shuffling sampler). Every rank knows every block,
 * so every sample is read exactly once per epoch without a message. The shuffles change every
 * epoch (the epoch is part of the draws' stream) and repeat for a seed. */
#include <stdlib.h>

#include "workloads/train/train.h"

#define STREAM_FILE_SHUFFLE   2
#define STREAM_SAMPLE_SHUFFLE 3

/* Fisher-Yates over v[0..n) with the draws of (seed, stream). */
static void shuffle(int64_t *v, int64_t n, uint64_t seed, uint64_t stream)
{
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = (int64_t)(train_uniform(seed, stream, (uint64_t)i) * (double)(i + 1));
		if (j > i) /* a draw of 1 - 2^-53 times i + 1 rounds up */
			j = i;
		int64_t t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

static uint64_t seed_of(const struct train_params *p, enum train_shuffle how, uint64_t random_seed)
{
	return how == TRAIN_SHUFFLE_RANDOM ? random_seed : (uint64_t)p->seed;
}

int64_t *train_epoch_order(const struct train_params *p, int epoch, uint64_t random_seed, int rank,
                           int ranks, int64_t *count)
{
	int64_t files = p->num_files, per_file = p->samples_per_file;
	int64_t total = files * per_file;
	/* DLIO's blocks: ceil(total / ranks) samples a rank, the last ones fewer or none */
	int64_t block = (total + ranks - 1) / ranks;
	int64_t first = rank * block < total ? rank * block : total;
	int64_t last = first + block < total ? first + block : total;
	*count = last - first;
	int64_t *mine = malloc(sizeof *mine * (size_t)(*count ? *count : 1));
	if (!mine)
		return NULL;
	if (p->file_order == TRAIN_SHUFFLE_OFF) {
		for (int64_t i = 0; i < *count; i++)
			mine[i] = first + i;
	} else {
		int64_t *file_order = malloc(sizeof *file_order * (size_t)files);
		if (!file_order) {
			free(mine);
			return NULL;
		}
		for (int64_t f = 0; f < files; f++)
			file_order[f] = f;
		shuffle(file_order, files, seed_of(p, p->file_order, random_seed),
		        sonde_pattern_stream(STREAM_FILE_SHUFFLE, epoch, 0));
		for (int64_t i = 0; i < *count; i++) {
			int64_t g =
			    first + i; /* place in the list of the shuffled files' samples */
			mine[i] = file_order[g / per_file] * per_file + g % per_file;
		}
		free(file_order);
	}
	if (p->sample_order != TRAIN_SHUFFLE_OFF)
		shuffle(mine, *count, seed_of(p, p->sample_order, random_seed),
		        sonde_pattern_stream(STREAM_SAMPLE_SHUFFLE, epoch, rank));
	return mine;
}
