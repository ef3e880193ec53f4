/* SPDX-License-Identifier: BSD-3-Clause */
#include "open_errno.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "fail.h"

/* The directory part of path ("." for a bare name, "/" for the root's entries). */
static void parent_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* access(2)'s answer when it is a refusal of this path: no permission, or a read-only file
 * system (which libraries also report as a permission error: PnetCDF's NC_EPERM). */
static int refused(int err)
{
	return err == EACCES || err == EROFS ? err : 0;
}

int sonde_path_open_errno(const char *path, int create)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		return access(path, create ? W_OK : R_OK) != 0 ? refused(errno) : 0;
	}
	if (errno == ENOTDIR || errno == EACCES)
		return errno;
	if (errno != ENOENT)
		return 0;
	if (!create)
		return ENOENT;
	char dir[4096];
	parent_of(path, dir, sizeof dir);
	if (stat(dir, &st) != 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? errno : 0;
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	return access(dir, W_OK | X_OK) != 0 ? refused(errno) : 0;
}

int sonde_mpio_explain_open(int err, const char *path, int create)
{
	int e = sonde_path_open_errno(path, create);
	if (!e || -e == err || err == 0)
		return err;
	const char *msg = sonde_io_last_error();
	const char *said = sonde_strerror(-err);
	char text[2048];
	const char *at = strstr(msg, said);
	if (at)
		snprintf(text, sizeof text, "%.*s%s%s", (int)(at - msg), msg, sonde_strerror(e),
		         at + strlen(said));
	else
		snprintf(text, sizeof text, "%s (%s)", msg, sonde_strerror(e));
	sonde_io_set_error("%s", text);
	return -e;
}
