/* SPDX-License-Identifier: BSD-3-Clause */
/* MMAP backend, with the semantics of IOR's: the file is opened as by the POSIX backend (read and
 * write for any writing open, since a writable shared mapping needs both), a writing open sets
 * the file's size to what the run will write (ftruncate, so the file is sparse until written,
 * as IOR's create does), the file is mapped whole (MAP_SHARED) and transfers are memcpy to and
 * from the mapping. sync is msync(MS_SYNC) of the whole mapping (IOR's -e); -Y syncs the range
 * just written and drops its pages (sync_range). --mmap.madv_pattern advises sequential or, with
 * random offsets, random access; --mmap.madv_dont_need advises that the mapping's pages are not
 * needed, right after mapping.
 *
 * A mapped file reports a failed page with SIGBUS instead of an error code: a full file system
 * (tmpfs), a device error, a file shortened under the mapping. The copies run under a SIGBUS
 * handler that turns such a fault inside the mapping into the failure of that transfer, with the
 * file and the offset named (docs/io-backends.md); a read past the end of the file is a short
 * read, as with POSIX. */
#define _FILE_OFFSET_BITS 64

#include "backend.h"
#include "fail.h"
#include "metadata.h"
#include "posix_fd.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* --mmap.*: the backend's own parameters, IOR's two. */
struct mmap_params {
	int madv_dont_need;
	int madv_pattern;
};
SONDE_BACKEND_PARAMS_FIT(struct mmap_params);

/* IOR's advice goes through posix_madvise, and glibc (musl too) does nothing for
 * POSIX_MADV_DONTNEED on Linux, where MADV_DONTNEED would discard data; given right after the
 * mapping, before any page is mapped, it would change nothing anyway. */
static const char *dont_need_is_a_no_op(const void *params)
{
	return "is a no-op on Linux: the C library's posix_madvise ignores POSIX_MADV_DONTNEED "
	       "(in IOR as well)";
}

static const struct sonde_option mmap_options[] = {
    {0, "mmap.madv_dont_need", SONDE_OPT_FLAG, offsetof(struct mmap_params, madv_dont_need), NULL,
     "advise that the mapped file's pages are not needed, once mapped (posix_madvise "
     "POSIX_MADV_DONTNEED, as IOR)",
     .inert = dont_need_is_a_no_op},
    {0, "mmap.madv_pattern", SONDE_OPT_FLAG, offsetof(struct mmap_params, madv_pattern), NULL,
     "advise the access pattern once mapped: random with -z, else sequential"},
};

struct sonde_file {
	int fd;
	int writable;
	char *map;      /* NULL while nothing is mapped (an empty file) */
	size_t map_len; /* bytes mapped from offset 0 */
	char path[];
};

/* ---- faults on the mapping ------------------------------------------------------------------ */

/* The copy in progress on this thread: where a SIGBUS inside [lo, hi) jumps back to. */
struct guard {
	sigjmp_buf env;
	const char *lo, *hi;
	const char *fault; /* the faulting address */
};
static _Thread_local struct guard *volatile active;
static struct sigaction previous;
static volatile sig_atomic_t installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct guard *g = active;
	const char *at = si->si_addr;
	if (g && at >= g->lo && at < g->hi) {
		g->fault = at;
		active = NULL;
		siglongjmp(g->env, 1);
	}
	/* not a fault of a copy of ours: what was there before decides (by default the process
	 * ends with SIGBUS once the instruction runs again) */
	sigaction(SIGBUS, &previous, NULL);
	installed = 0;
	(void)sig;
	(void)uc;
}

static void install_handler(void)
{
	if (installed)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	/* SA_NODEFER: SIGBUS stays unblocked in the handler, so the jump out of it needs no
	 * saved signal mask, and the copies no sigprocmask call each (sigsetjmp(env, 0)) */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &previous) == 0)
		installed = 1;
}

/* memcpy under the guard of [lo, hi); returns NULL, or the faulting address. */
static const char *guarded_copy(void *dst, const void *src, size_t len, const char *lo,
                                const char *hi)
{
	struct guard g = {.lo = lo, .hi = hi};
	if (sigsetjmp(g.env, 0))
		return g.fault;
	active = &g;
	memcpy(dst, src, len);
	active = NULL;
	return NULL;
}

/* Why a page of f could not be had: ENOSPC when its file system has no free block left, else
 * EIO (the kernel gives no reason with SIGBUS). */
static int fault_errno(const struct sonde_file *f)
{
	struct statvfs vfs;
	return fstatvfs(f->fd, &vfs) == 0 && vfs.f_bavail == 0 ? ENOSPC : EIO;
}

/* ---- the mapping ---------------------------------------------------------------------------- */

static int fail_errno(const struct sonde_file *f, const char *op, int err)
{
	sonde_io_set_error("%s %s: %s", op, f->path, sonde_strerror(err));
	return -err;
}

/* Maps (or maps again) the first len bytes of the file. */
static int map_to(struct sonde_file *f, size_t len)
{
	if (len == f->map_len)
		return 0;
	void *p;
	if (!f->map)
		p = mmap(NULL, len, PROT_READ | (f->writable ? PROT_WRITE : 0), MAP_SHARED, f->fd,
		         0);
	else
		p = mremap(f->map, f->map_len, len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return fail_errno(f, "mmap", errno);
	f->map = p;
	f->map_len = len;
	return 0;
}

static int64_t file_size(const struct sonde_file *f)
{
	struct stat st;
	return fstat(f->fd, &st) == 0 ? (int64_t)st.st_size : -errno;
}

/* Makes [0, end) mapped: a writing file grows to end first (never shrinks); a read maps what
 * the file has. */
static int reach(struct sonde_file *f, int64_t end)
{
	if ((uint64_t)end <= f->map_len)
		return 0;
	int64_t size = file_size(f);
	if (size < 0)
		return fail_errno(f, "stat", (int)-size);
	if (f->writable && size < end && ftruncate(f->fd, (off_t)end) != 0)
		return fail_errno(f, "truncate", errno);
	if (f->writable && size < end)
		size = end;
	return size > 0 ? map_to(f, (size_t)size) : 0;
}

static int advise(struct sonde_file *f, const struct mmap_params *mp, int random)
{
	if (!f->map)
		return 0;
	int rc = 0;
	if (mp->madv_pattern)
		rc = posix_madvise(f->map, f->map_len,
		                   random ? POSIX_MADV_RANDOM : POSIX_MADV_SEQUENTIAL);
	if (rc == 0 && mp->madv_dont_need)
		rc = posix_madvise(f->map, f->map_len, POSIX_MADV_DONTNEED);
	return rc ? fail_errno(f, "madvise", rc) : 0;
}

static int mmap_close(struct sonde_file *f);

static int mmap_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                     struct sonde_file **out)
{
	*out = NULL;
	if (opt && opt->collective) {
		sonde_io_set_error("open %s: the MMAP backend has no collective I/O", path);
		return -EINVAL;
	}
	if (opt && opt->nhints > 0) {
		sonde_io_set_error("open %s: the MMAP backend takes no hints (got '%s')", path,
		                   opt->hints[0]);
		return -EINVAL;
	}
	if (flags & SONDE_IO_DIRECT) {
		sonde_io_set_error("open %s: the MMAP backend has no direct I/O", path);
		return -EINVAL;
	}
	int rc = sonde_io_check_flags(path, flags);
	if (rc < 0)
		return rc;
	int writable = !(flags & SONDE_IO_RDONLY);
	/* a shared writable mapping needs a descriptor open for reading too */
	if (flags & SONDE_IO_WRONLY)
		flags = (flags & ~(unsigned)SONDE_IO_WRONLY) | SONDE_IO_RDWR;
	int fd;
	rc = sonde_posix_open_fd(path, flags, &fd);
	if (rc < 0)
		return rc;
	size_t plen = strlen(path) + 1;
	struct sonde_file *f = calloc(1, sizeof *f + plen);
	if (!f) {
		close(fd);
		sonde_io_set_error("open %s: out of memory", path);
		return -ENOMEM;
	}
	f->fd = fd;
	f->writable = writable;
	memcpy(f->path, path, plen);
	install_handler();
	static const struct mmap_params defaults;
	const struct mmap_params *mp = opt && opt->params ? opt->params : &defaults;
	/* the whole file the run will write (or read), mapped once, as IOR maps it */
	int64_t want = opt && opt->file_size > 0 ? opt->file_size : 0;
	if (want == 0) {
		want = file_size(f);
		rc = want < 0 ? fail_errno(f, "stat", (int)-want) : 0;
	}
	if (rc == 0)
		rc = reach(f, want);
	if (rc == 0)
		rc = advise(f, mp, opt && opt->random_offsets);
	if (rc < 0) {
		char why[1024];
		snprintf(why, sizeof why, "%s", sonde_io_last_error());
		mmap_close(f);
		sonde_io_set_error("%s", why);
		return rc;
	}
	*out = f;
	return 0;
}

static int check_range(const struct sonde_file *f, const char *op, size_t len, int64_t offset)
{
	if (offset < 0 || (uint64_t)offset + len > (uint64_t)INT64_MAX) {
		sonde_io_set_error("%s %s: bad range: offset %lld, length %zu", op, f->path,
		                   (long long)offset, len);
		return -EINVAL;
	}
	return 0;
}

static ssize_t fault_error(const struct sonde_file *f, const char *op, int64_t offset, size_t done,
                           size_t len)
{
	int err = fault_errno(f);
	sonde_io_set_error("%s %s at offset %lld: %s (the mapped page failed with SIGBUS after %zu "
	                   "of %zu bytes)",
	                   op, f->path, (long long)(offset + (int64_t)done), sonde_strerror(err),
	                   done, len);
	return -err;
}

static ssize_t mmap_write_at(struct sonde_file *f, const void *buf, size_t len, int64_t offset)
{
	int rc = check_range(f, "write", len, offset);
	if (rc == 0 && !f->writable) {
		sonde_io_set_error("write %s at offset %lld: %s", f->path, (long long)offset,
		                   sonde_strerror(EBADF));
		rc = -EBADF;
	}
	if (rc == 0)
		rc = reach(f, offset + (int64_t)len);
	if (rc < 0)
		return rc;
	if (len == 0)
		return 0;
	char *at = f->map + offset;
	const char *fault = guarded_copy(at, buf, len, f->map, f->map + f->map_len);
	if (fault)
		return fault_error(f, "write", offset, (size_t)(fault - at), len);
	return (ssize_t)len;
}

/* Up to the end of the file: a short count past it, as the POSIX backend's. */
static ssize_t mmap_read_at(struct sonde_file *f, void *buf, size_t len, int64_t offset)
{
	int rc = check_range(f, "read", len, offset);
	if (rc == 0)
		rc = reach(f, offset + (int64_t)len);
	if (rc < 0)
		return rc;
	if ((uint64_t)offset >= f->map_len || len == 0)
		return 0;
	size_t n = len;
	if ((uint64_t)offset + n > f->map_len)
		n = f->map_len - (size_t)offset;
	const char *at = f->map + offset;
	const char *fault = guarded_copy(buf, at, n, f->map, f->map + f->map_len);
	if (!fault)
		return (ssize_t)n;
	/* a file shortened under the mapping ends where it now ends */
	int64_t size = file_size(f);
	int64_t reached = offset + (int64_t)(fault - at);
	if (size >= 0 && size <= reached)
		return (ssize_t)(reached - offset);
	return fault_error(f, "read", offset, (size_t)(fault - at), len);
}

static int mmap_sync(struct sonde_file *f)
{
	if (f->map && msync(f->map, f->map_len, MS_SYNC) != 0)
		return fail_errno(f, "sync", errno);
	return 0;
}

/* IOR's MMAP -Y: the written range synced, then its pages given up. The range starts on a page
 * (check() makes -Y's transfers whole pages). */
static int mmap_sync_range(struct sonde_file *f, int64_t offset, size_t len)
{
	if (!f->map || len == 0)
		return 0;
	if (msync(f->map + offset, len, MS_SYNC) != 0)
		return fail_errno(f, "sync", errno);
	int rc = posix_madvise(f->map + offset, len, POSIX_MADV_DONTNEED);
	return rc ? fail_errno(f, "madvise", rc) : 0;
}

static int mmap_close(struct sonde_file *f)
{
	int rc = 0;
	if (f->map && munmap(f->map, f->map_len) != 0)
		rc = fail_errno(f, "munmap", errno);
	if (close(f->fd) != 0 && rc == 0)
		rc = fail_errno(f, "close", errno);
	free(f);
	return rc;
}

static int64_t mmap_size(struct sonde_file *f)
{
	int64_t size = file_size(f);
	return size < 0 ? fail_errno(f, "stat", (int)-size) : size;
}

static int mmap_check(const void *params, const struct sonde_io_options *opt, char *err,
                      size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	if (opt->sync_per_write && page > 0 && opt->transfer_size % page != 0) {
		snprintf(err, errlen,
		         "-a MMAP with -Y (fsyncPerWrite) needs a transfer size that is a multiple "
		         "of the page size (%ld bytes)",
		         page);
		return -1;
	}
	return 0;
}

const struct sonde_backend sonde_backend_mmap = {
    .name = "MMAP",
    .summary = "the file mapped whole (mmap MAP_SHARED), transfers copied to and from it",
    .caps = 0,
    .options = mmap_options,
    .noptions = (int)(sizeof mmap_options / sizeof mmap_options[0]),
    .params_size = sizeof(struct mmap_params),
    .check = mmap_check,
    .open = mmap_open,
    .write_at = mmap_write_at,
    .read_at = mmap_read_at,
    .sync = mmap_sync,
    .sync_range = mmap_sync_range,
    .close = mmap_close,
    .size = mmap_size,
    .remove = sonde_posix_remove,
    SONDE_PATH_OPERATIONS,
};
