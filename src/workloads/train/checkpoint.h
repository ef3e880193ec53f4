/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train's checkpoints: what the checkpoint options say, and the calls the training loop
 * makes. checkpoint.c implements them (a model of model_size bytes in num_layers layers, written
 * by rank 0 alone or by every rank, as one shared file through MPI-IO or one file per rank and
 * layer shard, every steps_between steps or epochs_between epochs, read back and verified when
 * asked; or, with writes/reads given, checkpoints alone without training, paced by an emulated
 * compute time, read back by the ranks of another node when asked). */
#ifndef SONDE_TRAIN_CHECKPOINT_H
#define SONDE_TRAIN_CHECKPOINT_H

#include <stdint.h>

#include "clock.h"
#include "options.h"
#include "topology.h"
#include "workload.h"

struct train_checkpoint_config {
	const char *folder; /* --checkpoint-folder: where checkpoint files go */
	int64_t model_size; /* --model-size: bytes of one checkpoint (all ranks together) */
	int num_layers;     /* --num-layers: layers, the shards of the model */
	const char *type;   /* --checkpoint-type: "rank_zero" or "all_ranks" */
	int shared_file;    /* --checkpoint-shared-file: one file through MPI-IO, else one per
	                       rank and shard */
	int steps_between;  /* --steps-between-checkpoints: 0: none by steps */
	int epochs_between; /* --epochs-between-checkpoints: 0: none by epochs */
	int verify;         /* --checkpoint-verify: read each checkpoint back and check it */
	int writes;         /* --checkpoint-writes: checkpoint-only mode, checkpoints written */
	int reads;          /* --checkpoint-reads: checkpoint-only mode, checkpoints read back */
	const char *preset; /* --checkpoint-preset: a model whose checkpoint size is known */
	/* --time-between-checkpoints: seconds of emulated compute before each checkpoint-only
	 * write and read */
	double time_between;
	/* --recovery-rank-shift: rank r reads the shards of rank (r + ranks per node) % ranks,
	 * written on another node */
	int rank_shift;
};

/* What every call needs besides the configuration. */
struct train_checkpoint_run {
	struct sonde_context *ctx;
	const struct train_checkpoint_config *cfg;
	uint64_t seed;                   /* the run's --seed, for the data pattern */
	const struct sonde_clock *clock; /* the run clock (records' start and end) */
	const char *params_json;         /* the run's parameters, for the records */
};

/* After parsing, on every rank (the same verdict everywhere: it reads only the options and the
 * placement of the ranks on nodes, topo; also under sonde --parse-only, without MPI, with the
 * planned placement): fills what a --checkpoint-preset gives and the user did not (given: the
 * parsed option set), then checks. Returns 0, or -1 with one line in err. */
int train_checkpoint_check(struct train_checkpoint_config *c, const struct sonde_option_set *given,
                           const struct sonde_topology *topo, char *err, size_t errlen);

/* Sleeps seconds (again after an interruption); returns the time that really passed, 0 when
 * seconds is not above 0. The emulated accelerator's compute. */
double train_sleep(double seconds);

/* Whether the options ask for any checkpoint (during training or checkpoint-only). */
int train_checkpoint_wanted(const struct train_checkpoint_config *c);

/* Collective over run->ctx->comm: writes checkpoint number index (0-based) after the given epoch
 * (0-based; -1 in checkpoint-only mode, where cfg->time_between seconds of emulated compute come
 * first) and step (this rank's steps so far in the run), writes
 * its measurement record, and sets
 * *stalled to the seconds training stood still for it. Returns 0 or an exit code (enum
 * sonde_exit) after the one error line was printed. */
int train_checkpoint_write(const struct train_checkpoint_run *run, int index, int epoch,
                           int64_t step, double *stalled);

/* Collective: reads checkpoint number index back (verified with cfg->verify), after
 * cfg->time_between seconds of emulated compute, writes its measurement record. Returns 0 or an
 * exit code after the one error line. */
int train_checkpoint_read(const struct train_checkpoint_run *run, int index);

#endif
