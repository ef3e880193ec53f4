/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory buffer and the data in it. The original filled its buffer once with random numbers
 * and never checked them; sonde writes values that are a function of (dump, z, y, x, f), uniform
 * in [0, 1) like the original's, so a read checks every value against where it belongs, whatever
 * method and rank count wrote the file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "pattern.h"
#include "workloads/btio/btio.h"

#define BTIO_SEED 0x4254494f /* "BTIO" */

int btio_layout_init(struct btio_layout *L, int rank, int n, const int64_t grid[3])
{
	memset(L, 0, sizeof *L);
	memcpy(L->grid, grid, sizeof L->grid);
	L->n = n;
	L->cells = calloc((size_t)n, sizeof *L->cells);
	for (int d = 0; d < 3; d++)
		L->mem[d] = btio_buffer_points(n, grid[d]) + 4;
	L->cell_stride = L->mem[0] * L->mem[1] * L->mem[2] * BTIO_FIVE;
	L->buf = malloc((size_t)(L->cell_stride * n) * sizeof(double));
	L->record_bytes = grid[0] * grid[1] * grid[2] * BTIO_FIVE * (int64_t)sizeof(double);
	if (!L->cells || !L->buf) {
		btio_layout_free(L);
		return -1;
	}
	for (int k = 0; k < n; k++)
		btio_cell(rank, n, k, grid, &L->cells[k]);
	return 0;
}

void btio_layout_free(struct btio_layout *L)
{
	free(L->cells);
	free(L->buf);
	L->cells = NULL;
	L->buf = NULL;
}

static inline double to_unit(uint64_t w)
{
	return (double)(w >> 11) * 0x1p-53;
}

/* One row of a cell: the values of x in [x0, x0+nx), all five components, in file order. Each
 * (dump, z, y) row is its own pattern stream, so a row costs one mix per value. */
static void row_values(int64_t dump, int64_t z, int64_t y, int64_t x0, int64_t nx, double *out)
{
	struct sonde_pattern p = {.seed = BTIO_SEED, .stream = sonde_pattern_stream(dump, z, y)};
	size_t len = (size_t)nx * BTIO_FIVE * sizeof(double);
	sonde_pattern_fill(&p, out, len, (uint64_t)x0 * BTIO_FIVE * sizeof(double));
	for (int64_t i = 0; i < nx * BTIO_FIVE; i++) {
		uint64_t w;
		memcpy(&w, &out[i], sizeof w);
		/* The pattern's words are little-endian in memory; take them as numbers. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		out[i] = to_unit(w);
	}
}

void btio_fill(const struct btio_layout *L, int64_t dump)
{
	for (int k = 0; k < L->n; k++) {
		const struct btio_cell *c = &L->cells[k];
		for (int64_t z = 0; z < c->size[2]; z++)
			for (int64_t y = 0; y < c->size[1]; y++)
				row_values(dump, c->low[2] + z, c->low[1] + y, c->low[0],
				           c->size[0], &L->buf[btio_buf_index(L, k, z, y, 0, 0)]);
	}
}

void btio_poison(const struct btio_layout *L)
{
	for (int64_t i = 0; i < L->cell_stride * L->n; i++)
		L->buf[i] = -1.0;
}

void btio_check_dump(const struct btio_layout *L, int64_t dump, const char *path,
                     const struct btio_extent *where, int rank, struct btio_check *chk)
{
	double *want = malloc((size_t)L->mem[0] * BTIO_FIVE * sizeof(double));
	if (!want)
		sonde_fatal("out of memory for verification");
	for (int k = 0; k < L->n; k++) {
		const struct btio_cell *c = &L->cells[k];
		for (int64_t z = 0; z < c->size[2]; z++)
			for (int64_t y = 0; y < c->size[1]; y++) {
				int64_t gz = c->low[2] + z, gy = c->low[1] + y;
				row_values(dump, gz, gy, c->low[0], c->size[0], want);
				const double *got = &L->buf[btio_buf_index(L, k, z, y, 0, 0)];
				int64_t nv = c->size[0] * BTIO_FIVE;
				chk->checked += nv;
				if (memcmp(got, want, (size_t)nv * sizeof(double)) == 0)
					continue;
				for (int64_t i = 0; i < nv; i++) {
					if (memcmp(&got[i], &want[i], sizeof(double)) == 0)
						continue;
					if (chk->errors++ >= BTIO_REPORT_KEEP)
						continue;
					int64_t gx = c->low[0] + i / BTIO_FIVE;
					int64_t offset =
					    where->begin + dump * where->stride +
					    (((gz * L->grid[1] + gy) * L->grid[0] + gx) *
					         BTIO_FIVE +
					     i % BTIO_FIVE) *
					        (int64_t)sizeof(double);
					fprintf(stderr,
					        "sonde btio: rank %d: verify: %s: element (dump "
					        "%" PRId64 ", z %" PRId64 ", y %" PRId64
					        ", x %" PRId64 ", f %d) at byte %" PRId64
					        ": expected %.17g, found %.17g\n",
					        rank, path, dump, gz, gy, gx, (int)(i % BTIO_FIVE),
					        offset, want[i], got[i]);
				}
			}
	}
	free(want);
}

void btio_from_big_endian(const struct btio_layout *L)
{
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	for (int k = 0; k < L->n; k++) {
		const struct btio_cell *c = &L->cells[k];
		for (int64_t z = 0; z < c->size[2]; z++)
			for (int64_t y = 0; y < c->size[1]; y++) {
				double *row = &L->buf[btio_buf_index(L, k, z, y, 0, 0)];
				for (int64_t i = 0; i < c->size[0] * BTIO_FIVE; i++) {
					uint64_t w;
					memcpy(&w, &row[i], sizeof w);
					w = __builtin_bswap64(w);
					memcpy(&row[i], &w, sizeof w);
				}
			}
	}
#else
	(void)L;
#endif
}
