/* SPDX-License-Identifier: BSD-3-Clause */
/* Shell completion generated from the option tables (`sonde --help-completion bash`): the
 * workloads, each workload's options, file or directory names after an option whose value is a
 * path, and the values of an option that lists them (--mode w|r|rw). */
#ifndef SONDE_SHELL_COMPLETION_H
#define SONDE_SHELL_COMPLETION_H

#include <stdio.h>

#include "workload.h"

/* The bash completion script for the NULL-terminated list of workloads. zsh loads it through
 * its bashcompinit. */
void sonde_completion_bash(const struct sonde_workload *const *workloads, FILE *out);

#endif
