/* SPDX-License-Identifier: BSD-3-Clause */
/* BTIO's multi-partition ("block-tridiagonal") decomposition: on P = n*n ranks every rank owns
 * n cells, one in each z-slab, placed so that each rank's cells lie on a diagonal of the n x n x n
 * cell grid. Dimension index 0 is X, 1 is Y, 2 is Z. */
#ifndef SONDE_BTIO_DECOMPOSITION_H
#define SONDE_BTIO_DECOMPOSITION_H

#include <stdint.h>

#define BTIO_MIN_CELL 3 /* the original refuses cells of 2 or fewer points in any dimension */

struct btio_cell {
	int64_t coord[3]; /* 0-based cell coordinates in the n x n x n cell grid */
	int64_t low[3];   /* 0-based first grid point */
	int64_t size[3];  /* grid points */
};

/* n when nprocs is a perfect square n*n, otherwise 0. */
int btio_ncells(int nprocs);

/* Cell k (0 <= k < n, the cell in z-slab k) of rank (0 <= rank < n*n). */
void btio_cell(int rank, int n, int k, const int64_t grid[3], struct btio_cell *out);

/* The smallest cell extent along any dimension over every rank's cells, and the dimension that
 * has it (0 X, 1 Y, 2 Z). */
int64_t btio_min_cell_size(int n, const int64_t grid[3], int *dim);

/* Interior points per cell that the memory buffer has room for along a dimension of global
 * points: global / n + 1, as the original sizes it (one more than needed when n divides it). */
int64_t btio_buffer_points(int n, int64_t global);

#endif
