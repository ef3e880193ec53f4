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
#include <stdarg.h>

enum sonde_exit {
	SONDE_EXIT_OK = 0,
	SONDE_EXIT_RUNTIME = 1, /* I/O error, MPI error, resource problem */
	SONDE_EXIT_USAGE = 2,   /* bad options, sizes, input files, paths */
	SONDE_EXIT_VERIFY = 3,  /* data verification found mismatches */
	SONDE_EXIT_SIGNAL = 4,  /* stopped by SIGTERM/SIGINT after saving results */
};

/* Prints "sonde <workload>: error: <message>" on stderr, on rank 0 only (or on the calling rank
 * when MPI is not initialised). Returns nothing; the caller decides how to leave. */
void sonde_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "sonde <workload>: warning: ..." on rank 0 only. */
void sonde_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "sonde <workload>: rank R: error: ..." from the calling rank and aborts the job. */
_Noreturn void sonde_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Collective over comm. Every rank passes local_ok (non-zero = fine) and, when not fine, a
 * message. If any rank failed, the lowest failing rank's message is printed once (prefixed with
 * its rank when more than one rank runs) and every rank gets 0; otherwise every rank gets 1. */
int sonde_agree(MPI_Comm comm, int local_ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Finalises MPI if it was initialised (flushing results first) and exits with code. */
_Noreturn void sonde_exit(int code);

/* Name used as the message prefix ("ior", "mib", ...); set by main before a workload runs. */
void sonde_fail_set_workload(const char *name);

/* Formats strerror(errnum) safely (thread-safe buffer per call site). */
const char *sonde_strerror(int errnum);

#endif
