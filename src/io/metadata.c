/* SPDX-License-Identifier: BSD-3-Clause */
/* The backends' metadata operations (backend.h): one system call each, retried on EINTR where
 * the call can be interrupted, and every failure described with the path and the system's
 * words. */
#define _FILE_OFFSET_BITS 64

#include "metadata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "backend.h"
#include "fail.h"

static int failed(const char *op, const char *path)
{
	int err = errno;
	sonde_io_set_error("%s %s: %s", op, path, sonde_strerror(err));
	return -err;
}

int sonde_path_stat(const char *path, struct stat *st)
{
	return stat(path, st) == 0 ? 0 : failed("stat", path);
}

int sonde_path_mkdir(const char *path, mode_t mode)
{
	return mkdir(path, mode) == 0 ? 0 : failed("mkdir", path);
}

int sonde_path_rmdir(const char *path)
{
	return rmdir(path) == 0 ? 0 : failed("rmdir", path);
}

int sonde_path_rename(const char *from, const char *to)
{
	if (rename(from, to) == 0)
		return 0;
	int err = errno;
	sonde_io_set_error("rename %s to %s: %s", from, to, sonde_strerror(err));
	return -err;
}

/* Through a descriptor opened with O_NOFOLLOW: truncate(2) would follow a link planted at the
 * path and empty the file it points at. O_NONBLOCK keeps a FIFO from blocking the open; only a
 * regular file is truncated (truncate(2) refuses anything else with EINVAL too). */
int sonde_path_truncate(const char *path, int64_t size)
{
	if (size < 0) {
		sonde_io_set_error("truncate %s: a negative size (%lld)", path, (long long)size);
		return -EINVAL;
	}
	int fd;
	do
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		struct stat st;
		if (errno == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return sonde_io_link_refused("truncate", path);
		return failed("truncate", path);
	}
	struct stat st;
	int rc = fstat(fd, &st);
	if (rc == 0 && !S_ISREG(st.st_mode)) {
		close(fd);
		sonde_io_set_error("truncate %s: not a regular file", path);
		return -EINVAL;
	}
	if (rc == 0)
		do
			rc = ftruncate(fd, (off_t)size);
		while (rc != 0 && errno == EINTR);
	int err = rc == 0 ? 0 : errno;
	close(fd);
	if (rc == 0)
		return 0;
	sonde_io_set_error("truncate %s to %lld bytes: %s", path, (long long)size,
	                   sonde_strerror(err));
	return -err;
}

/* A link counts as something there, and is not followed. */
int sonde_path_exists(const char *path)
{
	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return errno == ENOENT ? 0 : failed("access", path);
}

int sonde_path_mknod(const char *path, mode_t mode)
{
	return mknod(path, mode, 0) == 0 ? 0 : failed("mknod", path);
}
