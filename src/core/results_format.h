/* SPDX-License-Identifier: BSD-3-Clause */
/* How a measurement reads in the results files: its members in a JSON record and its CSV row
 * (docs/results-schema.md). results.c decides when and where they are written. */
#ifndef SONDE_RESULTS_FORMAT_H
#define SONDE_RESULTS_FORMAT_H

#include <stdio.h>

#include "json.h"
#include "results.h"

/* The measurement's members, from "phase" to "extra", into the open record j. */
void results_json_measurement(struct sonde_json *j, const struct sonde_measurement *m);

/* The names of the CSV columns, one line. */
void results_csv_header(FILE *out);

/* What every CSV row repeats, so that a row read alone says what ran. */
struct results_csv_run {
	const char *run_id, *workload;
	int ranks, nodes, tasks_per_node;
};

/* The measurement's CSV row, one line. */
void results_csv_row(FILE *out, const struct results_csv_run *run,
                     const struct sonde_measurement *m);

#endif
