/* Error lines: whatever the message holds (MPICH's multi-line error strings with their call
 * stack), sonde_error and sonde_agree print exactly one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fail.h"

/* Runs print() with stderr sent to a file and returns what it wrote (malloc'd). */
static char *captured(void (*print)(void))
{
	char path[] = "/tmp/sonde-test-fail-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	print();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	static char buf[4096];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	unlink(path);
	buf[n > 0 ? n : 0] = '\0';
	return strdup(buf);
}

#define MPICH_TEXT "File does not exist, error stack:\nADIOI_UFS_OPEN(37): File /x/f does not exist"

static void mpich_error(void)
{
	sonde_error("cannot open /x/f: %s", MPICH_TEXT);
}

static void mpich_agree(void)
{
	CHECK_INT(sonde_agree(MPI_COMM_NULL, 0, "open /x/f: %s", MPICH_TEXT), 0);
}

static void broken_lines(void)
{
	sonde_error("first part\n\n  second part\r\nthird\n");
}

static void plain(void)
{
	sonde_error("a plain message: %d", 42);
}

int main(void)
{
	sonde_fail_set_workload("test");
	char *s = captured(mpich_error);
	CHECK_STR(s, "sonde test: error: cannot open /x/f: File does not exist\n");
	free(s);
	s = captured(mpich_agree);
	CHECK_STR(s, "sonde test: error: open /x/f: File does not exist\n");
	free(s);
	s = captured(broken_lines);
	CHECK_STR(s, "sonde test: error: first part; second part; third\n");
	free(s);
	s = captured(plain);
	CHECK_STR(s, "sonde test: error: a plain message: 42\n");
	free(s);
	return check_finish("fail");
}
