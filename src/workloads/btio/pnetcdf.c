/* SPDX-License-Identifier: BSD-3-Clause */
/* Methods 2 and 3: PnetCDF on btio.nc, a CDF-5 file holding one record variable
 * double var(NUM_DUMPS, Z, Y, X, FIVE_DBL), its dimensions defined in the original's order so
 * that ncdump -h prints the same header. Method 2 makes one put_vara_all/get_vara_all per cell and
 * dump; method 3 posts one iput_vara/iget_vara per cell and completes them with one wait_all per
 * dump. Memory types pick each cell's interior out of the ghosted buffer (flexible API). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "completion.h"
#include "fail.h"
#include "open_errno.h"
#include "workloads/btio/btio.h"

#ifdef SONDE_HAVE_PNETCDF
#include <pnetcdf.h>

/* Checks var's shape in an open file against what BTIO writes. */
static int nc_shape(int ncid, const char *path, int *varid, struct btio_nc_shape *s, char *err,
                    size_t errlen)
{
	int ndims = 0, dimids[5], unlimited = -1;
	nc_type type = NC_NAT;
	MPI_Offset len[5] = {0};
	int rc = ncmpi_inq_varid(ncid, "var", varid);
	/* Ask the rank first: dimids must have room for all of them. */
	if (rc == NC_NOERR)
		rc = ncmpi_inq_var(ncid, *varid, NULL, &type, &ndims, NULL, NULL);
	if (rc == NC_NOERR && ndims == 5)
		rc = ncmpi_inq_vardimid(ncid, *varid, dimids);
	if (rc == NC_NOERR)
		rc = ncmpi_inq_unlimdim(ncid, &unlimited);
	if (rc != NC_NOERR) {
		snprintf(err, errlen, "%s has no BTIO variable 'var': %s", path,
		         ncmpi_strerror(rc));
		return -1;
	}
	for (int d = 0; d < ndims && d < 5 && rc == NC_NOERR; d++)
		rc = ncmpi_inq_dimlen(ncid, dimids[d], &len[d]);
	if (rc != NC_NOERR || ndims != 5 || type != NC_DOUBLE || dimids[0] != unlimited ||
	    len[4] != BTIO_FIVE) {
		snprintf(err, errlen,
		         "%s: 'var' is not BTIO's double var(NUM_DUMPS, Z, Y, X, FIVE_DBL)", path);
		return -1;
	}
	s->records = len[0];
	s->grid[0] = len[3];
	s->grid[1] = len[2];
	s->grid[2] = len[1];
	return 0;
}

int btio_nc_inquire(MPI_Comm comm, const char *path, MPI_Info info, struct btio_nc_shape *s,
                    char *err, size_t errlen)
{
	int ncid, varid;
	int rc = ncmpi_open(comm, path, NC_NOWRITE, info, &ncid);
	if (rc != NC_NOERR) {
		snprintf(err, errlen, "cannot open %s: %s", path, ncmpi_strerror(rc));
		return -1;
	}
	int ok = nc_shape(ncid, path, &varid, s, err, errlen) == 0;
	MPI_Offset begin = 0, recsize = 0;
	if (ok) {
		rc = ncmpi_inq_varoffset(ncid, varid, &begin);
		if (rc == NC_NOERR)
			rc = ncmpi_inq_recsize(ncid, &recsize);
		if (rc != NC_NOERR) {
			snprintf(err, errlen, "%s: %s", path, ncmpi_strerror(rc));
			ok = 0;
		}
	}
	ncmpi_close(ncid);
	s->begin = begin;
	s->record_size = recsize;
	return ok ? 0 : -1;
}

/* The original's hints, unless the user gave them other values. */
static MPI_Info nc_hints(MPI_Info user)
{
	MPI_Info info;
	if (user == MPI_INFO_NULL)
		MPI_Info_create(&info);
	else
		MPI_Info_dup(user, &info);
	static const char *const defaults[][2] = {{"nc_var_align_size", "1"},
	                                          {"nc_in_place_swap", "enable"}};
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
		char v[MPI_MAX_INFO_VAL + 1];
		int flag = 0;
		MPI_Info_get(info, defaults[i][0], MPI_MAX_INFO_VAL, v, &flag);
		if (!flag)
			MPI_Info_set(info, defaults[i][0], defaults[i][1]);
	}
	return info;
}

static int nc_define(struct btio_job *j)
{
	const struct btio_layout *L = j->L;
	int dims[5], var_dims[5];
	int rc = ncmpi_def_dim(j->ncid, "FIVE_DBL", BTIO_FIVE, &dims[0]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_dim(j->ncid, "X", L->grid[0], &dims[1]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_dim(j->ncid, "Y", L->grid[1], &dims[2]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_dim(j->ncid, "Z", L->grid[2], &dims[3]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_dim(j->ncid, "NUM_DUMPS", NC_UNLIMITED, &dims[4]);
	var_dims[0] = dims[4];
	var_dims[1] = dims[3];
	var_dims[2] = dims[2];
	var_dims[3] = dims[1];
	var_dims[4] = dims[0];
	if (rc == NC_NOERR)
		rc = ncmpi_def_var(j->ncid, "var", NC_DOUBLE, 5, var_dims, &j->varid);
	if (rc == NC_NOERR)
		rc = ncmpi_enddef(j->ncid);
	return rc;
}

/* Collective: every rank learns the lowest failing rank's error (one line printed). */
static int agree(const struct btio_job *j, int err)
{
	return -sonde_agree_path(j->comm, err, j->path, "%s", sonde_io_last_error());
}

static int nc_open(struct btio_job *j)
{
	const struct btio_layout *L = j->L;
	int err = agree(j, sonde_mpio_check_name(j->comm, j->path));
	if (err == 0)
		err = agree(j, sonde_io_refuse_symlink(j->comm, j->path));
	if (err < 0)
		return err;
	MPI_Info info = nc_hints(j->info);
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "cannot %s %s", j->writing ? "create" : "open", j->path);
	int rc = j->writing
	             ? ncmpi_create(j->comm, j->path, NC_CLOBBER | NC_64BIT_DATA, info, &j->ncid)
	             : ncmpi_open(j->comm, j->path, NC_NOWRITE, info, &j->ncid);
	MPI_Info_free(&info);
	if ((err = agree(j, sonde_mpio_explain_open(sonde_nc_end(&op, rc), j->path, j->writing))) <
	    0)
		return err;
	if (j->writing) {
		sonde_mpio_begin(&op, "cannot define the variable of %s", j->path);
		err = agree(j, sonde_nc_end(&op, nc_define(j)));
	} else {
		struct btio_nc_shape s;
		char why[512];
		int ok = nc_shape(j->ncid, j->path, &j->varid, &s, why, sizeof why) == 0;
		err = !sonde_agree(j->comm, ok, "%s", why) ? -EINVAL
		                                           : btio_agree_shape(j, s.grid, s.records);
	}
	if (err < 0) {
		ncmpi_close(j->ncid);
		return err;
	}
	if (!j->writing) {
		/* Only for the verification report: without them, offsets count from the data. */
		MPI_Offset begin = 0, recsize = L->record_bytes;
		if (ncmpi_inq_varoffset(j->ncid, j->varid, &begin) != NC_NOERR ||
		    ncmpi_inq_recsize(j->ncid, &recsize) != NC_NOERR) {
			begin = 0;
			recsize = L->record_bytes;
		}
		j->data = (struct btio_extent){begin, recsize};
	}
	MPI_Datatype point;
	MPI_Type_contiguous(BTIO_FIVE, MPI_DOUBLE, &point);
	j->cellmem = malloc((size_t)L->n * sizeof *j->cellmem);
	j->reqs = malloc((size_t)L->n * sizeof *j->reqs);
	if (!j->cellmem || !j->reqs)
		sonde_fatal("out of memory for %d cells", L->n);
	const int64_t ghost[3] = {2, 2, 2};
	for (int k = 0; k < L->n; k++) {
		j->cellmem[k] = btio_cell_subarray(&L->cells[k], L->mem, ghost, point);
		MPI_Type_commit(&j->cellmem[k]);
	}
	MPI_Type_free(&point);
	MPI_Info used = MPI_INFO_NULL;
	if (ncmpi_inq_file_info(j->ncid, &used) == NC_NOERR && used != MPI_INFO_NULL) {
		char v[MPI_MAX_INFO_VAL + 1];
		int flag = 0;
		MPI_Info_get(used, "striping_factor", MPI_MAX_INFO_VAL, v, &flag);
		j->striping_factor = flag ? atoi(v) : 0;
		MPI_Info_get(used, "striping_unit", MPI_MAX_INFO_VAL, v, &flag);
		j->striping_unit = flag ? atoi(v) : 0;
		MPI_Info_free(&used);
	}
	return 0;
}

static void cell_box(const struct btio_job *j, int k, int64_t dump, MPI_Offset start[5],
                     MPI_Offset count[5])
{
	const struct btio_cell *c = &j->L->cells[k];
	start[0] = dump;
	count[0] = 1;
	for (int d = 0; d < 3; d++) {
		start[3 - d] = c->low[d];
		count[3 - d] = c->size[d];
	}
	start[4] = 0;
	count[4] = BTIO_FIVE;
}

/* Checks one PnetCDF call of dump's cell k; later calls of a rank that failed are skipped by
 * the callers, or made empty where they are collective. */
static void nc_check(struct btio_job *j, struct sonde_mpio_op *op, int rc)
{
	if (!j->err)
		btio_fail(j, sonde_nc_end(op, rc));
}

static void post_blocking(struct btio_job *j, int64_t dump)
{
	for (int k = 0; k < j->L->n; k++) {
		MPI_Offset start[5], count[5];
		cell_box(j, k, dump, start, count);
		double *buf = j->L->buf + k * j->L->cell_stride;
		/* After a failure the collective call goes on with nothing to move. */
		int n = 1;
		if (j->err) {
			memset(count, 0, sizeof count);
			n = 0;
		}
		struct sonde_mpio_op op;
		sonde_mpio_begin(&op, "%s dump %lld of %s",
		                 j->writing ? "ncmpi_put_vara_all" : "ncmpi_get_vara_all",
		                 (long long)dump, j->path);
		int rc = j->writing ? ncmpi_put_vara_all(j->ncid, j->varid, start, count, buf, n,
		                                         j->cellmem[k])
		                    : ncmpi_get_vara_all(j->ncid, j->varid, start, count, buf, n,
		                                         j->cellmem[k]);
		nc_check(j, &op, rc);
	}
}

static void post_nonblocking(struct btio_job *j, int64_t dump)
{
	j->posted = dump;
	if (j->err)
		return;
	for (int k = 0; k < j->L->n; k++) {
		MPI_Offset start[5], count[5];
		cell_box(j, k, dump, start, count);
		double *buf = j->L->buf + k * j->L->cell_stride;
		struct sonde_mpio_op op;
		sonde_mpio_begin(&op, "%s dump %lld of %s",
		                 j->writing ? "ncmpi_iput_vara" : "ncmpi_iget_vara",
		                 (long long)dump, j->path);
		int rc = j->writing ? ncmpi_iput_vara(j->ncid, j->varid, start, count, buf, 1,
		                                      j->cellmem[k], &j->reqs[k])
		                    : ncmpi_iget_vara(j->ncid, j->varid, start, count, buf, 1,
		                                      j->cellmem[k], &j->reqs[k]);
		nc_check(j, &op, rc);
	}
}

/* ncmpi_wait_all is collective: a rank that failed completes nothing, but takes part. */
static void wait_nonblocking(struct btio_job *j)
{
	int n = j->err ? 0 : j->L->n;
	int *status = malloc((size_t)j->L->n * sizeof *status);
	if (!status)
		sonde_fatal("out of memory for %d request statuses", j->L->n);
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "ncmpi_wait_all, dump %lld of %s", (long long)j->posted, j->path);
	int rc = ncmpi_wait_all(j->ncid, n, n ? j->reqs : NULL, n ? status : NULL);
	for (int k = 0; k < n && rc == NC_NOERR; k++)
		rc = status[k];
	nc_check(j, &op, rc);
	free(status);
}

static void nc_close(struct btio_job *j)
{
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "close %s", j->path);
	nc_check(j, &op, ncmpi_close(j->ncid));
	for (int k = 0; k < j->L->n; k++)
		MPI_Type_free(&j->cellmem[k]);
	free(j->cellmem);
	free(j->reqs);
	j->cellmem = NULL;
	j->reqs = NULL;
}

static const struct btio_method_ops nc_ops[2] = {
    {"Using Parallel netCDF blocking I/O method", nc_open, post_blocking, NULL, nc_close},
    {"Using Parallel netCDF non-blocking I/O method", nc_open, post_nonblocking, wait_nonblocking,
     nc_close},
};

const struct btio_method_ops *btio_pnetcdf_ops(int method)
{
	return method == BTIO_PNETCDF_BLOCKING ? &nc_ops[0] : &nc_ops[1];
}

#else

const struct btio_method_ops *btio_pnetcdf_ops(int method)
{
	(void)method;
	return NULL;
}

int btio_nc_inquire(MPI_Comm comm, const char *path, MPI_Info info, struct btio_nc_shape *s,
                    char *err, size_t errlen)
{
	(void)comm;
	(void)info;
	(void)s;
	snprintf(err, errlen,
	         "%s is a netCDF file and this sonde was built without PnetCDF: cannot read it",
	         path);
	return -1;
}

#endif
