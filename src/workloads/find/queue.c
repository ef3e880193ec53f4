/* SPDX-License-Identifier: BSD-3-Clause */
/* The work of sonde find: a stack of directories to read and files to stat, which idle ranks
 * take half of. */
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "workloads/find/find.h"

static void grow(struct find_queue *q)
{
	int64_t cap = q->cap ? q->cap * 2 : 64;
	char **paths = realloc(q->paths, sizeof *paths * (size_t)cap);
	char *kinds = paths ? realloc(q->kinds, (size_t)cap) : NULL;
	if (!paths || !kinds)
		sonde_fatal("out of memory for %lld queued paths", (long long)cap);
	q->paths = paths;
	q->kinds = kinds;
	q->cap = cap;
}

void find_queue_push(struct find_queue *q, enum find_item_kind kind, const char *path, size_t len)
{
	if (q->count == q->cap)
		grow(q);
	char *copy = malloc(len + 1);
	if (!copy)
		sonde_fatal("out of memory for a path of %zu bytes", len);
	memcpy(copy, path, len);
	copy[len] = '\0';
	q->paths[q->count] = copy;
	q->kinds[q->count] = (char)kind;
	q->count++;
}

int find_queue_pop(struct find_queue *q, enum find_item_kind *kind, char **path)
{
	if (q->count == 0)
		return 0;
	q->count--;
	*kind = (enum find_item_kind)q->kinds[q->count];
	*path = q->paths[q->count];
	return 1;
}

void find_queue_free(struct find_queue *q)
{
	for (int64_t i = 0; i < q->count; i++)
		free(q->paths[i]);
	free(q->paths);
	free(q->kinds);
	memset(q, 0, sizeof *q);
}

/* The bottom of the stack holds the oldest items, nearest the top of the tree: the largest
 * pieces of work, which is what a thief should get. */
char *find_queue_pack(struct find_queue *q, int64_t n, int *len)
{
	size_t total = 0;
	for (int64_t i = 0; i < n; i++)
		total += strlen(q->paths[i]) + 2;
	if (total > (size_t)1 << 30)
		sonde_fatal("a work message of %zu bytes", total);
	char *buf = malloc(total ? total : 1);
	if (!buf)
		sonde_fatal("out of memory for a work message of %zu bytes", total);
	size_t at = 0;
	for (int64_t i = 0; i < n; i++) {
		size_t l = strlen(q->paths[i]);
		buf[at++] = q->kinds[i];
		memcpy(buf + at, q->paths[i], l + 1);
		at += l + 1;
		free(q->paths[i]);
	}
	if (n > 0) {
		memmove(q->paths, q->paths + n, sizeof *q->paths * (size_t)(q->count - n));
		memmove(q->kinds, q->kinds + n, (size_t)(q->count - n));
		q->count -= n;
	}
	*len = (int)total;
	return buf;
}

int64_t find_queue_unpack(struct find_queue *q, const char *buf, int len)
{
	int64_t n = 0;
	for (int at = 0; at < len;) {
		const char *path = buf + at + 1;
		size_t l = strnlen(path, (size_t)(len - at - 1));
		find_queue_push(q, (enum find_item_kind)buf[at], path, l);
		at += (int)l + 2;
		n++;
	}
	return n;
}
