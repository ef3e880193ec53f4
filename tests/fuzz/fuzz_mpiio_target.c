/* SPDX-License-Identifier: BSD-3-Clause */
/* LANL -target templates (%r %h %p %%) with any host name: the result always fits, and a host
 * name never brings a '/' or a ".." into the file name. */
#include "fuzz_util.h"
#include "workloads/mpiio/mpiio.h"

/* Whether the template holds a %h escape (not "%%h", a literal "%h"). */
static int has_host_escape(const char *t)
{
	for (; *t; t++)
		if (*t == '%') {
			if (t[1] == 'h')
				return 1;
			if (t[1])
				t++;
		}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char *host = strchr(text, '\n');
	if (host)
		*host++ = '\0';
	else
		host = "node01";
	char out[256], err[512] = "";
	int rank = size ? data[0] : 0;
	if (mpiio_expand_target(text, rank, host, 4242, out, sizeof out, err, sizeof err) == 0) {
		if (strlen(out) >= sizeof out)
			abort();
		if (has_host_escape(text) && (strchr(host, '/') || strstr(host, "..")))
			abort();
	} else if (!err[0]) {
		abort();
	}
	free(text);
	return 0;
}
