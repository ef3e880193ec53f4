/* SPDX-License-Identifier: BSD-3-Clause */
/* What every caller of HDF5 shares (ior's HDF5 backend, src/io/hdf5.c, and sonde train's HDF5
 * dataset, src/workloads/train/hdf5.c): the error stack in one line, and the flush and close
 * of a file watched as data calls. Defined only in a build with HDF5 (SONDE_HAVE_HDF5). */
#ifndef SONDE_IO_HDF5_COMMON_H
#define SONDE_IO_HDF5_COMMON_H

#include <hdf5.h>
#include <stddef.h>

/* "HDF5 <the API call that failed>: <the innermost reason>" into buf; clears the stack. */
void sonde_hdf5_words(char *buf, size_t len);

/* H5Fflush (local scope) and H5Fclose of file at path, with their writes shielded (hdf5.c says
 * why) and the system's failures under them reported first (completion.h, sonde_lib_end):
 * 0, or a negative errno value with the line "sync PATH: ..." or "close PATH: ..." set. */
int sonde_hdf5_flush(hid_t file, const char *path);
int sonde_hdf5_close_file(hid_t file, const char *path);

#endif
