/* SPDX-License-Identifier: BSD-3-Clause */
/* The manual pages from an option table (the integration tests render every real page with
 * man): each option with its value, range and the default the table's .defaults gives, refused
 * options apart, the common options, the DIFFERENCES section taken from the docs page's
 * "## ... differ..." section only, and a page without that section refused with nothing
 * written. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io_check.h"
#include "manpage.h"
#include "workload.h"

struct cfg {
	int64_t count, block;
	const char *path;
};

static void defaults(void *cfg)
{
	struct cfg *c = cfg;
	c->count = 10;
	c->block = 1 << 20;
}

static const struct sonde_option options[] = {
    {'n', "count", SONDE_OPT_LONG, offsetof(struct cfg, count), "N", "how many", 1, 100},
    {'b', "block", SONDE_OPT_SIZE, offsetof(struct cfg, block), "BYTES", "block size"},
    {'o', "out", SONDE_OPT_STRING, offsetof(struct cfg, path), "PATH", "where to write"},
    {'Q', NULL, SONDE_OPT_REFUSED, 0, NULL, "the original's queue mode has no sonde equivalent"},
};

static const struct sonde_option_table table = {
    .command = "sonde testload",
    .usage = "[options]",
    .summary = "A workload for the tests.",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = 4,
    .cfg_size = sizeof(struct cfg),
    .defaults = defaults,
};

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	(void)ctx, (void)argc, (void)argv;
	return 0;
}

static const struct sonde_workload testload = {
    .name = "testload", .summary = "a workload for the tests", .options = &table, .run = run};

static char dir[PATH_MAX];

/* The page for a docs page holding text, as one string (NULL when refused, err says why). */
static char *page(const char *text, char *err, size_t errlen)
{
	char docs[PATH_MAX];
	join(docs, dir, "testload.md");
	FILE *f = fopen(docs, "w");
	fputs(text, f);
	fclose(f);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	int rc = sonde_manpage_workload(&testload, docs, m, err, errlen);
	fclose(m);
	unlink(docs);
	if (rc < 0) {
		CHECK_INT((int)len, 0); /* nothing written */
		free(out);
		return NULL;
	}
	return out;
}

static void test_workload_page(void)
{
	char err[512] = "";
	char *p = page("# testload\n\nIntro.\n\n## Differences from the original\n\nsonde checks "
	               "the *count*.\n\n```\n## not a heading in code\n```\n\n## Other\n\nleft "
	               "out\n",
	               err, sizeof err);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(strstr(p, ".SH NAME\nsonde\\-testload \\- a workload for the tests\n") != NULL);
	CHECK(strstr(p, "how many\n.br\nFrom 1 to 100.\n.br\nDefault: 10.\n") != NULL);
	CHECK(strstr(p, "block size\n.br\nDefault: 1048576") != NULL);
	/* a string without a default has none */
	const char *out = strstr(p, "where to write\n");
	CHECK(out != NULL && strncmp(out + strlen("where to write\n"), ".br\nDefault", 11) != 0);
	CHECK(strstr(p, ".SS \"Options of the original that sonde refuses\"") != NULL);
	CHECK(strstr(p, "queue mode has no sonde equivalent") != NULL);
	CHECK(strstr(p, "Common options") != NULL);
	CHECK(strstr(p, "progress\\-interval") != NULL);
	CHECK(strstr(p, ".SH DIFFERENCES\n") != NULL);
	CHECK(strstr(p, "sonde checks") != NULL);
	CHECK(strstr(p, "not a heading in code") != NULL);
	CHECK(strstr(p, "left out") == NULL);
	CHECK(strstr(p, "Intro.") == NULL);
	free(p);

	/* no section that says how it differs: refused, naming the page */
	p = page("# testload\n\n## Usage\n\ntext\n", err, sizeof err);
	CHECK(p == NULL);
	CHECK(strstr(err, "testload.md has no level-2 heading") != NULL);

	/* no docs page at all (a workload that has none yet): the page says so, the rest as ever */
	char *none = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&none, &len);
	CHECK_INT(sonde_manpage_workload(&testload, NULL, m, err, sizeof err), 0);
	fclose(m);
	const char *diff = strstr(none, ".SH DIFFERENCES\n");
	CHECK(diff != NULL && strstr(diff, "sonde testload has no documentation page "
	                                   "(docs/workloads/testload.md)") != NULL);
	CHECK(strstr(none, "how many\n.br\nFrom 1 to 100.\n.br\nDefault: 10.\n") != NULL);
	free(none);
}

static void test_sonde_page(void)
{
	const struct sonde_workload *list[] = {&testload, NULL};
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	sonde_manpage_sonde(list, m);
	fclose(m);
	const char *w = strstr(out, ".SH WORKLOADS\n");
	CHECK(w != NULL && strstr(w, "testload") != NULL);
	CHECK(strstr(out, "a workload for the tests") != NULL);
	CHECK(strstr(out, ".SH \"EXIT STATUS\"") != NULL);
	CHECK(strstr(out, "\\-\\-json") != NULL);
	free(out);
}

int main(void)
{
	check_temp_dir("manpage", dir);
	test_workload_page();
	test_sonde_page();
	CHECK_INT(rmdir(dir), 0);
	return check_finish("test_manpage");
}
