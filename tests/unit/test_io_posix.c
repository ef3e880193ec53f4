/* SPDX-License-Identifier: BSD-3-Clause */
/* POSIX backend on real files: round trips, end of file, O_EXCL/O_TRUNC, symbolic links refused,
 * short writes completed or reported (a file size limit, a full tmpfs), EINTR and short counts
 * retried, O_DIRECT alignment and file systems that refuse it. Files live under TEST_TMPDIR
 * (or /tmp) and /dev/shm, in directories made by mkdtemp and removed at the end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "io_check.h"

/* Fault injection. On a local file system the kernel neither interrupts a regular-file write
 * for a non-fatal signal nor stops it short except at a limit, so EINTR and mid-transfer short
 * counts (NFS with intr, FUSE, Lustre) cannot be provoked here. The test program therefore
 * defines the libc entry points the backend calls; they follow a script for the next calls
 * (-1: fail with EINTR, 0: move nothing, k: move at most k bytes), then pass through. The
 * bytes really go to the file, through the system call. */
static const int *script;
static int script_len, shim_calls;

static ssize_t shim(long nr, int fd, void *buf, size_t n, off64_t off)
{
	if (script) {
		int step = shim_calls < script_len ? script[shim_calls] : INT_MAX;
		shim_calls++;
		if (step < 0) {
			errno = EINTR;
			return -1;
		}
		if (step == 0)
			return 0;
		if ((size_t)step < n)
			n = (size_t)step;
	}
	return syscall(nr, fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	return shim(SYS_pwrite64, fd, (void *)(uintptr_t)buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	return shim(SYS_pread64, fd, buf, n, off);
}

static void run_script(const int *steps, int n)
{
	script = steps;
	script_len = n;
	shim_calls = 0;
}

static const struct sonde_backend *be;

/* The open flags the kernel holds for the descriptor open on path (from /proc/self/fdinfo). */
static long fd_flags_of(const char *path)
{
	DIR *d = opendir("/proc/self/fd");
	long flags = -1;
	struct dirent *e;
	while (d && (e = readdir(d)) && flags < 0) {
		char link[PATH_MAX], target[PATH_MAX], info[PATH_MAX];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, path) != 0)
			continue;
		snprintf(info, sizeof info, "/proc/self/fdinfo/%s", e->d_name);
		FILE *f = fopen(info, "r");
		char line[128];
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "flags: %lo", &flags) == 1)
				break;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return flags;
}

static void test_find(void)
{
	CHECK(sonde_backend_find("POSIX") == &sonde_backend_posix);
	CHECK(sonde_backend_find("posix") == &sonde_backend_posix);
	CHECK(sonde_backend_find("MPIIO") == &sonde_backend_mpiio);
	CHECK(sonde_backend_find("mpi-io") == &sonde_backend_mpiio);
	CHECK(sonde_backend_find("MpiIo") == &sonde_backend_mpiio);
	CHECK(sonde_backend_find("DUMMY") == NULL);
	CHECK_MSG("unknown I/O backend 'DUMMY' (known: ");
	CHECK(sonde_backend_find("POSIX ") == NULL);
	CHECK_STR(sonde_backend_posix.name, "POSIX");
	CHECK_INT(sonde_backend_posix.caps, SONDE_CAP_DIRECT | SONDE_CAP_MDTEST);
}

static void test_round_trip(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "round-trip");
	const size_t n = (1 << 20) + 123;
	const int64_t far = 5000000;
	unsigned char *a = malloc(n), *b = malloc(n);
	fill(a, n, 0, 1);
	struct sonde_file *f = NULL;

	mode_t mask = umask(022);
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE | SONDE_IO_EXCL, NULL, &f), 0);
	umask(mask);
	if (!f)
		return;
	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0644);
	long fl = fd_flags_of(path);
	CHECK(fl >= 0 && (fl & O_CLOEXEC));
	CHECK(fl >= 0 && !(fl & O_DIRECT));

	CHECK_INT(be->write_at(f, a, n, 0), n);
	fill(a, n, far, 1);
	CHECK_INT(be->write_at(f, a, n, far), n);
	CHECK_INT(be->size(f), far + (int64_t)n);
	CHECK_INT(file_size(path), far + (int64_t)n);
	CHECK_INT(be->write_at(f, a, 0, 7), 0);
	CHECK_INT(be->sync(f), 0);
	CHECK_INT(be->close(f), 0);

	/* Read back in a fresh open, through an independent path too. */
	CHECK_INT(be->open(path, SONDE_IO_RDONLY, NULL, &f), 0);
	if (!f)
		return;
	CHECK_INT(be->read_at(f, b, n, 0), n);
	fill(a, n, 0, 1);
	CHECK(memcmp(a, b, n) == 0);
	FILE *raw = fopen(path, "rb");
	CHECK(raw && fseek(raw, far, SEEK_SET) == 0 && fread(b, 1, n, raw) == n);
	if (raw)
		fclose(raw);
	fill(a, n, far, 1);
	CHECK(memcmp(a, b, n) == 0);
	/* The hole between the two writes reads as zeros. */
	CHECK_INT(be->read_at(f, b, 4096, (int64_t)n + 10), 4096);
	int zeros = 1;
	for (int i = 0; i < 4096; i++)
		zeros &= b[i] == 0;
	CHECK(zeros);
	/* End of file: the short count, not an error. */
	CHECK_INT(be->read_at(f, b, 4096, far + (int64_t)n - 100), 100);
	CHECK(memcmp(b, a + n - 100, 100) == 0);
	CHECK_INT(be->read_at(f, b, 4096, far + (int64_t)n + 10), 0);
	/* Writing to a read-only open fails and names the file and the offset. */
	CHECK_INT(be->write_at(f, a, 10, 20), -EBADF);
	CHECK_MSG("write ");
	CHECK_MSG(path);
	CHECK_MSG("at offset 20");
	CHECK_INT(be->read_at(f, b, 10, -1), -EINVAL);
	CHECK_MSG("bad range");
	CHECK_INT(be->close(f), 0);

	/* O_EXCL on an existing file. */
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE | SONDE_IO_EXCL, NULL, &f),
	          -EEXIST);
	CHECK(f == NULL);
	CHECK_MSG(path);
	CHECK_MSG("already exists");
	CHECK_INT(file_size(path), far + (int64_t)n);

	/* O_TRUNC empties it. */
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_TRUNC, NULL, &f), 0);
	if (f) {
		CHECK_INT(be->size(f), 0);
		CHECK_INT(be->close(f), 0);
	}
	CHECK_INT(file_size(path), 0);

	CHECK_INT(be->remove(path), 0);
	CHECK_INT(file_size(path), -1);
	CHECK_INT(be->remove(path), -ENOENT);
	CHECK_MSG("remove ");
	CHECK_MSG(path);
	free(a);
	free(b);
}

static void test_bad_opens(const char *dir)
{
	char path[PATH_MAX];
	struct sonde_file *f = NULL;
	join(path, dir, "no-such-dir/file");
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE, NULL, &f), -ENOENT);
	CHECK(f == NULL);
	CHECK_MSG("open ");
	CHECK_MSG(path);
	CHECK_MSG("No such file or directory");

	join(path, dir, "flags");
	CHECK_INT(be->open(path, SONDE_IO_CREATE, NULL, &f), -EINVAL);
	CHECK_MSG("read-only, write-only and read-write");
	CHECK_INT(be->open(path, SONDE_IO_RDONLY | SONDE_IO_RDWR, NULL, &f), -EINVAL);
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_EXCL, NULL, &f), -EINVAL);
	CHECK_MSG("exclusive open needs create");
	struct sonde_io_options opt = {.comm = MPI_COMM_SELF, .collective = 1};
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE, &opt, &f), -EINVAL);
	CHECK_MSG("no collective I/O");
	const char *hints[] = {"romio_cb_write=enable"};
	struct sonde_io_options hopt = {.comm = MPI_COMM_SELF, .hints = hints, .nhints = 1};
	CHECK_INT(be->open(path, SONDE_IO_WRONLY | SONDE_IO_CREATE, &hopt, &f), -EINVAL);
	CHECK_MSG("takes no hints");
	CHECK_INT(file_size(path), -1);
}

static void test_symlinks(const char *dir)
{
	char target[PATH_MAX], link[PATH_MAX], ghost[PATH_MAX], dangling[PATH_MAX];
	struct sonde_file *f = NULL;
	join(target, dir, "precious");
	join(link, dir, "planted-link");
	join(ghost, dir, "ghost");
	join(dangling, dir, "dangling-link");
	FILE *t = fopen(target, "w");
	CHECK(t && fputs("precious", t) >= 0);
	if (t)
		fclose(t);
	CHECK_INT(symlink(target, link), 0);
	CHECK_INT(symlink(ghost, dangling), 0);

	CHECK_INT(be->open(link, SONDE_IO_RDWR | SONDE_IO_TRUNC, NULL, &f), -ELOOP);
	CHECK(f == NULL);
	CHECK_MSG(link);
	CHECK_MSG("is a symbolic link");
	CHECK_INT(file_size(target), 8);
	CHECK_INT(be->open(link, SONDE_IO_RDONLY, NULL, &f), -ELOOP);
	/* A dangling link must not create its target either. */
	CHECK_INT(be->open(dangling, SONDE_IO_WRONLY | SONDE_IO_CREATE, NULL, &f), -ELOOP);
	CHECK_INT(file_size(ghost), -1);
	/* Links higher up the path are the user's business and are followed. */
	char via[PATH_MAX], linkdir[PATH_MAX];
	join(linkdir, dir, "dir-link");
	CHECK_INT(symlink(dir, linkdir), 0);
	join(via, linkdir, "precious");
	CHECK_INT(be->open(via, SONDE_IO_RDONLY, NULL, &f), 0);
	if (f)
		CHECK_INT(be->close(f), 0);

	unlink(linkdir);
	unlink(link);
	unlink(dangling);
	unlink(target);
}

/* RLIMIT_FSIZE with SIGXFSZ ignored: the kernel writes up to the limit and returns the short
 * count; the next call fails with EFBIG. The backend must continue after the short count and
 * then report the error with the path and how far it got. */
static void test_file_size_limit(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "fsize-limit");
	const size_t limit = 65536, below = 60000, above = 100000;
	unsigned char *a = malloc(above), *b = malloc(above);
	struct sonde_file *f = NULL;
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE | SONDE_IO_EXCL, NULL, &f), 0);
	if (!f)
		return;

	struct sigaction ign = {.sa_handler = SIG_IGN}, old_sa;
	struct rlimit old_rl, rl;
	sigaction(SIGXFSZ, &ign, &old_sa);
	getrlimit(RLIMIT_FSIZE, &old_rl);
	rl = old_rl;
	rl.rlim_cur = limit;
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &rl), 0);

	fill(a, above, 0, 7);
	ssize_t ok = be->write_at(f, a, below, 0);
	fill(a, above, 0, 8);
	ssize_t cut = be->write_at(f, a, above, 0);
	char msg[1024];
	snprintf(msg, sizeof msg, "%s", sonde_io_last_error());
	ssize_t beyond = be->write_at(f, a, 10, (int64_t)limit);

	setrlimit(RLIMIT_FSIZE, &old_rl);
	sigaction(SIGXFSZ, &old_sa, NULL);

	CHECK_INT(ok, below);
	CHECK_INT(cut, -EFBIG);
	CHECK(has(msg, path));
	CHECK(has(msg, "at offset 65536"));
	CHECK(has(msg, "File too large"));
	CHECK(has(msg, "after 65536 of 100000 bytes"));
	CHECK_INT(beyond, -EFBIG);
	/* The short write really landed: the file holds exactly the second buffer up to the
	 * limit. */
	CHECK_INT(be->size(f), limit);
	CHECK_INT(be->read_at(f, b, above, 0), limit);
	CHECK(memcmp(a, b, limit) == 0);
	CHECK_INT(be->close(f), 0);
	unlink(path);
	free(a);
	free(b);
}

/* A 64 KiB tmpfs fills up: a short count, then ENOSPC. Needs the right to mount (root in the
 * development VM); skipped with the reason otherwise. */
static void test_full_file_system(const char *dir)
{
	char mnt[PATH_MAX], path[PATH_MAX];
	join(mnt, dir, "tiny-tmpfs");
	CHECK_INT(mkdir(mnt, 0700), 0);
	if (mount("sonde-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700") != 0) {
		check_skip("full file system test: cannot mount a tmpfs at %s: %s", mnt,
		           strerror(errno));
		rmdir(mnt);
		return;
	}
	join(path, mnt, "fill");
	const size_t n = 200000;
	unsigned char *a = malloc(n), *b = malloc(n);
	fill(a, n, 0, 9);
	struct sonde_file *f = NULL;
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE | SONDE_IO_EXCL, NULL, &f), 0);
	if (f) {
		CHECK_INT(be->write_at(f, a, n, 0), -ENOSPC);
		CHECK_MSG(path);
		CHECK_MSG("No space left on device");
		long long done = 0;
		size_t total = 0;
		const char *after = strstr(sonde_io_last_error(), "(after ");
		CHECK(after && sscanf(after, "(after %lld of %zu bytes)", &done, &total) == 2);
		CHECK(done > 0 && done < (long long)n);
		CHECK_INT(total, n);
		CHECK_INT(be->size(f), done);
		CHECK_INT(be->read_at(f, b, n, 0), done);
		CHECK(memcmp(a, b, (size_t)done) == 0);
		CHECK_INT(be->close(f), 0);
	}
	unlink(path);
	CHECK_INT(umount2(mnt, 0), 0);
	rmdir(mnt);
	free(a);
	free(b);
}

static void test_injected_faults(const char *dir)
{
	char path[PATH_MAX];
	join(path, dir, "injected");
	const size_t n = 10000;
	unsigned char *a = malloc(n), *b = malloc(n);
	fill(a, n, 4096, 3);
	struct sonde_file *f = NULL;
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE | SONDE_IO_EXCL, NULL, &f), 0);
	if (!f)
		return;

	static const int wsteps[] = {-1, 777, -1, -1, 1, 5000};
	run_script(wsteps, 6);
	CHECK_INT(be->write_at(f, a, n, 4096), n);
	CHECK_INT(shim_calls, 7); /* 6 scripted, then the rest in one pass-through call */
	static const int rsteps[] = {-1, 100, -1, 3};
	run_script(rsteps, 4);
	CHECK_INT(be->read_at(f, b, n, 4096), n);
	CHECK_INT(shim_calls, 5);
	run_script(NULL, 0);
	CHECK(memcmp(a, b, n) == 0);
	CHECK_INT(file_size(path), 4096 + (int64_t)n);

	/* A write that moves nothing without an error must not spin. */
	static const int stuck[] = {50, 0};
	run_script(stuck, 2);
	CHECK_INT(be->write_at(f, a, n, 0), -EIO);
	CHECK_INT(shim_calls, 2);
	run_script(NULL, 0);
	CHECK_MSG("after 50 of 10000 bytes");
	CHECK_MSG("at offset 50");
	/* A read that hits end of file after an interruption returns what it has. */
	static const int eof[] = {-1, 10};
	run_script(eof, 2);
	CHECK_INT(be->read_at(f, b, n, 4096 + (int64_t)n - 30), 30);
	CHECK_INT(shim_calls, 4);
	run_script(NULL, 0);
	CHECK(memcmp(b, a + n - 30, 30) == 0);

	CHECK_INT(be->close(f), 0);
	unlink(path);
	free(a);
	free(b);
}

static void test_direct_on(const char *dir, const char *what)
{
	char path[PATH_MAX];
	join(path, dir, "direct");
	struct sonde_file *f = NULL;
	int rc = be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE | SONDE_IO_EXCL | SONDE_IO_DIRECT,
	                  NULL, &f);
	if (rc != 0) {
		/* Refused: it must be said clearly, and the half-created file removed. */
		CHECK_INT(rc, -EINVAL);
		CHECK_MSG(path);
		CHECK_MSG("refuses O_DIRECT");
		CHECK_INT(file_size(path), -1);
		check_skip("O_DIRECT round trip on %s: %s", what, sonde_io_last_error());
		return;
	}
	long fl = fd_flags_of(path);
	CHECK(fl >= 0 && (fl & O_DIRECT));
	const size_t n = 3 * 4096;
	unsigned char *a, *b;
	CHECK_INT(posix_memalign((void **)&a, 4096, n + 4096), 0);
	CHECK_INT(posix_memalign((void **)&b, 4096, n + 4096), 0);
	fill(a, n + 4096, 8192, 5);
	CHECK_INT(be->write_at(f, a, n, 8192), n);
	CHECK_INT(be->read_at(f, b, n, 8192), n);
	CHECK(memcmp(a, b, n) == 0);
	CHECK_INT(be->size(f), 8192 + (int64_t)n);

	CHECK_INT(be->write_at(f, a + 1, n, 8192), -EINVAL);
	CHECK_MSG("O_DIRECT needs the buffer address, offset and length to be multiples of 4096");
	CHECK_MSG(path);
	CHECK_INT(be->write_at(f, a, n, 8192 + 512), -EINVAL);
	CHECK_INT(be->write_at(f, a, n - 1, 8192), -EINVAL);
	CHECK_INT(be->read_at(f, b + 512, n, 0), -EINVAL);
	CHECK_MSG("read ");
	CHECK_INT(be->close(f), 0);

	/* A smaller alignment, when asked for, is checked instead of the default. */
	struct sonde_io_options opt = {.comm = MPI_COMM_SELF, .alignment = 512};
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_DIRECT, &opt, &f), 0);
	if (f) {
		CHECK_INT(be->write_at(f, a + 1, 512, 0), -EINVAL);
		CHECK_MSG("multiples of 512 bytes");
		CHECK_INT(be->close(f), 0);
	}
	unlink(path);
	free(a);
	free(b);
	printf("O_DIRECT round trip on %s passed\n", what);
}

/* ramfs has no direct I/O at all, unlike tmpfs on recent kernels. */
static void test_direct_refused(const char *dir)
{
	char mnt[PATH_MAX], path[PATH_MAX];
	join(mnt, dir, "ramfs");
	CHECK_INT(mkdir(mnt, 0700), 0);
	if (mount("sonde-test", mnt, "ramfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0) {
		check_skip("O_DIRECT refusal on ramfs: cannot mount at %s: %s", mnt,
		           strerror(errno));
		rmdir(mnt);
		return;
	}
	join(path, mnt, "direct");
	struct sonde_file *f = NULL;
	CHECK_INT(be->open(path, SONDE_IO_RDWR | SONDE_IO_CREATE | SONDE_IO_EXCL | SONDE_IO_DIRECT,
	                   NULL, &f),
	          -EINVAL);
	CHECK(f == NULL);
	CHECK_MSG(path);
	CHECK_MSG("the file system refuses O_DIRECT");
	CHECK_INT(file_size(path), -1);
	CHECK_INT(umount2(mnt, 0), 0);
	rmdir(mnt);
}

/* The directory's canonical name, so that it compares equal to /proc/self/fd's links. */
static void make_temp_dir(char *out, const char *base)
{
	char made[PATH_MAX];
	snprintf(made, sizeof made, "%s/sonde-io-posix-XXXXXX", base);
	if (!mkdtemp(made) || !realpath(made, out)) {
		fprintf(stderr, "mkdtemp %s: %s\n", made, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	be = &sonde_backend_posix;
	const char *base = getenv("TEST_TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	mkdir(base, 0755);
	char dir[PATH_MAX], shm[PATH_MAX];
	make_temp_dir(dir, base);
	make_temp_dir(shm, "/dev/shm");

	test_find();
	test_round_trip(dir);
	test_bad_opens(dir);
	test_symlinks(dir);
	test_file_size_limit(dir);
	test_full_file_system(dir);
	test_injected_faults(dir);
	test_direct_on(dir, "the test directory's file system");
	test_direct_on(shm, "tmpfs (/dev/shm)");
	test_direct_refused(dir);

	CHECK_INT(rmdir(dir), 0);
	CHECK_INT(rmdir(shm), 0);
	int rc = check_finish("test_io_posix");
	MPI_Finalize();
	return rc;
}
