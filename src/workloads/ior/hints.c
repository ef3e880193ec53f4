/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO hints as IOR takes them: IOR_HINT__MPI__<key>=<value> from rank 0's environment and
 * from a hints file (-U) of the same lines, read by rank 0 and broadcast so every rank opens
 * with the same hints. Hints for other layers (IOR_HINT__GPFS__...) are counted and ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "files.h"
#include "input.h"
#include "workloads/ior/ior.h"

extern char **environ;

#define PREFIX     "IOR_HINT__"
#define MPI_PREFIX "IOR_HINT__MPI__"

/* Appends "key=value" of one IOR_HINT line to buf (newline separated). */
static int take(const char *line, char **buf, size_t *len, int *ignored, char *err, size_t errlen)
{
	if (strncmp(line, PREFIX, strlen(PREFIX)) != 0)
		return 0;
	if (strncmp(line, MPI_PREFIX, strlen(MPI_PREFIX)) != 0) {
		++*ignored;
		return 0;
	}
	const char *kv = line + strlen(MPI_PREFIX);
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv || !eq[1]) {
		snprintf(err, errlen, "MPI-IO hint '%s' is not %s<key>=<value>", line, MPI_PREFIX);
		return -1;
	}
	size_t n = strlen(kv);
	while (n && (kv[n - 1] == '\n' || kv[n - 1] == '\r' || kv[n - 1] == ' '))
		n--;
	char *b = realloc(*buf, *len + n + 2);
	if (!b)
		abort();
	memcpy(b + *len, kv, n);
	*len += n;
	b[(*len)++] = '\n';
	b[*len] = '\0';
	*buf = b;
	return 0;
}

static int gather_rank0(const char *hints_file, char **buf, size_t *len, int *ignored, char *err,
                        size_t errlen)
{
	for (char **e = environ; *e; e++)
		if (take(*e, buf, len, ignored, err, errlen) < 0)
			return -1;
	if (!hints_file)
		return 0;
	char why[128];
	FILE *f = sonde_fopen_input(hints_file, why, sizeof why);
	if (!f) {
		snprintf(err, errlen, "cannot open hints file %s: %s", hints_file, why);
		return -1;
	}
	char line[4096];
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == '\0')
			continue;
		if (strncmp(s, PREFIX, strlen(PREFIX)) != 0) {
			s[strcspn(s, "\n")] = '\0';
			snprintf(err, errlen,
			         "hints file %s: line '%s' is not IOR_HINT__MPI__key=value",
			         hints_file, s);
			rc = -1;
			break;
		}
		rc = take(s, buf, len, ignored, err, errlen);
	}
	fclose(f);
	return rc;
}

int ior_hints_collect(MPI_Comm comm, const char *hints_file, struct sonde_strlist *out,
                      int *ignored, char *err, size_t errlen)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	char *mine = NULL;
	size_t len = 0;
	int rc = 0;
	*ignored = 0;
	if (rank == 0)
		rc = gather_rank0(hints_file, &mine, &len, ignored, err, errlen);
	/* a failure is rank 0's alone: the caller's sonde_agree tells the others */
	char *buf = sonde_bcast_text(comm, mine, rc < 0 ? 0 : len, &len);
	free(mine);
	/* the strings live for the whole run: the backend reads them at every open */
	for (char *s = buf; *s;) {
		char *nl = strchr(s, '\n');
		*nl = '\0';
		sonde_strlist_push(out, s);
		s = nl + 1;
	}
	if (!out->count)
		free(buf);
	return rc;
}

void ior_hints_warn(const struct ior_params *p, int nhints, int ignored)
{
	int takes_hints = (sonde_backend_find(p->api)->caps & SONDE_CAP_HINTS) != 0;
	if (nhints && !takes_hints)
		sonde_warn("%d MPI-IO hint(s) given, but -a %s does not use them", nhints, p->api);
	if (ior_show_hints(p) && !takes_hints)
		sonde_warn("-H/--showHints has no effect here: -a %s has no MPI-IO hints to show",
		           p->api);
	if (ignored)
		sonde_warn("%d IOR_HINT__ variable(s) for other layers than MPI ignored", ignored);
}
