/* SPDX-License-Identifier: BSD-3-Clause */
/* The cell arithmetic of BTIO (docs/workloads/btio.md): a dimension of G points is cut into n
 * pieces, the first G mod n of them one point longer. */
#include "workloads/btio/decomposition.h"

#include <math.h>

int btio_ncells(int nprocs)
{
	if (nprocs < 1)
		return 0;
	int n = (int)floor(sqrt((double)nprocs + 1e-5));
	/* sqrt of a double can land one below for large squares; settle it in integers. */
	while ((int64_t)(n + 1) * (n + 1) <= nprocs)
		n++;
	while ((int64_t)n * n > nprocs)
		n--;
	return (int64_t)n * n == nprocs ? n : 0;
}

/* Piece p (0-based) of a dimension of global points cut into n pieces. */
static void piece(int64_t global, int n, int64_t p, int64_t *low, int64_t *size)
{
	int64_t s = global / n, e = global % n;
	if (p < e) {
		*size = s + 1;
		*low = p * (s + 1);
	} else {
		*size = s;
		*low = e * (s + 1) + (p - e) * s;
	}
}

void btio_cell(int rank, int n, int k, const int64_t grid[3], struct btio_cell *out)
{
	int64_t col = rank % n, row = rank / n;
	out->coord[0] = (col + k) % n;
	out->coord[1] = ((row - k) % n + n) % n;
	out->coord[2] = k;
	for (int d = 0; d < 3; d++)
		piece(grid[d], n, out->coord[d], &out->low[d], &out->size[d]);
}

int64_t btio_min_cell_size(int n, const int64_t grid[3], int *dim)
{
	int64_t best = grid[0] / n;
	*dim = 0;
	for (int d = 1; d < 3; d++)
		if (grid[d] / n < best) {
			best = grid[d] / n;
			*dim = d;
		}
	return best;
}

int64_t btio_buffer_points(int n, int64_t global)
{
	return global / n + 1;
}
