/* SPDX-License-Identifier: BSD-3-Clause */
/* The completion module: failures of the system calls under an MPI call are seen (only on
 * regular files, never EINTR); a call that returned success but whose I/O failed is an error
 * naming the system's words; counts come from the status; and a nonblocking write that fails
 * on a full file system ends with ENOSPC, neither crashing (Open MPI's MPI_Wait) nor spinning
 * (MPICH's ROMIO), within a bound. */
// ranks: 1
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "clock.h"
#include "completion.h"
#include "io_check.h"

static void test_observer(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "ro");
	int fd = open(path, O_RDONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "write %s", path);
	CHECK_INT(sonde_mpio_syscall_errno(&op), 0);
	CHECK(pwrite(fd, "x", 1, 0) < 0);
	CHECK_INT(errno, EBADF); /* passed through untouched */
	CHECK_INT(sonde_mpio_syscall_errno(&op), EBADF);
	CHECK_INT(sonde_mpio_end(&op, MPI_SUCCESS, NULL, MPI_BYTE, NULL), -EBADF);
	CHECK_MSG("write ");
	CHECK_MSG("Bad file descriptor (in the MPI library's own I/O");
	close(fd);

	/* A pipe is not a file: its failures are the transports' business. */
	int p[2];
	CHECK_INT(pipe(p), 0);
	sonde_mpio_begin(&op, "pipe");
	CHECK(pwrite(p[1], "x", 1, 0) < 0 && errno == ESPIPE);
	CHECK(read(p[1], path, 1) < 0);
	CHECK_INT(sonde_mpio_syscall_errno(&op), 0);
	close(p[0]);
	close(p[1]);

	/* aio_error's result is the failure of a finished request. */
	join(path, dir, "aio");
	fd = open(path, O_RDONLY | O_CREAT, 0600);
	struct aiocb cb = {.aio_fildes = fd, .aio_buf = path, .aio_nbytes = 1};
	sonde_mpio_begin(&op, "aio");
	CHECK_INT(aio_write(&cb), 0);
	int rc;
	while ((rc = aio_error(&cb)) == EINPROGRESS)
		;
	CHECK_INT(rc, EBADF);
	aio_return(&cb);
	CHECK_INT(sonde_mpio_syscall_errno(&op), EBADF);
	close(fd);
}

static void test_counts(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "counts");
	MPI_File fh;
	CHECK_INT(
	    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
	    MPI_SUCCESS);
	double v[16] = {0};
	MPI_Status st;
	MPI_Count moved = -1;
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "write %s at offset 0", path);
	int rc = MPI_File_write_at(fh, 0, v, 16, MPI_DOUBLE, &st);
	CHECK_INT(sonde_mpio_end(&op, rc, &st, MPI_DOUBLE, &moved), 0);
	CHECK_INT(moved, 16);
	/* A read across the end of the file: a short count, not an error. */
	sonde_mpio_begin(&op, "read %s at offset 64", path);
	rc = MPI_File_read_at(fh, 64, v, 16, MPI_DOUBLE, &st);
	CHECK_INT(sonde_mpio_end(&op, rc, &st, MPI_DOUBLE, &moved), 0);
	CHECK_INT(moved, 8);
	/* A nonblocking one, completed by sonde_mpio_wait. */
	MPI_Request req;
	sonde_mpio_begin(&op, "read %s at offset 0", path);
	rc = MPI_File_iread_at(fh, 0, v, 4, MPI_DOUBLE, &req);
	CHECK_INT(rc, MPI_SUCCESS);
	rc = sonde_mpio_wait(&op, &req, &st);
	CHECK(req == MPI_REQUEST_NULL);
	CHECK_INT(sonde_mpio_end(&op, rc, &st, MPI_DOUBLE, &moved), 0);
	CHECK_INT(moved, 4);
	MPI_File_close(&fh);

	/* An MPI error code: the system's words first, then the library's. */
	int err = sonde_mpio_fail(MPI_ERR_NO_SPACE, "write %s", path);
	CHECK_INT(err, -ENOSPC);
	CHECK_MSG("No space left on device (");
}

/* Nonblocking writes into a 64 KiB tmpfs until one fails. */
static void test_full(const char *dir)
{
	char mnt[PATH_MAX], path[PATH_MAX];
	join(mnt, dir, "tiny");
	join(path, mnt, "f");
	CHECK_INT(mkdir(mnt, 0700), 0);
	if (mount("sonde-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0) {
		check_skip("the full file system test: cannot mount a tmpfs: %s", strerror(errno));
		rmdir(mnt);
		return;
	}
	MPI_File fh;
	CHECK_INT(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
	                        MPI_INFO_NULL, &fh),
	          MPI_SUCCESS);
	static double buf[4096];
	int err = 0;
	double t0 = sonde_now();
	for (int k = 0; k < 8 && !err; k++) {
		struct sonde_mpio_op op;
		MPI_Request req;
		MPI_Status st;
		MPI_Count moved = 0;
		sonde_mpio_begin(&op, "write %s at offset %d", path, k * (int)sizeof buf);
		int rc =
		    MPI_File_iwrite_at(fh, k * (MPI_Offset)sizeof buf, buf, 4096, MPI_DOUBLE, &req);
		if (rc == MPI_SUCCESS)
			rc = sonde_mpio_wait(&op, &req, &st);
		err = sonde_mpio_end(&op, rc, rc == MPI_SUCCESS ? &st : NULL, MPI_DOUBLE, &moved);
		if (!err && moved < 4096)
			err = -EIO;
	}
	CHECK_INT(err, -ENOSPC);
	CHECK_MSG("No space left on device");
	CHECK(sonde_now() - t0 < 10);
	MPI_File_close(&fh);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	const char *base = getenv("TEST_TMPDIR");
	if (!base || access(base, W_OK) != 0)
		base = "/tmp";
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/sonde-completion-XXXXXX", base);
	CHECK(mkdtemp(dir) != NULL);
	test_observer(dir);
	test_counts(dir);
	test_full(dir);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	int code = check_finish("io_completion");
	MPI_Finalize();
	return code;
}
