/* SPDX-License-Identifier: BSD-3-Clause */
/* The libc interposer (src/interpose): its C library entry points are looked up before main, so
 * that the stop handler's write never reaches dlsym; a failure on a regular file is counted with
 * its errno and descriptor, and the caller sees it untouched; one on a pipe is not counted.
 * Finishing short transfers is tested through the fault shim (test_short_io.py). */
// ranks: 1
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "interpose.h"

int main(int argc, char **argv)
{
	/* Before any read or write of this program: only the constructor can have looked them up.
	 */
	int ready = sonde_interpose_ready();
	MPI_Init(&argc, &argv);
	CHECK(ready);

	char dir[PATH_MAX], path[PATH_MAX + 8];
	check_temp_dir("test_interpose", dir);
	snprintf(path, sizeof path, "%s/f", dir);
	int fd = open(path, O_RDONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	unsigned long before = sonde_interpose_failures();
	CHECK(write(fd, "x", 1) < 0);
	CHECK_INT(errno, EBADF); /* the caller sees the C library's answer */
	CHECK(sonde_interpose_failures() == before + 1);
	CHECK_INT(sonde_interpose_failed_errno(), EBADF);
	CHECK_INT(sonde_interpose_failed_fd(), fd);
	close(fd);

	int p[2];
	CHECK_INT(pipe(p), 0);
	before = sonde_interpose_failures();
	CHECK(read(p[1], path, 1) < 0);
	CHECK(sonde_interpose_failures() == before);
	close(p[0]);
	close(p[1]);

	int failed = check_finish("test_interpose");
	MPI_Finalize();
	return failed;
}
