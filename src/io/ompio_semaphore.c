/* SPDX-License-Identifier: BSD-3-Clause */
#include "ompio_semaphore.h"

#if defined(OMPI_MAJOR_VERSION)

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "fail.h"

enum holders { HELD_BY_NONE, HELD_LIVE, HELD_UNSEEN };

/* The semaphore's count, or -1 when it does not exist or cannot be opened. */
static int count_of(const char *name)
{
	sem_t *s = sem_open(name, 0);
	if (s == SEM_FAILED)
		return -1;
	int count = -1;
	if (sem_getvalue(s, &count) != 0)
		count = -1;
	sem_close(s);
	return count;
}

/* Whether one line of /proc/PID/maps maps the file st describes. By device and inode, not by
 * name: the process that created a semaphore maps the temporary file sem_open linked to its
 * name, and shows that name. */
static int maps_file(const char *line, const struct stat *st)
{
	unsigned major, minor;
	unsigned long inode;
	return sscanf(line, "%*s %*s %*s %x:%x %lu", &major, &minor, &inode) == 3 &&
	       inode == (unsigned long)st->st_ino && makedev(major, minor) == st->st_dev;
}

/* Whether a process on this node has file mapped. Only its owner's processes (and root's) can
 * have opened it read-write as sem_open does: one of those whose maps cannot be read (init
 * here; a process that is not dumpable) makes the answer HELD_UNSEEN. */
static enum holders holders_of(const struct stat *sem)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return HELD_UNSEEN;
	enum holders held = HELD_BY_NONE;
	char line[PATH_MAX + 256], maps[sizeof((struct dirent *)0)->d_name + 16];
	const struct dirent *e;
	while (held != HELD_LIVE && (e = readdir(proc)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(maps, sizeof maps, "/proc/%s/maps", e->d_name);
		FILE *f = fopen(maps, "r");
		int unread = !f;
		while (f && fgets(line, sizeof line, f))
			if (maps_file(line, sem)) {
				held = HELD_LIVE;
				break;
			}
		if (f) {
			unread = ferror(f);
			fclose(f);
		}
		struct stat st;
		snprintf(maps, sizeof maps, "/proc/%s", e->d_name);
		if (unread && held != HELD_LIVE && stat(maps, &st) == 0 &&
		    (st.st_uid == sem->st_uid || st.st_uid == 0))
			held = HELD_UNSEEN;
	}
	closedir(proc);
	return held;
}

void sonde_ompio_clear_dead_semaphore(MPI_Comm comm, const char *path)
{
	int rank = 0;
	MPI_Comm_rank(comm, &rank);
	if (rank != 0)
		return;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	/* OMPIO's own name, cut where OMPIO cuts it (a 252-byte buffer) */
	char name[252];
	snprintf(name, sizeof name, "OMPIO_%s", base);
	/* Once per name and process: a run opens the same file again and again (each iteration,
	 * each phase), and what could leave it taken meanwhile is another run dying inside an
	 * open of a file of the same name on this node. The look costs 2 % of a 2-rank open and
	 * close on tmpfs (make bench, mpio_open); the opens after the first pay a comparison. */
	static char looked[sizeof name];
	if (strcmp(looked, name) == 0)
		return;
	memcpy(looked, name, sizeof name);
	if (count_of(name) != 0)
		return;

	char file[sizeof name + 16];
	snprintf(file, sizeof file, "/dev/shm/sem.%s", name);
	struct stat st = {.st_uid = (uid_t)-1};
	enum holders held = stat(file, &st) == 0 ? holders_of(&st) : HELD_UNSEEN;
	/* Taken before the look at every process and still taken after it: a holder that let
	 * it go meanwhile is no reason to remove it. */
	if (held == HELD_LIVE || count_of(name) != 0)
		return;
	/* A holder sonde cannot see gives the semaphore back within microseconds (OMPIO takes
	 * it only to store one offset): taken for a second more, it is dead too. */
	for (int ms = 0; held == HELD_UNSEEN && ms < 1000; ms += 10) {
		nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
		if (count_of(name) != 0)
			return;
	}
	if (sem_unlink(name) == 0 || errno == ENOENT) {
		sonde_warn_here("removed %s: Open MPI's shared-file-pointer semaphore for files "
		                "named %s, left taken by a run that died (no process holds it); "
		                "every MPI_File_open of a file of that name on this node would "
		                "have waited for it forever",
		                file, base);
		return;
	}
	sonde_fatal("cannot open %s: Open MPI's semaphore %s was left taken by a run that died "
	            "(no process holds it) and cannot be removed (%s); every MPI_File_open of "
	            "a file named %s on this node would wait for it forever: its owner (uid "
	            "%u) or an administrator can remove it",
	            path, file, sonde_strerror(errno), base, (unsigned)st.st_uid);
}

#else

void sonde_ompio_clear_dead_semaphore(MPI_Comm comm, const char *path)
{
	(void)comm;
	(void)path;
}

#endif
