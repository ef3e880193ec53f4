#include "fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

static const char *workload_name = "";

void sonde_fail_set_workload(const char *name)
{
	workload_name = name ? name : "";
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

/* MPICH's error strings run over several lines ("File does not exist, error stack:\n
 * ADIOI_UFS_OPEN(37): ..."): its call stack goes, and any other line break becomes "; ", so
 * that every message stays the one line users and scripts expect. */
static void one_line(char *msg)
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
		if (in[1] && out > msg) {
			*out++ = ';';
			*out++ = ' ';
		}
	}
	*out = '\0';
}

/* One write() per message so lines from several ranks do not interleave mid-line. */
static void emit(const char *kind, int with_rank, const char *fmt, va_list ap)
{
	char msg[2048];
	int n;
	if (*workload_name)
		n = snprintf(msg, sizeof msg, "sonde %s: ", workload_name);
	else
		n = snprintf(msg, sizeof msg, "sonde: ");
	if (with_rank)
		n += snprintf(msg + n, sizeof msg - (size_t)n, "rank %d: ", world_rank());
	n += snprintf(msg + n, sizeof msg - (size_t)n, "%s: ", kind);
	if (n < (int)sizeof msg) {
		vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
		one_line(msg + n);
	}
	size_t len = strnlen(msg, sizeof msg - 2);
	msg[len] = '\n';
	fflush(stdout);
	fwrite(msg, 1, len + 1, stderr);
	fflush(stderr);
}

void sonde_error(const char *fmt, ...)
{
	if (world_rank() != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit("error", 0, fmt, ap);
	va_end(ap);
}

void sonde_warn(const char *fmt, ...)
{
	if (world_rank() != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit("warning", 0, fmt, ap);
	va_end(ap);
}

_Noreturn void sonde_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("error", world_size() > 1, fmt, ap);
	va_end(ap);
	sonde_results_close(SONDE_EXIT_RUNTIME);
	if (mpi_up())
		MPI_Abort(MPI_COMM_WORLD, SONDE_EXIT_RUNTIME);
	exit(SONDE_EXIT_RUNTIME);
}

int sonde_agree(MPI_Comm comm, int local_ok, const char *fmt, ...)
{
	char msg[1536] = "";
	if (!local_ok) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		one_line(msg);
	}
	if (!mpi_up() || comm == MPI_COMM_NULL) {
		if (!local_ok)
			fprintf(stderr, "sonde %s: error: %s\n", workload_name, msg);
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
			MPI_Send(msg, (int)sizeof msg, MPI_CHAR, 0, 7001, comm);
		else if (rank == 0)
			MPI_Recv(msg, (int)sizeof msg, MPI_CHAR, first_bad, 7001, comm,
			         MPI_STATUS_IGNORE);
	}
	if (rank == 0) {
		if (size > 1 && first_bad != 0)
			fprintf(stderr, "sonde %s: rank %d: error: %s\n", workload_name, first_bad,
			        msg);
		else
			fprintf(stderr, "sonde %s: error: %s\n", workload_name, msg);
		fflush(stderr);
	}
	return 0;
}

_Noreturn void sonde_exit(int code)
{
	sonde_results_close(code);
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
