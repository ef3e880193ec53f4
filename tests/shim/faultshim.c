/* SPDX-License-Identifier: BSD-3-Clause */
/* A fault shim for the integration tests, loaded with LD_PRELOAD into the ranks (and the
 * launcher, which it leaves alone: it acts only on regular files below one directory).
 *
 *   SONDE_FAULT_DIR=/d        the files it acts on: those whose path starts with /d/
 *   SONDE_FAULT_SHORT=write   write, pwrite(64), writev, pwritev move half their bytes (at
 *                             least 1)
 *   SONDE_FAULT_SHORT=read    the same for read, pread(64), readv, preadv ("write,read": both)
 *   SONDE_FAULT_SHORT=stall   writes move nothing and give no error (return 0): a device that
 *                             stops taking data without a word
 *   SONDE_FAULT_EIO=write     writes fail with EIO instead
 *   SONDE_FAULT_FULL=N        write(2) on those files stops at N bytes of file size, as a full
 *                             file system: a write that would pass it moves what fits, one
 *                             at the limit fails with ENOSPC (appends: sonde's results files)
 *   SONDE_FAULT_DELAY_US=N    every read and write of those files waits N microseconds first
 *                             (a slow device: phases long enough to overlap at tiny sizes)
 *   SONDE_FAULT_LOG=/f        fsync and fdatasync of those files append "fsync <pid> <path>"
 *                             or "fdatasync <pid> <path>" to /f: the syncs that reach the file
 *                             system, and which process made them
 *
 * Short transfers are what the system may do at any time (POSIX allows a write to a regular
 * file to move fewer bytes than asked, a signal or a quota can make it so); the shim makes them
 * happen on every call, so the code above has to retry or fail. sonde's own wrappers of these
 * calls (src/io/completion.c) look up the next definition, which is this one. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define NEXT(name)                                                                                 \
	static __typeof__(name) *next_##name;                                                      \
	if (!next_##name)                                                                          \
		*(void **)&next_##name = dlsym(RTLD_NEXT, #name);

enum { SHORT_WRITE = 1, SHORT_READ = 2, EIO_WRITE = 4, STALL_WRITE = 8, FULL_WRITE = 16 };

static int setting(const char *name, const char *word)
{
	const char *v = getenv(name);
	return v && strstr(v, word) != NULL;
}

/* Whether fd is a regular file below SONDE_FAULT_DIR; its path in path (PATH_MAX bytes). */
static int below_dir(int fd, char *path)
{
	const char *dir = getenv("SONDE_FAULT_DIR");
	struct stat st;
	if (!dir || !*dir || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, PATH_MAX - 1);
	size_t len = strlen(dir);
	if (n < 0 || (size_t)n <= len)
		return 0;
	path[n] = '\0';
	return strncmp(path, dir, len) == 0 && path[len] == '/';
}

/* The faults asked for that apply to fd. */
static int faults(int fd)
{
	char path[PATH_MAX];
	if (!below_dir(fd, path))
		return 0;
	const char *delay = getenv("SONDE_FAULT_DELAY_US");
	if (delay && *delay) {
		long us = atol(delay);
		struct timespec wait = {us / 1000000, us % 1000000 * 1000};
		while (nanosleep(&wait, &wait) != 0 && errno == EINTR)
			;
	}
	return (setting("SONDE_FAULT_SHORT", "write") ? SHORT_WRITE : 0) |
	       (setting("SONDE_FAULT_SHORT", "read") ? SHORT_READ : 0) |
	       (setting("SONDE_FAULT_SHORT", "stall") ? STALL_WRITE : 0) |
	       (setting("SONDE_FAULT_EIO", "write") ? EIO_WRITE : 0) |
	       (getenv("SONDE_FAULT_FULL") && *getenv("SONDE_FAULT_FULL") ? FULL_WRITE : 0);
}

static size_t half(size_t n)
{
	return n > 1 ? n / 2 : n;
}

/* The first half of an iovec list's bytes, in iov_out (at most IOV_MAX entries). */
static int half_iov(const struct iovec *iov, int cnt, struct iovec *out)
{
	size_t total = 0;
	for (int i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	size_t left = half(total);
	int k = 0;
	for (int i = 0; i < cnt && left; i++) {
		out[k] = iov[i];
		if (out[k].iov_len > left)
			out[k].iov_len = left;
		left -= out[k].iov_len;
		k++;
	}
	return k;
}

/* What a write of n bytes moves under faults f. */
static size_t write_size(int f, size_t n)
{
	return f & STALL_WRITE ? 0 : f & SHORT_WRITE ? half(n) : n;
}

static ssize_t eio(void)
{
	errno = EIO;
	return -1;
}

/* SONDE_FAULT_FULL: what fits of n bytes appended to fd, or -1 (ENOSPC) when nothing does. */
static ssize_t room(int fd, size_t n)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return (ssize_t)n;
	long long left = atoll(getenv("SONDE_FAULT_FULL")) - (long long)st.st_size;
	if (left <= 0) {
		errno = ENOSPC;
		return -1;
	}
	return (ssize_t)((long long)n < left ? (long long)n : left);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	NEXT(write);
	int f = faults(fd);
	if (f & EIO_WRITE)
		return eio();
	ssize_t fits = f & FULL_WRITE ? room(fd, write_size(f, n)) : (ssize_t)write_size(f, n);
	return fits < 0 ? -1 : next_write(fd, buf, (size_t)fits);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	NEXT(pwrite);
	int f = faults(fd);
	if (f & EIO_WRITE)
		return eio();
	return next_pwrite(fd, buf, write_size(f, n), off);
}

ssize_t read(int fd, void *buf, size_t n)
{
	NEXT(read);
	return next_read(fd, buf, faults(fd) & SHORT_READ ? half(n) : n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	NEXT(pread);
	return next_pread(fd, buf, faults(fd) & SHORT_READ ? half(n) : n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	NEXT(writev);
	int f = faults(fd);
	if (f & EIO_WRITE)
		return eio();
	if (f & STALL_WRITE)
		return 0;
	if (!(f & SHORT_WRITE) || cnt <= 0 || cnt > IOV_MAX)
		return next_writev(fd, iov, cnt);
	struct iovec part[IOV_MAX];
	return next_writev(fd, part, half_iov(iov, cnt, part));
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	NEXT(pwritev);
	int f = faults(fd);
	if (f & EIO_WRITE)
		return eio();
	if (f & STALL_WRITE)
		return 0;
	if (!(f & SHORT_WRITE) || cnt <= 0 || cnt > IOV_MAX)
		return next_pwritev(fd, iov, cnt, off);
	struct iovec part[IOV_MAX];
	return next_pwritev(fd, part, half_iov(iov, cnt, part), off);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	NEXT(readv);
	if (!(faults(fd) & SHORT_READ) || cnt <= 0 || cnt > IOV_MAX)
		return next_readv(fd, iov, cnt);
	struct iovec part[IOV_MAX];
	return next_readv(fd, part, half_iov(iov, cnt, part));
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	NEXT(preadv);
	if (!(faults(fd) & SHORT_READ) || cnt <= 0 || cnt > IOV_MAX)
		return next_preadv(fd, iov, cnt, off);
	struct iovec part[IOV_MAX];
	return next_preadv(fd, part, half_iov(iov, cnt, part), off);
}

/* The 64-bit offset names, which code built with _FILE_OFFSET_BITS=64 calls (sonde's POSIX
 * backend among it). */
ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	NEXT(pwrite64);
	int f = faults(fd);
	if (f & EIO_WRITE)
		return eio();
	return next_pwrite64(fd, buf, write_size(f, n), off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	NEXT(pread64);
	return next_pread64(fd, buf, faults(fd) & SHORT_READ ? half(n) : n, off);
}

/* One line per sync of a file below SONDE_FAULT_DIR, appended whole (O_APPEND) so that
 * ranks on one log do not mix their lines. */
static void log_sync(int fd, const char *what)
{
	const char *log = getenv("SONDE_FAULT_LOG");
	char path[PATH_MAX], line[PATH_MAX + 32];
	if (!log || !below_dir(fd, path))
		return;
	int e = errno;
	int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lfd >= 0) {
		int k = snprintf(line, sizeof line, "%s %ld %s\n", what, (long)getpid(), path);
		NEXT(write);
		if (next_write(lfd, line, (size_t)k) != k)
			abort();
		close(lfd);
	}
	errno = e;
}

int fsync(int fd)
{
	NEXT(fsync);
	log_sync(fd, "fsync");
	return next_fsync(fd);
}

int fdatasync(int fd)
{
	NEXT(fdatasync);
	log_sync(fd, "fdatasync");
	return next_fdatasync(fd);
}
