/* SPDX-License-Identifier: BSD-3-Clause */
/* IOR's showHints for the backends over MPI-IO (MPIIO, HDF5, NCMPI): the hints an open passes
 * and the ones in effect on the opened file, as IOR prints them (the format of IOR 4.1's
 * ShowHints, read, not copied). */
#include "backend.h"

#include <stdio.h>

/* A line in place of the keys when the MPI library cannot list them: the block still says
 * what was asked, and no key is made up. */
static void cannot_list(FILE *out, const char *call, int rc)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	fprintf(out, "\t(the MPI library cannot list the hints: %s: %s)\n", call, msg);
}

void sonde_io_show_hints(FILE *out, const char *title, MPI_Info info)
{
	if (!out)
		return;
	fprintf(out, "\n%s {\n", title);
	int nkeys = 0;
	int rc = info == MPI_INFO_NULL ? MPI_SUCCESS : MPI_Info_get_nkeys(info, &nkeys);
	if (rc != MPI_SUCCESS)
		cannot_list(out, "MPI_Info_get_nkeys", rc);
	for (int i = 0; i < nkeys && rc == MPI_SUCCESS; i++) {
		char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
		int flag = 0;
		rc = MPI_Info_get_nthkey(info, i, key);
		if (rc != MPI_SUCCESS) {
			cannot_list(out, "MPI_Info_get_nthkey", rc);
			break;
		}
		rc = MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
		if (rc != MPI_SUCCESS) {
			cannot_list(out, "MPI_Info_get", rc);
			break;
		}
		if (flag)
			fprintf(out, "\t%s = %s\n", key, value);
	}
	fprintf(out, "}\n");
	fflush(out);
}

void sonde_io_show_file_hints(FILE *out, MPI_File fh)
{
	if (!out)
		return;
	MPI_Info used = MPI_INFO_NULL;
	int rc = MPI_File_get_info(fh, &used);
	if (rc != MPI_SUCCESS) {
		fprintf(out, "\n%s {\n", SONDE_HINTS_RETURNED);
		cannot_list(out, "MPI_File_get_info", rc);
		fprintf(out, "}\n");
		fflush(out);
		return;
	}
	sonde_io_show_hints(out, SONDE_HINTS_RETURNED, used);
	MPI_Info_free(&used);
}
