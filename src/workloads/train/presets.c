/* SPDX-License-Identifier: BSD-3-Clause */
/* Presets are not implemented yet: --preset is refused with one line. */
#include <stdio.h>

#include "workloads/train/presets.h"
#include "workloads/train/train.h"

int train_preset_apply(const char *name, const char *accelerator, struct train_params *cfg,
                       const struct sonde_option_set *given, char *err, size_t len)
{
	(void)name;
	(void)accelerator;
	(void)cfg;
	(void)given;
	snprintf(err, len, "--preset is not implemented yet");
	return -1;
}
