/* SPDX-License-Identifier: BSD-3-Clause */
/* Files sonde writes beside its test data (results, summaries, profiles, status files): never
 * through a symbolic link planted at the path, which could point at any file the user can
 * write; created 0644. */
#ifndef SONDE_FILES_H
#define SONDE_FILES_H

#include <stdio.h>

/* mode "w" (create or truncate) or "a" (create or append). NULL with errno set (ELOOP for a
 * symbolic link). The stream keeps the errno of its first failed write, which
 * sonde_fclose_checked returns; it has no descriptor of its own (fileno gives -1). */
FILE *sonde_fopen_nofollow(const char *path, const char *mode);

/* The same as a descriptor: -1 with errno set. */
int sonde_open_nofollow(const char *path, const char *mode);

/* Finishes a file sonde wrote through stdio: flushes it, checks its error flag (a write that
 * failed earlier while the run went on: stdio drops that buffer, and fclose alone then returns
 * 0 for a file the disk cut short) and closes it. Returns 0, or the errno value of the failure
 * (that of the first failed write for a sonde_fopen_nofollow stream, EIO when none is known).
 * f is closed either way. */
int sonde_fclose_checked(FILE *f);

/* sonde_fclose_checked for a file of results in a workload's own format (IOR's summaryFile and
 * saveRankPerformanceDetailsCSV, mpiio's -output): on failure, one error line ("cannot write
 * <what> <path>: <reason>"), the failure noted for the end record, and SONDE_EXIT_RUNTIME
 * returned; 0 otherwise. Rank 0 writes these files and calls it. */
int sonde_close_output(FILE *f, const char *what, const char *path);

/* Opens an input file (a script, hints, an input deck, a target list) to read it: only a regular
 * file, since a device or a FIFO would be read forever or block (/dev/zero), and without
 * blocking on a FIFO while it looks. NULL with the reason in why ("No such file or directory",
 * "not a regular file (a character device)") and errno set (EINVAL: not a regular file). */
FILE *sonde_fopen_input(const char *path, char *why, size_t whylen);

/* Whether a and b name the same file: the same device and inode where both exist, the same
 * resolved path (the real path of the directory, then the name) otherwise. A symbolic link
 * planted at a name counts as the file it points at. */
int sonde_same_file(const char *a, const char *b);

/* Opens a directory that sonde created, or creates files in, for use: its last component must
 * be a directory and never a symbolic link (openat with O_NOFOLLOW | O_DIRECTORY from a
 * descriptor of its parent; the components before it are the user's own path). Returns the
 * descriptor, or -1 with errno (ELOOP or ENOTDIR for a link). */
int sonde_open_dir_nofollow(const char *dir);

/* The same for a directory whose components after its first `trusted` characters sonde made
 * (from a template: %r, %h, %p): the user's part is followed as given, each later component is
 * opened with O_NOFOLLOW | O_DIRECTORY from a descriptor of the one before. */
int sonde_open_dir_below(const char *dir, size_t trusted);

/* The path of name inside the directory open at dirfd: "/proc/self/fd/<dirfd>/<name>", which
 * reaches that very directory whatever links are planted in its own path later. */
void sonde_path_in_dir(int dirfd, const char *name, char *out, size_t len);

/* Where a message names inner (a path made by sonde_path_in_dir), names shown instead. */
void sonde_path_shown(char *msg, size_t len, const char *inner, const char *shown);

/* The directory part of path ("." for a bare name, "/" for a file at the root), into out. */
void sonde_parent_dir(const char *path, char *out, size_t len);

#endif
