/* SPDX-License-Identifier: BSD-3-Clause */
/* NCMPI backend (ior -a NCMPI), with the layout of IOR's PnetCDF backend: a classic netCDF file
 * (CDF-1) holding one record variable, signed char data_var(segments_times_np,
 * number_of_transfers, transfer_size): one record per block (segment x tasks + rank), one row
 * per transfer. write_at's offset is where IOR's layout puts the bytes; the block it falls in is
 * the record, the transfer within the block the row. The file is defined when created (IOR
 * defines it at the first transfer) and checked against the run's sizes when opened to read.
 * Every PnetCDF call is checked, with the system calls under it (completion.h). */
#include "backend.h"

#include <stddef.h>
#include <stdio.h>

/* --ncmpi.*: IOR's options for its PnetCDF backend, declared whether or not this build has
 * PnetCDF (a build without it refuses -a NCMPI by name). */
struct ncmpi_params {
	const char *hints_file; /* read by the workload, as IOR's -U */
	int show_hints;         /* read by the workload, as IOR 3.3's -H */
};
SONDE_BACKEND_PARAMS_FIT(struct ncmpi_params);

static const struct sonde_option ncmpi_options[] = {
    {0, "ncmpi.hintsFileName", SONDE_OPT_STRING, offsetof(struct ncmpi_params, hints_file), "FILE",
     "MPI-IO hints file for the netCDF file (lines IOR_HINT__MPI__key=value), as -U"},
    {0, "ncmpi.showHints", SONDE_OPT_FLAG, offsetof(struct ncmpi_params, show_hints), NULL,
     "show the MPI-IO hints passed to each open and those in effect on the netCDF file "
     "(PnetCDF's own among them)"},
    {0, "ncmpi.preallocate", SONDE_OPT_REFUSED, 0, NULL,
     "not implemented: files grow as they are written"},
    {0, "ncmpi.useStridedDatatype", SONDE_OPT_REFUSED, 0, NULL,
     "strided datatypes are not implemented"},
    {0, "ncmpi.useFileView", SONDE_OPT_REFUSED, 0, NULL, "file views are not implemented"},
};

static int ncmpi_check(const void *params, const struct sonde_io_options *opt, char *err,
                       size_t errlen)
{
	(void)params;
	if (opt->random_offsets) {
		snprintf(err, errlen, "random offset not available with NCMPI");
		return -1;
	}
	/* CDF-1 dimensions are signed 32-bit */
	if (opt->transfer_size > 2147483647) {
		snprintf(err, errlen,
		         "-a NCMPI: a transfer of more than 2 GiB does not fit a "
		         "netCDF dimension");
		return -1;
	}
	return 0;
}

#ifdef SONDE_HAVE_PNETCDF
#include <errno.h>
#include <pnetcdf.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"
#include "metadata.h"
#include "open_errno.h"

struct sonde_file {
	int ncid, varid;
	int collective;
	int64_t block, xfer;
	char path[];
};

static const char *ncmpi_version(void)
{
	return ncmpi_inq_libvers();
}

/* A failed PnetCDF call outside the data path. */
static int nc_fail(const char *path, const char *what, int rc)
{
	sonde_io_set_error("%s %s: %s", what, path, ncmpi_strerror(rc));
	return -EIO;
}

/* Defines IOR's dimensions and variable in a new file. */
static int define(struct sonde_file *f)
{
	int dims[3];
	int rc = ncmpi_def_dim(f->ncid, "segments_times_np", NC_UNLIMITED, &dims[0]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_dim(f->ncid, "number_of_transfers", f->block / f->xfer, &dims[1]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_dim(f->ncid, "transfer_size", f->xfer, &dims[2]);
	if (rc == NC_NOERR)
		rc = ncmpi_def_var(f->ncid, "data_var", NC_BYTE, 3, dims, &f->varid);
	return rc == NC_NOERR ? 0 : nc_fail(f->path, "define data_var in", rc);
}

/* An existing file must hold IOR's variable with this run's block and transfer sizes. */
static int inquire(struct sonde_file *f)
{
	int ndims = 0, dims[3];
	nc_type type = NC_NAT;
	MPI_Offset len[3] = {0, 0, 0};
	int rc = ncmpi_inq_varid(f->ncid, "data_var", &f->varid);
	if (rc == NC_NOERR)
		rc = ncmpi_inq_var(f->ncid, f->varid, NULL, &type, &ndims, NULL, NULL);
	if (rc == NC_NOERR && ndims == 3)
		rc = ncmpi_inq_vardimid(f->ncid, f->varid, dims);
	for (int d = 1; d < 3 && rc == NC_NOERR && ndims == 3; d++)
		rc = ncmpi_inq_dimlen(f->ncid, dims[d], &len[d]);
	if (rc != NC_NOERR)
		return nc_fail(f->path, "find IOR's data_var in", rc);
	if (ndims != 3 || type != NC_BYTE || len[1] != f->block / f->xfer || len[2] != f->xfer) {
		sonde_io_set_error("%s: data_var is not IOR's byte array of %lld transfers of %lld "
		                   "bytes a record (written with other -b or -t?)",
		                   f->path, (long long)(f->block / f->xfer), (long long)f->xfer);
		return -EINVAL;
	}
	return 0;
}

/* The hints in effect: MPI-IO's on the file and PnetCDF's own (ncmpi_get_file_info). */
static void show_file_hints(FILE *out, const struct sonde_file *f)
{
	if (!out)
		return;
	MPI_Info used = MPI_INFO_NULL;
	int rc = ncmpi_get_file_info(f->ncid, &used);
	if (rc != NC_NOERR) {
		fprintf(out,
		        "\n%s {\n\t(PnetCDF cannot list the hints: ncmpi_get_file_info: %s)\n}\n",
		        SONDE_HINTS_RETURNED, ncmpi_strerror(rc));
		fflush(out);
		return;
	}
	sonde_io_show_hints(out, SONDE_HINTS_RETURNED, used);
	MPI_Info_free(&used);
}

static int ncmpi_open_file(const char *path, unsigned flags, const struct sonde_io_options *opt,
                           struct sonde_file **out)
{
	*out = NULL;
	MPI_Comm comm;
	MPI_Info info;
	int rc = sonde_mpio_layout_open(path, flags, opt, "NCMPI", &comm, &info);
	if (rc < 0)
		return rc;
	struct sonde_file *f = sonde_io_file_alloc(offsetof(struct sonde_file, path), path, &info);
	if (!f)
		return -ENOMEM;
	f->block = opt->block;
	f->xfer = opt->transfer_size;
	f->collective = opt->collective;
	int creating = (flags & SONDE_IO_CREATE) != 0;
	sonde_io_show_hints(opt->show_hints, SONDE_HINTS_PASSED_OPEN, info);
	int nrc = creating ? ncmpi_create(comm, path, NC_CLOBBER, info, &f->ncid)
	                   : ncmpi_open(comm, path, flags & SONDE_IO_RDONLY ? NC_NOWRITE : NC_WRITE,
	                                info, &f->ncid);
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	if (nrc != NC_NOERR) {
		int e = sonde_path_open_errno(path, creating);
		sonde_io_set_error("open %s: %s (%s)", path, e ? strerror(e) : "not a netCDF file",
		                   ncmpi_strerror(nrc));
		free(f);
		return e ? -e : -EINVAL;
	}
	show_file_hints(opt->show_hints, f);
	rc = creating ? define(f) : inquire(f);
	if (rc == 0 && creating && (nrc = ncmpi_enddef(f->ncid)) != NC_NOERR)
		rc = nc_fail(path, "end the definitions of", nrc);
	if (rc == 0 && !f->collective && (nrc = ncmpi_begin_indep_data(f->ncid)) != NC_NOERR)
		rc = nc_fail(path, "enter independent data mode in", nrc);
	if (rc < 0) {
		ncmpi_close(f->ncid);
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

static ssize_t transfer(struct sonde_file *f, int writing, void *buf, size_t len, int64_t offset)
{
	const char *op = writing ? "write" : "read";
	if (offset < 0 || offset % f->xfer || (len != (size_t)f->xfer && len != 0)) {
		sonde_io_set_error("%s %s: bad range for netCDF rows of %lld bytes: offset %lld, "
		                   "length %zu (one whole transfer)",
		                   op, f->path, (long long)f->xfer, (long long)offset, len);
		return -EINVAL;
	}
	/* the block is the record, the transfer in it the row; an empty call (a rank that
	 * only takes part in a collective one) moves nothing */
	MPI_Offset start[3] = {offset / f->block, (offset % f->block) / f->xfer, 0};
	MPI_Offset count[3] = {len ? 1 : 0, len ? 1 : 0, (MPI_Offset)len};
	struct sonde_mpio_op call;
	sonde_mpio_begin(&call, "%s %s at offset %lld (record %lld, transfer %lld)", op, f->path,
	                 (long long)offset, (long long)start[0], (long long)start[1]);
	int rc;
	if (writing)
		rc = f->collective ? ncmpi_put_vara_schar_all(f->ncid, f->varid, start, count, buf)
		                   : ncmpi_put_vara_schar(f->ncid, f->varid, start, count, buf);
	else
		rc = f->collective ? ncmpi_get_vara_schar_all(f->ncid, f->varid, start, count, buf)
		                   : ncmpi_get_vara_schar(f->ncid, f->varid, start, count, buf);
	int e = sonde_nc_end(&call, rc);
	return e < 0 ? e : (ssize_t)len;
}

static ssize_t ncmpi_write_at(struct sonde_file *f, const void *buf, size_t len, int64_t offset)
{
	return transfer(f, 1, (void *)(uintptr_t)buf, len, offset);
}

static ssize_t ncmpi_read_at(struct sonde_file *f, void *buf, size_t len, int64_t offset)
{
	return transfer(f, 0, buf, len, offset);
}

static int ncmpi_sync_file(struct sonde_file *f)
{
	struct sonde_mpio_op call;
	sonde_mpio_begin(&call, "sync %s", f->path);
	return sonde_nc_end(&call, ncmpi_sync(f->ncid));
}

static int ncmpi_close_file(struct sonde_file *f)
{
	struct sonde_mpio_op call;
	sonde_mpio_begin(&call, "close %s", f->path);
	int rc = sonde_nc_end(&call, ncmpi_close(f->ncid));
	free(f);
	return rc;
}

static int64_t ncmpi_size(struct sonde_file *f)
{
	struct stat st;
	int rc = sonde_path_stat(f->path, &st);
	return rc < 0 ? rc : (int64_t)st.st_size;
}

/* IOR deletes through PnetCDF, which deletes through MPI-IO, as here. */
static int ncmpi_remove(const char *path)
{
	return sonde_backend_mpiio.remove(path);
}
#endif

const struct sonde_backend sonde_backend_ncmpi = {
    .name = "NCMPI",
    .summary = "IOR's PnetCDF layout: one record variable, a record per block, a row per "
               "transfer",
    .options = ncmpi_options,
    .noptions = (int)(sizeof ncmpi_options / sizeof ncmpi_options[0]),
    .params_size = sizeof(struct ncmpi_params),
    .check = ncmpi_check,
#ifdef SONDE_HAVE_PNETCDF
    .version = ncmpi_version,
    .caps = SONDE_CAP_COLLECTIVE | SONDE_CAP_SHARED_OPEN | SONDE_CAP_HINTS | SONDE_CAP_FORMATTED |
            SONDE_CAP_LOCKSTEP,
    .open = ncmpi_open_file,
    .write_at = ncmpi_write_at,
    .read_at = ncmpi_read_at,
    .sync = ncmpi_sync_file,
    .close = ncmpi_close_file,
    .size = ncmpi_size,
    .remove = ncmpi_remove,
    SONDE_PATH_OPERATIONS,
#else
    /* built without PnetCDF: its options parse, -a NCMPI is refused naming the library */
    .missing = "PnetCDF for this MPI library (Open MPI: libpnetcdf-dev; Debian has none for "
               "MPICH)",
#endif
};
