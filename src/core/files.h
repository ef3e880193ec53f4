/* SPDX-License-Identifier: BSD-3-Clause */
/* Files sonde writes beside its test data (results, summaries, profiles, status files): never
 * through a symbolic link planted at the path, which could point at any file the user can
 * write; created 0644. */
#ifndef SONDE_FILES_H
#define SONDE_FILES_H

#include <stdio.h>

/* mode "w" (create or truncate) or "a" (create or append). NULL with errno set (ELOOP for a
 * symbolic link). */
FILE *sonde_fopen_nofollow(const char *path, const char *mode);

/* Whether a and b name the same file: the same device and inode where both exist, the same
 * resolved path (the real path of the directory, then the name) otherwise. A symbolic link
 * planted at a name counts as the file it points at. */
int sonde_same_file(const char *a, const char *b);

/* The directory part of path ("." for a bare name, "/" for a file at the root), into out. */
void sonde_parent_dir(const char *path, char *out, size_t len);

#endif
