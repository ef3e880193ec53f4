/* SPDX-License-Identifier: BSD-3-Clause */
/* The manual pages, generated at build time from the workloads' option tables (the tables that
 * drive parsing, --help and docs/options/), so that they cannot drift from the program:
 * `sonde --help-man` writes sonde(1), `sonde <workload> --help-man DOCPAGE` sonde-<workload>(1).
 */
#ifndef SONDE_MANPAGE_H
#define SONDE_MANPAGE_H

#include <stddef.h>
#include <stdio.h>

#include "workload.h"

/* sonde(1): the workloads (a NULL-terminated list), the options every workload accepts, results
 * files, environment, exit status and examples. */
void sonde_manpage_sonde(const struct sonde_workload *const *workloads, FILE *out);

/* sonde-<w>(1): every option of w's table with its long form, value, range and default, the
 * refused options and directives, and a DIFFERENCES section: the Markdown under the level-2
 * heading of docs_page (docs/workloads/<w>.md) that says how the workload differs from its
 * original, or, when docs_page is NULL (a workload that has none yet), one sentence saying that
 * it has no page. Returns 0, or -1 with a one-line reason in err (a page named that cannot be
 * read or has no such heading); nothing is written then. */
int sonde_manpage_workload(const struct sonde_workload *w, const char *docs_page, FILE *out,
                           char *err, size_t errlen);

#endif
