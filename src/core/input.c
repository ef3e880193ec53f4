/* SPDX-License-Identifier: BSD-3-Clause */
/* Input files read once by rank 0 and shared (input.h). */
#include "input.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "files.h"

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		sonde_fatal("out of memory for an input file of %zu bytes", n);
	return p;
}

char *sonde_bcast_text(MPI_Comm comm, const char *text, size_t len, size_t *out_len)
{
	int rank = 0;
	if (comm != MPI_COMM_NULL)
		MPI_Comm_rank(comm, &rank);
	uint64_t n = rank == 0 ? len : 0;
	if (comm != MPI_COMM_NULL)
		MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm);
	char *copy = xmalloc((size_t)n + 1);
	if (rank == 0 && n)
		memcpy(copy, text, (size_t)n);
	/* SONDE_INPUT_MAX keeps n within an int count */
	if (comm != MPI_COMM_NULL && n)
		MPI_Bcast(copy, (int)n, MPI_CHAR, 0, comm);
	copy[n] = '\0';
	*out_len = (size_t)n;
	return copy;
}

/* Rank 0's part: the whole file, or NULL with *err and why set. */
static char *read_whole(const char *path, size_t *len, int *err, char *why, size_t whylen)
{
	FILE *f = sonde_fopen_input(path, why, whylen);
	if (!f) {
		*err = errno ? errno : EIO;
		return NULL;
	}
	size_t cap = 4096, n = 0, got;
	char *text = xmalloc(cap);
	while ((got = fread(text + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n > SONDE_INPUT_MAX)
			break;
		if (n == cap) {
			cap *= 2;
			char *bigger = realloc(text, cap);
			if (!bigger)
				sonde_fatal("out of memory for input file %s", path);
			text = bigger;
		}
	}
	int failed = ferror(f);
	fclose(f);
	if (failed || n > SONDE_INPUT_MAX) {
		*err = failed ? EIO : EFBIG;
		snprintf(why, whylen, "%s",
		         failed ? "cannot read it" : "larger than 16 MiB: not an input file");
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}

char *sonde_input_read(MPI_Comm comm, const char *path, size_t *len, int *err, char *why,
                       size_t whylen)
{
	int rank = 0;
	if (comm != MPI_COMM_NULL)
		MPI_Comm_rank(comm, &rank);
	struct {
		int err;
		char why[256];
	} outcome = {0, ""};
	char *text = NULL;
	size_t n = 0;
	if (rank == 0)
		text = read_whole(path, &n, &outcome.err, outcome.why, sizeof outcome.why);
	if (comm != MPI_COMM_NULL)
		MPI_Bcast(&outcome, (int)sizeof outcome, MPI_BYTE, 0, comm);
	*err = outcome.err;
	snprintf(why, whylen, "%s", outcome.why);
	if (outcome.err) {
		free(text);
		*len = 0;
		return NULL;
	}
	char *shared = sonde_bcast_text(comm, text, n, len);
	free(text);
	return shared;
}

FILE *sonde_input_open(MPI_Comm comm, const char *path, int *err, char *why, size_t whylen)
{
	size_t len;
	char *text = sonde_input_read(comm, path, &len, err, why, whylen);
	if (!text)
		return NULL;
	/* a stream that owns its buffer (freed by fclose), holding a copy of the text */
	FILE *f = fmemopen(NULL, len + 1, "w+");
	if (!f || (len && fwrite(text, 1, len, f) != len)) {
		*err = errno ? errno : ENOMEM;
		snprintf(why, whylen, "%s", sonde_strerror(*err));
		if (f)
			fclose(f);
		free(text);
		return NULL;
	}
	free(text);
	rewind(f);
	return f;
}
