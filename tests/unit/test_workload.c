/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde_parse_command_line: a workload's options and the common ones in one command line, the
 * results files it opens, and its three ways out (--help: exit 0 with the help on stdout; a bad
 * option or an unusable results file: one line on stderr, exit 2, no file left behind). The ways
 * out end the process, so they run in children forked before MPI_Init, which never call MPI. */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fail.h"
#include "io_check.h"
#include "results.h"
#include "workload.h"

struct cfg {
	int verbose;
	int64_t size;
	const char *name;
};

static const struct sonde_option options[] = {
    {'v', "verbose", SONDE_OPT_COUNT, offsetof(struct cfg, verbose), NULL, "say more"},
    {'s', "size", SONDE_OPT_SIZE, offsetof(struct cfg, size), "BYTES", "bytes per call", 1,
     1 << 30},
    {'n', "name", SONDE_OPT_STRING, offsetof(struct cfg, name), "NAME", "a name"},
};

static const struct sonde_option_table table = {
    .command = "sonde testload",
    .usage = "[options] [words...]",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = 3,
};

static char dir[PATH_MAX];

/* Runs sonde_parse_command_line on words in a child; returns its exit status, with what it wrote
 * on stdout and stderr. A child that returns from the call exits 99. */
static int run_child(const char *const *words, char *out, char *err, size_t len)
{
	char op[PATH_MAX], ep[PATH_MAX];
	join(op, dir, "child.out");
	join(ep, dir, "child.err");
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(op, "w", stdout) || !freopen(ep, "w", stderr))
			_exit(98);
		int argc = 0;
		char *argv[16];
		while (words[argc])
			argv[argc] = (char *)words[argc], argc++;
		argv[argc] = NULL;
		struct sonde_context ctx = {.workload = "testload", .comm = MPI_COMM_NULL};
		struct cfg c = {0};
		struct sonde_parse_result pos;
		sonde_fail_set_workload("testload");
		sonde_parse_command_line(&ctx, &table, &c, argc, argv, &pos);
		exit(99);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	const char *paths[2] = {op, ep};
	char *bufs[2] = {out, err};
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen(paths[k], "r");
		size_t n = f ? fread(bufs[k], 1, len - 1, f) : 0;
		bufs[k][n] = '\0';
		if (f)
			fclose(f);
		unlink(paths[k]);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_ways_out(void)
{
	char out[8192], err[8192], json[PATH_MAX];
	join(json, dir, "r.jsonl");

	/* --help: the workload's help on stdout, exit 0, no results file */
	const char *help[] = {"testload", "--json", json, "--help", NULL};
	CHECK_INT(run_child(help, out, err, sizeof out), 0);
	CHECK(strstr(out, "sonde testload") != NULL);
	CHECK(strstr(out, "--size") != NULL && strstr(out, "bytes per call") != NULL);
	CHECK_STR(err, "");
	CHECK(access(json, F_OK) != 0);

	/* an unknown option: one line naming it and pointing at --help, exit 2, no file */
	const char *bad[] = {"testload", "--json", json, "--bogus", NULL};
	CHECK_INT(run_child(bad, out, err, sizeof out), SONDE_EXIT_USAGE);
	CHECK(strstr(err, "sonde testload: error: ") == err);
	CHECK(strstr(err, "--bogus") != NULL);
	CHECK(strstr(err, "(sonde testload --help lists the options)\n") != NULL);
	CHECK(strchr(err, '\n') == err + strlen(err) - 1);
	CHECK_STR(out, "");
	CHECK(access(json, F_OK) != 0);

	/* a value out of range */
	const char *range[] = {"testload", "-s", "2g", NULL};
	CHECK_INT(run_child(range, out, err, sizeof out), SONDE_EXIT_USAGE);
	CHECK(strstr(err, "-s") != NULL || strstr(err, "size") != NULL);

	/* a results file that cannot be one (a directory): exit 2 with one line naming it */
	const char *notfile[] = {"testload", "--json", dir, NULL};
	CHECK_INT(run_child(notfile, out, err, sizeof out), SONDE_EXIT_USAGE);
	CHECK(strstr(err, "sonde testload: error: ") == err);
	CHECK(strstr(err, dir) != NULL);

	/* --progress-interval: seconds, 0 or more */
	const char *negative[] = {"testload", "--progress-interval", "-0.5", NULL};
	CHECK_INT(run_child(negative, out, err, sizeof out), SONDE_EXIT_USAGE);
	CHECK(
	    strstr(err, "sonde testload: error: option --progress-interval: '-0.5' is negative") ==
	    err);
	const char *word[] = {"testload", "--progress-interval", "often", NULL};
	CHECK_INT(run_child(word, out, err, sizeof out), SONDE_EXIT_USAGE);
	CHECK(strstr(err, "--progress-interval") != NULL && strstr(err, "not a number") != NULL);

	/* a good command line returns to the workload */
	const char *good[] = {"testload", "-v", "--json", json, NULL};
	CHECK_INT(run_child(good, out, err, sizeof out), 99);
	CHECK_STR(err, "");
	unlink(json);
}

/* In this process, with MPI: both tables filled from one command line, positional words kept,
 * the workload's set counts what was given, and a second call starts afresh. */
static void test_parse(void)
{
	char json[PATH_MAX], csv[PATH_MAX];
	join(json, dir, "p.jsonl");
	join(csv, dir, "p.csv");
	char *argv[] = {"testload", "-vv", "--csv",  csv,    "one", "-s", "4k",
	                "--json",   json,  "--name", "fred", "two", "-v", NULL};
	int argc = 13;
	struct sonde_context ctx = {.workload = "testload", .mpi = 1, .comm = MPI_COMM_WORLD};
	MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ctx.size);
	struct cfg c = {.size = 1};
	struct sonde_parse_result pos;
	const struct sonde_option_set *given =
	    sonde_parse_command_line(&ctx, &table, &c, argc, argv, &pos);
	CHECK_INT(c.verbose, 3);
	CHECK_INT(c.size, 4096);
	CHECK_STR(c.name, "fred");
	CHECK_STR(ctx.common.json_path, json);
	CHECK_STR(ctx.common.csv_path, csv);
	CHECK_INT(pos.npositional, 2);
	CHECK_STR(pos.positional[0], "one");
	CHECK_STR(pos.positional[1], "two");
	CHECK_INT(pos.help, 0);
	CHECK(given != NULL && given->table == &table && given->cfg == &c);
	CHECK_INT(sonde_option_given(given, "verbose"), 3);
	CHECK_INT(sonde_option_given(given, "s"), 1);
	CHECK_INT(sonde_option_given(given, "name"), 1);
	CHECK(sonde_results_active());
	sonde_parse_result_free(&pos);
	CHECK_INT(sonde_results_close(0), 0);
	/* nothing was measured: the files the run made are gone again */
	CHECK(access(json, F_OK) != 0);
	CHECK(access(csv, F_OK) != 0);

	/* a second command line: its own counts, not the sum with the first */
	char *again[] = {"testload", "-s", "1m", NULL};
	struct sonde_context ctx2 = {.workload = "testload", .mpi = 1, .comm = MPI_COMM_WORLD};
	struct cfg c2 = {0};
	given = sonde_parse_command_line(&ctx2, &table, &c2, 3, again, &pos);
	CHECK_INT(c2.size, 1 << 20);
	CHECK_INT(sonde_option_given(given, "verbose"), 0);
	CHECK_INT(sonde_option_given(given, "size"), 1);
	CHECK(ctx2.common.json_path == NULL);
	CHECK_INT(ctx2.common.progress, 0);
	sonde_parse_result_free(&pos);
	sonde_results_close(0);

	/* --progress alone redraws where it can; --progress-interval asks for lines, and for
	 * --progress with them */
	char *flag[] = {"testload", "--progress", NULL};
	struct sonde_context ctx3 = {.workload = "testload", .mpi = 1, .comm = MPI_COMM_WORLD};
	sonde_parse_command_line(&ctx3, &table, &c2, 2, flag, &pos);
	CHECK_INT(ctx3.common.progress, 1);
	CHECK_INT(ctx3.common.progress_lines, 0);
	sonde_parse_result_free(&pos);
	char *lines[] = {"testload", "--progress-interval", "2.5", NULL};
	struct sonde_context ctx4 = {.workload = "testload", .mpi = 1, .comm = MPI_COMM_WORLD};
	sonde_parse_command_line(&ctx4, &table, &c2, 3, lines, &pos);
	CHECK_INT(ctx4.common.progress, 1);
	CHECK_INT(ctx4.common.progress_lines, 1);
	CHECK(ctx4.common.progress_interval == 2.5);
	sonde_parse_result_free(&pos);
	sonde_results_close(0);
}

int main(int argc, char **argv)
{
	check_temp_dir("workload", dir);
	test_ways_out(); /* before MPI_Init: the children never touch MPI */
	MPI_Init(&argc, &argv);
	test_parse();
	CHECK_INT(rmdir(dir), 0);
	int rc = check_finish("test_workload");
	MPI_Finalize();
	return rc;
}
