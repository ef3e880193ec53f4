/* SPDX-License-Identifier: BSD-3-Clause */
/* Each epoch's order, as DLIO defines it: the files in order or shuffled, their samples, the
 * samples shuffled over the whole dataset or not, and the ranks' consecutive slices of that list.
 * Every rank computes the same list, so every sample is read exactly once per epoch without a
 * message. The shuffles change every epoch (the epoch is part of the draws' stream) and repeat
 * for a seed. */
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
	int64_t *file_order = malloc(sizeof *file_order * (size_t)files);
	int64_t *all = malloc(sizeof *all * (size_t)total);
	if (!file_order || !all) {
		free(file_order);
		free(all);
		return NULL;
	}
	for (int64_t f = 0; f < files; f++)
		file_order[f] = f;
	if (p->file_order != TRAIN_SHUFFLE_OFF)
		shuffle(file_order, files, seed_of(p, p->file_order, random_seed),
		        sonde_pattern_stream(STREAM_FILE_SHUFFLE, epoch, 0));
	for (int64_t f = 0; f < files; f++)
		for (int64_t s = 0; s < per_file; s++)
			all[f * per_file + s] = file_order[f] * per_file + s;
	free(file_order);
	if (p->sample_order != TRAIN_SHUFFLE_OFF)
		shuffle(all, total, seed_of(p, p->sample_order, random_seed),
		        sonde_pattern_stream(STREAM_SAMPLE_SHUFFLE, epoch, 0));
	/* the first total % ranks ranks take one sample more */
	int64_t base = total / ranks, extra = total % ranks;
	int64_t first = rank * base + (rank < extra ? rank : extra);
	*count = base + (rank < extra ? 1 : 0);
	int64_t *mine = malloc(sizeof *mine * (size_t)(*count ? *count : 1));
	if (mine)
		for (int64_t i = 0; i < *count; i++)
			mine[i] = all[first + i];
	free(all);
	return mine;
}
