/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarative option tables. One table per workload drives parsing, --help, the generated
 * option reference (docs/options/<workload>.md) and the "params" of its result records
 * (src/core/params.c); nothing about an option is written twice.
 *
 * Each entry describes one field of the workload's parameter struct (by offsetof), so defaults
 * are whatever the workload put in the struct before parsing. */
#ifndef SONDE_OPTIONS_H
#define SONDE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "units.h"

enum sonde_opt_type {
	SONDE_OPT_FLAG,   /* int field set to 1 */
	SONDE_OPT_COUNT,  /* int field incremented each time (-v -v -v, -vvv) */
	SONDE_OPT_INT,    /* int field, decimal, within [min, max] */
	SONDE_OPT_LONG,   /* int64_t field, decimal, within [min, max] */
	SONDE_OPT_SIZE,   /* int64_t field, with the table entry's size style, within [min, max] */
	SONDE_OPT_DOUBLE, /* double field */
	SONDE_OPT_STRING, /* const char * field (points into argv) */
	SONDE_OPT_LIST,   /* struct sonde_strlist field, one value appended per use (-O a=b) */
	SONDE_OPT_WORDS,  /* struct sonde_strlist field: every following word up to the next one
	                     that starts with '-' (LANL's -hints k v k v, -num_io "1 2") */
	SONDE_OPT_CALLBACK, /* .parse(cfg, value, err) decides; for values that are not one field */
	SONDE_OPT_REFUSED,  /* an option of the original that sonde does not implement: using it
	                       is an error that quotes .help as the reason */
};

/* How words are read. */
enum sonde_opt_style {
	/* getopt-like: -b 4k, -b4k, grouped flags -wrC, --long, --long=value, --long value. */
	SONDE_STYLE_SHORT,
	/* LANL: -type 1, -nobj 8 (whole words after one dash); --type also accepted. */
	SONDE_STYLE_WORDS,
};

/* Where an entry may be given. Directives are IOR's "-O key=value" and script lines: any
 * entry with a long name, matched without case, unless it is for the command line only. */
enum sonde_opt_scope {
	SONDE_SCOPE_ANY,       /* the command line, and a directive where the workload has them */
	SONDE_SCOPE_DIRECTIVE, /* only as a directive (IOR's stoneWallingWearOut, aliases) */
	SONDE_SCOPE_COMMAND_LINE, /* only on the command line (IOR's -f, --preset) */
};

struct sonde_json;

/* The JSON type of a parameter in the records, as `sonde --describe-options` tells tools that
 * read them (python/sonde/results/names.py): what an entry's type writes, or what a CALLBACK
 * entry's .show writes (its .shows). */
enum sonde_record_type {
	SONDE_RECORD_NONE, /* not a parameter; for a CALLBACK: not declared (a table mistake) */
	SONDE_RECORD_BOOL,
	SONDE_RECORD_INT,
	SONDE_RECORD_NUMBER,
	SONDE_RECORD_STRING, /* a string, or null when the option leaves it unset */
	SONDE_RECORD_LIST,
};

struct sonde_strlist {
	int count;
	const char **items; /* malloc'd array of pointers into argv (or literal strings) */
};

struct sonde_option {
	char letter;      /* short letter (SHORT style), 0 if none */
	const char *name; /* long name: --name (SHORT style) or -name (WORDS style); may be NULL */
	enum sonde_opt_type type;
	size_t offset; /* offsetof(struct params, field); unused for REFUSED */
	/* "N", "BYTES", "PATH": shown in help; NULL for flags. Shell completion reads it: FILE,
	 * PATH and PREFIX are file names, DIR a directory, and "w|r|rw" (lower-case words or
	 * numbers) the values there are. */
	const char *metavar;
	const char *help; /* one line; for REFUSED the reason it is refused */
	int64_t min, max; /* INT/LONG/SIZE range; both 0 = no range check beyond the type */
	enum sonde_size_style size_style;
	int value_optional;   /* value may be absent (mib's -b[gran]); then .implicit is used */
	const char *implicit; /* value text used when an optional value is absent */
	int (*parse)(void *cfg, const char *value, char *err, size_t errlen);
	/* For an option the original accepted in runs where it does nothing: NULL when it acts in
	 * the run cfg describes, else where it does act ("applies to the aggregation types 3 and
	 * 4"). Such a run is not refused: the option gets one warning line saying it has no
	 * effect (sonde_options_warn_inert). NULL function: the option always acts. */
	const char *(*inert)(const void *cfg);
	enum sonde_opt_scope scope;
	/* The parameter's name in result records when the option has no long name (or a long
	 * name that is not a good record name); otherwise the long name is used. */
	const char *key;
	/* CALLBACK entries: writes the parameter's value as member key of the open object j (its
	 * record form), since a callback may fill several fields. */
	void (*show)(const void *cfg, const char *key, struct sonde_json *j);
	/* CALLBACK entries with .show: the JSON type .show writes. */
	enum sonde_record_type shows;
	/* A workload's entry that sets a backend's option under the workload's own spelling
	 * (IOR's -U for --mpiio.hintsFileName): that option's long name. The merged table
	 * (sonde_options_full) points the entry at the backend option's field. */
	const char *backend_option;
	/* Where the struct the entry describes begins inside the table's cfg: 0 for a table's
	 * own entries; set by sonde_options_full for the backends' entries it merges in (their
	 * offset, parse, inert and show then work on the backend's own parameters). */
	size_t base;
};

struct sonde_option_table {
	const char *command; /* "sonde ior" */
	const char *usage;   /* "[options]" or "[options] [operations...]" */
	const char *summary; /* one paragraph shown at the top of --help */
	enum sonde_opt_style style;
	const struct sonde_option *options;
	int count;
	const char *epilog; /* text after the option list (positional arguments, examples) */
	/* The i-th word a positional argument may be (i from 0; NULL past the last), for shell
	 * completion; NULL when the positional arguments are paths. */
	const char *(*positional_word)(int i);
	/* The struct the entries point into, filled with the workload's defaults, for the manual
	 * pages' "Default:" of each option (src/core/manpage.c). Leave both out when the struct's
	 * values before parsing are not the run's defaults (BTIO's come from its input file). */
	size_t cfg_size;
	void (*defaults)(void *cfg);
	/* A workload whose -a picks a storage backend (src/io/backend.h) holds every backend's
	 * parameters in its struct (a struct sonde_backend_params at backend_params); its table
	 * then takes the backends' options (--posix.*, --mpiio.*, --mmap.* ...) in its parser,
	 * --help, manual page, completion, option reference and records, all through
	 * sonde_options_full. A metavar "BACKEND" becomes the list of the backends' names. */
	int takes_backends;
	size_t backend_params;
	/* Only the backends with all these capabilities (src/io/backend.h; 0: every backend):
	 * mdtest's -a takes SONDE_CAP_MDTEST ones. */
	unsigned backend_caps;
	/* The parameters a workload writes into every record's params itself, from its positional
	 * arguments rather than an entry, whose values name files or directories (find's DIR as
	 * workdir): NULL-terminated, NULL for none. `sonde --describe-options` describes them as
	 * paths, so a tool that reads the records knows them without a list of its own. */
	const char *const *positional_paths;
};

/* One table and the struct it fills. A parse accepts options from several tables (the
 * workload's and the common one) in one command line. */
struct sonde_option_set {
	const struct sonde_option_table *table;
	void *cfg;
	unsigned char *given; /* per option: how many times it appeared (capped at 255); malloc'd */
};

struct sonde_parse_result {
	int npositional;
	char **positional; /* words that are not options, in order (malloc'd array) */
	int help;          /* -h/--help was given: caller prints help and exits 0 */
};

/* Parses argv[first..argc). Returns 0, or -1 with a one-line message in err naming the bad
 * option or value. sets[0] decides the style. "--" ends options. -h and --help set ->help
 * unless a table defines 'h' itself. */
int sonde_options_parse(struct sonde_option_set *sets, int nsets, int argc, char **argv, int first,
                        struct sonde_parse_result *out, char *err, size_t errlen);

/* Applies one directive "key=value" (IOR's -O and script lines) to set->cfg: the entry whose
 * long name matches key without case, with the entry's own type and range checks; flags take
 * 0 or 1 and counts a number. Counted in set->given when that is not NULL. Returns 0, or -1 with
 * a one-line message in err. */
int sonde_option_directive(struct sonde_option_set *set, const char *key, size_t keylen,
                           const char *value, char *err, size_t errlen);

/* How many times the named option (long name, or the letter as a one-char string) was given. */
int sonde_option_given(const struct sonde_option_set *set, const char *name);

/* Why option i of set->table, which was given, has no effect in the run set->cfg describes:
 * "-csize has no effect here: it applies to the aggregation types 3 and 4" in buf. NULL when it
 * was not given or acts. */
const char *sonde_option_inert(const struct sonde_option_set *set, int i, char *buf, size_t len);

/* One warning line (rank 0) per given option that has no effect in this run. Called once the
 * workload's configuration is final. */
void sonde_options_warn_inert(const struct sonde_option_set *set);

/* The table a workload's options are parsed, shown and recorded with: t itself, or for a table
 * that takes_backends, t's entries followed by every backend's (made once, kept until exit). */
const struct sonde_option_table *sonde_options_full(const struct sonde_option_table *t);

/* What a table that takes_backends merges in, from the layer that knows the backends (io's
 * registry registers it: core sees no backend). */
struct sonde_option_source {
	/* How many entries append may add to t's. */
	int (*count)(const struct sonde_option_table *t);
	/* Points t's entry e, which sets a backend option (.backend_option), at its field. */
	void (*resolve)(const struct sonde_option_table *t, struct sonde_option *e);
	/* Writes the backends' entries for t into out; returns how many. */
	int (*append)(const struct sonde_option_table *t, struct sonde_option *out);
	/* What the metavar BACKEND becomes: the names of the backends t may use (kept). */
	const char *(*names)(const struct sonde_option_table *t);
};

/* Set once (the io layer's registry does, before main runs). */
void sonde_options_set_backend_source(const struct sonde_option_source *source);

/* The struct entry o of a table describes, inside the table's cfg. */
static inline void *sonde_option_cfg(const struct sonde_option *o, void *cfg)
{
	return (char *)cfg + o->base;
}

/* The option entry for a long name or letter, or NULL. */
const struct sonde_option *sonde_option_find(const struct sonde_option_table *t, const char *name);

/* Whether the entry takes a value (flags, counts and refused entries do not). */
int sonde_option_takes_value(const struct sonde_option *o);

/* Whether the entry's value names a file or a directory (metavar FILE, PATH, PREFIX or DIR):
 * shell completion offers file names there, and `sonde --describe-options` marks the parameter a
 * path (what sonde-report --compare leaves out of a match). */
int sonde_option_names_file(const struct sonde_option *o);

/* "-b, --blockSize N" / "-nobj N" / "-O stoneWallingWearOut=N": the option as --help, the
 * option reference and the manual pages show it. */
void sonde_option_spelling(const struct sonde_option_table *t, const struct sonde_option *o,
                           char *buf, size_t len);

/* The parts of --help and of the generated references: options, the original's options sonde
 * refuses, and directives (IOR's -O keys that are no command-line option). */
enum sonde_option_section {
	SONDE_SECTION_OPTIONS,
	SONDE_SECTION_REFUSED,
	SONDE_SECTION_DIRECTIVES,
};
enum sonde_option_section sonde_option_section(const struct sonde_option *o);
int sonde_options_have_section(const struct sonde_option_table *t, enum sonde_option_section s);
/* What directives are, for the texts that list them. */
extern const char sonde_options_directives_intro[];

/* The entries of one section as --help lists them, two columns. */
void sonde_options_list(const struct sonde_option_table *t, enum sonde_option_section s, FILE *out);
void sonde_options_help(const struct sonde_option_table *t, FILE *out);
/* Markdown table of the options, for docs/options/. */
void sonde_options_markdown(const struct sonde_option_table *t, FILE *out);

/* params.c: every parameter of the table as members of the open JSON object j, named by
 * sonde_option_key and typed: flags as booleans, counts and numbers as numbers, sizes in bytes,
 * lists as arrays of strings, unset strings as null, callbacks by their .show. Refused entries
 * and later entries for a field an earlier one already named are left out. */
void sonde_options_json(const struct sonde_option_table *t, const void *cfg, struct sonde_json *j);
/* The record name of an entry (.key, else the long name); NULL for entries that are not
 * parameters (refused ones, and later entries for an already named field). */
const char *sonde_option_key(const struct sonde_option_table *t, const struct sonde_option *o);
/* params.c: the parameters sonde_options_json writes for the table, without values: an array
 * member key of j, one {"name", "type", "options", "path"} object each, type "bool", "int",
 * "number", "string" (or null) or "list"; options the command-line spellings that set it ("-B",
 * "--useO_DIRECT", "--posix.odirect"; none for a directive-only parameter); path whether its
 * value names a file or directory (sonde --describe-options). */
void sonde_options_describe(const struct sonde_option_table *t, const char *key,
                            struct sonde_json *j);

void sonde_parse_result_free(struct sonde_parse_result *r);
void sonde_strlist_push(struct sonde_strlist *l, const char *s);
void sonde_strlist_free(struct sonde_strlist *l);

/* Helpers for tables, so entries stay one line each. */
#define SONDE_FIELD(type, field) offsetof(type, field)

#endif
