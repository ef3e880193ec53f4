/* SPDX-License-Identifier: BSD-3-Clause */
/* The bash completion from the option tables, run by bash itself: the workloads after `sonde`,
 * a workload's options and the common ones after a dash, the choices a metavar like w|r|rw
 * lists, file names after a FILE or PATH option, nothing after an option whose value is a
 * number, and no refused option offered. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io_check.h"
#include "shell_completion.h"
#include "workload.h"

struct cfg {
	int64_t count;
	const char *mode, *path;
};

static const struct sonde_option options[] = {
    {'n', "count", SONDE_OPT_LONG, offsetof(struct cfg, count), "N", "how many", 1, 100},
    {0, "mode", SONDE_OPT_STRING, offsetof(struct cfg, mode), "w|r|rw", "what to do"},
    {'o', "out", SONDE_OPT_STRING, offsetof(struct cfg, path), "PATH", "where to write"},
    {'Q', "queue", SONDE_OPT_REFUSED, 0, NULL, "no sonde equivalent"},
};

static const struct sonde_option_table table = {
    .command = "sonde testload",
    .usage = "[options]",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = 4,
};

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	(void)ctx, (void)argc, (void)argv;
	return 0;
}

static const struct sonde_workload testload = {
    .name = "testload", .summary = "a workload for the tests", .options = &table, .run = run};

static char dir[PATH_MAX], script[PATH_MAX];

/* What the completion offers for the words of a command line, the last one being completed:
 * the replies sorted, one a line. */
static void complete(const char *words, char *out, size_t len)
{
	char cmd[2 * PATH_MAX + 512];
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && bash -c 'source \"$0\"; COMP_WORDS=(%s); "
	         "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _sonde; "
	         "printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort' '%s'",
	         dir, words, script);
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(out, 1, len - 1, p) : 0;
	out[n] = '\0';
	if (p)
		pclose(p);
}

int main(void)
{
	check_temp_dir("completion", dir);
	join(script, dir, "sonde.bash");
	const struct sonde_workload *list[] = {&testload, NULL};
	FILE *f = fopen(script, "w");
	sonde_completion_bash(list, f);
	fclose(f);
	char file[PATH_MAX];
	join(file, dir, "data.bin");
	fclose(fopen(file, "w"));

	char out[4096];
	complete("sonde \"\"", out, sizeof out);
	CHECK_STR(out, "--help\n--version\nmix\ntestload\n");
	complete("sonde testload --p", out, sizeof out);
	CHECK_STR(out, "--progress\n--progress-interval\n");
	complete("sonde testload -", out, sizeof out);
	CHECK(strstr(out, "--count\n") && strstr(out, "-o\n") && strstr(out, "--json\n"));
	CHECK(strstr(out, "queue") == NULL && strstr(out, "-Q") == NULL);
	complete("sonde testload --mode \"\"", out, sizeof out);
	CHECK_STR(out, "r\nrw\nw\n");
	complete("sonde testload -o da", out, sizeof out);
	CHECK_STR(out, "data.bin\n");
	complete("sonde testload --count \"\"", out, sizeof out);
	CHECK_STR(out, "\n"); /* a number: nothing offered */

	unlink(file);
	unlink(script);
	CHECK_INT(rmdir(dir), 0);
	return check_finish("test_shell_completion");
}
