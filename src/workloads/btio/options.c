/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde btio's options: the input file stays the original's interface; these long options
 * override its lines, so a sweep needs no file per point. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "workloads/btio/btio.h"

static int parse_mode(void *cfg, const char *value, char *err, size_t errlen)
{
	struct btio_options *o = cfg;
	if (strcmp(value, "w") == 0)
		o->mode = 1;
	else if (strcmp(value, "r") == 0)
		o->mode = 2;
	else if (strcmp(value, "rw") == 0)
		o->mode = 3;
	else {
		snprintf(err, errlen,
		         "bad --mode '%s': expected w (write), r (read) or rw (write, "
		         "then read back)",
		         value);
		return -1;
	}
	return 0;
}

static int parse_grid(void *cfg, const char *value, char *err, size_t errlen)
{
	struct btio_options *o = cfg;
	return btio_parse_grid(value, o->grid, err, errlen);
}

static void show_mode(const void *cfg, const char *key, struct sonde_json *j)
{
	const struct btio_options *o = cfg;
	sonde_json_string(j, key, o->mode == 3 ? "rw" : o->mode == 2 ? "r" : "w");
}

static void show_grid(const void *cfg, const char *key, struct sonde_json *j)
{
	const struct btio_options *o = cfg;
	sonde_json_array_begin(j, key);
	for (int d = 0; d < 3; d++)
		sonde_json_int(j, NULL, o->grid[d]);
	sonde_json_array_end(j);
}

#define F(field) SONDE_FIELD(struct btio_options, field)

static const struct sonde_option options[] = {
    {0, "mode", SONDE_OPT_CALLBACK, 0, "w|r|rw",
     "write, read, or write then read back in one run (input file line 1)", .parse = parse_mode,
     .show = show_mode, .shows = SONDE_RECORD_STRING},
    {0, "method", SONDE_OPT_INT, F(method), "N",
     "0 MPI collective, 1 MPI independent, 2 PnetCDF blocking, 3 PnetCDF non-blocking (line 2)", 0,
     3},
    {0, "dumps", SONDE_OPT_LONG, F(dumps), "N",
     "number of dumps (records) written or read (line 3)", 1, INT32_MAX},
    {0, "grid", SONDE_OPT_CALLBACK, 0, "XxYxZ",
     "global array size in points, e.g. 512x512x512 "
     "(line 4)",
     .parse = parse_grid, .show = show_grid, .shows = SONDE_RECORD_LIST},
    {0, "dir", SONDE_OPT_STRING, F(dir), "PATH", "directory of the file (line 5)"},
    {0, "file", SONDE_OPT_STRING, F(file), "NAME",
     "file name in the directory (default btio.mpi for methods 0/1, btio.nc for 2/3); methods 0/1 "
     "also read a btio.nc"},
    {0, "no-verify", SONDE_OPT_FLAG, F(no_verify), NULL,
     "do not check the values read (for files written by other programs)"},
    {0, "hints", SONDE_OPT_LIST, F(hints), "K=V[,K=V]",
     "MPI-IO/PnetCDF hints for the file (repeatable)"},
};

const struct sonde_option_table btio_option_table = {
    .command = "sonde btio",
    .usage = "[options] [inputbt.data]",
    .summary = "The NAS BT-IO pattern (wkliao's BTIO): a square number of ranks write and read "
               "dumps of a 5-D array, each rank through sqrt(P) cells on a diagonal of the "
               "multi-partition decomposition, with MPI-IO or PnetCDF. Strong scaling: the "
               "array size does not depend on the rank count.",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = (int)(sizeof options / sizeof options[0]),
    .epilog = "The input file (the only argument, default ./inputbt.data) has five lines: mode "
              "(w or r), method (0..3), number of dumps, grid points X Y Z, and the directory; "
              "text after the values is ignored. Without an input file, --method, --dumps and "
              "--grid are needed (--mode defaults to w, --dir to the current directory). Every "
              "value read is checked against what was written unless --no-verify is given.",
};
