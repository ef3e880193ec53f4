/* SPDX-License-Identifier: BSD-3-Clause */
/* Read-back reordering (-C, -Q, -Z, -X) with IOR's arithmetic, and where the reads land.
 * Pure functions of the rank layout, so they are unit-tested without MPI. */
#ifndef SONDE_IOR_REORDER_H
#define SONDE_IOR_REORDER_H

struct ior_mapping {
	int ntasks;
	int tasks_on_node0; /* IOR's numTasksOnNode0 */
	int nnodes;
	int block; /* ranks placed by node blocks: rank 1 shares rank 0's node */
};

/* How many ranks IOR moves for "one node": tasks on node 0 under block placement, 1 under
 * round-robin placement. */
int ior_node_stride(const struct ior_mapping *m);

/* -C: every rank reads what rank (rank + offset) % ntasks wrote; offset = Q x stride mod N. */
int ior_offset_constant(const struct ior_mapping *m, int q);

/* -W with -C: the check pass reads one "node" further than -C's reads, (Q + 1) x stride mod
 * N, as IOR 4.1 does. */
int ior_offset_check(const struct ior_mapping *m, int q);

/* -Z once: this rank's offset, drawn with the C library's rand() seeded with rank + seed
 * (seed = -X, or -(X) + rep when X < 0), redrawn while below min(Q, nnodes - 1) x tasks on
 * node 0. Several ranks may read the same data, as in IOR. */
int ior_offset_random(const struct ior_mapping *m, int q, int x, int rep, int rank);

/* -Z -Z: a permutation of the ranks shuffled with rand() seeded like -Z (without the rank), so
 * each rank's data is read exactly once. Returns the offset for rank. */
int ior_offset_shuffle(const struct ior_mapping *m, int x, int rep, int rank);

/* How many ranks read data written on their own node, given each rank's offset. */
int ior_same_node_reads(const int *node_of_rank, int ntasks, const int *offset_of_rank);

#endif
