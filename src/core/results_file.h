/* SPDX-License-Identifier: BSD-3-Clause */
/* One results file (--json, --csv, --live): opened for appending without ever truncating or
 * following a planted link, appended to a whole line at a time, also by several writers at once
 * (the groups of sonde mix share one --json), and closed. results.c reports what fails. */
#ifndef SONDE_RESULTS_FILE_H
#define SONDE_RESULTS_FILE_H

#include <stddef.h>

/* One results file: descriptor + 1, so that the zeroed struct means "no file". */
struct results_file {
	int fd1;
	int created;   /* this run created it: removed again if the run wrote nothing into it */
	int wrote;     /* this run appended to it */
	int was_empty; /* empty when opened: the CSV header row goes first */
	const char *path;
};

/* Opens path (option: "json", "csv", "live", for messages) for appending, never truncating,
 * never following a symlink planted at the path, never blocking on a FIFO, and only a regular
 * file: a device or a FIFO would swallow the records. Whether this run created the file is known
 * exactly (O_EXCL first). 0, or -1 with a one-line reason in err. */
int results_file_open(struct results_file *out, const char *option, const char *path, char *err,
                      size_t errlen);

/* Refuses a file that already holds the other format (json: JSON Lines, else sonde's CSV):
 * records appended to it would make both unreadable. 0, or -1 with a reason in err. */
int results_file_check_format(const struct results_file *out, int json, char *err, size_t errlen);

/* Closes the file; one this run created and left empty goes away again. */
void results_file_close(struct results_file *out);

/* Appends one whole line (buf, len bytes with its newline) to an open file. Each line is one
 * write(2) on the O_APPEND descriptor, so its bytes go together at the end, and a run killed at
 * any moment leaves only whole lines. A write that stops short (a full file system) would put
 * the rest after another writer's line: under flock(2), which every writer takes, nobody
 * appends in between, so the rest follows; a line that still fails is cut back to its start,
 * and only while the file still ends with it (never what another writer appended since;
 * without the lock, one write only, and the same check). Returns 0, or the errno of the
 * failure (EIO for a write that moved nothing), with *torn the bytes of the line that stayed
 * in the file (0 when it was cut back). */
int results_file_append(struct results_file *out, const char *buf, size_t len, size_t *torn);

#endif
