/* SPDX-License-Identifier: BSD-3-Clause */
/* BTIO's decomposition: the cells of all ranks tile the global array exactly once, each rank has
 * one cell per z-slab, and the figures match the original's own cell table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
/* Compiled in rather than linked, so this test builds whichever workloads the library holds. */
#include "workloads/btio/decomposition.c"

/* Every grid point is covered by exactly one cell of one rank. */
static void check_tiling(int nprocs, int64_t x, int64_t y, int64_t z)
{
	int64_t grid[3] = {x, y, z};
	int n = btio_ncells(nprocs);
	CHECK_INT((int64_t)n * n, nprocs);
	unsigned char *seen = calloc((size_t)(x * y * z), 1);
	unsigned char *slab_seen = calloc((size_t)n, 1);
	unsigned char *coord_seen = calloc((size_t)n * n * n, 1);
	int64_t bad = 0;
	for (int r = 0; r < nprocs; r++) {
		memset(slab_seen, 0, (size_t)n);
		for (int k = 0; k < n; k++) {
			struct btio_cell c;
			btio_cell(r, n, k, grid, &c);
			CHECK_INT(c.coord[2], k);
			slab_seen[c.coord[2]]++;
			coord_seen[(c.coord[2] * n + c.coord[1]) * n + c.coord[0]]++;
			for (int d = 0; d < 3; d++) {
				CHECK(c.size[d] >= grid[d] / n && c.size[d] <= grid[d] / n + 1);
				CHECK(c.size[d] <= btio_buffer_points(n, grid[d]));
				CHECK(c.low[d] >= 0 && c.low[d] + c.size[d] <= grid[d]);
			}
			for (int64_t zz = c.low[2]; zz < c.low[2] + c.size[2]; zz++)
				for (int64_t yy = c.low[1]; yy < c.low[1] + c.size[1]; yy++)
					for (int64_t xx = c.low[0]; xx < c.low[0] + c.size[0]; xx++)
						seen[(zz * y + yy) * x + xx]++;
		}
		for (int k = 0; k < n; k++)
			bad += slab_seen[k] != 1;
	}
	for (int64_t i = 0; i < (int64_t)n * n * n; i++)
		bad += coord_seen[i] != 1;
	for (int64_t i = 0; i < x * y * z; i++)
		bad += seen[i] != 1;
	check_count++;
	if (bad)
		check_fail(__FILE__, __LINE__,
		           "P=%d grid %lldx%lldx%lld: %lld points or cells not "
		           "covered exactly once",
		           nprocs, (long long)x, (long long)y, (long long)z, (long long)bad);
	free(seen);
	free(slab_seen);
	free(coord_seen);
}

int main(void)
{
	CHECK_INT(btio_ncells(1), 1);
	CHECK_INT(btio_ncells(4), 2);
	CHECK_INT(btio_ncells(9), 3);
	CHECK_INT(btio_ncells(1024), 32);
	CHECK_INT(btio_ncells(1022121), 1011);
	CHECK_INT(btio_ncells(2), 0);
	CHECK_INT(btio_ncells(5), 0);
	CHECK_INT(btio_ncells(8), 0);
	CHECK_INT(btio_ncells(1023), 0);
	CHECK_INT(btio_ncells(0), 0);

	/* The original's own cell table (reference: P=9, grid 10x11x12, rank 0). */
	int64_t g[3] = {10, 11, 12};
	const int64_t want[3][3][3] = {
	    {{0, 0, 0}, {0, 0, 0}, {4, 4, 4}},
	    {{1, 2, 1}, {4, 8, 4}, {3, 3, 4}},
	    {{2, 1, 2}, {7, 4, 8}, {3, 4, 4}},
	};
	for (int k = 0; k < 3; k++) {
		struct btio_cell c;
		btio_cell(0, 3, k, g, &c);
		for (int d = 0; d < 3; d++) {
			CHECK_INT(c.coord[d], want[k][0][d]);
			CHECK_INT(c.low[d], want[k][1][d]);
			CHECK_INT(c.size[d], want[k][2][d]);
		}
	}

	/* Even and uneven splits, every dimension uneven in a different way. */
	static const int64_t cases[][4] = {
	    {1, 12, 12, 12},  {1, 3, 4, 5},     {4, 64, 64, 64},   {4, 7, 6, 9},
	    {4, 12, 13, 14},  {9, 10, 11, 12},  {9, 12, 12, 12},   {9, 13, 17, 11},
	    {16, 17, 30, 19}, {16, 12, 12, 12}, {25, 100, 50, 75}, {25, 16, 19, 23},
	    {36, 20, 21, 22}, {49, 29, 22, 31}, {64, 24, 25, 26},  {100, 33, 31, 30},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_tiling((int)cases[i][0], cases[i][1], cases[i][2], cases[i][3]);

	/* The smallest cell decides whether the original refuses the run. */
	int dim = -1;
	int64_t g4[3] = {4, 4, 4};
	CHECK_INT(btio_min_cell_size(2, g4, &dim), 2);
	CHECK_INT(dim, 0);
	int64_t gy[3] = {64, 5, 64};
	CHECK_INT(btio_min_cell_size(2, gy, &dim), 2);
	CHECK_INT(dim, 1);
	int64_t gz[3] = {9, 9, 8};
	CHECK_INT(btio_min_cell_size(3, gz, &dim), 2);
	CHECK_INT(dim, 2);
	int64_t ok[3] = {7, 6, 9};
	CHECK_INT(btio_min_cell_size(2, ok, &dim), 3);
	return check_finish("test_btio_decomposition");
}
