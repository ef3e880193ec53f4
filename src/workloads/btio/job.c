/* SPDX-License-Identifier: BSD-3-Clause */
/* What both methods' jobs share (MPI-IO in mpiio.c, PnetCDF in pnetcdf.c): the job's first
 * failure, a cell's subarray type, and the check of a file's shape before it is read. Calls
 * neither method. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "fail.h"
#include "workloads/btio/btio.h"

void btio_fail(struct btio_job *j, int err)
{
	if (j->err || err >= 0)
		return;
	j->err = err;
	snprintf(j->why, sizeof j->why, "%s", sonde_io_last_error());
}

MPI_Datatype btio_cell_subarray(const struct btio_cell *c, const int64_t dims[3],
                                const int64_t start[3], MPI_Datatype point)
{
	int sizes[3] = {(int)dims[2], (int)dims[1], (int)dims[0]};
	int sub[3] = {(int)c->size[2], (int)c->size[1], (int)c->size[0]};
	int st[3] = {(int)start[2], (int)start[1], (int)start[0]};
	MPI_Datatype t;
	MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, point, &t);
	return t;
}

int btio_agree_shape(const struct btio_job *j, const int64_t grid[3], int64_t records)
{
	const int64_t *want = j->L->grid;
	if (!sonde_agree(j->comm, memcmp(grid, want, 3 * sizeof *grid) == 0,
	                 "%s holds a %lldx%lldx%lld grid, not the %lldx%lldx%lld asked for (line 4 "
	                 "of the input file or --grid)",
	                 j->path, (long long)grid[0], (long long)grid[1], (long long)grid[2],
	                 (long long)want[0], (long long)want[1], (long long)want[2]))
		return -EINVAL;
	if (!sonde_agree(j->comm, records >= j->dumps,
	                 "%s holds %lld dumps; cannot read %lld (line 3 of the input file or "
	                 "--dumps)",
	                 j->path, (long long)records, (long long)j->dumps))
		return -EINVAL;
	return 0;
}
