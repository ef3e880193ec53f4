/* SPDX-License-Identifier: BSD-3-Clause */
/* POSIX backend: one file descriptor per rank, pwrite/pread at explicit offsets. */
#define _FILE_OFFSET_BITS 64 /* 64-bit offsets on 32-bit builds too */

#include "backend.h"
#include "fail.h"
#include "metadata.h"
#include "posix_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_ALIGNMENT 4096

/* --posix.*: the POSIX backend's own parameters. */
struct posix_params {
	int odirect;
};
SONDE_BACKEND_PARAMS_FIT(struct posix_params);

#define F(field) offsetof(struct posix_params, field)
static const struct sonde_option posix_options[] = {
    {0, "posix.odirect", SONDE_OPT_FLAG, F(odirect), NULL,
     "open the files with O_DIRECT (sizes and offsets multiples of 4096; sonde ior -a MPIIO: "
     "ROMIO's direct I/O hints)"},
    {0, "posix.lustre.*", SONDE_OPT_REFUSED, 0, NULL,
     "Lustre striping from IOR is not implemented: stripe the directory with lfs setstripe"},
    {0, "posix.gpfs.*", SONDE_OPT_REFUSED, 0, NULL, "GPFS hints are not implemented"},
    {0, "posix.beegfs.*", SONDE_OPT_REFUSED, 0, NULL,
     "BeeGFS striping from IOR is not implemented: set it on the directory with beegfs-ctl"},
    {0, "posix.rangelocks", SONDE_OPT_REFUSED, 0, NULL,
     "byte-range locks around each transfer are not implemented"},
};
#undef F

struct sonde_file {
	int fd;
	int direct;
	size_t alignment;
	char path[];
};

static int access_mode(unsigned flags)
{
	return (flags & SONDE_IO_RDONLY) ? O_RDONLY : (flags & SONDE_IO_WRONLY) ? O_WRONLY : O_RDWR;
}

static int open_error(const char *path, unsigned flags, int err)
{
	struct stat st;
	if (err == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return sonde_io_link_refused("open", path);
	if (err == EINVAL && (flags & SONDE_IO_DIRECT))
		sonde_io_set_error("open %s: the file system refuses O_DIRECT (%s)", path,
		                   sonde_strerror(err));
	else if (err == EEXIST && (flags & SONDE_IO_EXCL))
		sonde_io_set_error("create %s: the file already exists and exclusive creation "
		                   "was asked for (%s)",
		                   path, sonde_strerror(err));
	else
		sonde_io_set_error("open %s: %s", path, sonde_strerror(err));
	return -err;
}

int sonde_posix_open_fd(const char *path, unsigned flags, int *fd_out)
{
	*fd_out = -1;
	int rc = sonde_io_check_flags(path, flags);
	if (rc < 0)
		return rc;
	int oflags = access_mode(flags);
	/* O_NOFOLLOW always: a benchmark runs on shared scratch space, often as a privileged
	 * user, and opens (and may truncate or remove) files at predictable paths. A symbolic
	 * link planted at such a path must never redirect sonde's writes to another file, so
	 * sonde refuses to follow a link in the last path component. O_CLOEXEC keeps the
	 * descriptor out of any child a launcher or library may start. */
	oflags |= O_CLOEXEC | O_NOFOLLOW;
	if (flags & SONDE_IO_CREATE)
		oflags |= O_CREAT;
	if (flags & SONDE_IO_EXCL)
		oflags |= O_EXCL;
	if (flags & SONDE_IO_TRUNC)
		oflags |= O_TRUNC;
	if (flags & SONDE_IO_DIRECT)
		oflags |= O_DIRECT;

	int fd;
	do
		fd = open(path, oflags, 0644);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int err = errno;
		/* Linux creates the file before it checks O_DIRECT support; with O_EXCL the
		 * file is certainly ours, so do not leave it behind. */
		if (err == EINVAL && (flags & SONDE_IO_DIRECT) && (flags & SONDE_IO_EXCL))
			unlink(path);
		return open_error(path, flags, err);
	}
	*fd_out = fd;
	return 0;
}

static int posix_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                      struct sonde_file **out)
{
	*out = NULL;
	/* Capabilities this backend does not have are refused rather than silently ignored. */
	if (opt && opt->collective) {
		sonde_io_set_error("open %s: the POSIX backend has no collective I/O", path);
		return -EINVAL;
	}
	if (opt && opt->nhints > 0) {
		sonde_io_set_error("open %s: the POSIX backend takes no hints (got '%s')", path,
		                   opt->hints[0]);
		return -EINVAL;
	}
	const struct posix_params *pp = opt ? opt->params : NULL;
	if (pp && pp->odirect)
		flags |= SONDE_IO_DIRECT;
	int fd;
	int rc = sonde_posix_open_fd(path, flags, &fd);
	if (rc < 0)
		return rc;

	size_t plen = strlen(path) + 1;
	struct sonde_file *f = malloc(sizeof *f + plen);
	if (!f) {
		close(fd);
		sonde_io_set_error("open %s: out of memory", path);
		return -ENOMEM;
	}
	f->fd = fd;
	f->direct = (flags & SONDE_IO_DIRECT) != 0;
	f->alignment = opt && opt->alignment ? opt->alignment : DEFAULT_ALIGNMENT;
	memcpy(f->path, path, plen);
	*out = f;
	return 0;
}

/* Arguments the kernel would reject with a less helpful message, or not at all. */
static int check_transfer(const struct sonde_file *f, const char *op, const void *buf, size_t len,
                          int64_t offset)
{
	if (offset < 0 || len > (size_t)SSIZE_MAX || (uint64_t)offset + len > (uint64_t)INT64_MAX) {
		sonde_io_set_error("%s %s: bad range: offset %lld, length %zu", op, f->path,
		                   (long long)offset, len);
		return -EINVAL;
	}
	if (f->direct) {
		size_t a = f->alignment;
		if ((uintptr_t)buf % a || len % a || (uint64_t)offset % a) {
			sonde_io_set_error(
			    "%s %s at offset %lld: O_DIRECT needs the buffer address, "
			    "offset and length to be multiples of %zu bytes "
			    "(buffer %p, length %zu): %s",
			    op, f->path, (long long)offset, a, buf, len, sonde_strerror(EINVAL));
			return -EINVAL;
		}
	}
	return 0;
}

static ssize_t transfer_error(const struct sonde_file *f, const char *op, int64_t offset,
                              size_t done, size_t len, int err)
{
	if (done)
		sonde_io_set_error("%s %s at offset %lld: %s (after %zu of %zu bytes)", op, f->path,
		                   (long long)(offset + (int64_t)done), sonde_strerror(err), done,
		                   len);
	else
		sonde_io_set_error("%s %s at offset %lld: %s", op, f->path, (long long)offset,
		                   sonde_strerror(err));
	return -err;
}

/* The kernel may move fewer bytes than asked (a signal, a file size limit, a full file system,
 * a network file system) and may fail a call with EINTR before moving any; both are retried
 * until every byte is written or a call reports a real error. */
static ssize_t posix_write_at(struct sonde_file *f, const void *buf, size_t len, int64_t offset)
{
	int rc = check_transfer(f, "write", buf, len, offset);
	if (rc)
		return rc;
	const char *p = buf;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(f->fd, p + done, len - done, (off_t)(offset + (int64_t)done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return transfer_error(f, "write", offset, done, len, errno);
		}
		if (n == 0) /* no progress and no reason: do not spin */
			return transfer_error(f, "write", offset, done, len, EIO);
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Like writing, except that the end of the file stops the loop: the short count is returned
 * and the caller decides whether that is an error. */
static ssize_t posix_read_at(struct sonde_file *f, void *buf, size_t len, int64_t offset)
{
	int rc = check_transfer(f, "read", buf, len, offset);
	if (rc)
		return rc;
	char *p = buf;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(f->fd, p + done, len - done, (off_t)(offset + (int64_t)done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return transfer_error(f, "read", offset, done, len, errno);
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int posix_sync(struct sonde_file *f)
{
	if (fsync(f->fd) != 0) {
		int err = errno;
		sonde_io_set_error("sync %s: %s", f->path, sonde_strerror(err));
		return -err;
	}
	return 0;
}

/* close is not retried on EINTR: Linux has released the descriptor either way. */
static int posix_close(struct sonde_file *f)
{
	int rc = 0;
	if (close(f->fd) != 0) {
		rc = -errno;
		sonde_io_set_error("close %s: %s", f->path, sonde_strerror(errno));
	}
	free(f);
	return rc;
}

static int64_t posix_size(struct sonde_file *f)
{
	struct stat st;
	if (fstat(f->fd, &st) != 0) {
		int err = errno;
		sonde_io_set_error("stat %s: %s", f->path, sonde_strerror(err));
		return -err;
	}
	return (int64_t)st.st_size;
}

int sonde_posix_remove(const char *path)
{
	if (unlink(path) != 0) {
		int err = errno;
		sonde_io_set_error("remove %s: %s", path, sonde_strerror(err));
		return -err;
	}
	return 0;
}

const struct sonde_backend sonde_backend_posix = {
    .name = "POSIX",
    .summary = "one file descriptor per rank, pwrite/pread at explicit offsets",
    .caps = SONDE_CAP_DIRECT | SONDE_CAP_MDTEST,
    .options = posix_options,
    .noptions = (int)(sizeof posix_options / sizeof posix_options[0]),
    .params_size = sizeof(struct posix_params),
    .open = posix_open,
    .write_at = posix_write_at,
    .read_at = posix_read_at,
    .sync = posix_sync,
    .close = posix_close,
    .size = posix_size,
    .remove = sonde_posix_remove,
    SONDE_PATH_OPERATIONS,
};
