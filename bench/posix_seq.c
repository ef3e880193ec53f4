/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's sonde side of the sequential POSIX case: writes or reads one file through the
 * POSIX backend in transfers of one size, the way fio's psync engine does (a write phase ends
 * with fsync, as fio's end_fsync=1), and prints {"bytes":N,"seconds":S} for the harness. The
 * seconds span what fio's runtime spans: from the first transfer to the end of the last one (and
 * of the fsync), the open and the close outside, as fio opens its file before its clock starts.
 *
 * usage: posix_seq write|read PATH FILE_SIZE TRANSFER_SIZE
 * Sizes take sonde's suffixes (16m, 1g). A write creates the file fresh (it must not exist).
 * Before a read, the file's pages are dropped from the page cache, as fio does by default
 * (invalidate=1), so that both read from the file system rather than from memory (tmpfs keeps
 * them: there, both read memory). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "units.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what)
{
	fprintf(stderr, "posix_seq: %s: %s\n", what, sonde_io_last_error());
	return 1;
}

static void drop_cached_pages(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

static int64_t size_arg(const char *text, const char *what)
{
	int64_t v = 0;
	char err[256];
	if (sonde_parse_size(text, SONDE_SIZE_BINARY, &v, err, sizeof err) < 0) {
		fprintf(stderr, "posix_seq: bad %s: %s\n", what, err);
		exit(2);
	}
	if (v <= 0) {
		fprintf(stderr, "posix_seq: the %s must be positive, not '%s'\n", what, text);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 5 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
		fprintf(stderr, "usage: posix_seq write|read PATH FILE_SIZE TRANSFER_SIZE\n");
		return 2;
	}
	int writing = strcmp(argv[1], "write") == 0;
	const char *path = argv[2];
	int64_t size = size_arg(argv[3], "file size");
	int64_t xfer = size_arg(argv[4], "transfer size");
	if (size % xfer) {
		fprintf(stderr, "posix_seq: file size must be a multiple of the transfer size\n");
		return 2;
	}
	const struct sonde_backend *b = &sonde_backend_posix;
	/* Page-aligned, as fio allocates its buffers. */
	char *buf = aligned_alloc(4096, (size_t)xfer);
	if (!buf) {
		fprintf(stderr, "posix_seq: out of memory\n");
		return 1;
	}
	/* Touch every page before timing, as fio fills its buffers before it starts. */
	memset(buf, 0x5a, (size_t)xfer);

	unsigned flags =
	    writing ? SONDE_IO_WRONLY | SONDE_IO_CREATE | SONDE_IO_EXCL : SONDE_IO_RDONLY;
	if (!writing)
		drop_cached_pages(path);
	struct sonde_file *f;
	if (b->open(path, flags, NULL, &f) < 0)
		return fail("open");
	double t0 = now();
	for (int64_t off = 0; off < size; off += xfer) {
		ssize_t n = writing ? b->write_at(f, buf, (size_t)xfer, off)
		                    : b->read_at(f, buf, (size_t)xfer, off);
		if (n != xfer)
			return fail(writing ? "write" : "read");
	}
	if (writing && b->sync(f) < 0)
		return fail("fsync");
	double seconds = now() - t0;
	if (b->close(f) < 0)
		return fail("close");
	printf("{\"bytes\":%lld,\"seconds\":%.9f}\n", (long long)size, seconds);
	free(buf);
	return 0;
}
