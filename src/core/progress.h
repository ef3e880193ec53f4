/* SPDX-License-Identifier: BSD-3-Clause */
/* --progress: a live line on long phases, from rank 0, like elbencho's: what the phase has done,
 * its rate and the time left, estimated from rank 0's own count times the ranks that do the same
 * work (the figures a phase reports are the real reductions, made after it).
 *
 * Where it goes: on a terminal (stderr, or the controlling terminal /dev/tty, which Open MPI's
 * local ranks keep while their stderr is a pipe) one line redrawn in place four times a second
 * and erased at the end of the phase, so that the report goes on where it was; elsewhere (a
 * batch log, MPICH's or Slurm's forwarding) a line on stderr every 10 seconds. A phase shorter
 * than a second shows nothing on a terminal. --progress-interval S asks for lines on stderr every
 * S seconds wherever stderr goes (0: at every update).
 *
 * Cost in a timed loop: sonde_progress_update is one comparison when --progress is off, and a
 * decrement when it is on: the clock is read every `stride` updates, a stride kept so that reads
 * come about a millisecond apart (one read per 4 KiB transfer on tmpfs cost 3 % of the rate) and
 * capped so that a phase that stalls after a fast start still shows its line within
 * SONDE_PROGRESS_MAX_STRIDE slow updates. A line is drawn only when its time has come (bench case
 * "progress" measures the loop with and without). */
#ifndef SONDE_PROGRESS_H
#define SONDE_PROGRESS_H

#include <stdint.h>

#include "clock.h"

struct sonde_context;

enum sonde_progress_unit { SONDE_PROGRESS_BYTES, SONDE_PROGRESS_ITEMS };

struct sonde_progress {
	int fd; /* where lines go; -1: no progress shown */
	int redraw;
	const char *workload, *label;
	enum sonde_progress_unit unit;
	int64_t total;          /* rank 0's amount for the whole phase; 0: not known */
	int64_t scale;          /* rank 0's amount x scale estimates the job's */
	double start, deadline; /* deadline: seconds after start when time ends the phase, or 0 */
	double period;          /* seconds from one line to the next */
	double next;            /* the time of the next line */
	int drawn;              /* a redrawn line stands on the terminal */
	double last_read;       /* when the clock was last read */
	int64_t stride;         /* updates from one clock read to the next */
	int64_t until_read;     /* updates left before the next clock read */
};

#define SONDE_PROGRESS_MAX_STRIDE 256

/* Starts a phase's line: shown on rank 0 when the run asked for --progress. total is rank 0's
 * amount (0 when unknown), scale the number of ranks doing as much, deadline the seconds after
 * which time ends the phase (0: none). */
void sonde_progress_begin(struct sonde_progress *p, const struct sonde_context *ctx,
                          const char *label, enum sonde_progress_unit unit, int64_t total,
                          int64_t scale, double deadline);

/* For workloads that print results while the phase runs (coll's line per test): lines on stderr
 * (every 10 seconds, or --progress-interval's), never a redrawn line, which that output would
 * break. */
void sonde_progress_in_lines(struct sonde_progress *p);

/* Draws the line for rank 0's count done (sonde_progress_update calls it when its time has
 * come). */
void sonde_progress_show(struct sonde_progress *p, int64_t done);

/* Reads the clock, fits the stride to the rate of updates and draws the line when its time has
 * come (sonde_progress_update calls it every stride updates). */
void sonde_progress_read_clock(struct sonde_progress *p, int64_t done);

/* In the loop: cheap enough for every transfer. */
static inline void sonde_progress_update(struct sonde_progress *p, int64_t done)
{
	if (p->fd >= 0 && --p->until_read <= 0)
		sonde_progress_read_clock(p, done);
}

/* Ends the phase's line (erases a redrawn one). */
void sonde_progress_end(struct sonde_progress *p);

#endif
