/* SPDX-License-Identifier: BSD-3-Clause */
/* One results file, appended to by two writers (two descriptors, as two group leaders of a
 * mix): every line goes in whole, and a line that does not fit (a file size limit: short writes,
 * then EFBIG) is cut back to its start, leaving the other writer's line as it was. The oracle
 * is the file's bytes read back. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "check.h"
#include "results_file.h"

static const char *contents(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static int append(struct results_file *f, const char *line, size_t *torn)
{
	return results_file_append(f, line, strlen(line), torn);
}

int main(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], err[512];
	check_temp_dir("results-file", dir);
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	struct results_file a, b;
	CHECK_INT(results_file_open(&a, "json", path, err, sizeof err), 0);
	CHECK_INT(results_file_open(&b, "json", path, err, sizeof err), 0);
	CHECK(a.created && !b.created);
	size_t torn = 1;
	CHECK_INT(append(&a, "{\"a\":1}\n", &torn), 0);
	CHECK_INT((int)torn, 0);
	CHECK_INT(append(&b, "{\"b\":1}\n", &torn), 0);

	/* A limit 3 bytes past the end: b's next line moves 3 bytes, then fails */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit was, limit;
	getrlimit(RLIMIT_FSIZE, &was);
	limit = was;
	limit.rlim_cur = (rlim_t)strlen(contents(path)) + 3;
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &limit), 0);
	CHECK_INT(append(&b, "{\"b\":2}\n", &torn), EFBIG);
	CHECK_INT((int)torn, 0);
	CHECK_STR(contents(path), "{\"a\":1}\n{\"b\":1}\n");
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &was), 0);

	/* the other writer goes on after it, as if it had never been */
	CHECK_INT(append(&a, "{\"a\":2}\n", &torn), 0);
	CHECK_STR(contents(path), "{\"a\":1}\n{\"b\":1}\n{\"a\":2}\n");
	results_file_close(&a);
	results_file_close(&b);
	remove(path);
	remove(dir);
	return check_finish("test_results_file");
}
