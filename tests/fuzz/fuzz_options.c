/* SPDX-License-Identifier: BSD-3-Clause */
/* The option parser on random command lines (one word per line of the input), against a table
 * of every option type in both styles and against the workloads' own tables with their
 * defaults, always together with the common options, as sonde_parse_command_line does; for
 * mdtest also its tree arithmetic on the counts parsed, for train its checks and the sizes of
 * the files of the dataset they let through. */
#include "fuzz_util.h"
#include "options.h"
#include "workload.h"
#include "workloads/btio/btio.h"
#include "workloads/find/find.h"
#include "workloads/ior/ior.h"
#include "workloads/mdtest/mdtest.h"
#include "workloads/mib/mib.h"
#include "workloads/mpiio/mpiio.h"
#include "workloads/train/train.h"

struct cfg {
	int flag, count, i;
	int64_t l, size, lanl, gran;
	double d;
	const char *s;
	struct sonde_strlist list, words;
	int calls;
};

static int parse_odd(void *cfg, const char *value, char *err, size_t errlen)
{
	if (strlen(value) % 2 == 0) {
		snprintf(err, errlen, "'%s' has an even length", value);
		return -1;
	}
	((struct cfg *)cfg)->calls++;
	return 0;
}

#define F(x) offsetof(struct cfg, x)
static const struct sonde_option every_type[] = {
    {'f', "flag", SONDE_OPT_FLAG, F(flag), NULL, "flag"},
    {'v', "verbose", SONDE_OPT_COUNT, F(count), NULL, "count"},
    {'i', "int", SONDE_OPT_INT, F(i), "N", "int", -5, 100},
    {'l', "long", SONDE_OPT_LONG, F(l), "N", "long"},
    {'b', "size", SONDE_OPT_SIZE, F(size), "BYTES", "size", 1, INT64_MAX, SONDE_SIZE_BINARY},
    {'z', "lanl", SONDE_OPT_SIZE, F(lanl), "BYTES", "lanl", 0, 0, SONDE_SIZE_LANL},
    {'x', "double", SONDE_OPT_DOUBLE, F(d), "R", "double"},
    {'o', "out", SONDE_OPT_STRING, F(s), "PATH", "string"},
    {'O', "directive", SONDE_OPT_LIST, F(list), "K=V", "list"},
    {'w', "words", SONDE_OPT_WORDS, F(words), "W ...", "words"},
    {'c', "odd", SONDE_OPT_CALLBACK, 0, "S", "callback", .parse = parse_odd},
    {'g', "gran", SONDE_OPT_SIZE, F(gran), "GRAN", "optional value", .value_optional = 1,
     .implicit = "4k", .size_style = SONDE_SIZE_MPIBENCH},
    {'J', "refused", SONDE_OPT_REFUSED, 0, NULL, "not implemented"},
};
static const struct sonde_option_table short_table = {
    "sonde f", "", "", SONDE_STYLE_SHORT, every_type, sizeof every_type / sizeof *every_type, NULL};
static const struct sonde_option_table word_table = {
    "sonde w", "", "", SONDE_STYLE_WORDS, every_type, sizeof every_type / sizeof *every_type, NULL};

union params {
	struct cfg cfg;
	struct ior_params ior;
	struct mib_params mib;
	struct btio_options btio;
	struct mpiio_params mpiio;
	struct find_params find;
	struct mdtest_params mdtest;
	struct train_params train;
};

static void free_lists(const struct sonde_option_table *t, void *cfg)
{
	for (int k = 0; k < t->count; k++) {
		const struct sonde_option *o = &t->options[k];
		if (o->type == SONDE_OPT_LIST || o->type == SONDE_OPT_WORDS)
			sonde_strlist_free((struct sonde_strlist *)((char *)cfg + o->offset));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct sonde_option_table *t;
	union params p;
	memset(&p, 0, sizeof p);
	switch (data[0] % 9) {
	case 0:
		t = &short_table;
		break;
	case 1:
		t = &word_table;
		break;
	case 2:
		t = sonde_options_full(&ior_option_table); /* as ior parses */
		ior_params_defaults(&p.ior);
		break;
	case 3:
		t = &mib_options;
		mib_params_defaults(&p.mib);
		break;
	case 4:
		t = &btio_option_table;
		break;
	case 6:
		t = &find_options;
		find_params_defaults(&p.find);
		break;
	case 7:
		t = &mdtest_options;
		mdtest_params_defaults(&p.mdtest);
		break;
	case 8:
		t = &train_options;
		train_params_defaults(&p.train);
		break;
	default:
		t = &mpiio_table;
		break;
	}
	char *text = fuzz_string(data + 1, size - 1);
	char *argv[66] = {"sonde"};
	int argc = fuzz_words(text, argv, 1, 64);
	struct sonde_common common;
	memset(&common, 0, sizeof common);
	struct sonde_option_set sets[2] = {{t, &p, NULL}, {&sonde_common_options, &common, NULL}};
	struct sonde_parse_result r;
	memset(&r, 0, sizeof r);
	char err[512] = "";
	int rc = sonde_options_parse(sets, 2, argc, argv, 1, &r, err, sizeof err);
	if (rc != 0 && !err[0])
		abort(); /* a refusal always says why */
	/* mdtest's tree arithmetic on whatever counts the options allow: no overflow */
	struct mdtest_tree tree;
	if (rc == 0 && t == &mdtest_options &&
	    mdtest_tree_plan(&p.mdtest, &tree, err, sizeof err) != 0 && !err[0])
		abort();
	/* train's checks, and the sizes of its first and last file (no overflow) */
	if (rc == 0 && t == &train_options) {
		if (train_params_check(&p.train, err, sizeof err) != 0) {
			if (!err[0])
				abort();
		} else if (train_file_size(&p.train, 0) < 0 ||
		           train_file_size(&p.train, p.train.num_files - 1) < 0) {
			abort();
		}
	}
	sonde_parse_result_free(&r);
	free_lists(t, &p);
	free_lists(&sonde_common_options, &common);
	free(sets[0].given);
	free(sets[1].given);
	free(text);
	return 0;
}
