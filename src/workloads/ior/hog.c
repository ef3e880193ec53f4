/* SPDX-License-Identifier: BSD-3-Clause */
/* -M / memoryPerNode, memoryPerTask: IOR's memory hog. Taking memory away from the page cache
 * makes reads after writes less likely to be served from it on one node. Each rank allocates
 * its share and touches every page, so the kernel really has to provide it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "units.h"
#include "workloads/ior/ior.h"

int ior_hog_sizes(const char *per_node, const char *per_task, int64_t *node_bytes,
                  int64_t *task_bytes, char *err, size_t errlen)
{
	*node_bytes = *task_bytes = 0;
	char why[200];
	if (per_task &&
	    sonde_parse_size(per_task, SONDE_SIZE_BINARY, task_bytes, why, sizeof why) < 0) {
		snprintf(err, errlen, "memoryPerTask: %s", why);
		return -1;
	}
	if (!per_node)
		return 0;
	size_t n = strlen(per_node);
	if (n > 1 && per_node[n - 1] == '%') {
		char digits[32];
		int64_t pct;
		snprintf(digits, sizeof digits, "%.*s", (int)(n - 1), per_node);
		if (sonde_parse_int(digits, 0, 100, &pct, why, sizeof why) < 0) {
			snprintf(err, errlen, "memoryPerNode %s: %s", per_node, why);
			return -1;
		}
		*node_bytes = (int64_t)((double)sysconf(_SC_PHYS_PAGES) *
		                        (double)sysconf(_SC_PAGESIZE) * (double)pct / 100.0);
	} else if (sonde_parse_size(per_node, SONDE_SIZE_BINARY, node_bytes, why, sizeof why) < 0) {
		snprintf(err, errlen, "memoryPerNode: %s", why);
		return -1;
	}
	return 0;
}

int ior_hog_size(const char *per_node, const char *per_task, int tasks_on_node, int64_t *bytes,
                 char *err, size_t errlen)
{
	int64_t node, task;
	if (ior_hog_sizes(per_node, per_task, &node, &task, err, errlen) < 0)
		return -1;
	*bytes = task + node / (tasks_on_node > 0 ? tasks_on_node : 1);
	return 0;
}

void *ior_hog(int64_t bytes)
{
	if (bytes <= 0)
		return NULL;
	char *p = malloc((size_t)bytes);
	if (!p)
		return NULL;
	long page = sysconf(_SC_PAGESIZE);
	for (int64_t o = 0; o < bytes; o += page)
		p[o] = 1;
	return p;
}
