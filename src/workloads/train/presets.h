/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train's presets: the dataset, reader and compute settings of known training workloads
 * (--preset NAME --accelerator TYPE), emulating their I/O. presets.c holds the table. */
#ifndef SONDE_TRAIN_PRESETS_H
#define SONDE_TRAIN_PRESETS_H

#include <stddef.h>

#include "options.h"

struct train_params;

/* Fills the fields of cfg that preset name (for accelerator, which may be NULL when the preset
 * needs none) sets and the user did not give (sonde_option_given on given). Returns 0, or -1
 * with one line in err (an unknown name, a preset that needs an accelerator). */
int train_preset_apply(const char *name, const char *accelerator, struct train_params *cfg,
                       const struct sonde_option_set *given, char *err, size_t len);

struct train_checkpoint_config;

/* The same for --checkpoint-preset NAME: the checkpoint size, layers and type of a known model.
 * Returns 0, or -1 with one line in err (an unknown name). */
int train_checkpoint_preset_apply(const char *name, struct train_checkpoint_config *c,
                                  const struct sonde_option_set *given, char *err, size_t len);

#endif
