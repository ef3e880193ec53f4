/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde ior: the command line into its tests, checked (by the run and by sonde --parse-only),
 * and the header record's params. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "backend.h"
#include "fail.h"
#include "json.h"
#include "workload.h"
#include "workloads/ior/ior.h"
#include "workloads/ior/layout.h"

/* Options given on the command line become every test's defaults; -O applies in order. Then
 * each test's rules and -M/-N's memory. No file is looked at but the -f script. Returns 0, or
 * -1 once every rank agreed on the one error line. */
static int settle_tests(struct sonde_context *ctx, struct ior_params *cli,
                        const struct sonde_option_set *given, struct ior_test **tests, int *ntests)
{
	char err[512] = "";
	int ok = 1;
	/* -O counts as the option it sets, so --preset refuses a conflicting directive too */
	struct sonde_option_set directives = {
	    .table = given->table, .cfg = cli, .given = given->given};
	for (int k = 0; k < cli->directives.count && ok; k++)
		ok = ior_directive(&directives, cli->directives.items[k], err, sizeof err) == 0;
	if (ok && cli->preset)
		ok = ior_preset_apply(cli, given, ctx->topo.tasks_per_node, err, sizeof err) == 0;
	if (ok && cli->script) {
		ok = ior_script_read(ctx->comm, cli->script, cli, tests, ntests, err, sizeof err) ==
		     0;
	} else if (ok) {
		*tests = calloc(1, sizeof **tests);
		(*tests)[0].p = *cli;
		*ntests = 1;
	}
	if (!sonde_agree(ctx->comm, ok, "%s", err))
		return -1;
	for (int k = 0; k < *ntests && ok; k++) {
		struct ior_params *p = &(*tests)[k].p;
		p->id = k;
		/* IOR: neither -w nor -r means both */
		if (!p->write && !p->read && !p->check_write && !p->check_read)
			p->write = p->read = 1;
		ok = ior_validate(p, ctx->size, err, sizeof err) == 0;
		int64_t hog;
		if (ok)
			ok = ior_hog_size(p->memory_per_node, p->memory_per_task,
			                  ctx->topo.local_size, &hog, err, sizeof err) == 0;
	}
	return sonde_agree(ctx->comm, ok, "%s", err) ? 0 : -1;
}

/* The file system's part of the checks: the directory of each test file exists, and -E's
 * files. Then the options given that do nothing in the run. */
int ior_check_test_files(struct sonde_context *ctx, const struct ior_params *cli,
                         const struct sonde_option_set *given, struct ior_test *tests, int ntests)
{
	char err[512] = "";
	int ok = 1;
	/* the directory of the test file must exist (checked where each rank writes) */
	for (int k = 0; k < ntests && ok; k++) {
		const struct ior_params *p = &tests[k].p;
		char name[4096], dir[4096];
		ior_file_name(p->test_file, p->fpp, 0, ctx->rank, -1, name, sizeof name);
		ior_dir_of(name, dir, sizeof dir);
		struct stat st;
		if (sonde_backend_find(p->api)->stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, sizeof err,
			         "directory %.200s of test file %.200s does not exist", dir,
			         p->test_file);
			ok = 0;
		}
		if (ok)
			ok = ior_check_files(p, ctx->rank, err, sizeof err) == 0;
	}
	if (!sonde_agree(ctx->comm, ok, "%s", err))
		return -1;
	/* options given that do nothing in the run (a script's tests each have their own
	 * parameters: the command line's options are then only their starting point) */
	if (!cli->script) {
		struct sonde_option_set mine = *given;
		mine.cfg = &tests[0].p;
		sonde_options_warn_inert(&mine);
		sonde_backend_warn_unused(&mine, sonde_backend_find(tests[0].p.api));
	}
	return 0;
}

/* The command line, parsed and checked into its tests, by the run and by sonde --parse-only.
 * Returns 0, or SONDE_EXIT_USAGE after the one error line. */
int ior_parse_tests(struct sonde_context *ctx, int argc, char **argv, struct ior_params *cli,
                    const struct sonde_option_set **given, struct ior_test **tests, int *ntests)
{
	ior_params_defaults(cli);
	struct sonde_parse_result pos;
	*given = sonde_parse_command_line(ctx, &ior_option_table, cli, argc, argv, &pos);
	if (pos.npositional > 0) {
		sonde_error("unexpected argument '%s' (sonde ior --help lists the options)",
		            pos.positional[0]);
		return SONDE_EXIT_USAGE;
	}
	sonde_parse_result_free(&pos);
	return settle_tests(ctx, cli, *given, tests, ntests) < 0 ? SONDE_EXIT_USAGE : 0;
}

/* The header record's params: the first test's parameters. */
char *ior_params_json(const struct ior_params *p0)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(sonde_options_full(&ior_option_table), p0, &j);
	sonde_json_object_end(&j);
	return j.buf;
}

char *ior_params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct ior_params cli;
	const struct sonde_option_set *given;
	struct ior_test *tests = NULL;
	int ntests = 0;
	if (ior_parse_tests(ctx, argc, argv, &cli, &given, &tests, &ntests))
		sonde_exit(SONDE_EXIT_USAGE);
	char *params = ior_params_json(&tests[0].p);
	free(tests);
	sonde_strlist_free(&cli.directives);
	return params;
}
