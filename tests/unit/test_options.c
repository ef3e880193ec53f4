/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "options.h"
#include "workload.h"

struct cfg {
	int write, verbose, iters;
	int64_t block, count, lanl;
	double ratio;
	const char *out;
	struct sonde_strlist directives, hints;
	int cb_calls;
	int64_t gran;
};

static int parse_even(void *cfg, const char *value, char *err, size_t errlen)
{
	int v = atoi(value);
	if (v % 2) {
		snprintf(err, errlen, "'%s' is odd", value);
		return -1;
	}
	((struct cfg *)cfg)->cb_calls += v;
	return 0;
}

/* -x acts only together with -w (an option the original accepted without it). */
static const char *unless_writing(const void *cfg)
{
	return ((const struct cfg *)cfg)->write ? NULL : "applies to writing (-w)";
}

#define F(x) offsetof(struct cfg, x)
static const struct sonde_option short_opts[] = {
    {'w', "write", SONDE_OPT_FLAG, F(write), NULL, "write"},
    {'v', "verbose", SONDE_OPT_COUNT, F(verbose), NULL, "more output"},
    {'i', NULL, SONDE_OPT_INT, F(iters), "N", "iterations", 1, 100},
    {'b', "blockSize", SONDE_OPT_SIZE, F(block), "BYTES", "block", 0, 0, SONDE_SIZE_BINARY},
    {'n', NULL, SONDE_OPT_LONG, F(count), "N", "count"},
    {'x', NULL, SONDE_OPT_DOUBLE, F(ratio), "R", "ratio", .inert = unless_writing},
    {'o', NULL, SONDE_OPT_STRING, F(out), "PATH", "output"},
    {'O', NULL, SONDE_OPT_LIST, F(directives), "K=V", "directive"},
    {'e', "even", SONDE_OPT_CALLBACK, F(cb_calls), "N", "even numbers", .parse = parse_even},
    {'g', NULL, SONDE_OPT_SIZE, F(gran), "GRAN", "granularity", .value_optional = 1,
     .implicit = "4k", .size_style = SONDE_SIZE_BINARY},
    {'J', NULL, SONDE_OPT_REFUSED, 0, NULL, "alignment is not implemented"},
    {0, "hdf5.*", SONDE_OPT_REFUSED, 0, NULL, "no HDF5 backend"},
};
static const struct sonde_option_table short_table = {
    "sonde t",
    "[options]",
    "A test table.",
    SONDE_STYLE_SHORT,
    short_opts,
    (int)(sizeof short_opts / sizeof short_opts[0]),
    NULL,
};

static const struct sonde_option word_opts[] = {
    {0, "nobj", SONDE_OPT_INT, F(iters), "N", "objects", 1, INT32_MAX},
    {0, "csize", SONDE_OPT_SIZE, F(block), "BYTES", "buffer", 1, 1 << 30, SONDE_SIZE_LANL,
     .inert = unless_writing},
    {0, "size", SONDE_OPT_SIZE, F(lanl), "BYTES", "bytes", 0, 0, SONDE_SIZE_LANL},
    {0, "collective", SONDE_OPT_FLAG, F(write), NULL, "collective"},
    {0, "hints", SONDE_OPT_WORDS, F(hints), "K V ...", "hints"},
};
static const struct sonde_option_table word_table = {
    "sonde w", "[options]",
    NULL,      SONDE_STYLE_WORDS,
    word_opts, (int)(sizeof word_opts / sizeof word_opts[0]),
    NULL,
};

static struct sonde_common common;

/* Parses a space-separated command line; returns the parse status, err filled. */
static int parse(const struct sonde_option_table *t, struct cfg *c, const char *line,
                 struct sonde_parse_result *r, char *err, struct sonde_option_set *set_out)
{
	static char copy[512];
	static char *argv[64];
	int argc = 0;
	snprintf(copy, sizeof copy, "prog %s", line);
	for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	memset(c, 0, sizeof *c);
	memset(&common, 0, sizeof common);
	struct sonde_option_set sets[2] = {{t, c, NULL}, {&sonde_common_options, &common, NULL}};
	int rc = sonde_options_parse(sets, 2, argc, argv, 1, r, err, 256);
	if (set_out)
		*set_out = sets[0];
	else
		free(sets[0].given);
	free(sets[1].given);
	return rc;
}

static void expect_error(const struct sonde_option_table *t, const char *line, const char *what)
{
	struct cfg c;
	struct sonde_parse_result r;
	char err[256] = "";
	check_count++;
	if (parse(t, &c, line, &r, err, NULL) == 0)
		check_fail(__FILE__, __LINE__, "'%s' accepted", line);
	else if (!strstr(err, what))
		check_fail(__FILE__, __LINE__, "'%s': message '%s' lacks '%s'", line, err, what);
	sonde_parse_result_free(&r);
}

int main(void)
{
	struct cfg c;
	struct sonde_parse_result r;
	struct sonde_option_set set;
	char err[256];

	/* Attached and separate values, grouped flags, repeats, long forms, positionals. */
	CHECK_INT(parse(&short_table, &c,
	                "-wvv -v -i3 -b 4k -n -5 -x 2.5 -o/tmp/f -O a=1 -Ob=2 --even=4 -e 6 "
	                "--json r.jsonl pos1 -- -w",
	                &r, err, &set),
	          0);
	CHECK_INT(c.write, 1);
	CHECK_INT(c.verbose, 3);
	CHECK_INT(c.iters, 3);
	CHECK_INT(c.block, 4096);
	CHECK_INT(c.count, -5);
	CHECK_NEAR(c.ratio, 2.5, 0);
	CHECK_STR(c.out, "/tmp/f");
	CHECK_INT(c.directives.count, 2);
	CHECK_STR(c.directives.items[1], "b=2");
	CHECK_INT(c.cb_calls, 10);
	CHECK_STR(common.json_path, "r.jsonl");
	CHECK_INT(r.npositional, 2);
	CHECK_STR(r.positional[0], "pos1");
	CHECK_STR(r.positional[1], "-w");
	CHECK_INT(sonde_option_given(&set, "v"), 3);
	CHECK_INT(sonde_option_given(&set, "verbose"), 3);
	CHECK_INT(sonde_option_given(&set, "b"), 1);
	CHECK_INT(sonde_option_given(&set, "o"), 1);
	CHECK_INT(sonde_option_given(&set, "x"), 1);
	CHECK_INT(sonde_option_given(&set, "g"), 0);
	CHECK_INT(r.help, 0);
	free(set.given);
	sonde_strlist_free(&c.directives);
	sonde_parse_result_free(&r);

	/* IOR's parser also takes a value after '=' (-G=5, as IO500 writes mdtest's options). */
	CHECK_INT(parse(&short_table, &c, "-i=7 -wb=4k", &r, err, NULL), 0);
	CHECK_INT(c.iters, 7);
	CHECK_INT(c.block, 4096);
	CHECK_INT(c.write, 1);
	sonde_parse_result_free(&r);

	CHECK_INT(parse(&short_table, &c, "--blockSize 2m --verbose --write", &r, err, NULL), 0);
	CHECK_INT(c.block, 2 << 20);
	CHECK_INT(c.verbose, 1);
	CHECK_INT(c.write, 1);
	sonde_parse_result_free(&r);

	/* Optional values: attached, separate (not an option word), or implicit. */
	CHECK_INT(parse(&short_table, &c, "-g", &r, err, NULL), 0);
	CHECK_INT(c.gran, 4096);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&short_table, &c, "-g8k", &r, err, NULL), 0);
	CHECK_INT(c.gran, 8192);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&short_table, &c, "-g 1m -w", &r, err, NULL), 0);
	CHECK_INT(c.gran, 1 << 20);
	CHECK_INT(c.write, 1);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&short_table, &c, "-g -w", &r, err, NULL), 0);
	CHECK_INT(c.gran, 4096);
	CHECK_INT(c.write, 1);
	sonde_parse_result_free(&r);

	CHECK_INT(parse(&short_table, &c, "-w -h", &r, err, NULL), 0);
	CHECK_INT(r.help, 1);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&short_table, &c, "--help", &r, err, NULL), 0);
	CHECK_INT(r.help, 1);
	sonde_parse_result_free(&r);

	/* Every error names the option and the bad value. */
	expect_error(&short_table, "-q", "unknown option -q");
	expect_error(&short_table, "--nope", "unknown option --nope");
	expect_error(&short_table, "-b", "option -b needs a value BYTES");
	expect_error(&short_table, "-b 4q", "option -b: '4q': unknown unit");
	expect_error(&short_table, "--blockSize=-1",
	             "option --blockSize: '-1': must not be negative");
	expect_error(&short_table, "-i 0", "option -i: '0': must be between 1 and 100");
	expect_error(&short_table, "-i x", "option -i: 'x': not a whole number");
	expect_error(&short_table, "-n 99999999999999999999",
	             "option -n: '99999999999999999999': too large (at most 9223372036854775807)");
	expect_error(&short_table, "-i 101", "option -i: '101': too large (at most 100)");
	expect_error(&short_table, "-i 2147483648",
	             "option -i: '2147483648': too large (at most 100)");
	expect_error(&short_table, "-n -99999999999999999999", "must be at least");
	expect_error(&short_table, "-b 99999999999999999999",
	             "option -b: '99999999999999999999': too large (at most 9223372036854775807)");
	expect_error(&short_table, "-x 1.5.2", "option -x: '1.5.2': not a number");
	expect_error(&short_table, "-e 3", "option -e: '3' is odd");
	expect_error(&short_table, "-J 8", "option -J is not supported by sonde: alignment");
	/* "prefix.*" refuses every option under the prefix by its name, with or without value */
	expect_error(&short_table, "--hdf5.noFill",
	             "option --hdf5.noFill is not supported by sonde: no HDF5 backend");
	expect_error(&short_table, "--hdf5.setAlignment=4k",
	             "option --hdf5.setAlignment is not supported by sonde: no HDF5 backend");
	expect_error(&short_table, "--hdf5", "unknown option --hdf5");
	expect_error(&short_table, "--hdf5.", "unknown option --hdf5.");
	expect_error(&short_table, "--write=1", "option --write takes no value");
	expect_error(&short_table, "-wq", "unknown option -q");
	expect_error(&short_table, "--json", "option --json needs a value FILE");

	/* Single-dash words (LANL). */
	CHECK_INT(parse(&word_table, &c, "-nobj 8 -size 64K -collective -hints a 1 b 2 -json x", &r,
	                err, NULL),
	          0);
	CHECK_INT(c.iters, 8);
	CHECK_INT(c.lanl, 65536);
	CHECK_INT(c.write, 1);
	CHECK_INT(c.hints.count, 4);
	CHECK_STR(c.hints.items[3], "2");
	CHECK_STR(common.json_path, "x");
	sonde_strlist_free(&c.hints);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&word_table, &c, "--nobj 3", &r, err, NULL), 0);
	CHECK_INT(c.iters, 3);
	sonde_parse_result_free(&r);
	/* One range check for every number: above the limit is "too large", with the limit. */
	expect_error(&word_table, "-nobj 9999999999",
	             "option -nobj: '9999999999': too large (at most 2147483647)");
	expect_error(&word_table, "-nobj 0", "option -nobj: '0': must be at least 1");
	expect_error(&word_table, "-csize 2G",
	             "option -csize: '2G': too large (at most 1073741824)");
	expect_error(&word_table, "-csize 99999999999999999999G",
	             "option -csize: '99999999999999999999G': too large (at most 1073741824)");

	/* An option that has no effect in this run: accepted, and said so, only when given. */
	char why[256];
	CHECK_INT(parse(&word_table, &c, "-csize 1M", &r, err, &set), 0);
	CHECK_INT(c.block, 1 << 20);
	CHECK_STR(sonde_option_inert(&set, 1, why, sizeof why),
	          "-csize has no effect here: it applies to writing (-w)");
	CHECK(sonde_option_inert(&set, 0, why, sizeof why) == NULL);
	free(set.given);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&short_table, &c, "-x 2 -w", &r, err, &set), 0);
	CHECK(sonde_option_inert(&set, 5, why, sizeof why) == NULL);
	c.write = 0;
	CHECK_STR(sonde_option_inert(&set, 5, why, sizeof why),
	          "-x has no effect here: it applies to writing (-w)");
	free(set.given);
	sonde_parse_result_free(&r);
	CHECK_INT(parse(&short_table, &c, "-i 2", &r, err, &set), 0);
	CHECK(sonde_option_inert(&set, 5, why, sizeof why) == NULL); /* not given */
	free(set.given);
	sonde_parse_result_free(&r);
	expect_error(&word_table, "-nobjx 3", "unknown option -nobjx");
	expect_error(&word_table, "-size 1k", "option -size: '1k': unknown unit");
	expect_error(&word_table, "-hints -nobj 2", "option -hints needs at least one value");

	/* Directives: any long name, any case, the entry's own checks; flags take 0 or 1. */
	struct cfg d;
	memset(&d, 0, sizeof d);
	unsigned char given[32] = {0};
	struct sonde_option_set dset = {.table = &short_table, .cfg = &d, .given = given};
	CHECK_INT(sonde_option_directive(&dset, "BLOCKSIZE", 9, "8k", err, sizeof err), 0);
	CHECK_INT(d.block, 8192);
	CHECK_INT(sonde_option_given(&dset, "b"), 1);
	CHECK_INT(sonde_option_directive(&dset, "write", 5, "1", err, sizeof err), 0);
	CHECK_INT(d.write, 1);
	CHECK_INT(sonde_option_directive(&dset, "write", 5, "0", err, sizeof err), 0);
	CHECK_INT(d.write, 0);
	CHECK_INT(sonde_option_directive(&dset, "verbose", 7, "3", err, sizeof err), 0);
	CHECK_INT(d.verbose, 3);
	CHECK_INT(sonde_option_directive(&dset, "write", 5, "2", err, sizeof err), -1);
	CHECK_STR(err, "option write: '2': too large (at most 1)");
	CHECK_INT(sonde_option_directive(&dset, "blockSize", 9, "-1", err, sizeof err), -1);
	CHECK_STR(err, "option blockSize: '-1': must not be negative");
	CHECK_INT(sonde_option_directive(&dset, "verbose", 7, "x", err, sizeof err), -1);
	CHECK_STR(err, "option verbose: 'x': not a whole number");
	CHECK_INT(sonde_option_directive(&dset, "even", 4, "3", err, sizeof err), -1);
	CHECK_STR(err, "option even: '3' is odd");
	CHECK_INT(sonde_option_directive(&dset, "blockSizeX", 10, "1", err, sizeof err), -1);
	CHECK_STR(err, "unknown directive 'blockSizeX' (did you mean blockSize?)");
	CHECK_INT(sonde_option_directive(&dset, "zzzzzzzz", 8, "1", err, sizeof err), -1);
	CHECK_STR(err, "unknown directive 'zzzzzzzz'");
	/* the key is the first keylen characters: "blockSize=1" as the caller splits it */
	CHECK_INT(sonde_option_directive(&dset, "blockSize=1", 9, "1k", err, sizeof err), 0);
	CHECK_INT(d.block, 1024);

	/* Help and markdown come from the same table. */
	FILE *f = tmpfile();
	sonde_options_help(&short_table, f);
	sonde_options_markdown(&word_table, f);
	long len = ftell(f);
	rewind(f);
	char *text = calloc((size_t)len + 1, 1);
	CHECK_INT((long)fread(text, 1, (size_t)len, f), len);
	CHECK(strstr(text, "usage: sonde t [options]") != NULL);
	CHECK(strstr(text, "-b, --blockSize BYTES") != NULL);
	CHECK(strstr(text, "-g[GRAN]") != NULL);
	CHECK(strstr(text, "Options of the original that sonde refuses:\n  -J") != NULL);
	CHECK(strstr(text, "--json FILE") != NULL);
	CHECK(strstr(text, "| `-nobj N` | `nobj` | objects |") != NULL);
	CHECK(strstr(text, "| `--json FILE` |  | append JSON Lines") != NULL);
	free(text);
	fclose(f);
	return check_finish("options");
}
