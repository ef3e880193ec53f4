/* SPDX-License-Identifier: BSD-3-Clause */
#include "fsinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include "files.h"
#include "units.h"

struct fs_magic {
	unsigned long magic;
	const char *name;
	int parallel;
};

/* f_type values (linux/magic.h and the vendors' kernel modules). Several file systems share one
 * magic (ext2/3/4; every FUSE file system, which is how DAOS dfuse, Weka's FUSE client, ceph-fuse
 * and GlusterFS show up): for those, the type name from mountinfo tells them apart. */
static const struct fs_magic magics[] = {
    {0xEF53, "ext4", 0},
    {0x58465342, "xfs", 0},
    {0x9123683E, "btrfs", 0},
    {0x01021994, "tmpfs", 0},
    {0x858458F6, "ramfs", 0},
    {0x958458F6, "hugetlbfs", 0},
    {0x794C7630, "overlay", 0},
    {0x2FC12FC1, "zfs", 0},
    {0xF2F52010, "f2fs", 0},
    {0xCA451A4E, "bcachefs", 0},
    {0x3153464A, "jfs", 0},
    {0x52654973, "reiserfs", 0},
    {0x73717368, "squashfs", 0},
    {0xE0F5E1E2, "erofs", 0},
    {0x4D44, "vfat", 0},
    {0x2011BAB0, "exfat", 0},
    {0x5346544E, "ntfs", 0},
    {0x9FA0, "proc", 0},
    {0x62656572, "sysfs", 0},
    /* Shared over the network but served whole by one server: not parallel. */
    {0x6969, "nfs", 0},
    {0xFF534D42, "cifs", 0},
    {0xFE534D42, "smb2", 0},
    {0x517B, "smb", 0},
    {0x01021997, "9p", 0},
    {0x5346414F, "afs", 0},
    {0x65735546, "fuse", 0},
    /* Parallel and distributed file systems. */
    {0x0BD00BD0, "lustre", 1},
    {0x47504653, "gpfs", 1},
    {0x19830326, "beegfs", 1},
    {0x00C36400, "ceph", 1},
    {0xAAD7AAEA, "panfs", 1},
    {0x20030528, "orangefs", 1},
    {0x01161970, "gfs2", 1},
    {0x7461636F, "ocfs2", 1},
};

/* mountinfo type names of parallel file systems whose magic is shared or not in the table. */
static const char *const parallel_names[] = {
    "lustre",    "gpfs",      "beegfs",    "ceph",           "fuse.ceph-fuse", "panfs",
    "orangefs",  "pvfs2",     "gfs2",      "ocfs2",          "wekafs",         "fuse.dfuse",
    "fuse.daos", "fuse.weka", "glusterfs", "fuse.glusterfs", "quobyte",        "fuse.quobyte",
    "moosefs",   "fuse.mfs",  "lizardfs",  "fuse.lizardfs",  "juicefs",        "fuse.juicefs",
};

static int parallel_by_name(const char *type)
{
	for (size_t i = 0; i < sizeof parallel_names / sizeof *parallel_names; i++)
		if (strcmp(type, parallel_names[i]) == 0)
			return 1;
	return 0;
}

/* mountinfo escapes blanks, tabs, newlines and backslashes in paths as \ooo. */
static void unescape(char *s)
{
	char *d = s;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

static int is_prefix_dir(const char *mount, const char *path)
{
	size_t n = strlen(mount);
	if (strcmp(mount, "/") == 0)
		return 1;
	return strncmp(mount, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The mount point holding real (an absolute path without symlinks): the longest mount point that
 * is a prefix of it; the last such line wins on equal length, as the later mount hides earlier
 * ones. Also returns that mount's file-system type name. */
static void find_mount(const char *real, char *mount, size_t mlen, char *fstype, size_t tlen)
{
	mount[0] = fstype[0] = '\0';
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	size_t best = 0;
	int found = 0;
	while (getline(&line, &cap, f) > 0) {
		/* id parent major:minor root mount-point options [optional...] - type source ... */
		char *save = NULL, *field[5];
		char *tok = strtok_r(line, " \n", &save);
		int i = 0;
		for (; tok && i < 5; i++, tok = strtok_r(NULL, " \n", &save))
			field[i] = tok;
		if (i < 5)
			continue;
		while (tok && strcmp(tok, "-") != 0)
			tok = strtok_r(NULL, " \n", &save);
		char *type = tok ? strtok_r(NULL, " \n", &save) : NULL;
		unescape(field[4]);
		size_t n = strlen(field[4]);
		if (!is_prefix_dir(field[4], real) || (found && n < best))
			continue;
		found = 1;
		best = n;
		snprintf(mount, mlen, "%s", field[4]);
		snprintf(fstype, tlen, "%s", type ? type : "");
	}
	free(line);
	fclose(f);
}

/* The path itself when it exists, else its directory (a file about to be created). */
static int resolve(const char *path, char *real)
{
	if (realpath(path, real))
		return 0;
	if (errno != ENOENT)
		return -errno;
	char dir[PATH_MAX];
	sonde_parent_dir(path, dir, sizeof dir);
	if (!realpath(dir, real))
		return -errno;
	return 0;
}

int sonde_fsinfo_get(const char *path, struct sonde_fsinfo *out)
{
	memset(out, 0, sizeof *out);
	char real[PATH_MAX];
	int rc = resolve(path, real);
	if (rc)
		return rc;
	struct statfs sf;
	if (statfs(real, &sf) != 0)
		return -errno;

	out->magic = (unsigned long)sf.f_type & 0xFFFFFFFFUL;
	unsigned long bsize = sf.f_frsize ? (unsigned long)sf.f_frsize : (unsigned long)sf.f_bsize;
	out->total_bytes = (int64_t)sf.f_blocks * (int64_t)bsize;
	out->free_bytes = (int64_t)sf.f_bavail * (int64_t)bsize;

	char fstype[64];
	find_mount(real, out->mount, sizeof out->mount, fstype, sizeof fstype);

	const struct fs_magic *m = NULL;
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (magics[i].magic == out->magic)
			m = &magics[i];
	int shared_magic = m && (m->magic == 0xEF53 || m->magic == 0x65735546);
	if (m && !shared_magic) {
		snprintf(out->type, sizeof out->type, "%s", m->name);
		out->parallel = m->parallel;
	} else if (fstype[0]) {
		/* The kernel's own name tells ext2/3/4 and the FUSE file systems apart, and names
		 * the file systems missing from the table. */
		snprintf(out->type, sizeof out->type, "%s", fstype);
		out->parallel = parallel_by_name(fstype);
	} else if (m) {
		snprintf(out->type, sizeof out->type, "%s", m->name);
	} else {
		snprintf(out->type, sizeof out->type, "0x%lx", out->magic);
	}
	return 0;
}

int sonde_fs_usage(const char *dir, struct sonde_fs_usage *u)
{
	struct statvfs s;
	if (statvfs(dir, &s) != 0 || s.f_blocks == 0)
		return -1;
	double total = (double)s.f_blocks * (double)s.f_frsize;
	u->size = total / (double)(1 << 30);
	u->unit = "GiB";
	if (u->size > 1024) {
		u->size = total / (double)(1LL << 40);
		u->unit = "TiB";
	}
	u->used_pct = (1 - (double)s.f_bfree / (double)s.f_blocks) * 100;
	u->inodes_mi = (double)s.f_files / (double)SONDE_MIB;
	u->used_inodes_pct = s.f_files ? (1 - (double)s.f_ffree / (double)s.f_files) * 100 : 0;
	return 0;
}

void sonde_fs_usage_print(FILE *out, const struct sonde_fs_usage *u)
{
	fprintf(out, "%-20s: %.1f %s   Used FS: %2.1f%%   Inodes: %.1f Mi   Used Inodes: %2.1f%%\n",
	        "FS", u->size, u->unit, u->used_pct, u->inodes_mi, u->used_inodes_pct);
}
