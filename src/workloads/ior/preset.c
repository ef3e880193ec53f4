/* SPDX-License-Identifier: BSD-3-Clause */
/* --preset jupiter-easy / jupiter-hard: the JUPITER procurement's IOR rules (JSC's
 * jubench-ior README). Fixed parameters are set; a fixed parameter given with another value is
 * refused, so a preset run is always a valid procurement run; free ones stay with the user. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "workloads/ior/ior.h"

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		return -1;                                                                         \
	} while (0)

int ior_preset_apply(struct ior_params *p, const struct sonde_option_set *given, int tasks_per_node,
                     char *err, size_t errlen)
{
	int easy = strcmp(p->preset, "jupiter-easy") == 0;
	if (!easy && strcmp(p->preset, "jupiter-hard") != 0)
		FAIL("unknown preset '%s' (jupiter-easy, jupiter-hard)", p->preset);
	const char *name = p->preset;
	if (sonde_option_given(given, "a") && strcasecmp(p->api, "POSIX") != 0 &&
	    strcasecmp(p->api, "MPIIO") != 0)
		FAIL("--preset %s fixes -a POSIX or -a MPIIO, not -a %s", name, p->api);
	if (sonde_option_given(given, "i") && p->reps != 3)
		FAIL("--preset %s fixes -i 3, not -i %d", name, p->reps);
	if (sonde_option_given(given, "Q") && p->task_offset != tasks_per_node)
		FAIL("--preset %s fixes -Q to the tasks per node (%d), not -Q %d", name,
		     tasks_per_node, p->task_offset);
	if (sonde_option_given(given, "Z"))
		FAIL("--preset %s fixes -C (constant reordering); -Z conflicts", name);
	int64_t xfer = easy ? 16 * SONDE_MIB : 4096;
	if (sonde_option_given(given, "t") && p->xfer != xfer)
		FAIL("--preset %s fixes -t %s, not -t %lld", name, easy ? "16m" : "4k",
		     (long long)p->xfer);
	if (easy) {
		if (sonde_option_given(given, "s") && p->segments != 1)
			FAIL("--preset jupiter-easy fixes -s 1, not -s %lld",
			     (long long)p->segments);
		if (!sonde_option_given(given, "b"))
			p->block = 2LL << 30;
		p->segments = 1;
		p->fpp = 1;
	} else {
		if (sonde_option_given(given, "F"))
			FAIL("--preset jupiter-hard fixes a single shared file; -F conflicts");
		if (sonde_option_given(given, "b") && p->block != 4096)
			FAIL("--preset jupiter-hard fixes -b 4k, not -b %lld", (long long)p->block);
		p->block = 4096;
		/* -s may only be lowered or raised to meet the data-set size rule */
		if (!sonde_option_given(given, "s"))
			p->segments = 524288;
	}
	p->xfer = xfer;
	p->reps = 3;
	p->barriers = 1;
	p->reorder = 1;
	p->write = p->read = 1;
	if (p->verbose < 1)
		p->verbose = 1;
	p->task_offset = tasks_per_node;
	return 0;
}

void ior_command_line(const struct ior_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "ior -a %s -C -Q %d -g -b %lld -t %lld -i %d -o %s -s %lld -r -w -v%s",
	         p->api, p->task_offset, (long long)p->block, (long long)p->xfer, p->reps,
	         p->test_file, (long long)p->segments, p->fpp ? " -F" : "");
}
