/* SPDX-License-Identifier: BSD-3-Clause */
/* The "params" of result records, written from the workload's option table: every parameter
 * under its one name, with the type its option gives it, so no workload lists its parameters a
 * second time and the Python layer reads names the binary is known to write
 * (python/sonde/results/names.py, checked against records the binary wrote). */
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "options.h"

/* Entries that share a field (IOR's -U and --mpiio.hintsFileName, directive aliases) are one
 * parameter, named by the first. */
static int names_field_first(const struct sonde_option_table *t, const struct sonde_option *o)
{
	if (o->type == SONDE_OPT_CALLBACK)
		return 1;
	for (const struct sonde_option *e = t->options; e < o; e++)
		if (e->type != SONDE_OPT_REFUSED && e->type != SONDE_OPT_CALLBACK &&
		    e->base == o->base && e->offset == o->offset)
			return 0;
	return 1;
}

const char *sonde_option_key(const struct sonde_option_table *t, const struct sonde_option *o)
{
	if (o->type == SONDE_OPT_REFUSED || !names_field_first(t, o))
		return NULL;
	return o->key ? o->key : o->name;
}

static void strlist(struct sonde_json *j, const char *key, const struct sonde_strlist *l)
{
	sonde_json_array_begin(j, key);
	for (int i = 0; i < l->count; i++)
		sonde_json_string(j, NULL, l->items[i]);
	sonde_json_array_end(j);
}

/* A table entry that is a parameter without a name, or a callback without a record form, is a
 * mistake in the table: found by the first run of the workload (every test run writes records),
 * never a record with a parameter missing. */
static _Noreturn void table_error(const struct sonde_option_table *t, const struct sonde_option *o,
                                  const char *what)
{
	fprintf(stderr, "sonde: internal error: %s option %c%s: %s\n", t->command,
	        o->letter ? o->letter : '-', o->name ? o->name : "", what);
	abort();
}

void sonde_options_json(const struct sonde_option_table *t, const void *cfg, struct sonde_json *j)
{
	t = sonde_options_full(t); /* a workload's backend options are its parameters too */
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *o = &t->options[i];
		if (o->type == SONDE_OPT_REFUSED || !names_field_first(t, o))
			continue;
		const char *key = o->key ? o->key : o->name;
		if (!key)
			table_error(t, o, "no record name (.key)");
		const char *field = (const char *)cfg + o->base + o->offset;
		switch (o->type) {
		case SONDE_OPT_FLAG:
			sonde_json_bool(j, key, *(const int *)field);
			break;
		case SONDE_OPT_COUNT:
		case SONDE_OPT_INT:
			sonde_json_int(j, key, *(const int *)field);
			break;
		case SONDE_OPT_LONG:
		case SONDE_OPT_SIZE:
			sonde_json_int(j, key, *(const int64_t *)field);
			break;
		case SONDE_OPT_DOUBLE:
			sonde_json_double(j, key, *(const double *)field);
			break;
		case SONDE_OPT_STRING:
			sonde_json_string(j, key, *(const char *const *)field);
			break;
		case SONDE_OPT_LIST:
		case SONDE_OPT_WORDS:
			strlist(j, key, (const struct sonde_strlist *)field);
			break;
		case SONDE_OPT_CALLBACK:
			if (!o->show || o->shows == SONDE_RECORD_NONE)
				table_error(t, o, "a callback option without .show and .shows");
			o->show((const char *)cfg + o->base, key, j);
			break;
		default: /* kinds that hold no value */
			break;
		}
	}
}

/* The JSON type sonde_options_json writes for an entry. */
static enum sonde_record_type record_type(const struct sonde_option *o)
{
	switch (o->type) {
	case SONDE_OPT_FLAG:
		return SONDE_RECORD_BOOL;
	case SONDE_OPT_COUNT:
	case SONDE_OPT_INT:
	case SONDE_OPT_LONG:
	case SONDE_OPT_SIZE:
		return SONDE_RECORD_INT;
	case SONDE_OPT_DOUBLE:
		return SONDE_RECORD_NUMBER;
	case SONDE_OPT_STRING:
		return SONDE_RECORD_STRING;
	case SONDE_OPT_LIST:
	case SONDE_OPT_WORDS:
		return SONDE_RECORD_LIST;
	case SONDE_OPT_CALLBACK:
		return o->show ? o->shows : SONDE_RECORD_NONE;
	default:
		return SONDE_RECORD_NONE;
	}
}

/* Whether entries a and b set one field (a callback sets what it sets: only itself). */
static int same_field(const struct sonde_option *a, const struct sonde_option *b)
{
	if (a == b)
		return 1;
	return a->type != SONDE_OPT_REFUSED && a->type != SONDE_OPT_CALLBACK &&
	       b->type != SONDE_OPT_CALLBACK && a->base == b->base && a->offset == b->offset;
}

/* "options": every command-line spelling of the entries that set o's field, and "path": whether
 * any of them takes a file or directory name. */
static void describe_spellings(const struct sonde_option_table *t, const struct sonde_option *o,
                               struct sonde_json *j)
{
	const char *dashes = t->style == SONDE_STYLE_WORDS ? "-" : "--";
	int path = 0;
	char spelling[128];
	sonde_json_array_begin(j, "options");
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *e = &t->options[i];
		if (!same_field(e, o))
			continue;
		path |= sonde_option_names_file(e);
		if (e->scope == SONDE_SCOPE_DIRECTIVE)
			continue;
		if (e->letter) {
			snprintf(spelling, sizeof spelling, "-%c", e->letter);
			sonde_json_string(j, NULL, spelling);
		}
		if (e->name) {
			snprintf(spelling, sizeof spelling, "%s%s", dashes, e->name);
			sonde_json_string(j, NULL, spelling);
		}
	}
	sonde_json_array_end(j);
	sonde_json_bool(j, "path", path);
}

void sonde_options_describe(const struct sonde_option_table *t, const char *key,
                            struct sonde_json *j)
{
	static const char *const type_names[] = {
	    [SONDE_RECORD_BOOL] = "bool",     [SONDE_RECORD_INT] = "int",
	    [SONDE_RECORD_NUMBER] = "number", [SONDE_RECORD_STRING] = "string",
	    [SONDE_RECORD_LIST] = "list",
	};
	t = sonde_options_full(t);
	sonde_json_array_begin(j, key);
	for (int i = 0; i < t->count; i++) {
		const struct sonde_option *o = &t->options[i];
		const char *name = sonde_option_key(t, o);
		if (!name)
			continue;
		enum sonde_record_type type = record_type(o);
		if (type == SONDE_RECORD_NONE)
			table_error(t, o, "a callback option without .show and .shows");
		sonde_json_object_begin(j, NULL);
		sonde_json_string(j, "name", name);
		sonde_json_string(j, "type", type_names[type]);
		describe_spellings(t, o, j);
		sonde_json_object_end(j);
	}
	for (const char *const *p = t->positional_paths; p && *p; p++) {
		sonde_json_object_begin(j, NULL);
		sonde_json_string(j, "name", *p);
		sonde_json_string(j, "type", type_names[SONDE_RECORD_STRING]);
		sonde_json_array_begin(j, "options");
		sonde_json_array_end(j);
		sonde_json_bool(j, "path", 1);
		sonde_json_object_end(j);
	}
	sonde_json_array_end(j);
}
