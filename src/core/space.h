/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether what a run is about to write fits in the file system's free space. A run that cannot
 * fit starts anyway in the originals, fails part way and leaves a file filling the file system;
 * sonde says so before the first byte, and --strict (sonde-suite passes it) refuses the run. */
#ifndef SONDE_SPACE_H
#define SONDE_SPACE_H

#include <stdint.h>

#include "workload.h"

/* Collective over ctx->comm (or local without MPI). Rank 0 compares bytes, the data the run
 * writes under path (a file or a directory, existing or not), with the free space of the file
 * system that holds it, plus the size of replaced (a file the run empties or overwrites first;
 * NULL: none). When it does not fit: a warning line naming both figures, or with --strict an
 * error line. Returns 0 to go on, -1 when the run must stop (exit SONDE_EXIT_USAGE, before any
 * I/O). what: the data, as the message names it ("the test files"). */
int sonde_space_check(const struct sonde_context *ctx, const char *path, int64_t bytes,
                      const char *replaced, const char *what);

#endif
