/* Files sonde writes beside its test data (results, summaries, profiles, status files): never
 * through a symbolic link planted at the path, which could point at any file the user can
 * write; created 0644. */
#ifndef SONDE_FILES_H
#define SONDE_FILES_H

#include <stdio.h>

/* mode "w" (create or truncate) or "a" (create or append). NULL with errno set (ELOOP for a
 * symbolic link). */
FILE *sonde_fopen_nofollow(const char *path, const char *mode);

#endif
