/* SPDX-License-Identifier: BSD-3-Clause */
/* A progress bar on rank 0's stderr: only on a terminal, or when a workload's flag asks for it.
 * Redraws at most a few times a second, so it costs nothing in an I/O loop. */
#ifndef SONDE_PROGRESS_H
#define SONDE_PROGRESS_H

#include <stdint.h>

struct sonde_progress {
	int enabled;
	int tty;
	const char *label;
	int64_t total, done;
	double start, last_draw;
};

/* force: draw even when stderr is not a terminal (then one line per 10%, not a redrawn bar). */
void sonde_progress_begin(struct sonde_progress *p, int rank, const char *label, int64_t total,
                          int force);
void sonde_progress_update(struct sonde_progress *p, int64_t done);
void sonde_progress_end(struct sonde_progress *p);

#endif
