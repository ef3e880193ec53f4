/* SPDX-License-Identifier: BSD-3-Clause */
/* What the backends of a library over MPI-IO that store IOR's layout (HDF5, PnetCDF) do before
 * the library opens the file: the same checks as the MPI-IO backend's, and the layout. */
#include "backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"

int sonde_mpio_layout_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                           const char *backend, MPI_Comm *comm, MPI_Info *info)
{
	*comm = MPI_COMM_SELF;
	*info = MPI_INFO_NULL;
	if (opt && opt->comm != MPI_COMM_NULL && opt->comm != (MPI_Comm)0)
		*comm = opt->comm;
	int rc = sonde_io_check_flags(path, flags);
	if (rc < 0)
		return rc;
	if (!opt || opt->block <= 0 || opt->ntasks <= 0 || opt->transfer_size <= 0 ||
	    opt->block % opt->transfer_size || opt->block % 8) {
		sonde_io_set_error(
		    "open %s: the %s backend needs IOR's layout (block, transfer size "
		    "and tasks)",
		    path, backend);
		return -EINVAL;
	}
	if (flags & (SONDE_IO_DIRECT | SONDE_IO_EXCL)) {
		sonde_io_set_error(
		    "open %s: the %s backend has no direct I/O and no exclusive create", path,
		    backend);
		return -EINVAL;
	}
	rc = sonde_mpio_check_name(*comm, path);
	if (rc == 0)
		rc = sonde_io_refuse_symlink(*comm, path);
	if (rc == 0)
		rc = sonde_mpio_open_info(path, flags, opt, info);
	return rc;
}

void *sonde_io_file_alloc(size_t head, const char *path, MPI_Info *info)
{
	size_t plen = strlen(path) + 1;
	char *f = calloc(1, head + plen);
	if (!f) {
		if (*info != MPI_INFO_NULL)
			MPI_Info_free(info);
		sonde_io_set_error("open %s: out of memory", path);
		return NULL;
	}
	memcpy(f + head, path, plen);
	return f;
}
