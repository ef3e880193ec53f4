/* SPDX-License-Identifier: BSD-3-Clause */
/* Methods 0 and 1: MPI-IO on one shared raw file (btio.mpi). The file view is a struct of the
 * rank's cells (3-D subarrays of 5-double points) stretched to one record, so each dump is one
 * call and the file pointer walks record by record: write_all/read_all for method 0, write/read
 * for method 1. A netCDF file written by methods 2/3 reads the same way from its data offset,
 * its big-endian values converted in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "completion.h"
#include "fail.h"
#include "open_errno.h"
#include "workloads/btio/btio.h"

/* Collective: every rank learns the lowest failing rank's error (one line printed). */
static int agree(const struct btio_job *j, int err)
{
	return -sonde_agree_path(j->comm, err, j->path, "%s", sonde_io_last_error());
}

/* The memory type (every cell's interior in the ghosted buffer) and the file type (every cell's
 * place in one record, extent stride). */
static void make_types(struct btio_job *j, int64_t stride)
{
	const struct btio_layout *L = j->L;
	MPI_Datatype point;
	MPI_Type_contiguous(BTIO_FIVE, MPI_DOUBLE, &point);
	MPI_Type_commit(&point);
	MPI_Datatype *mem = malloc((size_t)L->n * sizeof *mem);
	MPI_Datatype *file = malloc((size_t)L->n * sizeof *file);
	MPI_Aint *mdisp = malloc((size_t)L->n * sizeof *mdisp);
	MPI_Aint *fdisp = malloc((size_t)L->n * sizeof *fdisp);
	int *ones = malloc((size_t)L->n * sizeof *ones);
	if (!mem || !file || !mdisp || !fdisp || !ones)
		sonde_fatal("out of memory for %d cell types", L->n);
	const int64_t ghost[3] = {2, 2, 2};
	for (int k = 0; k < L->n; k++) {
		mem[k] = btio_cell_subarray(&L->cells[k], L->mem, ghost, point);
		file[k] = btio_cell_subarray(&L->cells[k], L->grid, L->cells[k].low, point);
		mdisp[k] = (MPI_Aint)(k * L->cell_stride * (int64_t)sizeof(double));
		fdisp[k] = 0;
		ones[k] = 1;
	}
	MPI_Type_create_struct(L->n, ones, mdisp, mem, &j->memtype);
	MPI_Datatype cells;
	MPI_Type_create_struct(L->n, ones, fdisp, file, &cells);
	MPI_Type_create_resized(cells, 0, (MPI_Aint)stride, &j->filetype);
	MPI_Type_commit(&j->memtype);
	MPI_Type_commit(&j->filetype);
	for (int k = 0; k < L->n; k++) {
		MPI_Type_free(&mem[k]);
		MPI_Type_free(&file[k]);
	}
	MPI_Type_free(&cells);
	j->celltype = point;
	free(mem);
	free(file);
	free(mdisp);
	free(fdisp);
	free(ones);
}

static int info_int(MPI_Info info, const char *key)
{
	char value[MPI_MAX_INFO_VAL + 1];
	int flag = 0;
	if (info == MPI_INFO_NULL)
		return 0;
	MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
	return flag ? atoi(value) : 0;
}

/* Where the records of the file being read start and how far apart they are; refuses files that
 * hold fewer dumps than asked or another grid. Returns 0 or a negative errno value, agreed. */
static int read_geometry(struct btio_job *j, int64_t *disp, int64_t *stride)
{
	const struct btio_layout *L = j->L;
	MPI_Offset size = 0;
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "size of %s", j->path);
	int err = sonde_mpio_end(&op, MPI_File_get_size(j->fh, &size), NULL, MPI_BYTE, NULL);
	/* Rank 0 looks at the first bytes for every rank: one small read, not one per rank. */
	struct {
		int err;
		MPI_Count count;
		char magic[4];
	} head = {err, 0, {0}};
	int rank;
	MPI_Comm_rank(j->comm, &rank);
	if (rank == 0 && !err && size >= 4) {
		MPI_Status st;
		sonde_mpio_begin(&op, "read %s at offset 0", j->path);
		head.err =
		    sonde_mpio_end(&op, MPI_File_read_at(j->fh, 0, head.magic, 4, MPI_CHAR, &st),
		                   &st, MPI_CHAR, &head.count);
	}
	MPI_Bcast(&head, (int)sizeof head, MPI_BYTE, 0, j->comm);
	if ((err = agree(j, rank == 0 ? head.err : err)) < 0)
		return err;
	if (head.count == 4 && memcmp(head.magic, "CDF", 3) == 0 && head.magic[3] >= 1 &&
	    head.magic[3] <= 5) {
		struct btio_nc_shape s;
		char why[512];
		int ok = btio_nc_inquire(j->comm, j->path, j->info, &s, why, sizeof why) == 0;
		if (!sonde_agree(j->comm, ok, "%s", why))
			return -EINVAL;
		if ((err = btio_agree_shape(j, s.grid, s.records)) < 0)
			return err;
		*disp = s.begin;
		*stride = s.record_size;
		j->byteswap = 1;
		return 0;
	}
	if (!sonde_agree(j->comm, size % L->record_bytes == 0,
	                 "%s is %lld bytes, not a whole number of %lldx%lldx%lld dumps (%lld bytes "
	                 "each): written with another grid? (line 4 of the input file or --grid)",
	                 j->path, (long long)size, (long long)L->grid[0], (long long)L->grid[1],
	                 (long long)L->grid[2], (long long)L->record_bytes))
		return -EINVAL;
	if ((err = btio_agree_shape(j, L->grid, size / L->record_bytes)) < 0)
		return err;
	*disp = 0;
	*stride = L->record_bytes;
	return 0;
}

static int mpiio_open(struct btio_job *j)
{
	int amode = j->writing ? MPI_MODE_WRONLY | MPI_MODE_CREATE : MPI_MODE_RDONLY;
	int err = agree(j, sonde_mpio_check_name(j->comm, j->path));
	if (err == 0)
		err = agree(j, sonde_io_refuse_symlink(j->comm, j->path));
	if (err < 0)
		return err;
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "cannot %s %s", j->writing ? "create" : "open", j->path);
	err = sonde_mpio_end(&op, MPI_File_open(j->comm, j->path, amode, j->info, &j->fh), NULL,
	                     MPI_BYTE, NULL);
	if ((err = agree(j, sonde_mpio_explain_open(err, j->path, j->writing))) < 0)
		return err;
	int64_t disp = 0, stride = j->L->record_bytes;
	if (j->writing) {
		/* A longer file from an earlier run would otherwise keep stale dumps past ours. */
		sonde_mpio_begin(&op, "cannot truncate %s", j->path);
		err = agree(j,
		            sonde_mpio_end(&op, MPI_File_set_size(j->fh, 0), NULL, MPI_BYTE, NULL));
	} else {
		err = read_geometry(j, &disp, &stride);
	}
	if (err < 0) {
		MPI_File_close(&j->fh);
		return err;
	}
	j->data = (struct btio_extent){disp, stride};
	make_types(j, stride);
	int whole_points = stride % (BTIO_FIVE * (int64_t)sizeof(double)) == 0;
	sonde_mpio_begin(&op, "cannot set the file view of %s", j->path);
	err = sonde_mpio_end(&op,
	                     MPI_File_set_view(j->fh, (MPI_Offset)disp,
	                                       whole_points ? j->celltype : MPI_BYTE, j->filetype,
	                                       "native", j->info),
	                     NULL, MPI_BYTE, NULL);
	if ((err = agree(j, err)) < 0) {
		MPI_File_close(&j->fh);
		return err;
	}
	MPI_Info used = MPI_INFO_NULL;
	if (MPI_File_get_info(j->fh, &used) == MPI_SUCCESS && used != MPI_INFO_NULL) {
		j->striping_factor = info_int(used, "striping_factor");
		j->striping_unit = info_int(used, "striping_unit");
		MPI_Info_free(&used);
	}
	return 0;
}

/* One dump: one call over the rank's cells, checked down to its element count. After a
 * failure this rank moves nothing; with collective I/O it still makes the (empty) call. */
static void transfer(struct btio_job *j, int64_t dump, int collective)
{
	if (j->err && !collective)
		return;
	const struct btio_layout *L = j->L;
	int count = j->err ? 0 : 1;
	MPI_Status st;
	MPI_Count moved = 0, want = 0;
	for (int k = 0; k < L->n; k++)
		want += (MPI_Count)(L->cells[k].size[0] * L->cells[k].size[1] *
		                    L->cells[k].size[2] * BTIO_FIVE);
	want *= count;
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "%s dump %lld of %s", j->writing ? "write" : "read", (long long)dump,
	                 j->path);
	int rc;
	if (j->writing)
		rc = collective ? MPI_File_write_all(j->fh, L->buf, count, j->memtype, &st)
		                : MPI_File_write(j->fh, L->buf, count, j->memtype, &st);
	else
		rc = collective ? MPI_File_read_all(j->fh, L->buf, count, j->memtype, &st)
		                : MPI_File_read(j->fh, L->buf, count, j->memtype, &st);
	int err = sonde_mpio_end(&op, rc, &st, j->memtype, &moved);
	if (!err && moved != want) {
		sonde_io_set_error("%s: %lld of %lld values %s", op.what, (long long)moved,
		                   (long long)want, j->writing ? "written" : "read");
		err = -EIO;
	}
	if (j->err)
		return;
	btio_fail(j, err);
	if (!err && !j->writing && j->byteswap)
		btio_from_big_endian(j->L);
}

static void post_collective(struct btio_job *j, int64_t dump)
{
	transfer(j, dump, 1);
}

static void post_independent(struct btio_job *j, int64_t dump)
{
	transfer(j, dump, 0);
}

static void mpiio_close(struct btio_job *j)
{
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "close %s", j->path);
	btio_fail(j, sonde_mpio_end(&op, MPI_File_close(&j->fh), NULL, MPI_BYTE, NULL));
	MPI_Type_free(&j->memtype);
	MPI_Type_free(&j->filetype);
	MPI_Type_free(&j->celltype);
}

const struct btio_method_ops btio_mpiio_ops[2] = {
    {"Using MPI collective I/O method", mpiio_open, post_collective, NULL, mpiio_close},
    {"Using MPI independent I/O method", mpiio_open, post_independent, NULL, mpiio_close},
};
