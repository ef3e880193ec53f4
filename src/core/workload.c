/* SPDX-License-Identifier: BSD-3-Clause */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "results.h"
#include "timeseries.h"
#include "units.h"

/* --progress-interval SECONDS: lines every SECONDS, and --progress with it. */
static int parse_progress_interval(void *cfg, const char *value, char *err, size_t errlen)
{
	struct sonde_common *c = cfg;
	double seconds;
	if (sonde_parse_double(value, &seconds, err, errlen) < 0)
		return -1;
	if (seconds < 0) {
		snprintf(err, errlen, "'%s' is negative (seconds, 0 for a line at every step)",
		         value);
		return -1;
	}
	c->progress = 1;
	c->progress_lines = 1;
	c->progress_interval = seconds;
	return 0;
}

/* --interval SECONDS: at least SONDE_SERIES_MIN_INTERVAL, since each interval costs every rank a
 * latency histogram. */
static int parse_interval(void *cfg, const char *value, char *err, size_t errlen)
{
	struct sonde_common *c = cfg;
	return sonde_series_parse_interval(value, &c->interval, err, errlen);
}

static const struct sonde_option common_options[] = {
    {0, "json", SONDE_OPT_STRING, offsetof(struct sonde_common, json_path), "FILE",
     "append JSON Lines result records to FILE (never truncated)"},
    {0, "csv", SONDE_OPT_STRING, offsetof(struct sonde_common, csv_path), "FILE",
     "append one CSV row per measurement to FILE"},
    {0, "progress", SONDE_OPT_FLAG, offsetof(struct sonde_common, progress), NULL,
     "show a live line during long phases: done, rate, time left (rank 0, on the terminal; "
     "every 10 s on stderr otherwise)"},
    {0, "progress-interval", SONDE_OPT_CALLBACK, 0, "SECONDS",
     "--progress as a line on stderr every SECONDS (0: at every step), never redrawn, even on a "
     "terminal (a log kept with tee)",
     .parse = parse_progress_interval},
    {0, "interval", SONDE_OPT_CALLBACK, 0, "SECONDS",
     "time series: one \"interval\" record per SECONDS of each I/O phase (bytes, calls, rate, "
     "p50/p99 latency, ranks active), reduced after the phase; needs --json or --live",
     .parse = parse_interval},
    {0, "live", SONDE_OPT_STRING, offsetof(struct sonde_common, live_path), "FILE",
     "append the interval records to FILE (rank 0) while the phase runs, once every rank has "
     "left the interval (--interval 1 unless given)"},
    {0, "strict", SONDE_OPT_FLAG, offsetof(struct sonde_common, strict), NULL,
     "refuse, before any I/O, a run whose data cannot fit in the file system's free space "
     "(without it: a warning); sonde-suite passes it"},
};

const struct sonde_option_table sonde_common_options = {
    .command = "sonde <workload>",
    .usage = "[options]",
    .style = SONDE_STYLE_SHORT,
    .options = common_options,
    .count = (int)(sizeof common_options / sizeof common_options[0]),
};

static struct sonde_option_set workload_set;

struct sonde_option_set *sonde_parse_command_line(struct sonde_context *ctx,
                                                  const struct sonde_option_table *table, void *cfg,
                                                  int argc, char **argv,
                                                  struct sonde_parse_result *positional)
{
	table = sonde_options_full(table);
	struct sonde_option_set sets[2] = {
	    {.table = table, .cfg = cfg},
	    {.table = &sonde_common_options, .cfg = &ctx->common},
	};
	char err[512];
	if (sonde_options_parse(sets, 2, argc, argv, 1, positional, err, sizeof err) < 0) {
		sonde_error("%s (%s --help lists the options)", err, table->command);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	free(sets[1].given);
	free(workload_set.given);
	workload_set = sets[0];
	if (positional->help && ctx->parse_only) {
		sonde_error("--help asks for the help text: there is no run to check");
		sonde_exit(SONDE_EXIT_USAGE);
	}
	if (positional->help) {
		if (ctx->rank == 0)
			sonde_options_help(table, stdout);
		sonde_exit(SONDE_EXIT_OK);
	}
	if (!ctx->common.json_path && !ctx->common.live_path && ctx->common.interval > 0 &&
	    !ctx->in_mix) {
		sonde_error("--interval writes interval records: give --json or --live");
		sonde_exit(SONDE_EXIT_USAGE);
	}
	if (ctx->parse_only)
		return &workload_set;
	int ok = sonde_results_open(ctx->comm, ctx->workload, ctx->common.json_path,
	                            ctx->common.csv_path, err, sizeof err) == 0;
	if (!sonde_agree(ctx->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	ok = sonde_series_setup(ctx, err, sizeof err) == 0;
	if (!sonde_agree(ctx->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	return &workload_set;
}
