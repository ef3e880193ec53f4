/* SPDX-License-Identifier: BSD-3-Clause */
/* The files sonde writes beside its data: parent directories, opening without following a
 * planted link (the link's target untouched), truncating and appending, the mode, and whether two
 * names are one file. */
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
#include "files.h"
#include "io_check.h"

static void test_parent_dir(void)
{
	char out[64];
	const char *cases[][2] = {
	    {"f", "."},  {"/f", "/"},  {"a/b/c", "a/b"},   {"/x/y", "/x"},
	    {"a/", "a"}, {"./f", "."}, {"../d/f", "../d"}, {"/scratch/run/", "/scratch/run"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sonde_parent_dir(cases[i][0], out, sizeof out);
		CHECK_STR(out, cases[i][1]);
	}
	/* a result that does not fit is cut, never overrun */
	char small[4];
	sonde_parent_dir("/abcdef/g", small, sizeof small);
	CHECK_STR(small, "/ab");
}

static char *slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void test_fopen_nofollow(const char *dir)
{
	char f[PATH_MAX], target[PATH_MAX], link[PATH_MAX], buf[256];
	join(f, dir, "summary");
	join(target, dir, "precious");
	join(link, dir, "planted");

	/* "w" creates 0644 whatever the umask, and truncates */
	mode_t old = umask(0);
	FILE *w = sonde_fopen_nofollow(f, "w");
	umask(old);
	CHECK(w != NULL);
	fputs("first line\n", w);
	CHECK_INT(fclose(w), 0);
	struct stat st;
	CHECK(stat(f, &st) == 0 && (st.st_mode & 0777) == 0644);
	w = sonde_fopen_nofollow(f, "w");
	fputs("second\n", w);
	fclose(w);
	CHECK_STR(slurp(f, buf, sizeof buf), "second\n");

	/* "a" appends and never truncates */
	FILE *a = sonde_fopen_nofollow(f, "a");
	CHECK(a != NULL);
	fputs("third\n", a);
	fclose(a);
	CHECK_STR(slurp(f, buf, sizeof buf), "second\nthird\n");

	/* any other mode is refused */
	errno = 0;
	CHECK(sonde_fopen_nofollow(f, "r") == NULL);
	CHECK_INT(errno, EINVAL);
	CHECK(sonde_fopen_nofollow(f, "w+") == NULL);

	/* a planted link, to a file or to nothing: refused with ELOOP, nothing written anywhere */
	FILE *t = fopen(target, "w");
	fputs("keep me\n", t);
	fclose(t);
	CHECK_INT(symlink(target, link), 0);
	for (int k = 0; k < 2; k++) {
		errno = 0;
		CHECK(sonde_fopen_nofollow(link, k ? "a" : "w") == NULL);
		CHECK_INT(errno, ELOOP);
	}
	CHECK_STR(slurp(target, buf, sizeof buf), "keep me\n");
	CHECK_INT(unlink(target), 0);
	errno = 0;
	CHECK(sonde_fopen_nofollow(link, "w") == NULL); /* dangling: still not followed */
	CHECK_INT(errno, ELOOP);
	CHECK(access(target, F_OK) != 0);

	/* a missing directory */
	char missing[PATH_MAX];
	join(missing, dir, "no/such/file");
	errno = 0;
	CHECK(sonde_fopen_nofollow(missing, "w") == NULL);
	CHECK_INT(errno, ENOENT);

	CHECK_INT(unlink(link), 0);
	CHECK_INT(unlink(f), 0);
}

static void test_same_file(const char *dir)
{
	char f[PATH_MAX], hard[PATH_MAX], soft[PATH_MAX], other[PATH_MAX], sub[PATH_MAX],
	    dotted[PATH_MAX], gone1[PATH_MAX], gone2[PATH_MAX], linkdir[PATH_MAX],
	    via_link[PATH_MAX];
	join(f, dir, "f");
	join(hard, dir, "hard");
	join(soft, dir, "soft");
	join(other, dir, "other");
	join(sub, dir, "sub");
	join(dotted, dir, "sub/../f");
	join(gone1, dir, "not-yet");
	join(gone2, dir, "sub/../not-yet");
	join(linkdir, dir, "linkdir");
	join(via_link, linkdir, "not-yet");

	fclose(fopen(f, "w"));
	fclose(fopen(other, "w"));
	CHECK_INT(mkdir(sub, 0755), 0);
	CHECK_INT(link(f, hard), 0);
	CHECK_INT(symlink(f, soft), 0);
	CHECK_INT(symlink(dir, linkdir), 0);

	CHECK(sonde_same_file(f, f));
	CHECK(sonde_same_file(f, hard));   /* one inode, two names */
	CHECK(sonde_same_file(soft, f));   /* a link counts as what it points at */
	CHECK(sonde_same_file(dotted, f)); /* ".." resolved */
	CHECK(!sonde_same_file(f, other));
	CHECK(!sonde_same_file(f, sub));
	/* names of files that do not exist yet: the same when their resolved paths are */
	CHECK(sonde_same_file(gone1, gone2));
	CHECK(sonde_same_file(gone1, via_link));
	CHECK(!sonde_same_file(gone1, f)); /* one exists, the other not */
	CHECK(!sonde_same_file(gone1, other));

	/* a relative name against an absolute one */
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK_INT(chdir(dir), 0);
	CHECK(sonde_same_file("f", f));
	CHECK(sonde_same_file("./not-yet", gone1));
	CHECK(sonde_same_file("sub/../hard", f));
	CHECK_INT(chdir(cwd), 0);

	unlink(linkdir);
	unlink(soft);
	unlink(hard);
	unlink(other);
	unlink(f);
	rmdir(sub);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	char dir[PATH_MAX];
	check_temp_dir("files", dir);
	test_parent_dir();
	test_fopen_nofollow(dir);
	test_same_file(dir);
	CHECK_INT(rmdir(dir), 0);
	int rc = check_finish("test_files");
	MPI_Finalize();
	return rc;
}
