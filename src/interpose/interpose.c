/* SPDX-License-Identifier: BSD-3-Clause */
/* The libc interposer (interpose.h). */
#include "interpose.h"

#include <aio.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/magic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static struct {
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*pwrite)(int, const void *, size_t, off_t);
	ssize_t (*pread)(int, void *, size_t, off_t);
	ssize_t (*pwritev)(int, const struct iovec *, int, off_t);
	ssize_t (*preadv)(int, const struct iovec *, int, off_t);
	int (*aio_error)(const struct aiocb *);
} libc;

static volatile unsigned long failures;
static volatile int failed_errno, failed_fd = -1;

/* Looked up by the constructor below; a call made before it (other libraries' constructors,
 * UCX's under MPICH, read files before any constructor of sonde's runs) looks up its own. */
#define LIBC(name)                                                                                 \
	(libc.name ? libc.name : (*(void **)&libc.name = dlsym(RTLD_NEXT, #name), libc.name))

/* At start-up, before main: from then on no call here reaches dlsym, which is not
 * async-signal-safe (the stop handler's end record is a write). A C library without one of
 * these entry points cannot run sonde: said on stderr by a raw system call, exit 1. */
__attribute__((constructor)) static void resolve_libc(void)
{
	int missing = !LIBC(write) || !LIBC(read) || !LIBC(writev) || !LIBC(readv) ||
	              !LIBC(pwrite) || !LIBC(pread) || !LIBC(pwritev) || !LIBC(preadv) ||
	              !LIBC(aio_error);
	if (missing) {
		static const char msg[] =
		    "sonde: error: the C library lacks one of write, read, "
		    "writev, readv, pwrite, pread, pwritev, preadv, aio_error\n";
		syscall(SYS_write, STDERR_FILENO, msg, sizeof msg - 1);
		_exit(1);
	}
}

int sonde_interpose_ready(void)
{
	return libc.write && libc.read && libc.writev && libc.readv && libc.pwrite && libc.pread &&
	       libc.pwritev && libc.preadv && libc.aio_error;
}

static void note(int fd, int err)
{
	/* Interrupted or busy calls are retried by whoever made them. */
	if (err == EINTR || err == EAGAIN || err == EINPROGRESS || err == ECANCELED || err <= 0)
		return;
	failed_errno = err;
	failed_fd = fd;
	failures++;
}

/* Sockets and pipes (MPI's own transports) fail and retry for reasons of their own. */
static int regular(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* --- short transfers ---------------------------------------------------------------------------
 * A transfer on a regular file that moved fewer bytes than asked is finished here, at once:
 * the rest is asked for until it is all moved, the system gives its reason (then noted as a
 * failure: a full disk says ENOSPC on the next write), or, for a read, the end of the file.
 * The MPI library then sees one whole transfer, as POSIX allows a write to be. OMPIO 4.1 never
 * asks for the rest: it reported btio's collective write complete over short pwritev calls
 * (245760 of 327680 bytes on disk). A write that moves nothing more and gives no reason is a
 * stall: noted, and a call that moved nothing at all is given to the library as EIO (ROMIO
 * would otherwise ask again forever). */

static volatile unsigned long stalls;
static struct {
	int fd;
	size_t asked, moved;
	off_t at;
} stalled;

/* Files of the kernel's pseudo file systems (the MPI libraries and hwloc read /sys and /proc):
 * sysfs gives every file a size of 4096, and a read of it stops where its text does. */
static int pseudo(int fd)
{
	struct statfs fs;
	return fstatfs(fd, &fs) == 0 &&
	       (fs.f_type == SYSFS_MAGIC || fs.f_type == PROC_SUPER_MAGIC ||
	        fs.f_type == CGROUP_SUPER_MAGIC || fs.f_type == CGROUP2_SUPER_MAGIC ||
	        fs.f_type == DEBUGFS_MAGIC);
}

/* One scalar transfer of the rest: at < 0 uses the file's own offset. */
static ssize_t one(int fd, int writing, char *p, size_t n, off_t at)
{
	if (writing)
		return at < 0 ? LIBC(write)(fd, p, n) : LIBC(pwrite)(fd, p, n, at);
	return at < 0 ? LIBC(read)(fd, p, n) : LIBC(pread)(fd, p, n, at);
}

/* Moves the bytes of iov (cnt entries) from byte done on, at offset at (+ done) or the file's
 * own; done is what the first call moved. Returns the bytes moved in all. */
static size_t finish(int fd, int writing, const struct iovec *iov, int cnt, size_t done, off_t at)
{
	size_t asked = 0, skip = done;
	for (int i = 0; i < cnt; i++)
		asked += iov[i].iov_len;
	for (int i = 0; i < cnt && done < asked; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		char *p = (char *)iov[i].iov_base + skip;
		size_t left = iov[i].iov_len - skip;
		skip = 0;
		while (left) {
			ssize_t n = one(fd, writing, p, left, at < 0 ? -1 : at + (off_t)done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				note(fd, errno);
				return done;
			}
			if (n == 0) {
				if (writing) {
					off_t end =
					    at < 0 ? lseek(fd, 0, SEEK_CUR) : at + (off_t)done;
					stalled.fd = fd;
					stalled.asked = asked;
					stalled.moved = done;
					stalled.at = end - (off_t)done;
					stalls++;
				}
				return done; /* a read: the end of the file */
			}
			p += n;
			left -= (size_t)n;
			done += (size_t)n;
		}
	}
	return done;
}

/* sonde_interpose_shield_writes: a failed or short write to a regular file on this thread is
 * noted (as every failure is) and reported done to the library. */
static _Thread_local int shielding;

void sonde_interpose_shield_writes(int on)
{
	shielding = on;
}

static ssize_t shielded(int fd, ssize_t n, const struct iovec *iov, int cnt)
{
	size_t all = 0;
	for (int i = 0; i < cnt; i++)
		all += iov[i].iov_len;
	if (!shielding || (n >= 0 && (size_t)n == all) || !regular(fd))
		return n;
	return (ssize_t)all;
}

/* A finished call: n its result for asked bytes of iov at offset at (-1: the file's own). */
static ssize_t noted(int fd, ssize_t n, int writing, const struct iovec *iov, int cnt, off_t at)
{
	int e = errno;
	size_t asked = 0;
	for (int i = 0; i < cnt; i++)
		asked += iov[i].iov_len;
	if (n < 0) {
		if (regular(fd))
			note(fd, e);
	} else if ((size_t)n < asked && regular(fd) && !pseudo(fd)) {
		n = (ssize_t)finish(fd, writing, iov, cnt, (size_t)n, at);
		if (n == 0 && writing) {
			errno = EIO;
			return -1;
		}
	}
	errno = e;
	return n;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	const struct iovec v = {(void *)(uintptr_t)buf, n};
	return shielded(fd, noted(fd, LIBC(write)(fd, buf, n), 1, &v, 1, -1), &v, 1);
}

ssize_t read(int fd, void *buf, size_t n)
{
	const struct iovec v = {buf, n};
	return noted(fd, LIBC(read)(fd, buf, n), 0, &v, 1, -1);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	return shielded(fd, noted(fd, LIBC(writev)(fd, iov, iovcnt), 1, iov, iovcnt, -1), iov,
	                iovcnt);
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	return noted(fd, LIBC(readv)(fd, iov, iovcnt), 0, iov, iovcnt, -1);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	const struct iovec v = {(void *)(uintptr_t)buf, n};
	return shielded(fd, noted(fd, LIBC(pwrite)(fd, buf, n, off), 1, &v, 1, off), &v, 1);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	const struct iovec v = {buf, n};
	return noted(fd, LIBC(pread)(fd, buf, n, off), 0, &v, 1, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	return shielded(fd, noted(fd, LIBC(pwritev)(fd, iov, iovcnt, off), 1, iov, iovcnt, off),
	                iov, iovcnt);
}

ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	return noted(fd, LIBC(preadv)(fd, iov, iovcnt, off), 0, iov, iovcnt, off);
}

/* aio_error returns the error of a finished asynchronous request (0 when it succeeded). */
int aio_error(const struct aiocb *cb)
{
	int e = errno;
	int rc = LIBC(aio_error)(cb);
	if (rc > 0)
		note(cb->aio_fildes, rc);
	errno = e;
	return rc;
}

unsigned long sonde_interpose_failures(void)
{
	return failures;
}

int sonde_interpose_failed_errno(void)
{
	return failed_errno;
}

int sonde_interpose_failed_fd(void)
{
	return failed_fd;
}

unsigned long sonde_interpose_stalls(void)
{
	return stalls;
}

struct sonde_interpose_stall sonde_interpose_last_stall(void)
{
	return (struct sonde_interpose_stall){
	    .fd = stalled.fd, .asked = stalled.asked, .moved = stalled.moved, .at = stalled.at};
}
