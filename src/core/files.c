#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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
