/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad input every rank sees alike, and the small text files input may come in (-setup,
 * -targets): shared by the option checks, the setup and the aggregation plan, which call
 * nothing back. */
#include <stdarg.h>
#include <stdio.h>

#include "fail.h"
#include "input.h"
#include "workloads/mpiio/mpiio.h"

_Noreturn void mpiio_usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sonde_error("%s", msg);
	sonde_exit(SONDE_EXIT_USAGE);
}

char *mpiio_read_text(MPI_Comm comm, const char *option, const char *path)
{
	char why[256];
	int err;
	size_t len;
	char *text = sonde_input_read(comm, path, &len, &err, why, sizeof why);
	if (!text)
		mpiio_usage_error("-%s %s: %s", option, path, why);
	return text;
}
