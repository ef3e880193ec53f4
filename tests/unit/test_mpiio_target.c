/* SPDX-License-Identifier: BSD-3-Clause */
/* -target templates of sonde mpiio: %r %h %p %% expand, and nothing a host name brings can move
 * the file out of the directory the template names. */
#include <string.h>

#include "check.h"
#include "workloads/mpiio/mpiio.h"

static int expand(const char *tmpl, const char *host, char *out, size_t len)
{
	char err[256];
	return mpiio_expand_target(tmpl, 12, host, 4242, out, len, err, sizeof err);
}

int main(void)
{
	char out[64];
	CHECK_INT(expand("/scratch/f.%r.%h.%p.%%", "node7", out, sizeof out), 0);
	CHECK(strcmp(out, "/scratch/f.12.node7.4242.%") == 0);
	CHECK_INT(expand("plain", "node7", out, sizeof out), 0);
	CHECK(strcmp(out, "plain") == 0);
	/* Host names that would add a directory level or climb out of one. */
	CHECK_INT(expand("/scratch/%h/f", "a/b", out, sizeof out), -1);
	CHECK_INT(expand("/scratch/%h/f", "..", out, sizeof out), -1);
	CHECK_INT(expand("/scratch/f.%h", "x..y", out, sizeof out), -1);
	CHECK_INT(expand("/scratch/f.%h", "", out, sizeof out), -1);
	/* A literal ".." in the template is the user's own choice. */
	CHECK_INT(expand("../f.%r", "node7", out, sizeof out), 0);
	CHECK(strcmp(out, "../f.12") == 0);
	CHECK_INT(expand("f.%q", "node7", out, sizeof out), -1);
	CHECK_INT(expand("f.%", "node7", out, sizeof out), -1);
	CHECK_INT(expand("", "node7", out, sizeof out), -1);
	/* Names that do not fit are refused, never cut. */
	char small[8];
	CHECK_INT(expand("abcdefgh", "node7", small, sizeof small), -1);
	CHECK_INT(expand("abcdefg", "node7", small, sizeof small), 0);
	CHECK_INT(expand("f.%h", "node7", small, sizeof small), 0);
	CHECK_INT(expand("f.%h", "node77", small, sizeof small), -1);
	return check_finish("mpiio_target");
}
