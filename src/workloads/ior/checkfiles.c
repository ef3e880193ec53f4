/* SPDX-License-Identifier: BSD-3-Clause */
/* The files an IOR run writes, checked before it starts: a test file must be no directory, and
 * the files must be distinct from each other and from the results (a test file, summaryFile,
 * the rank CSV or the status file that is also --json or --csv would write over the results,
 * and a summary onto the test file would destroy the data). */
#include <stdio.h>
#include <sys/stat.h>

#include "files.h"
#include "results.h"
#include "workloads/ior/ior.h"
#include "workloads/ior/layout.h"

int ior_check_files(const struct ior_params *p, int rank, char *err, size_t errlen)
{
	const char *const outputs[] = {p->summary_file, p->rank_csv, p->status_file};
	const char *const output_names[] = {"summaryFile", "saveRankPerformanceDetailsCSV file",
	                                    "stoneWallingStatusFile"};
	const int n_outputs = (int)(sizeof outputs / sizeof outputs[0]);
	for (int k = 0; k < n_outputs; k++)
		if (outputs[k] &&
		    sonde_results_collision(outputs[k], output_names[k], err, errlen) < 0)
			return -1;
	/* -m names a file per repetition */
	int files = p->multi_file ? p->reps : 1;
	for (int rep = 0; rep < files; rep++) {
		char name[4096];
		if (ior_file_name(p->test_file, p->fpp, p->unique_dir, rank,
		                  p->multi_file ? rep : -1, name, sizeof name) < 0)
			continue; /* refused with its own message where it is opened */
		struct stat st;
		if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "the test file %s is a directory (-o names a file)",
			         name);
			return -1;
		}
		if (sonde_results_collision(name, "test file", err, errlen) < 0)
			return -1;
		for (int k = 0; k < n_outputs; k++)
			if (outputs[k] && sonde_same_file(outputs[k], name)) {
				snprintf(err, errlen,
				         "the %s %s is the test file %s; give it another name",
				         output_names[k], outputs[k], name);
				return -1;
			}
	}
	return 0;
}
