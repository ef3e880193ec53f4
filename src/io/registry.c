/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend registry: the backends CMakeLists.txt found in src/io (generated/backends.inc),
 * looked up by name, and their parameters (struct sonde_backend_params). */
#include "backend.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fail.h"

static const struct sonde_backend *const registry[] = {
#define SONDE_BACKEND(n) &sonde_backend_##n,
#include "backends.inc"
#undef SONDE_BACKEND
};

int sonde_backend_count(void)
{
	return SONDE_BACKEND_COUNT;
}

const struct sonde_backend *sonde_backend_at(int i)
{
	return i >= 0 && i < SONDE_BACKEND_COUNT ? registry[i] : NULL;
}

void sonde_backend_names(char *buf, size_t len, const char *sep, unsigned caps)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < SONDE_BACKEND_COUNT; i++) {
		if ((registry[i]->caps & caps) != caps)
			continue;
		int w = snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? sep : "",
		                 registry[i]->name);
		n += w > 0 ? (size_t)w : 0;
	}
}

const struct sonde_backend *sonde_backend_find(const char *name)
{
	if (!name)
		name = "(null)";
	for (int i = 0; i < SONDE_BACKEND_COUNT; i++) {
		const struct sonde_backend *b = registry[i];
		if (strcasecmp(name, b->name) != 0 &&
		    !(b->alias && strcasecmp(name, b->alias) == 0))
			continue;
		if (!b->missing)
			return b;
		sonde_io_set_error("I/O backend %s is not in this build of sonde: %s was not found "
		                   "when it was built",
		                   b->name, b->missing);
		return NULL;
	}
	char known[256];
	sonde_backend_names(known, sizeof known, ", ", 0);
	sonde_io_set_error("unknown I/O backend '%s' (known: %s)", name, known);
	return NULL;
}

static int index_of(const struct sonde_backend *b)
{
	for (int i = 0; i < SONDE_BACKEND_COUNT; i++)
		if (registry[i] == b)
			return i;
	return -1;
}

void sonde_backend_params_defaults(struct sonde_backend_params *bp)
{
	memset(bp, 0, sizeof *bp);
	for (int i = 0; i < SONDE_BACKEND_COUNT; i++)
		if (registry[i]->params_defaults)
			registry[i]->params_defaults(bp->slot[i].bytes);
}

const void *sonde_backend_params_of(const struct sonde_backend_params *bp,
                                    const struct sonde_backend *b)
{
	int i = index_of(b);
	return i < 0 ? NULL : bp->slot[i].bytes;
}

const void *sonde_backend_option_field(const struct sonde_backend_params *bp, const char *name)
{
	for (int i = 0; i < SONDE_BACKEND_COUNT; i++)
		for (int k = 0; k < registry[i]->noptions; k++) {
			const struct sonde_option *o = &registry[i]->options[k];
			if (o->type != SONDE_OPT_REFUSED && o->name && strcmp(o->name, name) == 0)
				return bp->slot[i].bytes + o->offset;
		}
	return NULL;
}

int sonde_backend_check(const struct sonde_backend *b, const struct sonde_backend_params *bp,
                        const struct sonde_io_options *opt, char *err, size_t errlen)
{
	if (!b->check)
		return 0;
	return b->check(sonde_backend_params_of(bp, b), opt, err, errlen);
}

/* Which backend's slot an entry of a merged table points into, or -1 for the workload's own. */
static int slot_of(const struct sonde_option_table *t, const struct sonde_option *o)
{
	if (!t->takes_backends || o->base < t->backend_params)
		return -1;
	size_t at = o->base - t->backend_params;
	size_t each = sizeof((struct sonde_backend_params *)0)->slot[0];
	return at / each < SONDE_BACKEND_COUNT ? (int)(at / each) : -1;
}

static int set_by_workload_entry(const struct sonde_option_table *t, const char *name)
{
	for (int i = 0; i < t->count; i++)
		if (t->options[i].backend_option && strcmp(t->options[i].backend_option, name) == 0)
			return 1;
	return 0;
}

void sonde_backend_warn_unused(const struct sonde_option_set *set, const struct sonde_backend *b)
{
	const struct sonde_option_table *t = set->table;
	int mine = index_of(b);
	for (int i = 0; i < t->count && set->given; i++) {
		const struct sonde_option *o = &t->options[i];
		int s = slot_of(t, o);
		if (!set->given[i] || s < 0 || s == mine || o->backend_option ||
		    set_by_workload_entry(t, o->name))
			continue;
		sonde_warn("--%s has no effect here: it applies to -a %s", o->name,
		           registry[s]->name);
	}
}

/* ---- the backends' option entries merged into a workload's table that takes_backends: core's
 * option layer knows no backend, so the registry hands it this source (core/options.h) ---- */

/* A backend entry of a merged table: the backend's own, pointed at its slot. */
static struct sonde_option backend_entry(const struct sonde_option_table *t, int slot,
                                         const struct sonde_option *o)
{
	struct sonde_option e = *o;
	e.base = t->backend_params + offsetof(struct sonde_backend_params, slot) +
	         (size_t)slot * sizeof((struct sonde_backend_params *)0)->slot[0];
	return e;
}

static int count(const struct sonde_option_table *t)
{
	int n = 0;
	for (int b = 0; b < sonde_backend_count(); b++)
		n += sonde_backend_at(b)->noptions;
	return n;
}

static void resolve(const struct sonde_option_table *t, struct sonde_option *e)
{
	for (int b = 0; b < sonde_backend_count(); b++) {
		const struct sonde_backend *be = sonde_backend_at(b);
		for (int k = 0; k < be->noptions; k++) {
			const struct sonde_option *o = &be->options[k];
			if (!o->name || strcmp(o->name, e->backend_option) != 0)
				continue;
			if (o->type != e->type)
				break;
			struct sonde_option f = backend_entry(t, b, o);
			e->base = f.base;
			e->offset = f.offset;
			return;
		}
	}
	fprintf(stderr, "sonde: internal error: %s: no backend option %s of the same type\n",
	        t->command, e->backend_option);
	abort();
}

static int append(const struct sonde_option_table *t, struct sonde_option *out)
{
	int n = 0;
	unsigned caps = t->backend_caps;
	for (int b = 0; b < sonde_backend_count(); b++) {
		const struct sonde_backend *be = sonde_backend_at(b);
		if ((be->caps & caps) != caps)
			continue;
		for (int k = 0; k < be->noptions; k++)
			out[n++] = backend_entry(t, b, &be->options[k]);
	}
	return n;
}

static const char *names(const struct sonde_option_table *t)
{
	char *buf = malloc(256);
	if (buf)
		sonde_backend_names(buf, 256, "|", t->backend_caps);
	return buf;
}

static const struct sonde_option_source source = {count, resolve, append, names};

/* Before main: every program with a workload that takes backends links this file (the
 * workload finds its backend here), so the source is there whatever the program parses first
 * (sonde, the unit tests, the fuzzers). */
__attribute__((constructor)) static void register_source(void)
{
	sonde_options_set_backend_source(&source);
}
