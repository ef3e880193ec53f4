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

int sonde_path_truncate(const char *path, int64_t size)
{
	if (size < 0) {
		sonde_io_set_error("truncate %s: a negative size (%lld)", path, (long long)size);
		return -EINVAL;
	}
	int rc;
	do
		rc = truncate(path, (off_t)size);
	while (rc != 0 && errno == EINTR);
	if (rc == 0)
		return 0;
	int err = errno;
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
