/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors: one clear line, from one rank, and a non-zero exit without a hang.
 *
 * Three situations, three calls:
 *  - every rank sees the same bad input (options, sizes, input files): rank 0 prints, all ranks
 *    leave through sonde_exit() with SONDE_EXIT_USAGE;
 *  - ranks may disagree (one rank cannot open its file): sonde_agree() is collective, the lowest
 *    failing rank's message is printed once, and every rank returns the same verdict;
 *  - a rank is alone with a fatal error in a place where others may wait on it forever:
 *    sonde_fatal() prints with the rank and calls MPI_Abort, so the launcher ends the job. */
#ifndef SONDE_FAIL_H
#define SONDE_FAIL_H

#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>

enum sonde_exit {
	SONDE_EXIT_OK = 0,
	SONDE_EXIT_RUNTIME = 1, /* I/O error, MPI error, resource problem, a peer rank failed */
	SONDE_EXIT_USAGE = 2,   /* bad options, sizes, input files, paths */
	SONDE_EXIT_VERIFY = 3,  /* data verification found mismatches */
	SONDE_EXIT_SIGNAL = 4,  /* stopped by SIGTERM/SIGINT after saving results */
};

/* Why a run ended: the end record's "reason" (docs/results-schema.md). */
enum sonde_reason {
	SONDE_REASON_OK,
	SONDE_REASON_IO_ERROR,
	SONDE_REASON_VERIFICATION,
	SONDE_REASON_USAGE,
	SONDE_REASON_SIGNAL,
	SONDE_REASON_PEER_FAILED, /* another rank died or ended the job; exit code 1 */
	SONDE_REASON_COUNT
};

/* "ok", "io-error", "verification", "usage", "signal", "peer-failed". */
const char *sonde_reason_name(enum sonde_reason reason);
/* The reason an exit code stands for when nothing more is known. */
enum sonde_reason sonde_reason_of_exit(int code);

/* Where a system error happened, which decides its exit class. */
enum sonde_stage {
	/* Opening what the user named before the run depends on it: an input file, the file of
	 * an earlier run to read, the directory to create files in. */
	SONDE_STAGE_INPUT,
	/* Anything once the run has started its I/O, on files it created or already used. */
	SONDE_STAGE_RUN,
};

/* The one decision from an errno value (positive or negative) to an exit code. A path that
 * names nothing this user can use (missing, not a directory, too long, a refused link, a
 * directory or device where a file belongs, a bad argument, permission denied) is a usage
 * error at SONDE_STAGE_INPUT: naming another path is the fix. Every other error (a read-only
 * or full file system, a quota, EIO: the system's state), and every error at
 * SONDE_STAGE_RUN, is a runtime error. */
int sonde_exit_class(int err, enum sonde_stage stage);

/* The errno value that an MPI error code's class stands for (EIO for classes without one). */
int sonde_errno_of_mpi(int mpi_rc);

/* Prints "sonde <workload>: error: <message>" on stderr, on rank 0 of the workload's
 * communicator only (or on the calling rank when MPI is not initialised). Returns nothing; the
 * caller decides how to leave. */
void sonde_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "sonde <workload>: warning: ..." on rank 0 of the workload's communicator only. */
void sonde_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "sonde <workload>: rank R: warning: ..." from the calling rank: what only this rank
 * saw (a node's own state). */
void sonde_warn_here(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "sonde <workload>: rank R: error: ..." from the calling rank and aborts the job. */
_Noreturn void sonde_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Collective over comm. Every rank passes local_ok (non-zero = fine) and, when not fine, a
 * message. If any rank failed, the lowest failing rank's message is printed once (prefixed with
 * its rank when more than one rank runs) and every rank gets 0; otherwise every rank gets 1.
 * The first failure agreed on is the cause the end record names (its rank and message). */
int sonde_agree(MPI_Comm comm, int local_ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sonde_agree for a failure on a file: the failing rank's path also goes to the end record.
 * err is 0 on ranks that are fine and the errno value of the failure otherwise; every rank gets
 * the lowest failing rank's err (0 when none failed). */
int sonde_agree_path(MPI_Comm comm, int err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Finalises MPI if it was initialised (after the end hooks) and exits with code. Under an
 * exit trap, the end hooks run and the trap is jumped to with code + 1 instead. */
_Noreturn void sonde_exit(int code);

/* What must happen when a run fails or ends, registered by the modules above this one (results
 * registers its end record): fail.c calls them and no module of its own accord. */
struct sonde_fail_hook {
	/* A failure that ends the run: the failing rank (-1 when not known), the path (or NULL)
	 * and the one-line message; called by sonde_fatal and on the rank that prints an agreed
	 * failure. */
	void (*failure)(int rank, const char *path, const char *message);
	/* The run ends with exit_code (sonde_exit, sonde_fatal); returns the code it ends with. */
	int (*end)(int exit_code);
	/* The process ends now (sonde_fatal, after end, before MPI_Abort): what outlives a run
	 * (the run of sonde mix around its groups' runs) ends with exit_code too. */
	void (*abort)(int exit_code);
};

/* Adds hook (kept, not copied) once: registering it again changes nothing. The hooks run in the
 * order registered. At most 4; a fifth is a programming error and aborts. */
void sonde_fail_register(const struct sonde_fail_hook *hook);

/* `sonde mix`: a workload that ends its run with sonde_exit (a bad path, a failed check) ends
 * its group's run, not the process: the other groups still run, and MPI_Finalize, collective
 * over the launch, comes once every group is done. NULL removes the trap. */
void sonde_fail_set_exit_trap(jmp_buf *trap);

/* Name used as the message prefix ("ior", "mib", ...); set by main before a workload runs. */
void sonde_fail_set_workload(const char *name);

/* The communicator a workload runs on: its rank 0 prints what sonde_error and sonde_warn print
 * once (MPI_COMM_WORLD until set). group: the group of `sonde mix` the workload runs as, named
 * in every error line ("sonde ior: group 1: rank 3: error: ..."), or -1 outside a mix. Ranks
 * in messages are always ranks of MPI_COMM_WORLD: the launch's ranks. */
void sonde_fail_set_comm(MPI_Comm comm, int group);

/* 0: sonde_warn prints nothing (sonde mix checking its groups' options before their runs, which
 * print the same warnings); 1: as usual. */
void sonde_fail_set_warnings(int on);

/* Makes msg one line in place: MPICH's ", error stack:" and what follows go, line breaks become
 * "; " (";" before a word, where the line has no room for the space). */
void sonde_one_line(char *msg);

/* Formats strerror(errnum) safely (thread-safe buffer per call site). */
const char *sonde_strerror(int errnum);

#endif
