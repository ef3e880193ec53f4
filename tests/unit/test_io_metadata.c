/* SPDX-License-Identifier: BSD-3-Clause */
/* The backends' metadata operations: each does its one job on real paths, and each failure
 * returns -errno with a message naming the operation and the path, for both backends. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "io_check.h"

static void touch(const char *path, size_t bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	char buf[64] = {0};
	for (size_t done = 0; done < bytes; done += sizeof buf)
		CHECK(write(fd, buf, bytes - done < sizeof buf ? bytes - done : sizeof buf) > 0);
	close(fd);
}

static void test_backend(const struct sonde_backend *be, const char *dir)
{
	char d[PATH_MAX], f[PATH_MAX], g[PATH_MAX], link[PATH_MAX], node[PATH_MAX],
	    inside[PATH_MAX];
	join(d, dir, "d");
	join(f, dir, "f");
	join(g, dir, "g");
	join(link, dir, "link");
	join(node, dir, "node");
	join(inside, d, "x");

	/* mkdir, and a second mkdir of the same path */
	CHECK_INT(be->mkdir(d, 0755), 0);
	struct stat st;
	CHECK(lstat(d, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_INT(be->mkdir(d, 0755), -EEXIST);
	CHECK_MSG("mkdir ");
	CHECK_MSG(d);
	CHECK_MSG("File exists");

	/* stat follows a file, reports a missing one */
	touch(f, 100);
	CHECK_INT(be->stat(f, &st), 0);
	CHECK_INT(st.st_size, 100);
	CHECK_INT(be->stat(g, &st), -ENOENT);
	CHECK_MSG("stat ");
	CHECK_MSG(g);

	/* exists: a file, nothing, a dangling link (not followed) */
	CHECK_INT(be->exists(f), 1);
	CHECK_INT(be->exists(g), 0);
	CHECK_INT(symlink("missing-target", link), 0);
	CHECK_INT(be->exists(link), 1);

	/* truncate */
	CHECK_INT(be->truncate(f, 4096), 0);
	CHECK_INT(file_size(f), 4096);
	CHECK_INT(be->truncate(f, -1), -EINVAL);
	CHECK_MSG("negative size");
	CHECK_INT(be->truncate(g, 10), -ENOENT);
	CHECK_MSG("truncate ");
	CHECK_MSG(g);

	/* truncate never follows a link planted at the path: the target keeps its bytes */
	char target[PATH_MAX], planted[PATH_MAX], fifo[PATH_MAX];
	join(target, dir, "target");
	join(planted, dir, "planted");
	join(fifo, dir, "fifo");
	touch(target, 300);
	CHECK_INT(symlink(target, planted), 0);
	CHECK_INT(be->truncate(planted, 0), -ELOOP);
	CHECK_MSG("truncate ");
	CHECK_MSG("is a symbolic link");
	CHECK_INT(file_size(target), 300);
	/* nor anything but a regular file: a directory, a FIFO (without blocking in open) */
	CHECK_INT(be->truncate(d, 0), -EISDIR);
	CHECK_MSG(d);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	CHECK(be->truncate(fifo, 0) < 0);
	CHECK_MSG(fifo);
	CHECK_INT(unlink(planted), 0);
	CHECK_INT(unlink(target), 0);
	CHECK_INT(unlink(fifo), 0);

	/* rename, and a rename of what is not there */
	CHECK_INT(be->rename(f, g), 0);
	CHECK_INT(be->exists(f), 0);
	CHECK_INT(file_size(g), 4096);
	CHECK_INT(be->rename(f, g), -ENOENT);
	CHECK_MSG("rename ");
	CHECK_MSG(f);

	/* mknod: a regular file without opening it */
	CHECK_INT(be->mknod(node, S_IFREG | 0400), 0);
	CHECK(lstat(node, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0400);
	CHECK_INT(be->mknod(node, S_IFREG | 0400), -EEXIST);
	CHECK_MSG("mknod ");

	/* rmdir: not while something is inside */
	touch(inside, 1);
	CHECK_INT(be->rmdir(d), -ENOTEMPTY);
	CHECK_MSG("rmdir ");
	CHECK_INT(be->remove(inside), 0);
	CHECK_INT(be->rmdir(d), 0);
	CHECK_INT(be->exists(d), 0);

	CHECK_INT(unlink(g), 0);
	CHECK_INT(unlink(link), 0);
	CHECK_INT(unlink(node), 0);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	char dir[PATH_MAX];
	check_temp_dir("io-metadata", dir);
	test_backend(&sonde_backend_posix, dir);
	test_backend(&sonde_backend_mpiio, dir);
	CHECK_INT(rmdir(dir), 0);
	int rc = check_finish("test_io_metadata");
	MPI_Finalize();
	return rc;
}
