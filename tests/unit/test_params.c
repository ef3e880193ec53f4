/* SPDX-License-Identifier: BSD-3-Clause */
/* The params of result records from an option table (src/core/params.c), and IOR's -O
 * directives going through the same entries as its options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"
#include "options.h"
#include "workloads/ior/ior.h"

struct cfg {
	int flag, count, num;
	int64_t wide, bytes;
	double ratio;
	const char *name, *unset;
	struct sonde_strlist list;
	int lo, hi;
};

#define F(x) offsetof(struct cfg, x)

static int parse_range(void *cfg, const char *value, char *err, size_t errlen)
{
	struct cfg *c = cfg;
	if (sscanf(value, "%d-%d", &c->lo, &c->hi) != 2) {
		snprintf(err, errlen, "'%s' is not LO-HI", value);
		return -1;
	}
	return 0;
}

static void show_range(const void *cfg, const char *key, struct sonde_json *j)
{
	const struct cfg *c = cfg;
	sonde_json_array_begin(j, key);
	sonde_json_int(j, NULL, c->lo);
	sonde_json_int(j, NULL, c->hi);
	sonde_json_array_end(j);
}

static const struct sonde_option opts[] = {
    {'f', "flag", SONDE_OPT_FLAG, F(flag), NULL, "a flag"},
    {'v', "verbose", SONDE_OPT_COUNT, F(count), NULL, "a count"},
    {'n', NULL, SONDE_OPT_INT, F(num), "N", "a number", .key = "number"},
    {'w', "wide", SONDE_OPT_LONG, F(wide), "N", "a long"},
    {'b', "bytes", SONDE_OPT_SIZE, F(bytes), "N", "a size"},
    {'x', "ratio", SONDE_OPT_DOUBLE, F(ratio), "R", "a double"},
    {'o', "name", SONDE_OPT_STRING, F(name), "S", "a string"},
    {'u', "unset", SONDE_OPT_STRING, F(unset), "S", "a string never given"},
    {'O', "list", SONDE_OPT_LIST, F(list), "K=V", "a list"},
    {'r', "range", SONDE_OPT_CALLBACK, 0, "LO-HI", "a callback", .parse = parse_range,
     .show = show_range, .shows = SONDE_RECORD_LIST},
    {'J', "refused", SONDE_OPT_REFUSED, 0, NULL, "not implemented"},
    {0, "other-name", SONDE_OPT_INT, F(num), "N", "the same field as -n"},
    {0, "alias", SONDE_OPT_FLAG, F(flag), NULL, "same as -f", .scope = SONDE_SCOPE_DIRECTIVE},
};
static const struct sonde_option_table table = {
    .command = "sonde t",
    .usage = "[options]",
    .style = SONDE_STYLE_SHORT,
    .options = opts,
    .count = (int)(sizeof opts / sizeof opts[0]),
};

static char *params_of(const struct cfg *c)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(&table, c, &j);
	sonde_json_object_end(&j);
	return j.buf;
}

/* Parses a command line of the test table into c. */
static int parse(struct cfg *c, char *line, char *err)
{
	char *argv[32] = {"prog"};
	int argc = 1;
	for (char *tok = strtok(line, " "); tok; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	struct sonde_option_set set = {.table = &table, .cfg = c};
	struct sonde_parse_result r;
	int rc = sonde_options_parse(&set, 1, argc, argv, 1, &r, err, 256);
	free(set.given);
	sonde_parse_result_free(&r);
	return rc;
}

static void ior_directive_matches_option(const char *directive, const char *option)
{
	struct ior_params p;
	ior_params_defaults(&p);
	struct sonde_option_set set = {.table = sonde_options_full(&ior_option_table), .cfg = &p};
	char derr[256] = "", oerr[256] = "";
	CHECK_INT(ior_directive(&set, directive, derr, sizeof derr), -1);
	/* the option's message, with the directive's name in place of the option's spelling */
	char *argv[] = {"ior", (char *)option, NULL};
	char *value = strchr(option, ' ');
	char letter[3] = {option[0], option[1], 0};
	if (value) {
		argv[1] = letter;
		argv[2] = value + 1;
	}
	struct sonde_option_set oset = {.table = &ior_option_table, .cfg = &p};
	struct sonde_parse_result r;
	CHECK_INT(sonde_options_parse(&oset, 1, value ? 3 : 2, argv, 1, &r, oerr, sizeof oerr), -1);
	free(oset.given);
	sonde_parse_result_free(&r);
	const char *dtail = strchr(derr, ':'), *otail = strchr(oerr, ':');
	CHECK(dtail && otail);
	if (dtail && otail)
		CHECK_STR(dtail, otail);
}

int main(void)
{
	struct cfg c = {0};
	char err[256] = "";
	char line[] = "-f -vv -n 7 -w -3 -b 2k -x 0.5 -o here -O a=1 -O b=2 -r 4-9";
	CHECK_INT(parse(&c, line, err), 0);
	char *json = params_of(&c);
	/* every parameter once, under its record name, typed; refused entries and the second
	 * names of a field are not parameters */
	CHECK_STR(json, "{\"flag\":true,\"verbose\":2,\"number\":7,\"wide\":-3,\"bytes\":2048,"
	                "\"ratio\":0.5,\"name\":\"here\",\"unset\":null,\"list\":[\"a=1\",\"b=2\"],"
	                "\"range\":[4,9]}");
	free(json);
	sonde_strlist_free(&c.list);
	CHECK_STR(sonde_option_key(&table, &opts[2]), "number");
	CHECK_STR(sonde_option_key(&table, &opts[0]), "flag");
	CHECK(sonde_option_key(&table, &opts[10]) == NULL); /* refused */
	CHECK(sonde_option_key(&table, &opts[11]) == NULL); /* -n's field, named by -n */
	CHECK(sonde_option_key(&table, &opts[12]) == NULL); /* directive alias of -f */

	/* The description names the same parameters, with the JSON types the record above has. */
	struct sonde_json d;
	sonde_json_init(&d);
	sonde_json_object_begin(&d, NULL);
	sonde_options_describe(&table, "params", &d);
	sonde_json_object_end(&d);
	/* ... with every spelling of the field (-n and its second name; the directive alias of -f
	 * is no command-line word), and no path among them (no FILE, PATH, PREFIX or DIR). */
	CHECK_STR(
	    d.buf,
	    "{\"params\":[{\"name\":\"flag\",\"type\":\"bool\",\"options\":[\"-f\",\"--flag\"],"
	    "\"path\":false},"
	    "{\"name\":\"verbose\",\"type\":\"int\",\"options\":[\"-v\",\"--verbose\"],"
	    "\"path\":false},"
	    "{\"name\":\"number\",\"type\":\"int\",\"options\":[\"-n\",\"--other-name\"],"
	    "\"path\":false},"
	    "{\"name\":\"wide\",\"type\":\"int\",\"options\":[\"-w\",\"--wide\"],"
	    "\"path\":false},"
	    "{\"name\":\"bytes\",\"type\":\"int\",\"options\":[\"-b\",\"--bytes\"],"
	    "\"path\":false},"
	    "{\"name\":\"ratio\",\"type\":\"number\",\"options\":[\"-x\",\"--ratio\"],"
	    "\"path\":false},"
	    "{\"name\":\"name\",\"type\":\"string\",\"options\":[\"-o\",\"--name\"],"
	    "\"path\":false},"
	    "{\"name\":\"unset\",\"type\":\"string\",\"options\":[\"-u\",\"--unset\"],"
	    "\"path\":false},"
	    "{\"name\":\"list\",\"type\":\"list\",\"options\":[\"-O\",\"--list\"],"
	    "\"path\":false},"
	    "{\"name\":\"range\",\"type\":\"list\",\"options\":[\"-r\",\"--range\"],"
	    "\"path\":false}]}");
	sonde_json_free(&d);

	/* A directive-only entry is no command-line word. */
	char alias[] = "--alias";
	CHECK_INT(parse(&c, alias, err), -1);
	CHECK_STR(err, "unknown option --alias");

	/* IOR: -O keys are entries of the option table, so they are checked like the options. */
	struct ior_params p;
	ior_params_defaults(&p);
	unsigned char given[128] = {0};
	struct sonde_option_set set = {.table = &ior_option_table, .cfg = &p, .given = given};
	CHECK_INT(ior_directive(&set, "taskPerNodeOffset=4, filePerProc = 1,segmentCount=3", err,
	                        sizeof err),
	          0);
	CHECK_INT(p.task_offset, 4);
	CHECK_INT(p.fpp, 1);
	CHECK_INT(p.segments, 3);
	CHECK_INT(sonde_option_given(&set, "Q"), 1);
	CHECK_INT(
	    ior_directive(&set, "tasksPerNodeOffset=8,stonewallingwearout=1", err, sizeof err), 0);
	CHECK_INT(p.task_offset, 8);
	CHECK_INT(p.wearout, 1);
	ior_directive_matches_option("taskPerNodeOffset=-1", "-Q -1");
	ior_directive_matches_option("tasksPerNodeOffset=-1", "-Q -1");
	ior_directive_matches_option("interTestDelay=-5", "-d -5");
	ior_directive_matches_option("repetitions=0", "-i 0");
	ior_directive_matches_option("transferSize=12q", "-t 12q");
	ior_directive_matches_option("numTasks=2", "-N");
	CHECK_INT(ior_directive(&set, "savePerOpDataCSV=x", err, sizeof err), -1);
	CHECK(strstr(err, "savePerOpDataCSV is not supported by sonde") != NULL);
	CHECK_INT(ior_directive(&set, "preset=jupiter-easy", err, sizeof err), -1);
	CHECK_STR(err, "unknown directive 'preset'");
	CHECK_INT(ior_directive(&set, "noEquals", err, sizeof err), -1);
	CHECK_STR(err, "directive 'noEquals' is not key=value");

	/* IOR's params name every parameter once: IOR's own long names. */
	json = NULL;
	{
		struct sonde_json j;
		sonde_json_init(&j);
		sonde_json_object_begin(&j, NULL);
		sonde_options_json(&ior_option_table, &p, &j);
		sonde_json_object_end(&j);
		json = j.buf;
	}
	CHECK(strstr(json, "\"taskPerNodeOffset\":8,") != NULL);
	CHECK(strstr(json, "\"segmentCount\":3,") != NULL);
	CHECK(strstr(json, "\"filePerProc\":true,") != NULL);
	CHECK(strstr(json, "\"stoneWallingWearOut\":true,") != NULL);
	CHECK(strstr(json, "tasksPerNodeOffset") == NULL);
	CHECK(strstr(json, "mpiio.hintsFileName") == NULL);
	CHECK(strstr(json, "numTasks") == NULL);
	free(json);
	return check_finish("params");
}
