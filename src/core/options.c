/* SPDX-License-Identifier: BSD-3-Clause */
#include "options.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fail.h"
#include "option_default.h"
#include "workload.h"

void sonde_strlist_push(struct sonde_strlist *l, const char *s)
{
	const char **items = realloc(l->items, sizeof *items * (size_t)(l->count + 1));
	if (!items)
		abort();
	items[l->count++] = s;
	l->items = items;
}

void sonde_strlist_free(struct sonde_strlist *l)
{
	free(l->items);
	l->items = NULL;
	l->count = 0;
}

void sonde_parse_result_free(struct sonde_parse_result *r)
{
	free(r->positional);
	r->positional = NULL;
	r->npositional = 0;
}

int sonde_option_takes_value(const struct sonde_option *o)
{
	return o->type != SONDE_OPT_FLAG && o->type != SONDE_OPT_COUNT &&
	       o->type != SONDE_OPT_REFUSED;
}

int sonde_option_names_file(const struct sonde_option *o)
{
	if (!sonde_option_takes_value(o) || o->value_optional || !o->metavar)
		return 0;
	static const char *const file_metavars[] = {"FILE", "PATH", "PREFIX", "DIR"};
	for (size_t i = 0; i < sizeof file_metavars / sizeof file_metavars[0]; i++)
		if (strcmp(o->metavar, file_metavars[i]) == 0)
			return 1;
	return 0;
}

static const struct sonde_option_source *backend_source;

void sonde_options_set_backend_source(const struct sonde_option_source *source)
{
	backend_source = source;
}

const struct sonde_option_table *sonde_options_full(const struct sonde_option_table *t)
{
	static struct {
		const struct sonde_option_table *from;
		struct sonde_option_table full;
	} made[16];
	static int nmade;
	if (!t->takes_backends)
		return t;
	for (int i = 0; i < nmade; i++)
		if (made[i].from == t || &made[i].full == t)
			return &made[i].full;
	if (nmade == (int)(sizeof made / sizeof made[0]) || !backend_source) {
		fprintf(stderr, "sonde: internal error: %s takes backends, but %s\n", t->command,
		        backend_source ? "too many tables do" : "no backend registry is linked");
		abort();
	}
	const struct sonde_option_source *src = backend_source;
	int count = t->count + src->count(t);
	struct sonde_option *all = calloc((size_t)count, sizeof *all);
	const char *names = src->names(t);
	if (!all || !names)
		abort();
	int n = 0;
	for (int i = 0; i < t->count; i++) {
		all[n] = t->options[i];
		if (all[n].backend_option)
			src->resolve(t, &all[n]);
		if (all[n].metavar && strcmp(all[n].metavar, "BACKEND") == 0)
			all[n].metavar = names;
		n++;
	}
	n += src->append(t, all + n);
	made[nmade].from = t;
	made[nmade].full = *t;
	made[nmade].full.options = all;
	made[nmade].full.count = n;
	return &made[nmade++].full;
}

const struct sonde_option *sonde_option_find(const struct sonde_option_table *t, const char *name)
{
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *o = &t->options[i];
		if (name[0] && !name[1] && o->letter == name[0])
			return o;
		if (o->name && strcmp(o->name, name) == 0)
			return o;
	}
	return NULL;
}

int sonde_option_given(const struct sonde_option_set *set, const char *name)
{
	const struct sonde_option *o = sonde_option_find(set->table, name);
	return o && set->given ? set->given[o - set->table->options] : 0;
}

/* How a user types the option: -c, --name, or -name in the LANL style. */
static void typed_name(const struct sonde_option_table *t, const struct sonde_option *o, char *buf,
                       size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "%s%s", t->style == SONDE_STYLE_WORDS ? "-" : "--", o->name);
}

const char *sonde_option_inert(const struct sonde_option_set *set, int i, char *buf, size_t len)
{
	const struct sonde_option *o = &set->table->options[i];
	if (!o->inert || !set->given || !set->given[i])
		return NULL;
	const char *where = o->inert(sonde_option_cfg(o, set->cfg));
	if (!where)
		return NULL;
	char name[64];
	typed_name(set->table, o, name, sizeof name);
	snprintf(buf, len, "%s has no effect here: it %s", name, where);
	return buf;
}

void sonde_options_warn_inert(const struct sonde_option_set *set)
{
	char line[256];
	for (int i = 0; i < set->table->count; i++)
		if (sonde_option_inert(set, i, line, sizeof line))
			sonde_warn("%s", line);
}

/* Whether the entry's long name is name (namelen bytes); a REFUSED entry named "prefix.*"
 * stands for every name under prefix (IOR's --hdf5.noFill, --posix.lustre.stripecount). */
static int names(const struct sonde_option *o, const char *name, size_t namelen,
                 int (*cmp)(const char *, const char *, size_t))
{
	if (!o->name)
		return 0;
	size_t len = strlen(o->name);
	if (o->type == SONDE_OPT_REFUSED && len >= 2 && strcmp(o->name + len - 2, ".*") == 0)
		return namelen > len - 1 && cmp(o->name, name, len - 1) == 0;
	return len == namelen && cmp(o->name, name, namelen) == 0;
}

/* The option a word names, searched in every set; *set_out tells which set owns it. */
static const struct sonde_option *lookup(struct sonde_option_set *sets, int nsets, char letter,
                                         const char *name, size_t namelen, int *set_out)
{
	for (int s = 0; s < nsets; s++) {
		const struct sonde_option_table *t = sets[s].table;
		for (int i = 0; i < t->count; i++) {
			const struct sonde_option *o = &t->options[i];
			if (o->scope == SONDE_SCOPE_DIRECTIVE)
				continue;
			int hit = letter ? o->letter == letter : names(o, name, namelen, strncmp);
			if (hit) {
				*set_out = s;
				return o;
			}
		}
	}
	return NULL;
}

static int range_ok(const struct sonde_option *o, int64_t v, int beyond, int64_t type_min,
                    int64_t type_max, const char *shown, const char *value, char *err,
                    size_t errlen)
{
	int64_t lo = type_min, hi = type_max;
	if (o->min || o->max) {
		lo = o->min;
		hi = o->max;
	}
	char why[96];
	if (sonde_check_range(v, beyond, lo, hi, why, sizeof why) == 0)
		return 0;
	snprintf(err, errlen, "option %s: '%s': %s", shown, value, why);
	return -1;
}

/* A whole number within the entry's range, else within [type_min, type_max]. Returns 0, or -1
 * with err (the whole message, naming the option). */
static int number_in_range(const struct sonde_option *o, const char *value, int64_t type_min,
                           int64_t type_max, const char *shown, int64_t *v, char *err,
                           size_t errlen)
{
	char why[256];
	int rc = sonde_parse_int(value, INT64_MIN, INT64_MAX, v, why, sizeof why);
	if (rc == -1) {
		snprintf(err, errlen, "option %s: %s", shown, why);
		return -1;
	}
	if (rc == -2)
		*v = value[0] == '-' ? INT64_MIN : INT64_MAX;
	return range_ok(o, *v, rc == -2, type_min, type_max, shown, value, err, errlen);
}

static int apply(const struct sonde_option *o, void *cfg, const char *shown, const char *value,
                 char *err, size_t errlen)
{
	char *field = (char *)sonde_option_cfg(o, cfg) + o->offset;
	char why[256];
	int64_t v;
	switch (o->type) {
	case SONDE_OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case SONDE_OPT_COUNT:
		++*(int *)field;
		return 0;
	case SONDE_OPT_INT:
	case SONDE_OPT_LONG: {
		int is_int = o->type == SONDE_OPT_INT;
		if (number_in_range(o, value, is_int ? INT_MIN : INT64_MIN,
		                    is_int ? INT_MAX : INT64_MAX, shown, &v, err, errlen) < 0)
			return -1;
		if (is_int)
			*(int *)field = (int)v;
		else
			*(int64_t *)field = v;
		return 0;
	}
	case SONDE_OPT_SIZE: {
		int rc = sonde_parse_size(value, o->size_style, &v, why, sizeof why);
		if (rc == -1)
			break;
		if (range_ok(o, rc == -2 ? INT64_MAX : v, rc == -2, 0, INT64_MAX, shown, value, err,
		             errlen) < 0)
			return -1;
		*(int64_t *)field = v;
		return 0;
	}
	case SONDE_OPT_DOUBLE:
		if (sonde_parse_double(value, (double *)field, why, sizeof why) < 0)
			break;
		return 0;
	case SONDE_OPT_STRING:
		/* Every string option names something (a file, a directory, an interface): an
		 * empty one would silently mean the root or the current directory. */
		if (!*value) {
			snprintf(why, sizeof why, "empty value");
			break;
		}
		*(const char **)field = value;
		return 0;
	case SONDE_OPT_LIST:
	case SONDE_OPT_WORDS:
		sonde_strlist_push((struct sonde_strlist *)field, value);
		return 0;
	case SONDE_OPT_CALLBACK:
		why[0] = '\0';
		if (o->parse(sonde_option_cfg(o, cfg), value, why, sizeof why) < 0)
			break;
		return 0;
	case SONDE_OPT_REFUSED:
		snprintf(err, errlen, "option %s is not supported by sonde: %s", shown, o->help);
		return -1;
	}
	snprintf(err, errlen, "option %s: %s", shown, why);
	return -1;
}

static void count_use(struct sonde_option_set *set, const struct sonde_option *o)
{
	if (!set->given)
		return;
	unsigned char *g = &set->given[o - set->table->options];
	if (*g < 255)
		++*g;
}

static int is_option_word(const char *w)
{
	return w[0] == '-' && w[1] != '\0';
}

/* Value of an option that needs one: attached text, or the next word. */
static int take_value(const struct sonde_option *o, const char *attached, int argc, char **argv,
                      int *i, const char *shown, const char **value, char *err, size_t errlen)
{
	if (attached && *attached) {
		*value = attached;
		return 0;
	}
	if (o->value_optional) {
		/* A separate value is taken only when it cannot be the next option. */
		if (*i + 1 < argc && !is_option_word(argv[*i + 1]))
			*value = argv[++*i];
		else
			*value = o->implicit;
		return 0;
	}
	if (*i + 1 >= argc) {
		snprintf(err, errlen, "option %s needs a value%s%s", shown, o->metavar ? " " : "",
		         o->metavar ? o->metavar : "");
		return -1;
	}
	*value = argv[++*i];
	return 0;
}

/* Several values: every following word up to the next option word. */
static int take_words(const struct sonde_option *o, struct sonde_option_set *set, int argc,
                      char **argv, int *i, const char *shown, char *err, size_t errlen)
{
	int n = 0;
	while (*i + 1 < argc && !is_option_word(argv[*i + 1])) {
		if (apply(o, set->cfg, shown, argv[++*i], err, errlen) < 0)
			return -1;
		n++;
	}
	if (n == 0) {
		snprintf(err, errlen, "option %s needs at least one value", shown);
		return -1;
	}
	return 0;
}

static int handle(const struct sonde_option *o, struct sonde_option_set *set, const char *shown,
                  const char *attached, int argc, char **argv, int *i, char *err, size_t errlen)
{
	count_use(set, o);
	if (o->type == SONDE_OPT_REFUSED) /* refused with or without a value */
		return apply(o, set->cfg, shown, NULL, err, errlen);
	if (o->type == SONDE_OPT_WORDS && !attached)
		return take_words(o, set, argc, argv, i, shown, err, errlen);
	const char *value = NULL;
	if (sonde_option_takes_value(o)) {
		if (take_value(o, attached, argc, argv, i, shown, &value, err, errlen) < 0)
			return -1;
	} else if (attached) {
		snprintf(err, errlen, "option %s takes no value", shown);
		return -1;
	}
	return apply(o, set->cfg, shown, value, err, errlen);
}

/* Edit distance between a and b without case (Levenshtein), for the did-you-mean of an unknown
 * option; names are short, so one row of at most 64 columns. */
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b), row[65];
	if (blen > 64 || alen > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= blen; j++)
		row[j] = j;
	for (size_t i = 1; i <= alen; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= blen; j++) {
			size_t up = row[j];
			size_t cost =
			    tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[blen];
}

/* The long name nearest to an unknown one: an option it begins (--transfer: --transferSize),
 * else one at most a third of its length plus one edits away; NULL when none is near. */
static const char *nearest_name(const struct sonde_option_set *sets, int nsets, const char *name,
                                size_t namelen, enum sonde_opt_scope excluded)
{
	const char *best = NULL;
	size_t best_d = namelen / 3 + 2;
	for (int s = 0; s < nsets; s++) {
		const struct sonde_option_table *t = sets[s].table;
		for (int i = 0; i < t->count; i++) {
			const struct sonde_option *o = &t->options[i];
			if (!o->name || o->scope == excluded)
				continue;
			if (namelen >= 3 && strncasecmp(o->name, name, namelen) == 0)
				return o->name;
			size_t d = edit_distance(name, namelen, o->name);
			if (d < best_d) {
				best_d = d;
				best = o->name;
			}
		}
	}
	return best;
}

int sonde_option_directive(struct sonde_option_set *set, const char *key, size_t keylen,
                           const char *value, char *err, size_t errlen)
{
	const struct sonde_option_table *t = set->table;
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *o = &t->options[i];
		if (o->scope == SONDE_SCOPE_COMMAND_LINE || !names(o, key, keylen, strncasecmp))
			continue;
		count_use(set, o);
		char typed[128];
		snprintf(typed, sizeof typed, "%.*s", (int)keylen, key);
		if (o->type != SONDE_OPT_FLAG && o->type != SONDE_OPT_COUNT)
			return apply(o, set->cfg, o->type == SONDE_OPT_REFUSED ? typed : o->name,
			             value, err, errlen);
		/* a directive gives a flag its value (filePerProc=0 turns it off) */
		int64_t v;
		if (number_in_range(o, value, 0, o->type == SONDE_OPT_FLAG ? 1 : INT_MAX, o->name,
		                    &v, err, errlen) < 0)
			return -1;
		*(int *)((char *)sonde_option_cfg(o, set->cfg) + o->offset) = (int)v;
		return 0;
	}
	const char *near = nearest_name(set, 1, key, keylen, SONDE_SCOPE_COMMAND_LINE);
	snprintf(err, errlen, "unknown directive '%.*s'%s%s%s", (int)keylen, key,
	         near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
	return -1;
}

static int long_word(struct sonde_option_set *sets, int nsets, const char *word, int dashes,
                     int argc, char **argv, int *i, struct sonde_parse_result *out, char *err,
                     size_t errlen)
{
	const char *name = word + dashes;
	const char *eq = dashes == 2 ? strchr(name, '=') : NULL;
	size_t namelen = eq ? (size_t)(eq - name) : strlen(name);
	int s;
	const struct sonde_option *o = lookup(sets, nsets, 0, name, namelen, &s);
	char shown[128];
	snprintf(shown, sizeof shown, "%.*s", (int)(namelen + (size_t)dashes), word);
	if (!o) {
		if (namelen == 4 && strncmp(name, "help", 4) == 0) {
			out->help = 1;
			return 0;
		}
		const char *near = nearest_name(sets, nsets, name, namelen, SONDE_SCOPE_DIRECTIVE);
		if (near)
			snprintf(err, errlen, "unknown option %s (did you mean %.*s%s?)", shown,
			         dashes, "--", near);
		else
			snprintf(err, errlen, "unknown option %s", shown);
		return -1;
	}
	return handle(o, &sets[s], shown, eq ? eq + 1 : NULL, argc, argv, i, err, errlen);
}

static int short_word(struct sonde_option_set *sets, int nsets, const char *word, int argc,
                      char **argv, int *i, struct sonde_parse_result *out, char *err, size_t errlen)
{
	for (const char *p = word + 1; *p; p++) {
		int s;
		const struct sonde_option *o = lookup(sets, nsets, *p, NULL, 0, &s);
		char shown[3] = {'-', *p, '\0'};
		if (!o) {
			if (*p == 'h') {
				out->help = 1;
				continue;
			}
			snprintf(err, errlen, "unknown option -%c%s", *p,
			         p == word + 1 && p[1]
			             ? " (options of several letters take two dashes)"
			             : "");
			return -1;
		}
		if (sonde_option_takes_value(o) || o->type == SONDE_OPT_REFUSED) {
			/* IOR's parser (mdtest's too) takes -G=5 as -G5 and -G 5; IO500 writes it.
			 */
			const char *attached = p[1] == '=' ? p + 2 : p[1] ? p + 1 : NULL;
			return handle(o, &sets[s], shown, attached, argc, argv, i, err, errlen);
		}
		if (handle(o, &sets[s], shown, NULL, argc, argv, i, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int sonde_options_parse(struct sonde_option_set *sets, int nsets, int argc, char **argv, int first,
                        struct sonde_parse_result *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	for (int s = 0; s < nsets; s++)
		if (!sets[s].given)
			sets[s].given = calloc((size_t)sets[s].table->count + 1, 1);
	out->positional = calloc((size_t)argc + 1, sizeof *out->positional);
	enum sonde_opt_style style = sets[0].table->style;
	int only_positional = 0;
	for (int i = first; i < argc; i++) {
		const char *w = argv[i];
		int rc = 0;
		if (only_positional || !is_option_word(w))
			out->positional[out->npositional++] = argv[i];
		else if (strcmp(w, "--") == 0)
			only_positional = 1;
		else if (w[1] == '-')
			rc = long_word(sets, nsets, w, 2, argc, argv, &i, out, err, errlen);
		else if (style == SONDE_STYLE_WORDS)
			rc = long_word(sets, nsets, w, 1, argc, argv, &i, out, err, errlen);
		else
			rc = short_word(sets, nsets, w, argc, argv, &i, out, err, errlen);
		if (rc < 0)
			return -1;
	}
	return 0;
}

void sonde_option_spelling(const struct sonde_option_table *t, const struct sonde_option *o,
                           char *buf, size_t len)
{
	if (o->scope == SONDE_SCOPE_DIRECTIVE) {
		snprintf(buf, len, "-O %s=%s", o->name,
		         o->type == SONDE_OPT_FLAG ? "1"
		         : o->metavar              ? o->metavar
		                                   : "VALUE");
		return;
	}
	const char *dash = t->style == SONDE_STYLE_WORDS ? "-" : "--";
	int n = 0;
	if (o->letter)
		n = snprintf(buf, len, "-%c%s", o->letter, o->name ? ", " : "");
	if (o->name)
		n += snprintf(buf + n, len - (size_t)n, "%s%s", dash, o->name);
	if (o->metavar && sonde_option_takes_value(o))
		snprintf(buf + n, len - (size_t)n, o->value_optional ? "[%s]" : " %s", o->metavar);
}

enum sonde_option_section sonde_option_section(const struct sonde_option *o)
{
	if (o->scope == SONDE_SCOPE_DIRECTIVE)
		return SONDE_SECTION_DIRECTIVES;
	return o->type == SONDE_OPT_REFUSED ? SONDE_SECTION_REFUSED : SONDE_SECTION_OPTIONS;
}

int sonde_options_have_section(const struct sonde_option_table *t, enum sonde_option_section s)
{
	for (int i = 0; i < t->count; i++)
		if (sonde_option_section(&t->options[i]) == s)
			return 1;
	return 0;
}

/* " (default 256k)" after a help line, from the table's defaults; none where the text already
 * says what happens by default in words of its own ("default: drawn from the clock"). */
static void default_suffix(const struct sonde_option *o, const void *defaults, char *buf,
                           size_t len)
{
	char value[200];
	const char *d = strstr(o->help, "default")
	                    ? NULL
	                    : sonde_option_default_text(o, defaults, 1, value, sizeof value);
	if (d)
		snprintf(buf, len, " (default %s)", d);
	else
		buf[0] = '\0';
}

void sonde_options_list(const struct sonde_option_table *t, enum sonde_option_section s, FILE *out)
{
	void *defaults = s == SONDE_SECTION_OPTIONS ? sonde_option_table_defaults(t) : NULL;
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *o = &t->options[i];
		if (sonde_option_section(o) != s)
			continue;
		char sp[96], suffix[224];
		sonde_option_spelling(t, o, sp, sizeof sp);
		const char *refused = s == SONDE_SECTION_DIRECTIVES && o->type == SONDE_OPT_REFUSED
		                          ? "refused: "
		                          : "";
		default_suffix(o, defaults, suffix, sizeof suffix);
		if (strlen(sp) > 26)
			fprintf(out, "  %s\n  %-26s  %s%s%s\n", sp, "", refused, o->help, suffix);
		else
			fprintf(out, "  %-26s  %s%s%s\n", sp, refused, o->help, suffix);
	}
	free(defaults);
}

const char sonde_options_directives_intro[] =
    "Directives (-O key=value[,key=value] and the lines of a -f script) take every long option "
    "name, in any case, with the option's checks (flags take 0 or 1).";

void sonde_options_help(const struct sonde_option_table *t, FILE *out)
{
	fprintf(out, "usage: %s %s\n\n", t->command, t->usage);
	if (t->summary)
		fprintf(out, "%s\n\n", t->summary);
	fprintf(out, "Options:\n");
	sonde_options_list(t, SONDE_SECTION_OPTIONS, out);
	if (sonde_options_have_section(t, SONDE_SECTION_REFUSED)) {
		fprintf(out, "\nOptions of the original that sonde refuses:\n");
		sonde_options_list(t, SONDE_SECTION_REFUSED, out);
	}
	if (sonde_options_have_section(t, SONDE_SECTION_DIRECTIVES)) {
		fprintf(out, "\n%s These are directives only:\n", sonde_options_directives_intro);
		sonde_options_list(t, SONDE_SECTION_DIRECTIVES, out);
	}
	if (t != &sonde_common_options) {
		fprintf(out, "\nCommon options:\n");
		sonde_options_list(&sonde_common_options, SONDE_SECTION_OPTIONS, out);
	}
	if (t->epilog)
		fprintf(out, "\n%s\n", t->epilog);
}

static void markdown_cell(const char *s, FILE *out)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[2]){*s, '\0'}, out);
}

/* params: whether the table's entries are parameters of the records (the common options are
 * not). */
static void markdown_rows(const struct sonde_option_table *t, int params, FILE *out)
{
	fprintf(out, "| option | record name | meaning |\n| --- | --- | --- |\n");
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *o = &t->options[i];
		char sp[96];
		sonde_option_spelling(t, o, sp, sizeof sp);
		const char *key = params ? sonde_option_key(t, o) : NULL;
		fputs("| `", out);
		markdown_cell(sp, out);
		fputs("` | ", out);
		if (key) {
			fputs("`", out);
			markdown_cell(key, out);
			fputs("`", out);
		}
		fputs(" | ", out);
		if (o->type == SONDE_OPT_REFUSED)
			fputs("refused: ", out);
		markdown_cell(o->help, out);
		fputs(" |\n", out);
	}
}

void sonde_options_markdown(const struct sonde_option_table *t, FILE *out)
{
	fprintf(out, "# `%s` options\n\n", t->command);
	fprintf(out, "Generated by `%s --help-markdown`; do not edit by hand.\n\n", t->command);
	fprintf(out, "Usage: `%s %s`\n\n", t->command, t->usage);
	if (t->summary)
		fprintf(out, "%s\n\n", t->summary);
	if (sonde_options_have_section(t, SONDE_SECTION_DIRECTIVES))
		fprintf(out, "%s The rows `-O key=...` are directives only.\n\n",
		        sonde_options_directives_intro);
	fprintf(out, "The record name is the parameter's member in the `params` of the result "
	             "records (docs/results-schema.md).\n\n");
	markdown_rows(t, 1, out);
	fprintf(out, "\nCommon options (every workload):\n\n");
	markdown_rows(&sonde_common_options, 0, out);
	if (t->epilog)
		fprintf(out, "\n%s\n", t->epilog);
}
