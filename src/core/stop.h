/* SPDX-License-Identifier: BSD-3-Clause */
/* Who stopped the run: when rank 0 gets SIGTERM or SIGINT, was it the user, Slurm's time limit
 * or the launcher passing either on (reason "signal"), or the launcher ending the job because
 * another rank died or failed first (reason "peer-failed")? Open MPI's and MPICH's launchers
 * send the same SIGTERM in both cases; what differs is that a rank has already ended. Rank 0
 * looks at the ranks on its own node (their /proc entries); a rank on another node that dies
 * is not seen there, and its end reads "signal". */
#ifndef SONDE_STOP_H
#define SONDE_STOP_H

#include <signal.h>

/* Collective over MPI_COMM_WORLD once MPI is up: rank 0 learns the process ids of the ranks on
 * its node. A no-op without MPI. */
void sonde_stop_init(void);

/* Async-signal-safe, rank 0: the world rank of a rank on this node that has ended otherwise than
 * by a stop signal of its own (killed, crashed, failed and exited), or -1. */
int sonde_stop_failed_peer(void);

/* Async-signal-safe, ranks other than 0, in their stop handler: rank 0 writes the end record and
 * checks its peers, so the others stay a moment before they leave; otherwise a launcher that
 * sees them go first may kill rank 0 before it has written anything. In sonde mix, every
 * writer of end records (each group's rank 0, world rank 0 for the mix's) lingers after
 * writing them, for the same reason. */
void sonde_stop_linger(void);

/* SIGTERM and SIGINT wait (blocked in the calling thread, *before keeps its mask) until
 * sonde_stop_allow(before): what must happen whole before a stop handler sees it. */
void sonde_stop_defer(sigset_t *before);
void sonde_stop_allow(const sigset_t *before);

#endif
