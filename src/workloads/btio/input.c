/* SPDX-License-Identifier: BSD-3-Clause */
/* The original's input file, inputbt.data: five lines read as Fortran list-directed input, so
 * whatever follows the values on a line (the "# comment" text) is ignored. Line by line:
 *   1  mode: w (write) or r (read)
 *   2  method: 0..3
 *   3  number of dumps
 *   4  grid points X Y Z
 *   5  directory (the whole line; a " #..." tail is taken as a comment) */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "input.h"
#include "workloads/btio/btio.h"

/* Up to max list-directed values of a line: words separated by blanks or commas. */
static int split_values(char *line, char **words, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *w = strtok_r(line, " \t,\r\n", &save); w && n < max;
	     w = strtok_r(NULL, " \t,\r\n", &save))
		words[n++] = w;
	return n;
}

static int parse_int(const char *word, int64_t min, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(word, &end, 10);
	if (errno || end == word || *end || v < min)
		return -1;
	*out = v;
	return 0;
}

int btio_parse_grid(const char *text, int64_t grid[3], char *err, size_t errlen)
{
	char copy[128];
	if (strlen(text) >= sizeof copy) {
		snprintf(err, errlen, "bad grid '%.40s...': expected XxYxZ", text);
		return -1;
	}
	strcpy(copy, text);
	char *save = NULL, *w[4];
	int n = 0;
	for (char *t = strtok_r(copy, "xX,", &save); t && n < 4; t = strtok_r(NULL, "xX,", &save))
		w[n++] = t;
	int64_t g[3];
	if (n != 3 || parse_int(w[0], 1, &g[0]) || parse_int(w[1], 1, &g[1]) ||
	    parse_int(w[2], 1, &g[2])) {
		snprintf(err, errlen,
		         "bad grid '%s': expected three positive sizes XxYxZ, e.g. 64x64x64", text);
		return -1;
	}
	memcpy(grid, g, sizeof g);
	return 0;
}

/* Removes a trailing comment (a '#' after a blank, so that paths may hold '#') and blanks. */
static void trim_line(char *line)
{
	for (char *p = line; *p; p++)
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	size_t len = strlen(line);
	while (len && isspace((unsigned char)line[len - 1]))
		line[--len] = '\0';
	size_t lead = strspn(line, " \t");
	memmove(line, line + lead, len - lead + 1);
}

int btio_read_input(MPI_Comm comm, const char *path, struct btio_setup *out, int *read_err,
                    char *err, size_t errlen)
{
	char why[256];
	FILE *f = sonde_input_open(comm, path, read_err, why, sizeof why);
	if (!f) {
		if (*read_err == ENOENT)
			snprintf(err, errlen, "No input file %s. Exiting ...", path);
		else
			snprintf(err, errlen, "cannot open input file %s: %s", path, why);
		return -1;
	}
	char lines[5][BTIO_PATH_MAX + 2];
	int got = 0;
	while (got < 5 && fgets(lines[got], sizeof lines[got], f)) {
		size_t len = strlen(lines[got]);
		if (len == sizeof lines[got] - 1 && lines[got][len - 1] != '\n') {
			snprintf(err, errlen, "%s: line %d is longer than %d characters", path,
			         got + 1, BTIO_PATH_MAX);
			fclose(f);
			return -1;
		}
		got++;
	}
	int read_error = ferror(f);
	fclose(f);
	if (read_error) {
		snprintf(err, errlen, "cannot read input file %s", path);
		return -1;
	}
	static const char *const what[5] = {"the I/O mode (w or r)", "the I/O method (0..3)",
	                                    "the number of dumps", "the grid points X Y Z",
	                                    "the directory"};
	if (got < 5) {
		snprintf(err, errlen, "%s: line %d is missing: expected %s", path, got + 1,
		         what[got]);
		return -1;
	}

	/* Fortran reads one character: "write" and "read" count as w and r, as they did. */
	char *w[3];
	int nw = split_values(lines[0], w, 1);
	if (nw != 1 || (w[0][0] != 'w' && w[0][0] != 'r')) {
		snprintf(err, errlen,
		         "%s: line 1: bad I/O mode '%s': expected w (write) or r (read)", path,
		         nw ? w[0] : "");
		return -1;
	}
	out->write = w[0][0] == 'w';
	out->read = !out->write;

	int64_t v;
	nw = split_values(lines[1], w, 1);
	if (nw != 1 || parse_int(w[0], 0, &v) || v > 3) {
		snprintf(err, errlen,
		         "%s: line 2: bad I/O method '%s': expected 0 (MPI collective), 1 (MPI "
		         "independent), 2 (PnetCDF blocking) or 3 (PnetCDF non-blocking)",
		         path, nw ? w[0] : "");
		return -1;
	}
	out->method = (int)v;

	if (split_values(lines[2], w, 1) != 1 || parse_int(w[0], 1, &out->dumps)) {
		snprintf(err, errlen, "%s: line 3: expected %s, a positive integer", path, what[2]);
		return -1;
	}

	if (split_values(lines[3], w, 3) != 3 || parse_int(w[0], 1, &out->grid[0]) ||
	    parse_int(w[1], 1, &out->grid[1]) || parse_int(w[2], 1, &out->grid[2])) {
		snprintf(err, errlen, "%s: line 4: expected %s, three positive integers", path,
		         what[3]);
		return -1;
	}

	trim_line(lines[4]);
	if (!lines[4][0]) {
		snprintf(err, errlen, "%s: line 5: expected %s", path, what[4]);
		return -1;
	}
	snprintf(out->dir, sizeof out->dir, "%s", lines[4]);
	return 0;
}
