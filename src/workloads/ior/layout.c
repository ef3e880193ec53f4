/* SPDX-License-Identifier: BSD-3-Clause */
#include "workloads/ior/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t ior_offset(const struct ior_geometry *g, int64_t seg, int64_t j, int pretend)
{
	if (g->fpp)
		return seg * g->block + j * g->xfer;
	return seg * g->ntasks * g->block + (int64_t)pretend * g->block + j * g->xfer;
}

int64_t *ior_random_offsets(const struct ior_geometry *g, int pretend, unsigned seed,
                            int64_t *count)
{
	int64_t n = 0, per_block = g->block / g->xfer;
	int64_t *v;
	srand(seed);
	if (g->fpp) {
		n = per_block;
		v = malloc(sizeof *v * (size_t)(n ? n : 1));
		if (!v)
			abort();
		for (int64_t i = 0; i < n; i++)
			v[i] = i * g->xfer;
	} else {
		int64_t span = g->block * g->ntasks;
		for (int64_t o = 0; o < span; o += g->xfer)
			if (rand() % g->ntasks == pretend)
				n++;
		v = malloc(sizeof *v * (size_t)(n ? n : 1));
		if (!v)
			abort();
		/* the same draws again, now keeping the offsets */
		srand(seed);
		int64_t k = 0;
		for (int64_t o = 0; o < span; o += g->xfer)
			if (rand() % g->ntasks == pretend)
				v[k++] = o;
	}
	for (int64_t i = 0; i < n; i++) {
		int64_t r = rand() % n, tmp = v[r];
		v[r] = v[i];
		v[i] = tmp;
	}
	*count = n;
	return v;
}

int ior_file_name(const char *test_file, int fpp, int unique_dir, int file_rank, int rep, char *buf,
                  size_t len)
{
	/* -o a@b@c: file per process picks name (rank mod count); a shared file uses the first */
	int count = 1;
	for (const char *c = test_file; *c; c++)
		count += *c == '@';
	int pick = fpp ? file_rank % count : 0;
	const char *start = test_file;
	for (int i = 0; i < pick; i++)
		start = strchr(start, '@') + 1;
	const char *end = strchr(start, '@');
	int namelen = end ? (int)(end - start) : (int)strlen(start);
	int n;
	if (fpp && unique_dir) {
		const char *slash = NULL;
		for (const char *c = start; c < start + namelen; c++)
			if (*c == '/')
				slash = c;
		int dirlen = slash ? (int)(slash - start) + 1 : 0;
		n = snprintf(buf, len, "%.*s%d/%.*s", dirlen, start, file_rank, namelen - dirlen,
		             start + dirlen);
	} else {
		n = snprintf(buf, len, "%.*s", namelen, start);
	}
	if (n < 0 || (size_t)n >= len)
		return -1;
	if (fpp)
		n += snprintf(buf + n, len - (size_t)n, ".%08d", file_rank);
	if (rep >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ".%d", rep);
	return (size_t)n < len ? 0 : -1;
}

void ior_dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}
