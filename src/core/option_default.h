/* SPDX-License-Identifier: BSD-3-Clause */
/* The default of an option as text, from its table's struct filled with the workload's defaults:
 * one source for --help's "(default ...)" and the manual pages' "Default:". */
#ifndef SONDE_OPTION_DEFAULT_H
#define SONDE_OPTION_DEFAULT_H

#include <stddef.h>

#include "options.h"

/* The table's struct filled with its defaults (caller frees), or NULL when the table has none
 * (BTIO's come from its input file). */
void *sonde_option_table_defaults(const struct sonde_option_table *t);

/* The default of entry o in defaults as text in buf, or NULL when there is none to show (no
 * defaults, an unset string, an empty list, a flag that is off, a value that stands for "not
 * given"). brief: a size as the user would type it (256k) rather than "262144 (256k)". */
const char *sonde_option_default_text(const struct sonde_option *o, const void *defaults, int brief,
                                      char *buf, size_t len);

#endif
