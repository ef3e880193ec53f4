/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend registry (src/io/registry.c) and a workload table that takes the backends'
 * options (sonde_options_full): every backend declared once, its options parsed into its own
 * slot, a workload entry that sets one under its own name, directives and records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "check.h"
#include "io_check.h"
#include "json.h"
#include "options.h"

struct cfg {
	int verbose;
	const char *api;
	struct sonde_backend_params backends;
};

#define F(x) offsetof(struct cfg, x)

static const struct sonde_option entries[] = {
    {'v', "verbose", SONDE_OPT_FLAG, F(verbose), NULL, "more"},
    {'a', "api", SONDE_OPT_STRING, F(api), "BACKEND", "I/O interface"},
    {'B', "useO_DIRECT", SONDE_OPT_FLAG, 0, NULL, "O_DIRECT", .backend_option = "posix.odirect"},
};

static void defaults(void *c)
{
	struct cfg *p = c;
	memset(p, 0, sizeof *p);
	p->api = "POSIX";
	sonde_backend_params_defaults(&p->backends);
}

static const struct sonde_option_table table = {
    .command = "sonde test",
    .usage = "[options]",
    .style = SONDE_STYLE_SHORT,
    .options = entries,
    .count = (int)(sizeof entries / sizeof entries[0]),
    .cfg_size = sizeof(struct cfg),
    .defaults = defaults,
    .takes_backends = 1,
    .backend_params = F(backends),
};

/* Every backend: a name -a finds, options under "<lower-case name>." only, parameters that fit
 * their slot; the registry holds each once. */
static void test_declared(void)
{
	CHECK(sonde_backend_count() >= 2);
	CHECK(sonde_backend_at(sonde_backend_count()) == NULL);
	for (int i = 0; i < sonde_backend_count(); i++) {
		const struct sonde_backend *b = sonde_backend_at(i);
		CHECK(b->name && b->summary);
		CHECK(b->params_size <= SONDE_BACKEND_PARAMS_MAX);
		if (!b->missing)
			CHECK(sonde_backend_find(b->name) == b);
		char prefix[32];
		snprintf(prefix, sizeof prefix, "%s.", b->name);
		for (char *s = prefix; *s; s++)
			*s = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
		if (strcmp(b->name, "MPIIO") != 0 && strcmp(b->name, "NCMPI") != 0)
			for (int k = 0; k < b->noptions; k++)
				CHECK(strncmp(b->options[k].name, prefix, strlen(prefix)) == 0);
		for (int j = 0; j < i; j++)
			CHECK(strcasecmp(sonde_backend_at(j)->name, b->name) != 0);
	}
	char names[256];
	sonde_backend_names(names, sizeof names, "|", 0);
	CHECK(strstr(names, "POSIX") && strstr(names, "MPIIO"));
}

static void test_merged_table(void)
{
	const struct sonde_option_table *full = sonde_options_full(&table);
	CHECK(full == sonde_options_full(&table)); /* made once */
	CHECK(sonde_options_full(full) == full);   /* merged once only */
	int expected = table.count;
	for (int i = 0; i < sonde_backend_count(); i++)
		expected += sonde_backend_at(i)->noptions;
	CHECK_INT(full->count, expected);
	/* -a's metavar lists the backends */
	CHECK(strstr(sonde_option_find(full, "a")->metavar, "POSIX") != NULL);

	struct cfg c;
	defaults(&c);
	struct sonde_option_set set = {.table = full, .cfg = &c};
	struct sonde_parse_result pos;
	char err[256] = "";
	char *argv[] = {"test", "-B", "--mpiio.hintsFileName=hints", "-v", NULL};
	CHECK_INT(sonde_options_parse(&set, 1, 4, argv, 1, &pos, err, sizeof err), 0);
	CHECK_STR(err, "");
	CHECK_INT(c.verbose, 1);
	/* the values are in the backends' own slots, where their open reads them */
	CHECK_INT(*(const int *)sonde_backend_option_field(&c.backends, "posix.odirect"), 1);
	CHECK_STR(
	    *(const char *const *)sonde_backend_option_field(&c.backends, "mpiio.hintsFileName"),
	    "hints");
	CHECK(sonde_backend_params_of(&c.backends, &sonde_backend_mpiio) !=
	      sonde_backend_params_of(&c.backends, &sonde_backend_posix));
	CHECK(sonde_backend_option_field(&c.backends, "posix.nothing") == NULL);
	CHECK_INT(sonde_option_given(&set, "B"), 1);
	sonde_parse_result_free(&pos);

	/* a directive reaches a backend's option too, with its checks */
	CHECK_INT(sonde_option_directive(&set, "posix.odirect", 13, "0", err, sizeof err), 0);
	CHECK_INT(*(const int *)sonde_backend_option_field(&c.backends, "posix.odirect"), 0);
	CHECK_INT(sonde_option_directive(&set, "posix.odirect", 13, "2", err, sizeof err), -1);
	CHECK(strstr(err, "posix.odirect") != NULL);

	/* records: the workload's name for a field it shares with a backend option */
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(full, &c, &j);
	sonde_json_object_end(&j);
	CHECK(strstr(j.buf, "\"useO_DIRECT\":false") != NULL);
	CHECK(strstr(j.buf, "\"posix.odirect\"") == NULL);
	CHECK(strstr(j.buf, "\"mpiio.hintsFileName\":\"hints\"") != NULL);
	sonde_json_free(&j);

	/* a refused backend option is refused through the workload's parser */
	char *bad[] = {"test", "--mpiio.useFileView", NULL};
	CHECK_INT(sonde_options_parse(&set, 1, 2, bad, 1, &pos, err, sizeof err), -1);
	CHECK(strstr(err, "--mpiio.useFileView is not supported") != NULL);
	sonde_parse_result_free(&pos);
	free(set.given);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	test_declared();
	test_merged_table();
	MPI_Finalize();
	return check_finish("io_registry");
}
