/* SPDX-License-Identifier: BSD-3-Clause */
#include "shell_completion.h"

#include <ctype.h>
#include <string.h>

#include "mix.h"

/* What follows an option on the command line, from its metavar (options.h). */
enum value_kind {
	VALUE_NONE,    /* a flag, or a value that may be left out (-b[GRAN]) */
	VALUE_FILE,    /* FILE, PATH, PREFIX */
	VALUE_DIR,     /* DIR */
	VALUE_CHOICES, /* w|r|rw: the words there are */
	VALUE_OTHER,   /* a number, a size, a name: nothing to offer */
};

/* "w|r|rw", "0|1", "read|write", "POSIX|MPIIO": alternatives of letters and digits. */
static int lists_choices(const char *metavar)
{
	if (!strchr(metavar, '|'))
		return 0;
	for (const char *p = metavar; *p; p++)
		if (*p != '|' && !isalnum((unsigned char)*p))
			return 0;
	return metavar[0] != '|' && metavar[strlen(metavar) - 1] != '|' && !strstr(metavar, "||");
}

static enum value_kind value_kind(const struct sonde_option *o)
{
	if (!sonde_option_takes_value(o) || o->value_optional)
		return VALUE_NONE;
	const char *m = o->metavar ? o->metavar : "";
	if (sonde_option_names_file(o))
		return strcmp(m, "DIR") == 0 ? VALUE_DIR : VALUE_FILE;
	return lists_choices(m) ? VALUE_CHOICES : VALUE_OTHER;
}

static int offered(const struct sonde_option *o)
{
	return sonde_option_section(o) == SONDE_SECTION_OPTIONS;
}

/* The words that name entry o: -x and --name, or -name in the LANL style. Each is written
 * single-quoted after sep; returns how many. */
static int names(FILE *out, const struct sonde_option_table *t, const struct sonde_option *o,
                 const char *sep, int written)
{
	if (o->letter)
		fprintf(out, "%s'-%c'", written++ ? sep : "", o->letter);
	if (o->name)
		fprintf(out, "%s'%s%s'", written++ ? sep : "",
		        t->style == SONDE_STYLE_WORDS ? "-" : "--", o->name);
	return written;
}

/* One case pattern per kind of value: the options of both tables whose value is of that kind,
 * and what to offer after them. */
static void value_cases(FILE *out, const struct sonde_option_table *const *tables)
{
	static const char *const action[] = {
	    [VALUE_FILE] = "_sonde_reply -f; return 0",
	    [VALUE_DIR] = "_sonde_reply -d; return 0",
	    [VALUE_OTHER] = "return 0",
	};
	for (int kind = VALUE_FILE; kind <= VALUE_OTHER; kind++) {
		if (kind == VALUE_CHOICES) {
			for (int k = 0; tables[k]; k++)
				for (int i = 0; i < tables[k]->count; i++) {
					const struct sonde_option *o = &tables[k]->options[i];
					if (!offered(o) || value_kind(o) != VALUE_CHOICES)
						continue;
					fputs("\t\t", out);
					names(out, tables[k], o, "|", 0);
					fputs(") _sonde_reply -W '", out);
					for (const char *p = o->metavar; *p; p++)
						fputc(*p == '|' ? ' ' : *p, out);
					fputs("'; return 0 ;;\n", out);
				}
			continue;
		}
		int written = 0;
		for (int k = 0; tables[k]; k++)
			for (int i = 0; i < tables[k]->count; i++) {
				const struct sonde_option *o = &tables[k]->options[i];
				if (offered(o) && value_kind(o) == (enum value_kind)kind) {
					if (!written)
						fputs("\t\t", out);
					written = names(out, tables[k], o, "|", written);
				}
			}
		if (written)
			fprintf(out, ") %s ;;\n", action[kind]);
	}
}

/* The case of one command: what to offer after each option of its tables, its options, and the
 * words its positional arguments may be (positional: its table's, or NULL). */
static void command_case(FILE *out, const char *name,
                         const struct sonde_option_table *const *tables,
                         const char *(*positional_word)(int i))
{
	fprintf(out, "\t%s)\n\t\tcase $prev in\n", name);
	value_cases(out, tables);
	fputs("\t\tesac\n\t\toptions=(", out);
	int written = 0;
	for (int k = 0; tables[k]; k++)
		for (int i = 0; i < tables[k]->count; i++)
			if (offered(&tables[k]->options[i]))
				written =
				    names(out, tables[k], &tables[k]->options[i], " ", written);
	fputs(" '--help')\n", out);
	if (positional_word) {
		fputs("\t\twords=(", out);
		for (int i = 0; positional_word(i); i++)
			fprintf(out, "%s'%s'", i ? " " : "", positional_word(i));
		fputs(")\n", out);
	}
	fputs("\t\t;;\n", out);
}

static void workload_case(FILE *out, const struct sonde_workload *w)
{
	const struct sonde_option_table *tables[] = {sonde_options_full(w->options),
	                                             &sonde_common_options, NULL};
	command_case(out, w->name, tables, w->options->positional_word);
}

/* sonde mix: after the last --group, its SPEC (nothing to offer), then a workload, then that
 * workload's words as if it ran alone, and --group again; before the first, the mix's own
 * options. g: the word index of that --group, 0 before the first. */
static void mix_prelude(const struct sonde_workload *const *workloads, FILE *out)
{
	fputs("\tlocal w=${COMP_WORDS[1]} g=0 i\n"
	      "\tif [[ $w == mix ]]; then\n"
	      "\t\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
	      "\t\t\t[[ ${COMP_WORDS[i]} == " SONDE_MIX_GROUP " ]] && g=$i\n"
	      "\t\tdone\n"
	      "\t\t((g && COMP_CWORD == g + 1)) && return 0\n"
	      "\t\tif ((g && COMP_CWORD == g + 2)); then\n"
	      "\t\t\t_sonde_reply -W '",
	      out);
	for (int i = 0; workloads[i]; i++)
		fprintf(out, "%s%s", i ? " " : "", workloads[i]->name);
	fputs("'\n\t\t\treturn 0\n\t\tfi\n"
	      "\t\t((g)) && w=${COMP_WORDS[g + 2]}\n"
	      "\tfi\n",
	      out);
}

void sonde_completion_bash(const struct sonde_workload *const *workloads, FILE *out)
{
	fputs(
	    "# bash completion for sonde: the workloads, each workload's options, file names after "
	    "an\n# option that takes a path. Generated by `sonde --help-completion bash` from "
	    "sonde's option\n# tables; zsh loads it with: autoload -U bashcompinit && bashcompinit "
	    "&& source FILE\n\n",
	    out);
	/* compgen's words, one a line, so that file names with blanks stay whole */
	fputs("_sonde_reply() {\n"
	      "\tmapfile -t COMPREPLY < <(compgen \"$@\" -- \"$cur\")\n"
	      "\t[[ $1 == -W ]] || compopt -o filenames 2>/dev/null\n"
	      "}\n\n",
	      out);
	fputs("_sonde() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} options "
	      "words=()\n"
	      "\t# --name=value: bash splits at '=' (COMP_WORDBREAKS)\n"
	      "\tif [[ $cur == = ]]; then\n"
	      "\t\tcur=\n"
	      "\telif [[ $prev == = ]] && ((COMP_CWORD >= 3)); then\n"
	      "\t\tprev=${COMP_WORDS[COMP_CWORD - 2]}\n"
	      "\tfi\n"
	      "\tCOMPREPLY=()\n"
	      "\tif ((COMP_CWORD == 1)); then\n"
	      "\t\t_sonde_reply -W '",
	      out);
	for (int i = 0; workloads[i]; i++)
		fprintf(out, "%s ", workloads[i]->name);
	fputs("mix --help --version'\n\t\treturn 0\n\tfi\n", out);
	mix_prelude(workloads, out);
	fputs("\tcase $w in\n", out);
	for (int i = 0; workloads[i]; i++)
		workload_case(out, workloads[i]);
	const struct sonde_option_table *mix[] = {&sonde_mix_options, NULL};
	command_case(out, "mix", mix, NULL);
	fputs("\t*) return 0 ;;\n\tesac\n"
	      "\t[[ ${COMP_WORDS[1]} == mix ]] && options+=('" SONDE_MIX_GROUP "')\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tmapfile -t COMPREPLY < <(compgen -W \"${options[*]}\" -- \"$cur\")\n"
	      "\telif ((${#words[@]})); then\n"
	      "\t\t_sonde_reply -W \"${words[*]}\"\n"
	      "\telse\n"
	      "\t\t_sonde_reply -f\n"
	      "\tfi\n"
	      "}\n\n"
	      "complete -F _sonde sonde\n",
	      out);
}
