#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void sonde_parent_dir(const char *path, char *out, size_t len)
{
	snprintf(out, len, "%s", path);
	char *slash = strrchr(out, '/');
	if (!slash)
		snprintf(out, len, ".");
	else if (slash == out)
		out[1] = '\0';
	else
		*slash = '\0';
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
