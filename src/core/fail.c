/* SPDX-License-Identifier: BSD-3-Clause */
#include "fail.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *workload_name = "";
/* The communicator whose rank 0 speaks for the run (MPI_COMM_NULL: MPI_COMM_WORLD), and the
 * group of a mix that the run is (-1: not in a mix). */
static MPI_Comm home = MPI_COMM_NULL;
static int home_group = -1;
static int warnings_off;

static const struct sonde_fail_hook *hooks[4];
static int hook_count;

void sonde_fail_register(const struct sonde_fail_hook *hook)
{
	for (int i = 0; i < hook_count; i++)
		if (hooks[i] == hook)
			return;
	if (hook_count == (int)(sizeof hooks / sizeof hooks[0])) {
		fprintf(stderr, "sonde: error: more than %d fail hooks\n", hook_count);
		abort();
	}
	hooks[hook_count++] = hook;
}

static void failed(int rank, const char *path, const char *message)
{
	for (int i = 0; i < hook_count; i++)
		if (hooks[i]->failure)
			hooks[i]->failure(rank, path, message);
}

static int ended(int code)
{
	for (int i = 0; i < hook_count; i++)
		if (hooks[i]->end)
			code = hooks[i]->end(code);
	return code;
}

static void aborting(int code)
{
	for (int i = 0; i < hook_count; i++)
		if (hooks[i]->abort)
			hooks[i]->abort(code);
}

void sonde_fail_set_workload(const char *name)
{
	workload_name = name ? name : "";
}

void sonde_fail_set_comm(MPI_Comm comm, int group)
{
	home = comm;
	home_group = group;
}

void sonde_fail_set_warnings(int on)
{
	warnings_off = !on;
}

static int mpi_up(void)
{
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	return init && !fin;
}

static int world_rank(void)
{
	int rank = 0;
	if (mpi_up())
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	return rank;
}

static int world_size(void)
{
	int size = 1;
	if (mpi_up())
		MPI_Comm_size(MPI_COMM_WORLD, &size);
	return size;
}

/* The rank of the run's own communicator: its rank 0 prints what is printed once. */
static int home_rank(void)
{
	int rank = 0;
	if (!mpi_up())
		return 0;
	MPI_Comm_rank(home == MPI_COMM_NULL ? MPI_COMM_WORLD : home, &rank);
	return rank;
}

/* MPICH's error strings run over several lines ("File does not exist, error stack:\n
 * ADIOI_UFS_OPEN(37): ..."): its call stack goes, and any other line break becomes "; ", so
 * that every message stays the one line users and scripts expect. */
void sonde_one_line(char *msg)
{
	char *stack = strstr(msg, ", error stack:");
	if (stack)
		*stack = '\0';
	char *out = msg;
	for (const char *in = msg; *in; in++) {
		if (*in != '\n' && *in != '\r') {
			*out++ = *in;
			continue;
		}
		while (out > msg && out[-1] == ' ')
			out--;
		while (in[1] == '\n' || in[1] == '\r' || in[1] == ' ')
			in++;
		/* in place: the break and the blanks after it (up to in) make room for "; ", a
		 * break right before a word for ";" alone (HDF5's "2026\n, filename"), so that
		 * the line never grows over what follows it */
		if (in[1] && out > msg) {
			*out++ = ';';
			if (out <= in)
				*out++ = ' ';
		}
	}
	*out = '\0';
}

/* One write() per message so lines from several ranks do not interleave mid-line. rank: the
 * world rank the message names, or -1. A group of a mix is always named. */
static void emit_for(const char *kind, int rank, const char *text)
{
	char msg[2048];
	int n;
	if (*workload_name)
		n = snprintf(msg, sizeof msg, "sonde %s: ", workload_name);
	else
		n = snprintf(msg, sizeof msg, "sonde: ");
	if (home_group >= 0)
		n += snprintf(msg + n, sizeof msg - (size_t)n, "group %d: ", home_group);
	if (rank >= 0)
		n += snprintf(msg + n, sizeof msg - (size_t)n, "rank %d: ", rank);
	n += snprintf(msg + n, sizeof msg - (size_t)n, "%s: ", kind);
	if (n < (int)sizeof msg)
		snprintf(msg + n, sizeof msg - (size_t)n, "%s", text);
	size_t len = strnlen(msg, sizeof msg - 2);
	msg[len] = '\n';
	fflush(stdout);
	fwrite(msg, 1, len + 1, stderr);
	fflush(stderr);
}

static void emit(const char *kind, int with_rank, const char *text)
{
	emit_for(kind, with_rank ? world_rank() : -1, text);
}

static void format_line(char *msg, size_t len, const char *fmt, va_list ap)
{
	vsnprintf(msg, len, fmt, ap);
	sonde_one_line(msg);
}

void sonde_error(const char *fmt, ...)
{
	if (home_rank() != 0)
		return;
	char msg[1536];
	va_list ap;
	va_start(ap, fmt);
	format_line(msg, sizeof msg, fmt, ap);
	va_end(ap);
	emit("error", 0, msg);
}

static void warn_line(int with_rank, const char *fmt, va_list ap)
{
	char msg[1536];
	format_line(msg, sizeof msg, fmt, ap);
	emit("warning", with_rank, msg);
}

void sonde_warn(const char *fmt, ...)
{
	if (home_rank() != 0 || warnings_off)
		return;
	va_list ap;
	va_start(ap, fmt);
	warn_line(0, fmt, ap);
	va_end(ap);
}

void sonde_warn_here(const char *fmt, ...)
{
	if (warnings_off)
		return;
	va_list ap;
	va_start(ap, fmt);
	warn_line(world_size() > 1, fmt, ap);
	va_end(ap);
}

/* MPICH's launcher ends every process of the job at MPI_Abort, and what a rank wrote into its
 * stderr pipe that the launcher had not read yet is lost with it: the one line saying why the
 * run ended (seen in CI under load). Before the abort, wait until the launcher has read the
 * pipe (or the socket) empty, up to a second. */
static void wait_for_stderr_read(void)
{
	struct stat st;
	if (fstat(STDERR_FILENO, &st) < 0)
		return;
	unsigned long request;
	if (S_ISFIFO(st.st_mode))
		request = FIONREAD; /* bytes in the pipe, from either end */
	else if (S_ISSOCK(st.st_mode))
		request = TIOCOUTQ; /* bytes sent and not yet taken by the peer */
	else
		return;
	const struct timespec pause = {0, 10 * 1000 * 1000};
	for (int i = 0; i < 100; i++) {
		int unread = 0;
		if (ioctl(STDERR_FILENO, request, &unread) < 0 || unread <= 0)
			return;
		nanosleep(&pause, NULL);
	}
}

_Noreturn void sonde_fatal(const char *fmt, ...)
{
	char msg[1536];
	va_list ap;
	va_start(ap, fmt);
	format_line(msg, sizeof msg, fmt, ap);
	va_end(ap);
	emit("error", world_size() > 1, msg);
	failed(world_rank(), NULL, msg);
	aborting(ended(SONDE_EXIT_RUNTIME));
	if (mpi_up()) {
		wait_for_stderr_read();
		MPI_Abort(MPI_COMM_WORLD, SONDE_EXIT_RUNTIME);
	}
	exit(SONDE_EXIT_RUNTIME);
}

/* What the lowest failing rank tells rank 0. */
struct failure {
	int err;
	char path[PATH_MAX];
	char msg[1536];
};

static int agree(MPI_Comm comm, struct failure *f, int local_ok)
{
	if (!mpi_up() || comm == MPI_COMM_NULL) {
		if (!local_ok) {
			emit_for("error", -1, f->msg);
			failed(-1, f->path[0] ? f->path : NULL, f->msg);
		}
		return local_ok != 0;
	}
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int mine = local_ok ? size : rank, first_bad;
	MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, comm);
	if (first_bad == size)
		return 1;
	/* The lowest failing rank's message travels to rank 0, which prints it once. */
	if (first_bad != 0) {
		if (rank == first_bad)
			MPI_Send(f, (int)sizeof *f, MPI_BYTE, 0, 7001, comm);
		else if (rank == 0)
			MPI_Recv(f, (int)sizeof *f, MPI_BYTE, first_bad, 7001, comm,
			         MPI_STATUS_IGNORE);
	}
	MPI_Bcast(&f->err, 1, MPI_INT, first_bad, comm);
	if (rank == 0) {
		int world_bad = first_bad;
		MPI_Group from, to;
		MPI_Comm_group(comm, &from);
		MPI_Comm_group(MPI_COMM_WORLD, &to);
		MPI_Group_translate_ranks(from, 1, &first_bad, to, &world_bad);
		MPI_Group_free(&from);
		MPI_Group_free(&to);
		emit_for("error", size > 1 && first_bad != 0 ? world_bad : -1, f->msg);
		failed(world_bad, f->path[0] ? f->path : NULL, f->msg);
	}
	return 0;
}

int sonde_agree(MPI_Comm comm, int local_ok, const char *fmt, ...)
{
	static struct failure f;
	memset(&f, 0, sizeof f);
	if (!local_ok) {
		va_list ap;
		va_start(ap, fmt);
		format_line(f.msg, sizeof f.msg, fmt, ap);
		va_end(ap);
	}
	return agree(comm, &f, local_ok);
}

int sonde_agree_path(MPI_Comm comm, int err, const char *path, const char *fmt, ...)
{
	static struct failure f;
	memset(&f, 0, sizeof f);
	if (err) {
		f.err = err < 0 ? -err : err;
		snprintf(f.path, sizeof f.path, "%s", path ? path : "");
		va_list ap;
		va_start(ap, fmt);
		format_line(f.msg, sizeof f.msg, fmt, ap);
		va_end(ap);
	}
	agree(comm, &f, err == 0);
	return f.err;
}

static const char *const reason_names[SONDE_REASON_COUNT] = {
    [SONDE_REASON_OK] = "ok",
    [SONDE_REASON_IO_ERROR] = "io-error",
    [SONDE_REASON_VERIFICATION] = "verification",
    [SONDE_REASON_USAGE] = "usage",
    [SONDE_REASON_SIGNAL] = "signal",
    [SONDE_REASON_PEER_FAILED] = "peer-failed",
};

const char *sonde_reason_name(enum sonde_reason reason)
{
	return reason >= 0 && reason < SONDE_REASON_COUNT ? reason_names[reason] : "io-error";
}

enum sonde_reason sonde_reason_of_exit(int code)
{
	switch (code) {
	case SONDE_EXIT_OK:
		return SONDE_REASON_OK;
	case SONDE_EXIT_USAGE:
		return SONDE_REASON_USAGE;
	case SONDE_EXIT_VERIFY:
		return SONDE_REASON_VERIFICATION;
	case SONDE_EXIT_SIGNAL:
		return SONDE_REASON_SIGNAL;
	default:
		return SONDE_REASON_IO_ERROR;
	}
}

int sonde_exit_class(int err, enum sonde_stage stage)
{
	if (err < 0)
		err = -err;
	if (stage == SONDE_STAGE_RUN)
		return SONDE_EXIT_RUNTIME;
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case EISDIR:
	case ENAMETOOLONG:
	case ELOOP:
	case EINVAL:
	case EEXIST:
	case ENXIO:
	case ENODEV:
	/* a path the user named that this user may not use: another path is the fix (a
	 * read-only file system is the system's state, not the user's input: EROFS stays 1) */
	case EACCES:
	case EPERM:
		return SONDE_EXIT_USAGE;
	default:
		return SONDE_EXIT_RUNTIME;
	}
}

int sonde_errno_of_mpi(int mpi_rc)
{
	int cls = MPI_ERR_OTHER;
	MPI_Error_class(mpi_rc, &cls);
	switch (cls) {
	case MPI_SUCCESS:
		return 0;
	case MPI_ERR_NO_SUCH_FILE:
		return ENOENT;
	case MPI_ERR_FILE_EXISTS:
		return EEXIST;
	case MPI_ERR_ACCESS:
		return EACCES;
	case MPI_ERR_NO_SPACE:
		return ENOSPC;
	case MPI_ERR_QUOTA:
		return EDQUOT;
	case MPI_ERR_READ_ONLY:
		return EROFS;
	case MPI_ERR_FILE_IN_USE:
		return EBUSY;
	case MPI_ERR_BAD_FILE:
	case MPI_ERR_AMODE:
	case MPI_ERR_INFO:
	case MPI_ERR_INFO_KEY:
	case MPI_ERR_INFO_VALUE:
	case MPI_ERR_INFO_NOKEY:
	case MPI_ERR_ARG:
	case MPI_ERR_COUNT:
	case MPI_ERR_TYPE:
		return EINVAL;
	case MPI_ERR_UNSUPPORTED_OPERATION:
	case MPI_ERR_UNSUPPORTED_DATAREP:
		return ENOTSUP;
	default:
		return EIO;
	}
}

static jmp_buf *exit_trap;

void sonde_fail_set_exit_trap(jmp_buf *trap)
{
	exit_trap = trap;
}

_Noreturn void sonde_exit(int code)
{
	code = ended(code);
	if (exit_trap)
		longjmp(*exit_trap, code + 1);
	fflush(stdout);
	fflush(stderr);
	if (mpi_up())
		MPI_Finalize();
	exit(code);
}

const char *sonde_strerror(int errnum)
{
	static _Thread_local char buf[128];
	return strerror_r(errnum, buf, sizeof buf);
}
