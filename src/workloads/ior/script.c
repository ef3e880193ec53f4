/* SPDX-License-Identifier: BSD-3-Clause */
/* -f FILE: IOR's script. Lines between "IOR START" and "IOR STOP" are key=value directives
 * (IOR's long names, any case) that change the current parameters; "RUN" adds a test with the
 * parameters as they are then, so later tests inherit earlier settings, as in IOR. '#' starts
 * a comment. The command line's options are the starting point. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "input.h"
#include "workloads/ior/ior.h"

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int ior_script_read(MPI_Comm comm, const char *path, const struct ior_params *defaults,
                    struct ior_test **tests, int *ntests, char *err, size_t errlen)
{
	char open_why[256];
	int open_err;
	FILE *f = sonde_input_open(comm, path, &open_err, open_why, sizeof open_why);
	if (!f) {
		snprintf(err, errlen, "cannot open script file %s: %s", path, open_why);
		return -1;
	}
	struct ior_params cur = *defaults;
	cur.script = NULL;
	char line[8192];
	int started = 0, stopped = 0, lineno = 0, rc = 0;
	*tests = NULL;
	*ntests = 0;
	while (!stopped && fgets(line, sizeof line, f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = trim(line);
		if (!*s)
			continue;
		if (strncasecmp(s, "IOR START", 9) == 0) {
			started = 1;
			continue;
		}
		if (!started)
			continue;
		if (strncasecmp(s, "IOR STOP", 8) == 0) {
			stopped = 1;
			break;
		}
		if (strcasecmp(s, "RUN") == 0) {
			struct ior_test *t = realloc(*tests, sizeof *t * (size_t)(*ntests + 1));
			if (!t)
				abort();
			memset(&t[*ntests], 0, sizeof *t);
			t[*ntests].p = cur;
			*tests = t;
			++*ntests;
			continue;
		}
		char why[400];
		struct sonde_option_set set = {.table = sonde_options_full(&ior_option_table),
		                               .cfg = &cur};
		if (ior_directive(&set, s, why, sizeof why) < 0) {
			snprintf(err, errlen, "script %s line %d: %s", path, lineno, why);
			rc = -1;
			break;
		}
	}
	fclose(f);
	if (rc == 0 && !started) {
		snprintf(err, errlen, "script %s has no 'IOR START' line", path);
		rc = -1;
	} else if (rc == 0 && !stopped) {
		snprintf(err, errlen, "script %s has no 'IOR STOP' line", path);
		rc = -1;
	} else if (rc == 0 && *ntests == 0) {
		snprintf(err, errlen, "script %s has no RUN line: no test to run", path);
		rc = -1;
	}
	if (rc < 0) {
		free(*tests);
		*tests = NULL;
		*ntests = 0;
	}
	return rc;
}
