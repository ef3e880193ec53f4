/* SPDX-License-Identifier: BSD-3-Clause */
#include "space.h"

#include <stdio.h>
#include <sys/stat.h>

#include "fail.h"
#include "fsinfo.h"
#include "units.h"

int sonde_space_check(const struct sonde_context *ctx, const char *path, int64_t bytes,
                      const char *replaced, const char *what)
{
	int short_of_space = 0;
	char line[1024] = "";
	struct sonde_fsinfo fs;
	struct stat st;
	if (ctx->rank == 0 && replaced && stat(replaced, &st) == 0 && S_ISREG(st.st_mode))
		bytes -= (int64_t)st.st_size;
	if (ctx->rank == 0 && bytes > 0 && sonde_fsinfo_get(path, &fs) == 0 &&
	    bytes > fs.free_bytes) {
		char need[64], have[64];
		sonde_format_size(bytes, need, sizeof need);
		sonde_format_size(fs.free_bytes, have, sizeof have);
		snprintf(
		    line, sizeof line,
		    "%s need %s, but the %s file system of %.600s has %s free: the write would "
		    "fail part way and fill it",
		    what, need, fs.type, fs.mount[0] ? fs.mount : path, have);
		short_of_space = 1;
	}
	if (ctx->mpi)
		MPI_Bcast(&short_of_space, 1, MPI_INT, 0, ctx->comm);
	if (!short_of_space)
		return 0;
	if (ctx->common.strict) {
		sonde_error("%s (--strict)", line);
		return -1;
	}
	sonde_warn("%s (--strict refuses such a run)", line);
	return 0;
}
