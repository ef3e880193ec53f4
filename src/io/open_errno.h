/* SPDX-License-Identifier: BSD-3-Clause */
/* Why an open through MPI-IO failed, in the system's words. MPI libraries report a failed open
 * with an error class that often hides the cause (ROMIO: MPI_ERR_OTHER for a path under a
 * regular file, MPI_ERR_BAD_FILE for a directory, MPI_ERR_ACCESS for any refused mode); the
 * path itself, looked at with stat(2) and access(2), usually says which it was. */
#ifndef SONDE_OPEN_ERRNO_H
#define SONDE_OPEN_ERRNO_H

/* The errno open(2) of path would fail with, as far as the path shows it: EISDIR, ENOENT,
 * ENOTDIR, EACCES, EROFS; 0 when the path shows nothing wrong. create: the open would create the
 * file when it does not exist. */
int sonde_path_open_errno(const char *path, int create);

/* After an MPI-IO open of path failed with err (a negative errno; sonde_io_last_error() holds
 * "<what>: <strerror(-err)> (<MPI's words>)"): the errno the path explains instead, with the
 * message's system words replaced. err itself when the path explains nothing else. */
int sonde_mpio_explain_open(int err, const char *path, int create);

#endif
