/* SPDX-License-Identifier: BSD-3-Clause */
#include "results_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int results_file_open(struct results_file *out, const char *option, const char *path, char *err,
                      size_t errlen)
{
	const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
	*out = (struct results_file){0};
	if (!*path) {
		snprintf(err, errlen, "--%s: empty file name", option);
		return -1;
	}
	int fd = open(path, flags | O_CREAT | O_EXCL, 0644);
	out->created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, flags);
	struct stat st;
	if (fd < 0 && errno == ENXIO) { /* a FIFO without a reader */
		snprintf(err, errlen, "results file %s is not a regular file", path);
		return -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot open results file %s: %s", path,
		         errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "results file %s is not a regular file", path);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	out->fd1 = fd + 1;
	out->path = path;
	out->was_empty = st.st_size == 0;
	return 0;
}

int results_file_check_format(const struct results_file *out, int json, char *err, size_t errlen)
{
	char head[8] = "", self[64];
	if (out->was_empty)
		return 0;
	/* The descriptor is write-only; the same file (not the path again) opened to read. */
	snprintf(self, sizeof self, "/proc/self/fd/%d", out->fd1 - 1);
	int fd = open(self, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, head, sizeof head - 1, 0) : -1;
	if (fd >= 0)
		close(fd);
	int ok = n <= 0 || (json ? head[0] == '{' : strncmp(head, "run_id,", 7) == 0);
	if (!ok)
		snprintf(err, errlen,
		         "%s %s holds something else than %s; give --%s a new file or one it "
		         "wrote before",
		         json ? "--json" : "--csv", out->path,
		         json ? "JSON Lines records" : "sonde's CSV rows", json ? "json" : "csv");
	return ok ? 0 : -1;
}

void results_file_close(struct results_file *out)
{
	if (!out->fd1)
		return;
	struct stat st;
	if (out->created && !out->wrote && fstat(out->fd1 - 1, &st) == 0 && st.st_size == 0)
		unlink(out->path);
	close(out->fd1 - 1);
	out->fd1 = 0;
}

/* Cuts back a line that the writes left incomplete (its first done bytes, the last ones written
 * through fd), only while the file still ends where the last write left the offset: never what
 * another writer appended since. 0, or -1 when the torn bytes stay. */
static int cut_back(int fd, size_t done)
{
	off_t end = lseek(fd, 0, SEEK_CUR);
	struct stat st;
	if (end < (off_t)done || fstat(fd, &st) < 0 || st.st_size != end)
		return -1;
	return ftruncate(fd, end - (off_t)done);
}

int results_file_append(struct results_file *out, const char *buf, size_t len, size_t *torn)
{
	int fd = out->fd1 - 1;
	int locked = flock(fd, LOCK_EX) == 0;
	size_t done = 0;
	int e = 0;
	while (done < len && !e) {
		ssize_t n = write(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			done += (size_t)n;
		/* the rest follows under the lock; without it, only after the other writers' */
		if (n <= 0 || (done < len && !locked))
			e = n < 0 ? errno : EIO;
	}
	*torn = e && done && cut_back(fd, done) < 0 ? done : 0;
	if (locked)
		flock(fd, LOCK_UN);
	out->wrote = 1;
	return e;
}
