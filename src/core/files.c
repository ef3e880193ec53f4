/* SPDX-License-Identifier: BSD-3-Clause */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail.h"
#include "results.h"

void sonde_parent_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, len, ".");
	else
		snprintf(out, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

int sonde_open_nofollow(const char *path, const char *mode)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
	if (strcmp(mode, "a") == 0)
		flags |= O_APPEND;
	else if (strcmp(mode, "w") == 0)
		flags |= O_TRUNC;
	else {
		errno = EINVAL;
		return -1;
	}
	return open(path, flags, 0644);
}

/* The stream under sonde_fopen_nofollow: stdio drops a buffer whose write failed and keeps
 * only its error flag, so the first failure's errno is kept here, and closing reports it. */
struct output {
	int fd, err;
};

static ssize_t output_write(void *cookie, const char *buf, size_t len)
{
	struct output *o = cookie;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!o->err)
				o->err = n < 0 ? errno : EIO;
			errno = o->err;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static int output_close(void *cookie)
{
	struct output *o = cookie;
	int err = o->err;
	if (close(o->fd) != 0 && !err)
		err = errno;
	free(o);
	errno = err;
	return err ? -1 : 0;
}

FILE *sonde_fopen_nofollow(const char *path, const char *mode)
{
	int fd = sonde_open_nofollow(path, mode);
	if (fd < 0)
		return NULL;
	struct output *o = malloc(sizeof *o);
	FILE *f = NULL;
	if (o) {
		*o = (struct output){fd, 0};
		f = fopencookie(
		    o, mode, (cookie_io_functions_t){.write = output_write, .close = output_close});
	}
	if (!f) {
		int e = o ? errno : ENOMEM;
		free(o);
		close(fd);
		errno = e;
	}
	return f;
}

int sonde_fclose_checked(FILE *f)
{
	int err = fflush(f) != 0 ? errno : 0;
	int failed = ferror(f);
	if (fclose(f) != 0 && !err)
		err = errno;
	return err ? err : failed ? EIO : 0;
}

int sonde_close_output(FILE *f, const char *what, const char *path)
{
	int err = sonde_fclose_checked(f);
	if (!err)
		return 0;
	char msg[PATH_MAX + 256];
	snprintf(msg, sizeof msg, "cannot write %s %s: %s", what, path, sonde_strerror(err));
	sonde_error("%s", msg);
	sonde_results_note_failure(0, path, msg);
	return SONDE_EXIT_RUNTIME;
}

/* path with its directory resolved (links, "..", "."); the path as given when the directory
 * does not exist either. */
static void resolved(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	sonde_parent_dir(path, dir, sizeof dir);
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (realpath(dir, real))
		snprintf(out, len, "%s/%s", strcmp(real, "/") == 0 ? "" : real, name);
	else
		snprintf(out, len, "%s", path);
}

int sonde_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea && eb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ea != eb)
		return 0;
	char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
	resolved(a, ra, sizeof ra);
	resolved(b, rb, sizeof rb);
	return strcmp(ra, rb) == 0;
}

int sonde_open_dir_below(const char *dir, size_t trusted)
{
	char part[PATH_MAX];
	if (trusted >= sizeof part) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(part, sizeof part, "%.*s", (int)trusted, dir);
	if (!*part)
		snprintf(part, sizeof part, "%s", dir[0] == '/' ? "/" : ".");
	int fd = open(part, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (const char *s = dir + trusted; fd >= 0 && *s;) {
		s += strspn(s, "/");
		size_t n = strcspn(s, "/");
		if (n == 0)
			break;
		if (n > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, s, n);
		part[n] = '\0';
		s += n;
		/* "." and ".." are written by the user, never a name a link could be planted at */
		int dots = strcmp(part, ".") == 0 || strcmp(part, "..") == 0;
		int next =
		    openat(fd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (dots ? 0 : O_NOFOLLOW));
		int e = errno;
		close(fd);
		errno = e;
		fd = next;
	}
	return fd;
}

int sonde_open_dir_nofollow(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	return sonde_open_dir_below(dir, !slash ? 0 : slash == dir ? 1 : (size_t)(slash - dir));
}

void sonde_path_in_dir(int dirfd, const char *name, char *out, size_t len)
{
	snprintf(out, len, "/proc/self/fd/%d/%s", dirfd, name);
}

void sonde_path_shown(char *msg, size_t len, const char *inner, const char *shown)
{
	char *at = strstr(msg, inner);
	if (!at || !*inner)
		return;
	char rest[4096];
	snprintf(rest, sizeof rest, "%s", at + strlen(inner));
	snprintf(at, len - (size_t)(at - msg), "%s%s", shown, rest);
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)    ? "a directory"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
	                        : "not a file";
}

FILE *sonde_fopen_input(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		snprintf(why, whylen, "%s", strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)", file_kind(st.st_mode));
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(why, whylen, "%s", strerror(errno));
		close(fd);
	}
	return f;
}
