/* SPDX-License-Identifier: BSD-3-Clause */
/* File-system facts: tmpfs on /dev/shm, files that do not exist yet, missing directories. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "check.h"
#include "fsinfo.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	struct sonde_fsinfo fi;

	/* The same figures through another interface; others' files may come and go on /dev/shm
	 * meanwhile, so the free space is bracketed by readings before and after. */
	struct statvfs before, after;
	CHECK_INT(statvfs("/dev/shm", &before), 0);
	CHECK_INT(sonde_fsinfo_get("/dev/shm", &fi), 0);
	CHECK_INT(statvfs("/dev/shm", &after), 0);
	CHECK_STR(fi.type, "tmpfs");
	CHECK_INT(fi.magic, 0x01021994);
	CHECK_INT(fi.parallel, 0);
	CHECK_STR(fi.mount, "/dev/shm");
	CHECK(fi.free_bytes >= 0 && fi.free_bytes <= fi.total_bytes);
	CHECK_INT(fi.total_bytes, (int64_t)after.f_blocks * (int64_t)after.f_frsize);
	double f0 = (double)before.f_bavail * (double)before.f_frsize;
	double f1 = (double)after.f_bavail * (double)after.f_frsize;
	CHECK((double)fi.free_bytes >= (f0 < f1 ? f0 : f1) - 64.0 * 1048576 &&
	      (double)fi.free_bytes <= (f0 > f1 ? f0 : f1) + 64.0 * 1048576);

	/* A file about to be created: its directory answers. */
	char path[256];
	snprintf(path, sizeof path, "/dev/shm/sonde-test-fsinfo-%d-absent", (int)getpid());
	CHECK_INT(sonde_fsinfo_get(path, &fi), 0);
	CHECK_STR(fi.type, "tmpfs");
	CHECK_STR(fi.mount, "/dev/shm");

	/* An existing file. */
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_INT(sonde_fsinfo_get(path, &fi), 0);
	CHECK_STR(fi.type, "tmpfs");
	unlink(path);

	/* A missing directory is an error, not the parent's facts. */
	CHECK_INT(sonde_fsinfo_get("/dev/shm/sonde-no-such-dir/file", &fi), -ENOENT);
	CHECK_INT(sonde_fsinfo_get("/dev/shm/sonde-no-such-dir/sub/", &fi), -ENOENT);
	/* A file in place of a directory. */
	CHECK_INT(sonde_fsinfo_get("/proc/self/status/x", &fi), -ENOTDIR);

	/* The root, and a mount point below it: the longest prefix wins, on a component boundary.
	 */
	CHECK_INT(sonde_fsinfo_get("/", &fi), 0);
	CHECK_STR(fi.mount, "/");
	CHECK(fi.type[0] != '\0' && strncmp(fi.type, "0x", 2) != 0);
	if (fi.magic == 0xEF53)
		CHECK(strncmp(fi.type, "ext", 3) == 0);
	CHECK_INT(sonde_fsinfo_get("/proc/self", &fi), 0);
	CHECK_STR(fi.type, "proc");
	CHECK_STR(fi.mount, "/proc");

	/* A relative name in the working directory. */
	CHECK_INT(chdir("/dev/shm"), 0);
	CHECK_INT(sonde_fsinfo_get("sonde-relative-absent", &fi), 0);
	CHECK_STR(fi.mount, "/dev/shm");

	/* The FS line of IOR and mdtest: statvfs's figures, in GiB below 1024 GiB. */
	struct sonde_fs_usage u;
	struct statvfs v;
	CHECK_INT(statvfs("/dev/shm", &v), 0);
	CHECK_INT(sonde_fs_usage("/dev/shm", &u), 0);
	double gib = (double)v.f_blocks * (double)v.f_frsize / (1 << 30);
	CHECK_STR(u.unit, gib > 1024 ? "TiB" : "GiB");
	if (gib <= 1024)
		CHECK_NEAR(u.size, gib, 1e-9);
	CHECK_NEAR(u.inodes_mi, (double)v.f_files / (1 << 20), 1e-9);
	CHECK(u.used_pct >= 0 && u.used_pct <= 100);
	CHECK_INT(sonde_fs_usage("/dev/shm/sonde-no-such-dir", &u), -1);
	u = (struct sonde_fs_usage){24.0, "GiB", 5.44, 16.0, 2.61};
	char line[256] = "";
	FILE *mem = fmemopen(line, sizeof line, "w");
	sonde_fs_usage_print(mem, &u);
	fclose(mem);
	CHECK_STR(line, "FS                  : 24.0 GiB   Used FS: 5.4%   Inodes: 16.0 Mi   Used "
	                "Inodes: 2.6%\n");

	int failed = check_finish("test_fsinfo");
	MPI_Finalize();
	return failed;
}
