/* SPDX-License-Identifier: BSD-3-Clause */
/* pfind's command line: the find(1)-style tests as whole words (-newer, -size, -name) and
 * pfind's one-letter options, also as words (-C, -q 10000, -D rates). */
#include <string.h>

#include "json.h"
#include "workloads/find/find.h"

#define F(field) SONDE_FIELD(struct find_params, field)

static const char *unless_listing(const void *cfg)
{
	return ((const struct find_params *)cfg)->count_only ? "applies without -C" : NULL;
}

static int parse_debug(void *cfg, const char *value, char *err, size_t errlen)
{
	if (strcmp(value, "rates") != 0) {
		snprintf(err, errlen, "'%s': the only debug output is 'rates'", value);
		return -1;
	}
	((struct find_params *)cfg)->debug = "rates";
	return 0;
}

static void show_debug(const void *cfg, const char *key, struct sonde_json *j)
{
	sonde_json_string(j, key, ((const struct find_params *)cfg)->debug);
}

static void show_size(const void *cfg, const char *key, struct sonde_json *j)
{
	sonde_json_string(j, key, ((const struct find_params *)cfg)->size_text);
}

static int parse_size(void *cfg, const char *value, char *err, size_t errlen)
{
	struct find_size s;
	if (find_size_parse(value, &s, err, errlen) < 0)
		return -1;
	((struct find_params *)cfg)->size_text = value;
	return 0;
}

static const struct sonde_option options[] = {
    {0, "newer", SONDE_OPT_STRING, F(newer), "FILE",
     "entries modified later than FILE was (to the nanosecond, as find(1))"},
    {0, "size", SONDE_OPT_CALLBACK, 0, "[+-]N[cwbkMG]",
     "entries of N units (rounded up; c bytes, w 2 bytes, b 512 bytes (default), k, M, G), "
     "more (+N) or fewer (-N)",
     0, 0, 0, 0, NULL, parse_size, .key = "size", .show = show_size, .shows = SONDE_RECORD_STRING},
    {0, "name", SONDE_OPT_STRING, F(name), "PATTERN",
     "entries whose base name matches the shell pattern (fnmatch, as find(1))"},
    {0, "regex", SONDE_OPT_REFUSED, 0, NULL,
     "not implemented: pfind's -regex searches the name with a basic regular expression, "
     "unlike find(1)'s; use -name"},
    {0, "C", SONDE_OPT_FLAG, F(count_only), NULL, "count the matches, do not print their names",
     .key = "count_only"},
    {0, "P", SONDE_OPT_FLAG, F(per_process), NULL, "print one result line per rank",
     .key = "per_process"},
    {0, "D", SONDE_OPT_CALLBACK, 0, "rates", "print the rate and the time (-D rates)", 0, 0, 0, 0,
     NULL, parse_debug, .key = "debug", .show = show_debug, .shows = SONDE_RECORD_STRING},
    {0, "s", SONDE_OPT_INT, F(stonewall), "SECONDS",
     "stonewall: stop looking after SECONDS (0 = never)", 0, 1 << 30, .key = "stonewall"},
    {0, "q", SONDE_OPT_INT, F(queue_length), "N",
     "queue length: files to stat are queued (and can be taken by idle ranks) up to N, then "
     "stat-ed at once",
     10, 1 << 30, .key = "queue_length"},
    {0, "M", SONDE_OPT_INT, F(max_entries), "N",
     "directory entries read before answering other ranks (default 1000)", 1, 1 << 30,
     .key = "max_entries"},
    {0, "N", SONDE_OPT_FLAG, F(steal_next), NULL,
     "an idle rank asks the previous rank for work half of the time, else a random one",
     .key = "steal_from_next"},
    {0, "v", SONDE_OPT_COUNT, F(verbose), NULL,
     "more output: work-sharing figures (-v), each directory that cannot be read (-v -v)",
     .key = "verbose"},
    {0, "r", SONDE_OPT_STRING, F(results_dir), "DIR",
     "write each rank's matches to DIR/<rank>.txt instead of standard output",
     .inert = unless_listing, .key = "results_dir"},
    {0, "e", SONDE_OPT_REFUSED, 0, NULL, "erasing the matched files is not implemented"},
    {0, "E", SONDE_OPT_REFUSED, 0, NULL, "erasing empty directories is not implemented"},
    {0, "H", SONDE_OPT_REFUSED, 0, NULL,
     "splitting one directory between ranks (telldir cookies) is not implemented"},
};

static void table_defaults(void *cfg)
{
	find_params_defaults(cfg);
}

static const char *const positional_paths[] = {"workdir", NULL};

const struct sonde_option_table find_options = {
    .command = "sonde find",
    .usage = "DIR [-newer FILE] [-size N[c]] [-name PATTERN] [options]",
    .summary = "A parallel find in the spirit of pfind (the IO500 find): the ranks walk the "
               "tree under DIR together, an idle rank taking half of another's pending "
               "directories and files, and print the entries that pass every test, pfind's "
               "[DONE] line and MATCHED <found>/<scanned>. The tests mean what find(1)'s do, "
               "so the matches equal `find DIR <tests>`'s.",
    .style = SONDE_STYLE_WORDS,
    .options = options,
    .count = (int)(sizeof options / sizeof options[0]),
    .cfg_size = sizeof(struct find_params),
    .defaults = table_defaults,
    .positional_paths = positional_paths,
    .epilog = "Scanned counts every entry tested, directories and the start point too (pfind "
              "counts the entries that are not directories); the rate is scanned entries per "
              "second of the slowest rank.\n"
              "Example (the IO500 query): mpirun -n 8 sonde find /scratch/io500 -newer "
              "/scratch/timestampfile -size 3901c -name '*01*' -C -D rates",
};

void find_params_defaults(struct find_params *p)
{
	memset(p, 0, sizeof *p);
	p->queue_length = 100000;
	p->max_entries = 1000;
}
