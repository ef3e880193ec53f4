// ranks: 3
/* SPDX-License-Identifier: BSD-3-Clause */
/* Input files read by rank 0 and shared: the same text and length on every rank (the other
 * ranks are given a path that does not exist, so a rank that opened the file itself would
 * fail), the same error on every rank for a missing file, a FIFO and a file too large, an empty
 * file, the stream form, rank 0's text broadcast, and all of it without MPI. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "input.h"
#include "io_check.h"

static int rank;

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* Only rank 0's path is real. */
static const char *only_on_zero(const char *path)
{
	return rank == 0 ? path : "/nonexistent/sonde-test-input";
}

static void test_read(const char *dir)
{
	char path[PATH_MAX], why[256];
	join(path, dir, "script");
	if (rank == 0)
		write_file(path, "IOR START\nRUN\nIOR STOP\n");
	MPI_Barrier(MPI_COMM_WORLD);
	size_t len = 99;
	int err = -1;
	char *text =
	    sonde_input_read(MPI_COMM_WORLD, only_on_zero(path), &len, &err, why, sizeof why);
	CHECK(text != NULL);
	CHECK_STR(text, "IOR START\nRUN\nIOR STOP\n");
	CHECK_INT(len, 23);
	CHECK_INT(err, 0);
	free(text);

	/* the stream form: lines as a parser reads them */
	FILE *f = sonde_input_open(MPI_COMM_WORLD, only_on_zero(path), &err, why, sizeof why);
	CHECK(f != NULL);
	char line[64];
	int lines = 0;
	while (f && fgets(line, sizeof line, f))
		lines++;
	CHECK_INT(lines, 3);
	if (f)
		fclose(f);

	/* an empty file is an empty text, not a failure */
	char empty[PATH_MAX];
	join(empty, dir, "empty");
	if (rank == 0)
		write_file(empty, "");
	MPI_Barrier(MPI_COMM_WORLD);
	text = sonde_input_read(MPI_COMM_WORLD, only_on_zero(empty), &len, &err, why, sizeof why);
	CHECK(text != NULL && text[0] == '\0');
	CHECK_INT(len, 0);
	free(text);
	f = sonde_input_open(MPI_COMM_WORLD, only_on_zero(empty), &err, why, sizeof why);
	CHECK(f != NULL && fgets(line, sizeof line, f) == NULL);
	if (f)
		fclose(f);
	if (rank == 0) {
		unlink(path);
		unlink(empty);
	}
}

static void test_failures(const char *dir)
{
	char missing[PATH_MAX], fifo[PATH_MAX], big[PATH_MAX], why[256];
	join(missing, dir, "missing");
	join(fifo, dir, "fifo");
	join(big, dir, "big");
	size_t len;
	int err = 0;

	/* a missing file: every rank hears rank 0's reason */
	CHECK(sonde_input_read(MPI_COMM_WORLD, missing, &len, &err, why, sizeof why) == NULL);
	CHECK_INT(err, ENOENT);
	CHECK_STR(why, strerror(ENOENT));
	CHECK(sonde_input_open(MPI_COMM_WORLD, missing, &err, why, sizeof why) == NULL);
	CHECK_INT(err, ENOENT);

	/* a FIFO would block a reader forever: refused at once */
	if (rank == 0)
		CHECK_INT(mkfifo(fifo, 0600), 0);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK(sonde_input_read(MPI_COMM_WORLD, only_on_zero(fifo), &len, &err, why, sizeof why) ==
	      NULL);
	CHECK_INT(err, EINVAL);
	CHECK(strstr(why, "not a regular file") != NULL);

	/* more than an input file holds */
	if (rank == 0) {
		int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CHECK(fd >= 0 && ftruncate(fd, (off_t)SONDE_INPUT_MAX + 1) == 0);
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK(sonde_input_read(MPI_COMM_WORLD, only_on_zero(big), &len, &err, why, sizeof why) ==
	      NULL);
	CHECK_INT(err, EFBIG);
	CHECK(strstr(why, "16 MiB") != NULL);
	if (rank == 0) {
		unlink(fifo);
		unlink(big);
	}
}

static void test_bcast(void)
{
	/* rank 0's bytes, NULs included, whatever the others pass */
	const char mine[] = {'a', '\0', 'b', 'c'};
	size_t len = 0;
	char *got =
	    sonde_bcast_text(MPI_COMM_WORLD, rank == 0 ? mine : "other", rank == 0 ? 4 : 5, &len);
	CHECK_INT(len, 4);
	CHECK(memcmp(got, mine, 4) == 0 && got[4] == '\0');
	free(got);
	got = sonde_bcast_text(MPI_COMM_WORLD, NULL, 0, &len);
	CHECK_INT(len, 0);
	CHECK(got && got[0] == '\0');
	free(got);
}

/* Without MPI (mib -M, the fuzzers): this process reads and keeps the text. */
static void test_alone(const char *dir)
{
	char name[PATH_MAX], why[256], leaf[32];
	snprintf(leaf, sizeof leaf, "alone.%d", rank);
	join(name, dir, leaf);
	write_file(name, "42\n");
	size_t len;
	int err;
	char *text = sonde_input_read(MPI_COMM_NULL, name, &len, &err, why, sizeof why);
	CHECK(text != NULL);
	CHECK_STR(text, "42\n");
	free(text);
	CHECK(sonde_input_read(MPI_COMM_NULL, "/nonexistent/x", &len, &err, why, sizeof why) ==
	      NULL);
	CHECK_INT(err, ENOENT);
	char *copy = sonde_bcast_text(MPI_COMM_NULL, "xyz", 3, &len);
	CHECK_STR(copy, "xyz");
	free(copy);
	unlink(name);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char dir[PATH_MAX];
	if (rank == 0)
		check_temp_dir("input", dir);
	MPI_Bcast(dir, PATH_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
	test_read(dir);
	test_failures(dir);
	test_bcast();
	test_alone(dir);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		CHECK_INT(rmdir(dir), 0);
	int failed = check_finish("test_input"), any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
