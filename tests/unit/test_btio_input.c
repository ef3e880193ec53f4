/* SPDX-License-Identifier: BSD-3-Clause */
/* BTIO's input file: the five lines as Fortran list-directed reads take them (values first,
 * anything after ignored), and one clear message for each way a file can be wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
/* Compiled in rather than linked, so this test builds whichever workloads the library holds. */
#include "workloads/btio/input.c"

static char path[256];

static int parse(const char *text, struct btio_setup *s, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		check_fail(__FILE__, __LINE__, "cannot create %s", path);
		exit(check_finish("test_btio_input"));
	}
	fputs(text, f);
	fclose(f);
	memset(s, 0x55, sizeof *s);
	err[0] = '\0';
	int read_err;
	return btio_read_input(MPI_COMM_NULL, path, s, &read_err, err, errlen);
}

static void bad(const char *text, const char *why)
{
	struct btio_setup s;
	char err[512];
	check_count++;
	if (parse(text, &s, err, sizeof err) == 0)
		check_fail(__FILE__, __LINE__, "accepted: %s", text);
	else if (!strstr(err, why) || !strstr(err, path))
		check_fail(__FILE__, __LINE__, "message '%s' lacks '%s' or the file name", err,
		           why);
}

int main(void)
{
	const char *tmp = getenv("TEST_TMPDIR");
	if (!tmp || access(tmp, W_OK) != 0)
		tmp = "/tmp";
	snprintf(path, sizeof path, "%s/test_btio_input.%d", tmp, (int)getpid());
	struct btio_setup s;
	char err[512];

	/* The seed README's example, comments and all. */
	CHECK_INT(parse("w                  # IO mode: w for write, r for read\n"
	                "3                  # IO method: 0 for MPI collective IO, ...\n"
	                "40                 # number of writes/reads\n"
	                "512 512 512        # grid_points(1), grid_points(2), grid_points(3)\n"
	                "/scratch2/scratchdirs/wkliao/FS_1M_128\n",
	                &s, err, sizeof err),
	          0);
	CHECK_INT(s.write, 1);
	CHECK_INT(s.read, 0);
	CHECK_INT(s.method, 3);
	CHECK_INT(s.dumps, 40);
	CHECK_INT(s.grid[0], 512);
	CHECK_INT(s.grid[1], 512);
	CHECK_INT(s.grid[2], 512);
	CHECK_STR(s.dir, "/scratch2/scratchdirs/wkliao/FS_1M_128");

	/* List-directed: commas separate, words after the values are ignored, "read" reads. */
	CHECK_INT(parse("read\n0 anything\n5, more\n10,11,12 trailing\n  /a dir/x#y  # comment  \n",
	                &s, err, sizeof err),
	          0);
	CHECK_INT(s.write, 0);
	CHECK_INT(s.read, 1);
	CHECK_INT(s.method, 0);
	CHECK_INT(s.dumps, 5);
	CHECK_INT(s.grid[0], 10);
	CHECK_INT(s.grid[1], 11);
	CHECK_INT(s.grid[2], 12);
	CHECK_STR(s.dir, "/a dir/x#y");
	CHECK_INT(parse("w\n1\n1\n1 2 3\r\n.\r\n", &s, err, sizeof err), 0);
	CHECK_STR(s.dir, ".");
	CHECK_INT(s.grid[2], 3);

	bad("", "line 1 is missing");
	bad("w\n", "line 2 is missing");
	bad("w\n1\n1\n8 8 8\n", "line 5 is missing");
	bad("x\n1\n1\n8 8 8\n.\n", "bad I/O mode 'x'");
	bad("\n1\n1\n8 8 8\n.\n", "line 1");
	bad("w\n4\n1\n8 8 8\n.\n", "bad I/O method '4'");
	bad("w\n-1\n1\n8 8 8\n.\n", "bad I/O method '-1'");
	bad("w\n1x\n1\n8 8 8\n.\n", "bad I/O method '1x'");
	bad("w\n1\n0\n8 8 8\n.\n", "line 3");
	bad("w\n1\nmany\n8 8 8\n.\n", "line 3");
	bad("w\n1\n1\n8 8\n.\n", "line 4");
	bad("w\n1\n1\n8 0 8\n.\n", "line 4");
	bad("w\n1\n1\n8 8 8\n   # only a comment\n", "line 5");
	bad("w\n1\n1\n99999999999999999999 8 8\n.\n", "line 4");
	remove(path);

	/* A missing file gives the original's message, with the name actually asked for. */
	int read_err = 0;
	CHECK_INT(
	    btio_read_input(MPI_COMM_NULL, "/nonexistent/in.data", &s, &read_err, err, sizeof err),
	    -1);
	CHECK_STR(err, "No input file /nonexistent/in.data. Exiting ...");
	CHECK_INT(read_err, ENOENT);

	/* --grid */
	int64_t g[3];
	CHECK_INT(btio_parse_grid("512x256x128", g, err, sizeof err), 0);
	CHECK_INT(g[0], 512);
	CHECK_INT(g[1], 256);
	CHECK_INT(g[2], 128);
	CHECK_INT(btio_parse_grid("4,5,6", g, err, sizeof err), 0);
	CHECK_INT(g[2], 6);
	CHECK_INT(btio_parse_grid("4x5", g, err, sizeof err), -1);
	CHECK(strstr(err, "bad grid '4x5'") != NULL);
	CHECK_INT(btio_parse_grid("4x5x6x7", g, err, sizeof err), -1);
	CHECK_INT(btio_parse_grid("4x-5x6", g, err, sizeof err), -1);
	CHECK_INT(btio_parse_grid("4xx6", g, err, sizeof err), -1);
	return check_finish("test_btio_input");
}
