/* SPDX-License-Identifier: BSD-3-Clause */
/* Error lines: whatever the message holds (MPICH's multi-line error strings with their call
 * stack), sonde_error and sonde_agree print exactly one line. */
#include <errno.h>
#include <setjmp.h>
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

/* A line break right before a word (HDF5's sec2 errors hold ctime's "\n"): the line is made in
 * place and must not grow over what follows its end. */
static void break_before_a_word(void)
{
	char msg[32];
	memset(msg, 'X', sizeof msg);
	strcpy(msg, "2026\n, name\nend");
	sonde_one_line(msg);
	CHECK_STR(msg, "2026;, name;end");
	CHECK(msg[sizeof "2026\n, name\nend"] == 'X');
}

static void plain(void)
{
	sonde_error("a plain message: %d", 42);
}

/* The one errno -> exit class decision: bad paths (missing, or this user may not use them)
 * are usage errors only while sonde opens what the user named; a read-only or full file system
 * never is. */
static void exit_classes(void)
{
	const int usage[] = {ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP,
	                     EINVAL, EEXIST,  EACCES, EPERM};
	const int runtime[] = {EROFS, ENOSPC, EDQUOT, EIO, ESTALE, ENOMEM};
	for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
		CHECK_INT(sonde_exit_class(usage[i], SONDE_STAGE_INPUT), SONDE_EXIT_USAGE);
		CHECK_INT(sonde_exit_class(-usage[i], SONDE_STAGE_INPUT), SONDE_EXIT_USAGE);
		CHECK_INT(sonde_exit_class(usage[i], SONDE_STAGE_RUN), SONDE_EXIT_RUNTIME);
	}
	for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++) {
		CHECK_INT(sonde_exit_class(runtime[i], SONDE_STAGE_INPUT), SONDE_EXIT_RUNTIME);
		CHECK_INT(sonde_exit_class(runtime[i], SONDE_STAGE_RUN), SONDE_EXIT_RUNTIME);
	}
	CHECK_STR(sonde_reason_name(sonde_reason_of_exit(0)), "ok");
	CHECK_STR(sonde_reason_name(sonde_reason_of_exit(1)), "io-error");
	CHECK_STR(sonde_reason_name(sonde_reason_of_exit(2)), "usage");
	CHECK_STR(sonde_reason_name(sonde_reason_of_exit(3)), "verification");
	CHECK_STR(sonde_reason_name(sonde_reason_of_exit(4)), "signal");
	CHECK_STR(sonde_reason_name(SONDE_REASON_PEER_FAILED), "peer-failed");
}

/* MPI error classes map to the errno values they stand for, so the decision above covers MPI
 * errors too (a read-only file system through MPI-IO is 1, as through POSIX). */
static void mpi_classes(void)
{
	MPI_Init(NULL, NULL);
	CHECK_INT(sonde_errno_of_mpi(MPI_SUCCESS), 0);
	CHECK_INT(sonde_errno_of_mpi(MPI_ERR_NO_SUCH_FILE), ENOENT);
	CHECK_INT(sonde_errno_of_mpi(MPI_ERR_NO_SPACE), ENOSPC);
	CHECK_INT(sonde_errno_of_mpi(MPI_ERR_READ_ONLY), EROFS);
	CHECK_INT(sonde_errno_of_mpi(MPI_ERR_IO), EIO);
	CHECK_INT(sonde_exit_class(sonde_errno_of_mpi(MPI_ERR_READ_ONLY), SONDE_STAGE_INPUT),
	          SONDE_EXIT_RUNTIME);
	CHECK_INT(sonde_exit_class(sonde_errno_of_mpi(MPI_ERR_NO_SUCH_FILE), SONDE_STAGE_INPUT),
	          SONDE_EXIT_USAGE);
	MPI_Finalize();
}

/* sonde mix: a group's lines name it; sonde_exit under the mix's trap ends the group's run
 * (a jump with the exit code + 1), not the process; the check of the groups' options before
 * their runs prints no warning (the runs print it). */
static void in_group(void)
{
	sonde_error("a group's message");
	sonde_fail_set_warnings(0);
	sonde_warn("said by the run, not the check");
	sonde_fail_set_warnings(1);
	sonde_warn("the run's warning");
}

static void mix_group(void)
{
	sonde_fail_set_comm(MPI_COMM_NULL, 2);
	char *s = captured(in_group);
	CHECK_STR(s, "sonde test: group 2: error: a group's message\n"
	             "sonde test: group 2: warning: the run's warning\n");
	free(s);
	sonde_fail_set_comm(MPI_COMM_NULL, -1);
	jmp_buf trap;
	volatile int jumped = setjmp(trap);
	if (!jumped) {
		sonde_fail_set_exit_trap(&trap);
		sonde_exit(SONDE_EXIT_VERIFY);
	}
	sonde_fail_set_exit_trap(NULL);
	CHECK_INT(jumped, SONDE_EXIT_VERIFY + 1);
}

int main(void)
{
	sonde_fail_set_workload("test");
	exit_classes();
	char *s = captured(mpich_error);
	CHECK_STR(s, "sonde test: error: cannot open /x/f: File does not exist\n");
	free(s);
	s = captured(mpich_agree);
	CHECK_STR(s, "sonde test: error: open /x/f: File does not exist\n");
	free(s);
	s = captured(broken_lines);
	CHECK_STR(s, "sonde test: error: first part; second part; third\n");
	free(s);
	break_before_a_word();
	s = captured(plain);
	CHECK_STR(s, "sonde test: error: a plain message: 42\n");
	free(s);
	mix_group();
	mpi_classes();
	return check_finish("fail");
}
