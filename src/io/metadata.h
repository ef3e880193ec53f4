/* SPDX-License-Identifier: BSD-3-Clause */
/* Metadata operations on paths, the same for both backends: MPI-IO has none of its own beyond
 * deleting a file, so the MPI-IO backend, like IOR's, uses these POSIX calls. */
#ifndef SONDE_IO_METADATA_H
#define SONDE_IO_METADATA_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

int sonde_path_stat(const char *path, struct stat *st);
int sonde_path_mkdir(const char *path, mode_t mode);
int sonde_path_rmdir(const char *path);
int sonde_path_rename(const char *from, const char *to);
int sonde_path_truncate(const char *path, int64_t size);
int sonde_path_exists(const char *path);
int sonde_path_mknod(const char *path, mode_t mode);

/* The members of struct sonde_backend they fill, the same in every backend. */
#define SONDE_PATH_OPERATIONS                                                                      \
	.stat = sonde_path_stat, .mkdir = sonde_path_mkdir, .rmdir = sonde_path_rmdir,             \
	.rename = sonde_path_rename, .truncate = sonde_path_truncate, .exists = sonde_path_exists, \
	.mknod = sonde_path_mknod

#endif
