/* SPDX-License-Identifier: BSD-3-Clause */
/* The MMAP backend (src/io/mmap.c): the file sized and mapped at a writing open as the plan says,
 * data that reads back through an independent path, a mapping that grows, the end of the file,
 * and a file shortened under the mapping: a short read, and a write whose SIGBUS becomes an
 * error naming the file and the offset instead of ending the process. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "io_check.h"

static const struct sonde_backend *be = &sonde_backend_mmap;

static void test_round_trip(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "round-trip");
	const size_t n = 3 * 4096 + 100;
	unsigned char *a = malloc(n), *b = malloc(n);
	struct sonde_io_options plan = {.file_size = 2 * (int64_t)n};
	struct sonde_file *f = NULL;
	/* a write-only open maps the file read-write; the file has the plan's size at once */
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE, &plan, &f), 0);
	if (!f)
		return;
	CHECK_INT(file_size(path), 2 * (int64_t)n);
	fill(a, n, 0, 3);
	CHECK_INT(be->write_at(f, a, n, 0), n);
	fill(a, n, (int64_t)n, 3);
	CHECK_INT(be->write_at(f, a, n, (int64_t)n), n);
	/* past the plan: the file and the mapping grow */
	CHECK_INT(be->write_at(f, a, 10, 5 * (int64_t)n), 10);
	CHECK_INT(be->size(f), 5 * (int64_t)n + 10);
	CHECK_INT(be->sync(f), 0);
	CHECK_INT(be->sync_range(f, 4096, 4096), 0);
	CHECK_INT(be->close(f), 0);

	FILE *raw = fopen(path, "rb");
	CHECK(raw && fread(b, 1, n, raw) == n);
	fill(a, n, 0, 3);
	CHECK(memcmp(a, b, n) == 0);
	if (raw)
		fclose(raw);

	/* a read-only open maps what the file holds, whatever the plan says */
	struct sonde_io_options big = {.file_size = 100 * (int64_t)n};
	CHECK_INT(be->open(path, SONDE_IO_RDONLY, &big, &f), 0);
	if (!f)
		return;
	CHECK_INT(be->read_at(f, b, n, (int64_t)n), n);
	fill(a, n, (int64_t)n, 3);
	CHECK(memcmp(a, b, n) == 0);
	CHECK_INT(be->read_at(f, b, 100, 5 * (int64_t)n - 50), 60); /* the end of the file */
	CHECK_INT(be->read_at(f, b, 100, 10 * (int64_t)n), 0);
	CHECK_INT(be->write_at(f, a, 10, 20), -EBADF);
	CHECK_MSG("at offset 20");
	CHECK_INT(be->close(f), 0);
	free(a);
	free(b);
}

/* Another process shortens the file under the mapping: touching a page past the new end is
 * SIGBUS, which the backend turns into a short read, or a failed write naming the file. */
static void test_shortened_under_the_mapping(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "shortened");
	const size_t n = 8 * 4096;
	unsigned char *a = calloc(1, n);
	struct sonde_io_options plan = {.file_size = (int64_t)n};
	struct sonde_file *f = NULL;
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE, &plan, &f), 0);
	if (!f)
		return;
	CHECK_INT(be->write_at(f, a, n, 0), n);
	CHECK_INT(truncate(path, 4096), 0);
	CHECK_INT(be->read_at(f, a, 4096, 3 * 4096), 0);
	CHECK_INT(be->read_at(f, a, 8192, 0), 4096);
	ssize_t rc = be->write_at(f, a, 4096, 5 * 4096);
	CHECK_INT(rc, -EIO);
	CHECK_MSG(path);
	CHECK_MSG("at offset 20480");
	CHECK_MSG("SIGBUS");
	CHECK_INT(be->close(f), 0);
	free(a);
}

static void test_refusals(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "refused");
	struct sonde_file *f = NULL;
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE | SONDE_IO_DIRECT, NULL, &f),
	          -EINVAL);
	CHECK_MSG("no direct I/O");
	struct sonde_io_options coll = {.collective = 1};
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE, &coll, &f), -EINVAL);
	CHECK_MSG("no collective I/O");
	/* -Y syncs whole pages */
	char err[256] = "";
	struct sonde_io_options y = {.transfer_size = 2048, .sync_per_write = 1};
	CHECK_INT(be->check(NULL, &y, err, sizeof err), -1);
	CHECK(strstr(err, "page size") != NULL);
	y.transfer_size = 8192;
	CHECK_INT(be->check(NULL, &y, err, sizeof err), 0);
	/* a link planted at the path is not followed, as with POSIX */
	char link[PATH_MAX];
	join(link, dir, "link");
	CHECK_INT(symlink(path, link), 0);
	CHECK_INT(be->open(link, SONDE_IO_RDWR | SONDE_IO_CREATE, NULL, &f), -ELOOP);
	CHECK(f == NULL);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	char dir[PATH_MAX];
	check_temp_dir("io-mmap", dir);
	test_round_trip(dir);
	test_shortened_under_the_mapping(dir);
	test_refusals(dir);
	MPI_Finalize();
	return check_finish("io_mmap");
}
