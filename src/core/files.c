/* SPDX-License-Identifier: BSD-3-Clause */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sonde_parent_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, len, ".");
	else
		snprintf(out, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

FILE *sonde_fopen_nofollow(const char *path, const char *mode)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
	if (strcmp(mode, "a") == 0)
		flags |= O_APPEND;
	else if (strcmp(mode, "w") == 0)
		flags |= O_TRUNC;
	else {
		errno = EINVAL;
		return NULL;
	}
	int fd = open(path, flags, 0644);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
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
