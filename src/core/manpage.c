/* SPDX-License-Identifier: BSD-3-Clause */
#include "manpage.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fail.h"
#include "json.h"
#include "mix.h"
#include "option_default.h"
#include "roff.h"

static const struct {
	int code;
	const char *meaning;
} exit_statuses[] = {
    {SONDE_EXIT_OK, "Every phase ran and every check passed."},
    {SONDE_EXIT_RUNTIME,
     "A run-time error: an I/O or MPI error, a resource problem, or another rank failed. The "
     "failed phase prints no rate."},
    {SONDE_EXIT_USAGE,
     "Bad input: options, sizes, input files, or paths that do not exist or that this user "
     "may not use (permission denied), found before the run's I/O began. Rank 0 prints one "
     "line; nothing is written. A read-only or full file system is a run-time error (1)."},
    {SONDE_EXIT_VERIFY, "Data verification found mismatches."},
    {SONDE_EXIT_SIGNAL,
     "Stopped by SIGTERM or SIGINT (a batch job's time limit) after saving every finished "
     "measurement."},
};

/* How each size style reads a value, for the pages' note on the options that take sizes. */
static const char *const size_syntax[] = {
    [SONDE_SIZE_BINARY] = "a whole number of bytes with an optional k, m, g or t (either case; "
                          "binary: 1k = 1024)",
    [SONDE_SIZE_LANL] = "a whole number of bytes with an optional multiplier: w = 2, b = 512, "
                        "KB = 1000, K = 1024, MB = 10^6, M = 2^20, GB = 10^9, G = 2^30",
    [SONDE_SIZE_MPIBENCH] = "a decimal number with an optional K, M or G (binary) and an "
                            "optional B, that comes to a whole number of bytes: 32K, 2.5kb, .5GB",
};

/* The date in the pages' title line: SOURCE_DATE_EPOCH when the build gives one (reproducible
 * builds), else today. */
static void page_date(char *buf, size_t len)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	char *end;
	errno = 0;
	long long v = epoch ? strtoll(epoch, &end, 10) : 0;
	time_t t = epoch && *epoch && !*end && !errno ? (time_t)v : time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d", &tm);
}

static void title(FILE *out, const char *name)
{
	char date[32], upper[64];
	page_date(date, sizeof date);
	size_t i = 0;
	for (; name[i] && i + 1 < sizeof upper; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[i] = '\0';
	fprintf(out, ".TH ");
	sonde_roff_text(out, upper);
	fprintf(out, " 1 %s \"sonde %s\" \"sonde manual\"\n", date, sonde_version);
	/* Option names and paths must be copied as they are: no hyphenation, no stretched
	 * blanks. */
	fputs(".nh\n.ds AD l\n.ad l\n", out);
}

/* ---- options ------------------------------------------------------------------------------- */

/* The tag of an entry: its names in bold, its value's name in italics. */
static void option_tag(FILE *out, const struct sonde_option_table *t, const struct sonde_option *o)
{
	char sp[160];
	sonde_option_spelling(t, o, sp, sizeof sp);
	const char *meta = o->metavar && sonde_option_takes_value(o) ? o->metavar : NULL;
	if (sonde_option_section(o) == SONDE_SECTION_DIRECTIVES) {
		/* -O key=VALUE */
		char *eq = strchr(sp, '=');
		char *key = strndup(sp, eq ? (size_t)(eq - sp + 1) : strlen(sp));
		fputs("\\fB", out);
		sonde_roff_text(out, key);
		fputs("\\fR", out);
		free(key);
		if (eq) {
			fputs("\\fI", out);
			sonde_roff_text(out, eq + 1);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		return;
	}
	/* sp is NAMES, NAMES META or NAMES[META]; NAMES is "-x", "--name" or "-x, --name" */
	size_t names =
	    strlen(sp) - (meta ? strlen(meta) + 1 + (size_t)(o->value_optional != 0) : 0);
	for (size_t i = 0; i < names;) {
		size_t n = strcspn(sp + i, ",");
		if (n > names - i)
			n = names - i;
		char *word = strndup(sp + i, n);
		fputs("\\fB", out);
		sonde_roff_text(out, word);
		fputs("\\fR", out);
		free(word);
		i += n;
		if (i < names) {
			fputs(", ", out);
			i += 2;
		}
	}
	if (meta) {
		fputs(o->value_optional ? "[\\fI" : " \\fI", out);
		sonde_roff_text(out, meta);
		fputs(o->value_optional ? "\\fR]" : "\\fR", out);
	}
	fputc('\n', out);
}

/* "At least 1." / "From 0 to 3." for entries with a range. */
static void range_text(FILE *out, const struct sonde_option *o)
{
	if (!o->min && !o->max)
		return;
	int64_t top = o->type == SONDE_OPT_INT ? INT_MAX : INT64_MAX;
	int64_t bottom = o->type == SONDE_OPT_INT ? INT_MIN : INT64_MIN;
	if (o->max >= top && o->min == 0 && o->type == SONDE_OPT_SIZE)
		return; /* sizes are never negative */
	if (o->max >= top && o->min > bottom)
		fprintf(out, ".br\nAt least %" PRId64 ".\n", o->min);
	else if (o->min <= bottom)
		fprintf(out, ".br\nAt most %" PRId64 ".\n", o->max);
	else
		fprintf(out, ".br\nFrom %" PRId64 " to %" PRId64 ".\n", o->min, o->max);
}

static void option_entry(FILE *out, const struct sonde_option_table *t,
                         const struct sonde_option *o, const void *defaults)
{
	fputs(".TP\n", out);
	option_tag(out, t, o);
	/* as --help: refused directives are listed among the others */
	if (o->type == SONDE_OPT_REFUSED && sonde_option_section(o) == SONDE_SECTION_DIRECTIVES)
		fputs("refused: ", out);
	sonde_roff_line(out, o->help);
	if (o->type == SONDE_OPT_INT || o->type == SONDE_OPT_LONG || o->type == SONDE_OPT_SIZE)
		range_text(out, o);
	if (o->value_optional && o->implicit) {
		fputs(".br\nWithout a value: ", out);
		sonde_roff_text(out, o->implicit);
		fputs(".\n", out);
	}
	char buf[256];
	const char *d = sonde_option_default_text(o, defaults, 0, buf, sizeof buf);
	if (d) {
		fputs(".br\nDefault: ", out);
		sonde_roff_text(out, d);
		fputs(".\n", out);
	}
}

static void options_section(FILE *out, const struct sonde_option_table *t,
                            enum sonde_option_section s, const void *defaults)
{
	for (int i = 0; i < t->count; i++)
		if (sonde_option_section(&t->options[i]) == s)
			option_entry(out, t, &t->options[i], defaults);
}

/* One note per size style the table uses, naming its options. */
static void size_notes(FILE *out, const struct sonde_option_table *t)
{
	for (size_t style = 0; style < sizeof size_syntax / sizeof size_syntax[0]; style++) {
		int n = 0;
		for (int i = 0; i < t->count; i++) {
			const struct sonde_option *o = &t->options[i];
			if (o->type != SONDE_OPT_SIZE ||
			    o->size_style != (enum sonde_size_style)style ||
			    sonde_option_section(o) != SONDE_SECTION_OPTIONS)
				continue;
			fputs(n++ ? ",\n" : ".PP\nSizes (", out);
			char sp[160];
			sonde_option_spelling(t, o, sp, sizeof sp);
			sp[strcspn(sp, ", [")] = '\0';
			fputs("\\fB", out);
			sonde_roff_text(out, sp);
			fputs("\\fR", out);
		}
		if (n) {
			fputs(") are ", out);
			sonde_roff_text(out, size_syntax[style]);
			fputs(".\n", out);
		}
	}
}

static void exit_status(FILE *out)
{
	sonde_roff_macro(out, "SH", "EXIT STATUS");
	for (size_t i = 0; i < sizeof exit_statuses / sizeof exit_statuses[0]; i++) {
		fprintf(out, ".TP\n.B %d\n", exit_statuses[i].code);
		sonde_roff_line(out, exit_statuses[i].meaning);
	}
}

/* ---- the DIFFERENCES section ------------------------------------------------------------ */

static char *read_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	size_t len = 0, cap = 1 << 16;
	char *text = malloc(cap);
	for (size_t n; text && (n = fread(text + len, 1, cap - len - 1, f)) > 0;) {
		len += n;
		if (len + 1 == cap)
			text = realloc(text, cap *= 2);
	}
	if (!text)
		abort();
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "cannot read %s", path);
		free(text);
		return NULL;
	}
	text[len] = '\0';
	return text;
}

static int heading_says_differ(const char *line, size_t n)
{
	if (n < 3 || strncmp(line, "## ", 3) != 0)
		return 0;
	for (size_t i = 3; i + 6 <= n; i++)
		if (strncasecmp(line + i, "differ", 6) == 0)
			return 1;
	return 0;
}

/* The body of the docs page's "## ... differ..." section, up to the next level-2 (or level-1)
 * heading outside a code block; NULL when there is none. */
static char *differences(const char *page)
{
	const char *start = NULL;
	int fenced = 0;
	for (const char *p = page; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (strncmp(p, "```", 3) == 0)
			fenced = !fenced;
		else if (!fenced && start &&
		         (strncmp(p, "## ", 3) == 0 || strncmp(p, "# ", 2) == 0))
			return strndup(start, (size_t)(p - start));
		else if (!fenced && !start && heading_says_differ(p, n))
			start = nl ? nl + 1 : p + n;
		p += n + (nl != NULL);
	}
	return start ? strdup(start) : NULL;
}

/* ---- the pages ----------------------------------------------------------------------------- */

/* The other pages: the tools', and the workloads' when workloads is not NULL. */
static void see_also(FILE *out, const char *self, const struct sonde_workload *const *workloads)
{
	static const char *const tools[] = {"sonde", "sonde-suite", "sonde-report"};
	char pages[64][48];
	int n = 0;
	for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
		if (strcmp(tools[i], self) != 0)
			snprintf(pages[n++], sizeof pages[0], "%s", tools[i]);
	for (int i = 0; workloads && workloads[i] && n < 64; i++)
		snprintf(pages[n++], sizeof pages[0], "sonde-%s", workloads[i]->name);
	sonde_roff_macro(out, "SH", "SEE ALSO");
	for (int i = 0; i < n; i++) {
		fputs(".BR ", out);
		sonde_roff_text(out, pages[i]);
		fputs(i + 1 < n ? " (1),\n" : " (1)\n", out);
	}
}

/* A workload without a docs page: its DIFFERENCES section says so, in Markdown as a page's would
 * be. */
static char *no_differences(const struct sonde_workload *w)
{
	char *text = NULL;
	if (asprintf(&text,
	             "sonde %s has no documentation page (docs/workloads/%s.md): how it differs "
	             "from its original is not written down.\n",
	             w->name, w->name) < 0)
		abort();
	return text;
}

int sonde_manpage_workload(const struct sonde_workload *w, const char *docs_page, FILE *out,
                           char *err, size_t errlen)
{
	char *page = docs_page ? read_file(docs_page, err, errlen) : NULL;
	if (docs_page && !page)
		return -1;
	char *diff = page ? differences(page) : no_differences(w);
	free(page);
	if (!diff) {
		snprintf(err, errlen,
		         "%s has no level-2 heading that says how %s differs from its original "
		         "(\"## Differences from ...\")",
		         docs_page, w->name);
		return -1;
	}
	const struct sonde_option_table *t = sonde_options_full(w->options);
	void *defaults = sonde_option_table_defaults(t);
	char name[64];
	snprintf(name, sizeof name, "sonde-%s", w->name);
	title(out, name);
	fputs(".SH NAME\n", out);
	sonde_roff_text(out, name);
	fputs(" \\- ", out);
	sonde_roff_text(out, w->summary);
	fputs("\n.SH SYNOPSIS\n", out);
	sonde_roff_macro(out, "B", t->command);
	sonde_roff_line(out, t->usage);
	fputs(".SH DESCRIPTION\n", out);
	if (t->summary)
		sonde_roff_line(out, t->summary);
	fputs(".PP\nLaunch it with the MPI launcher (\\fBmpirun\\fR, \\fBsrun\\fR); "
	      "\\fBsonde \\-\\-version\\fR names the launcher of the MPI it is built with.\n",
	      out);
	fputs(".SH OPTIONS\n", out);
	size_notes(out, t);
	options_section(out, t, SONDE_SECTION_OPTIONS, defaults);
	if (sonde_options_have_section(t, SONDE_SECTION_REFUSED)) {
		sonde_roff_macro(out, "SS", "Options of the original that sonde refuses");
		options_section(out, t, SONDE_SECTION_REFUSED, defaults);
	}
	if (sonde_options_have_section(t, SONDE_SECTION_DIRECTIVES)) {
		sonde_roff_macro(out, "SS", "Directives");
		fputs(".PP\n", out);
		sonde_roff_line(out, sonde_options_directives_intro);
		fputs("These are directives only:\n", out);
		options_section(out, t, SONDE_SECTION_DIRECTIVES, defaults);
	}
	sonde_roff_macro(out, "SS", "Common options");
	options_section(out, &sonde_common_options, SONDE_SECTION_OPTIONS, NULL);
	fputs(".TP\n\\fB\\-\\-help\\fR\nPrint the options and exit.\n", out);
	if (t->epilog) {
		fputs(".SH NOTES\n", out);
		sonde_roff_lines(out, t->epilog);
	}
	fputs(".SH DIFFERENCES\n", out);
	sonde_roff_markdown(out, diff);
	exit_status(out);
	see_also(out, name, NULL);
	free(diff);
	free(defaults);
	return 0;
}

static void paragraph(FILE *out, const char *text)
{
	fputs(".PP\n", out);
	sonde_roff_line(out, text);
}

static void example(FILE *out, const char *what, const char *command)
{
	paragraph(out, what);
	fputs(".RS 4\n.EX\n", out);
	sonde_roff_line(out, command);
	fputs(".EE\n.RE\n", out);
}

void sonde_manpage_sonde(const struct sonde_workload *const *workloads, FILE *out)
{
	title(out, "sonde");
	fputs(".SH NAME\nsonde \\- parallel I/O and MPI benchmarks\n.SH SYNOPSIS\n", out);
	fputs(".B sonde\n.I workload\n[\\fIoptions\\fR]\n.br\n.B sonde\n.I workload\n"
	      ".B \\-\\-help\n.br\n.B sonde \\-\\-version\n.br\n"
	      ".B sonde \\-\\-parse\\-only\n.I ranks tasks_per_node workload\n"
	      "[\\fIoptions\\fR]\n.br\n"
	      ".B sonde \\-\\-describe\\-options\n.br\n"
	      ".B sonde mix\n[\\fIoptions\\fR] \\fB\\-\\-group\\fR \\fIspec\\fB:\\fR "
	      "\\fIworkload\\fR [\\fIoptions\\fR] ...\n",
	      out);
	fputs(".SH DESCRIPTION\n", out);
	sonde_roff_line(out,
	                "sonde is one MPI program for the benchmarks of parallel file systems and "
	                "MPI: each workload re-does an established benchmark with its options, "
	                "its meanings and its output format, so existing command lines and "
	                "scripts keep working, and adds verified data, per-call latencies and "
	                "one results schema (JSON Lines and CSV) for all of them.");
	paragraph(out,
	          "Launch it with the MPI launcher of the MPI it is built with (sonde --version "
	          "names it) or with srun inside a Slurm allocation; --help, --version, "
	          "--parse-only and --describe-options need no launcher.");
	fputs(".SH WORKLOADS\n", out);
	for (int i = 0; workloads[i]; i++) {
		fprintf(out, ".TP\n.B %s\n\\&", workloads[i]->name);
		sonde_roff_text(out, workloads[i]->summary);
		fprintf(out, "; see\n.BR sonde\\-%s (1).\n", workloads[i]->name);
	}
	fputs(".SH CONCURRENT WORKLOADS\n", out);
	sonde_roff_line(
	    out, "sonde mix splits one launch into groups of ranks, each running one "
	         "workload with its own options on a communicator of its own, all started "
	         "together after one barrier: --group N: (the next N ranks), N/node: (N "
	         "ranks of each node), either with @NODES (0,2-3). Every group's options "
	         "are checked by its workload first. Each group writes its workload's "
	         "records (with a group member, and the start and end of ior's, mdtest's, "
	         "mib's and find's measurements on the mix's clock, and its --interval time "
	         "series); --json FILE also gets a mix record per overlap of the groups' "
	         "phases, with each group's figures inside and outside it summed from its "
	         "intervals; --solo runs each group alone first and gives the ratio at once / "
	         "alone. docs/workloads/mix.md has the details. The mix's own options, before "
	         "the first --group:");
	options_section(out, &sonde_mix_options, SONDE_SECTION_OPTIONS, NULL);
	fputs(".SH OPTIONS\n", out);
	paragraph(out, "Every workload accepts these besides its own:");
	options_section(out, &sonde_common_options, SONDE_SECTION_OPTIONS, NULL);
	fputs(
	    ".TP\n\\fB\\-\\-help\\fR\nWith a workload: its options. Alone: the workloads.\n"
	    ".TP\n\\fB\\-\\-version\\fR\nThe version, the MPI library and the launcher of the MPI "
	    "sonde is built with.\n",
	    out);
	fputs(".TP\n\\fB\\-\\-parse\\-only\\fR \\fIranks tasks_per_node workload\\fR "
	      "[\\fIoptions\\fR]\n",
	      out);
	sonde_roff_line(
	    out, "Parses and checks the options as a launch of ranks processes, tasks_per_node "
	         "on each node, would, with the workload's own code, and prints one JSON line: "
	         "the workload, the ranks, the tasks per node and the params the run's "
	         "header record would hold. No MPI, no launcher, and no file is made or "
	         "written: input files that hold parameters (IOR's -f script, mpiio's "
	         "-setup, BTIO's input file) are read, and the checks that need the file "
	         "system (the directory of a test file, files to read back, the results "
	         "files) are left to the run. A command line the run would refuse gets the "
	         "workload's error line and exit status 2. sonde-suite checks every launch "
	         "with it before it runs one.");
	fputs(".SH FILES\n", out);
	paragraph(out,
	          "Standard output carries each original's own human format. --json FILE appends "
	          "JSON Lines records to FILE: a header (command line, MPI library, nodes, tasks "
	          "per node, file system and every parameter), one record per measured phase "
	          "and iteration, and an end record that says why the run ended (exit code, "
	          "reason, failing rank). --csv FILE appends one row per measurement. Neither "
	          "file is ever truncated, and a record is written whole or not at all.");
	paragraph(out,
	          "The records are described in docs/results-schema.md of the sources, and the "
	          "sonde-suite and sonde-report tools read them.");
	fputs(".SH ENVIRONMENT\n", out);
	static const char *const environment[][2] = {
	    {"SLURM_JOB_ID, SLURM_JOB_NODELIST",
	     "Recorded in the results header when sonde runs in a Slurm job."},
	    {"SLURM_STEP_NUM_NODES, SLURM_STEP_TASKS_PER_NODE, SLURM_NTASKS_PER_NODE",
	     "Cross-checked against the placement MPI reports; a mismatch is a warning naming "
	     "both."},
	    {"OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID",
	     "Before MPI starts, the rank that prints a usage error (rank 0 alone)."},
	    {"OMPI_ALLOW_RUN_AS_ROOT, OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
	     "Open MPI's permission to run as root (both set to 1)."},
	};
	for (size_t i = 0; i < sizeof environment / sizeof environment[0]; i++) {
		fputs(".TP\n.B ", out);
		sonde_roff_text(out, environment[i][0]);
		fputc('\n', out);
		sonde_roff_line(out, environment[i][1]);
	}
	exit_status(out);
	fputs(".SH EXAMPLES\n", out);
	example(
	    out,
	    "64 ranks of IOR's file-per-process test, written and read back from another node:",
	    "mpirun -n 64 sonde ior -a POSIX -F -t 16m -b 2g -i 3 -w -r -C -o /lustre/x/testFile");
	example(out, "Collective latencies from 0 bytes to 1 MiB, with JSON Lines results:",
	        "srun sonde coll -b 0 -e 1M Alltoall Allreduce --json coll.jsonl");
	example(out, "mib's fixed-size calls for 60 seconds per phase, with per-call profiles:",
	        "srun sonde mib -t /lustre/x/mib -l 1024 -L 60 -s 512k -H -p prof");
	fputs(".SH LICENSE\nsonde is distributed under the ", out);
	sonde_roff_text(out, sonde_license);
	sonde_roff_line(out,
	                " licence: see the LICENSE file of its sources "
	                "(share/doc/sonde/LICENSE where it is installed). There is no warranty.");
	see_also(out, "sonde", workloads);
}
