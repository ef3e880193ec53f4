/* SPDX-License-Identifier: BSD-3-Clause */
#include "option_default.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* A size the way a user of style would type it: 262144 -> 256k (256K in the LANL and mpiBench
 * styles), or NULL when it has no shorter form. */
static const char *size_words(int64_t v, enum sonde_size_style style, char *buf, size_t len)
{
	static const char units[] = "kmgt";
	int u = -1;
	while (u < 3 && v != 0 && v % ((int64_t)1 << (10 * (u + 2))) == 0)
		u++;
	if (u < 0)
		return NULL;
	char c = style == SONDE_SIZE_BINARY ? units[u] : (char)toupper(units[u]);
	snprintf(buf, len, "%" PRId64 "%c", v >> (10 * (u + 1)), c);
	return buf;
}

/* The record form of a callback entry's value, as its .show writes it: its default, unless it
 * is empty (null, false, "", [] or {}). */
static const char *shown_default(const struct sonde_option *o, const void *cfg, char *buf,
                                 size_t len)
{
	if (!o->show)
		return NULL;
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	o->show((const char *)cfg + o->base, "v", &j);
	sonde_json_object_end(&j);
	const char *v = strchr(j.buf, ':');
	const char *shown = NULL;
	if (v) {
		size_t n = strlen(v + 1) - 1; /* without the closing brace */
		static const char *const empty[] = {"null", "false", "\"\"", "[]", "{}"};
		int is_empty = 0;
		for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++)
			is_empty |= n == strlen(empty[i]) && strncmp(v + 1, empty[i], n) == 0;
		if (!is_empty) {
			int quoted = n >= 2 && v[1] == '"' && v[n] == '"';
			snprintf(buf, len, "%.*s", (int)(quoted ? n - 2 : n), v + 1 + quoted);
			shown = buf;
		}
	}
	sonde_json_free(&j);
	return shown;
}

/* The default of entry o in cfg (a table's struct filled with its defaults) as text, or NULL
 * when there is none to show (an unset string, an empty list, a flag that is off). */
static const char *default_text(const struct sonde_option *o, const void *cfg, int brief, char *buf,
                                size_t len)
{
	const char *field = (const char *)cfg + o->base + o->offset;
	char words[32];
	switch (o->type) {
	case SONDE_OPT_FLAG:
		return *(const int *)field ? "on" : NULL;
	case SONDE_OPT_COUNT:
		if (!*(const int *)field)
			return NULL;
		/* fall through */
	case SONDE_OPT_INT:
		snprintf(buf, len, "%d", *(const int *)field);
		return buf;
	case SONDE_OPT_LONG:
		snprintf(buf, len, "%" PRId64, *(const int64_t *)field);
		return buf;
	case SONDE_OPT_SIZE: {
		int64_t v = *(const int64_t *)field;
		const char *w = size_words(v, o->size_style, words, sizeof words);
		if (w && brief)
			snprintf(buf, len, "%s", w);
		else if (w)
			snprintf(buf, len, "%" PRId64 " (%s)", v, w);
		else
			snprintf(buf, len, "%" PRId64, v);
		return buf;
	}
	case SONDE_OPT_DOUBLE:
		snprintf(buf, len, "%g", *(const double *)field);
		return buf;
	case SONDE_OPT_STRING: {
		const char *s = *(const char *const *)field;
		return s ? snprintf(buf, len, "%s", s), buf : NULL;
	}
	case SONDE_OPT_LIST:
	case SONDE_OPT_WORDS: {
		const struct sonde_strlist *l = (const struct sonde_strlist *)field;
		size_t n = 0;
		buf[0] = '\0';
		for (int i = 0; i < l->count && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", l->items[i]);
		return l->count ? buf : NULL;
	}
	case SONDE_OPT_CALLBACK:
		return shown_default(o, cfg, buf, len);
	case SONDE_OPT_REFUSED:
		break;
	}
	return NULL;
}

/* A default outside the option's range is no value a user could give: it stands for "not
 * given", whose meaning the help text says (-csize: nobj x size). */
static int sentinel(const struct sonde_option *o, const void *cfg)
{
	const char *field = (const char *)cfg + o->base + o->offset;
	int64_t v;
	if (o->type == SONDE_OPT_INT)
		v = *(const int *)field;
	else if (o->type == SONDE_OPT_LONG || o->type == SONDE_OPT_SIZE)
		v = *(const int64_t *)field;
	else
		return 0;
	return (o->min || o->max) && (v < o->min || v > o->max);
}

void *sonde_option_table_defaults(const struct sonde_option_table *t)
{
	if (!t->defaults || !t->cfg_size)
		return NULL;
	void *defaults = calloc(1, t->cfg_size);
	if (!defaults)
		abort();
	t->defaults(defaults);
	return defaults;
}

const char *sonde_option_default_text(const struct sonde_option *o, const void *defaults, int brief,
                                      char *buf, size_t len)
{
	if (!defaults || sentinel(o, defaults))
		return NULL;
	return default_text(o, defaults, brief, buf, len);
}
