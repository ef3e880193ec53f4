/* SPDX-License-Identifier: BSD-3-Clause */
/* Checkpoints are not implemented yet: any checkpoint option is refused with one line. */
#include <stdio.h>

#include "workloads/train/checkpoint.h"

static const char *const checkpoint_options[] = {
    "checkpoint-folder",
    "model-size",
    "num-layers",
    "checkpoint-type",
    "checkpoint-shared-file",
    "steps-between-checkpoints",
    "epochs-between-checkpoints",
    "checkpoint-verify",
    "checkpoint-writes",
    "checkpoint-reads",
    "checkpoint-preset",
};

int train_checkpoint_check(struct train_checkpoint_config *c, const struct sonde_option_set *given,
                           int ranks, char *err, size_t errlen)
{
	(void)c;
	(void)ranks;
	for (size_t i = 0; i < sizeof checkpoint_options / sizeof checkpoint_options[0]; i++)
		if (sonde_option_given(given, checkpoint_options[i])) {
			snprintf(err, errlen, "--%s: checkpointing is not implemented yet",
			         checkpoint_options[i]);
			return -1;
		}
	return 0;
}

int train_checkpoint_wanted(const struct train_checkpoint_config *c)
{
	(void)c;
	return 0;
}

int train_checkpoint_write(const struct train_checkpoint_run *run, int index, int epoch,
                           int64_t step, double *stalled)
{
	(void)run;
	(void)index;
	(void)epoch;
	(void)step;
	*stalled = 0;
	return 0;
}

int train_checkpoint_read(const struct train_checkpoint_run *run, int index)
{
	(void)run;
	(void)index;
	return 0;
}
