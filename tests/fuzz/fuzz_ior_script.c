/* SPDX-License-Identifier: BSD-3-Clause */
/* IOR's -f scripts (IOR START ... RUN ... IOR STOP) and -O key=value directives, the same
 * parser, from IOR's defaults; each test a script yields then goes through IOR's checks. */
#include "fuzz_util.h"
#include "workloads/ior/ior.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ior_params defaults;
	ior_params_defaults(&defaults);
	char path[64], err[1024] = "";
	int fd = fuzz_file(data, size, path, sizeof path);
	struct ior_test *tests = NULL;
	int ntests = 0;
	if (ior_script_read(MPI_COMM_NULL, path, &defaults, &tests, &ntests, err, sizeof err) ==
	    0) {
		for (int k = 0; k < ntests; k++)
			ior_validate(&tests[k].p, 1 + k % 4, err, sizeof err);
	} else if (!err[0]) {
		abort();
	}
	free(tests);
	close(fd);

	char *text = fuzz_string(data, size);
	struct ior_params p = defaults;
	struct sonde_option_set set = {.table = sonde_options_full(&ior_option_table), .cfg = &p};
	char *line = text;
	for (char *nl; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		err[0] = '\0';
		if (ior_directive(&set, line, err, sizeof err) != 0 && !err[0])
			abort();
	}
	ior_validate(&p, 4, err, sizeof err);
	free(text);
	return 0;
}
