/* SPDX-License-Identifier: BSD-3-Clause */
/* mdtest's tree arithmetic: how many directories a tree has, how many items go in each, where
 * item k lives, and which rank's items and tree a rank works on in each phase. */
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "workloads/mdtest/mdtest.h"

#define BIG_ITEMS ((int64_t)1 << 62)

/* b^e, or -1 beyond 2^62 (no tree that large can be made). */
static int64_t power(int64_t b, int e)
{
	int64_t r = 1;
	for (int i = 0; i < e; i++) {
		if (b > 1 && r > ((int64_t)1 << 62) / b)
			return -1;
		r *= b;
	}
	return r;
}

static int64_t tree_dirs(int depth, int branch)
{
	if (depth <= 0 || branch < 1)
		return 1;
	if (branch == 1)
		return (int64_t)depth + 1;
	int64_t top = power(branch, depth + 1);
	return top < 0 ? -1 : (top - 1) / (branch - 1);
}

int mdtest_tree_plan(const struct mdtest_params *p, struct mdtest_tree *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->depth = p->depth;
	t->branch = p->branch;
	t->loops = 1;
	if (p->branch < 1 && p->depth > 0) {
		snprintf(err, errlen, "option -b: a tree of depth %d needs a branching factor >= 1",
		         p->depth);
		return -1;
	}
	t->dirs = tree_dirs(p->depth, p->branch);
	t->leaves = p->depth > 0 && p->branch > 1 ? power(p->branch, p->depth) : 1;
	if (t->dirs < 0 || t->leaves < 0) {
		snprintf(err, errlen, "options -z %d -b %d: a tree of more than 2^62 directories",
		         p->depth, p->branch);
		return -1;
	}
	t->first_item_dir = p->leaf_only ? t->dirs - t->leaves : 0;
	int64_t holders = t->dirs - t->first_item_dir;
	if (p->items > 0 && p->items_per_dir > 0) {
		if (p->unique_dir) {
			snprintf(err, errlen,
			         "only specify the number of items (-n) or the number of items per "
			         "directory (-I) with -u");
			return -1;
		}
		if (p->items % p->items_per_dir) {
			snprintf(
			    err, errlen,
			    "items must be a multiple of items per directory (-n %lld, -I %lld)",
			    (long long)p->items, (long long)p->items_per_dir);
			return -1;
		}
		/* mdtest then makes -n/-I test directories, but counts and stats the items of a
		 * deeper tree inconsistently; sonde allows the shape where the counts agree. */
		if (t->dirs != 1) {
			snprintf(err, errlen,
			         "-n with -I spreads the items over -n/-I test directories of one "
			         "directory each: give -z 0 (or -I alone for a tree)");
			return -1;
		}
		if (p->items / p->items_per_dir > (1 << 30)) {
			snprintf(err, errlen, "-n/-I: more than 2^30 test directories");
			return -1;
		}
		t->loops = (int)(p->items / p->items_per_dir);
		t->items_per_dir = p->items_per_dir;
		t->items = p->items_per_dir;
	} else if (p->items_per_dir > 0) {
		t->items_per_dir = p->items_per_dir;
		if (p->items_per_dir > BIG_ITEMS / holders) {
			snprintf(err, errlen, "-I %lld in %lld directories: too many items",
			         (long long)p->items_per_dir, (long long)holders);
			return -1;
		}
		t->items = p->items_per_dir * holders;
	} else {
		t->items_per_dir = p->items / holders;
		t->items = t->items_per_dir * holders;
	}
	if (t->items_per_dir < 1) {
		if (p->items == 0)
			snprintf(err, errlen, "no items to work on: give -n N or -I N");
		else
			snprintf(err, errlen,
			         "-n %lld is fewer than one item for each of the %lld directories "
			         "that hold items",
			         (long long)p->items, (long long)holders);
		return -1;
	}
	return 0;
}

int mdtest_tree_subpath(const struct mdtest_tree *t, const char *base, int64_t d, char *buf,
                        size_t len)
{
	/* Ancestors from d up to level 1, then written top down. */
	int64_t chain[MDTEST_MAX_DEPTH + 1];
	int n = 0;
	for (int64_t a = d; a > 0 && n <= MDTEST_MAX_DEPTH;
	     a = (a - 1) / (t->branch > 0 ? t->branch : 1))
		chain[n++] = a;
	size_t at = 0, blen = strlen(base);
	for (int i = n - 1; i >= 0; i--) {
		if (at + blen + 24 + 2 >= len)
			return -1;
		if (at)
			buf[at++] = '/';
		memcpy(buf + at, base, blen);
		at += blen;
		buf[at++] = '.';
		at += (size_t)sonde_u64_digits(buf + at, (uint64_t)chain[i]);
	}
	if (at >= len)
		return -1;
	buf[at] = '\0';
	return (int)at;
}

void mdtest_shuffle(uint64_t *v, int64_t n, uint64_t seed)
{
	uint64_t x = seed * 2 + 1;
	for (int64_t i = 0; i < n; i++)
		v[i] = (uint64_t)i;
	for (int64_t i = n - 1; i > 0; i--) {
		/* xorshift64*, then a draw in [0, i] (the bias of the modulo is below 2^-40). */
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t j = (x * 2685821657736338717ULL) % (uint64_t)(i + 1);
		uint64_t tmp = v[i];
		v[i] = v[j];
		v[j] = tmp;
	}
}

int mdtest_item_owner(int rank, int tasks, int stride, enum mdtest_step step)
{
	return (int)(((int64_t)rank + (int64_t)step * stride) % tasks);
}

int mdtest_tree_owner(int rank, int tasks, int stride, enum mdtest_step step)
{
	return (int)(((int64_t)rank + ((int64_t)step + 1) * stride) % tasks);
}
