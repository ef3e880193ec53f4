/* SPDX-License-Identifier: BSD-3-Clause */
/* File-system facts for a path: type by statfs magic, mount point, free space. */
#ifndef SONDE_FSINFO_H
#define SONDE_FSINFO_H

#include <stdint.h>
#include <stdio.h>

struct sonde_fsinfo {
	char type[32]; /* "ext4", "tmpfs", "xfs", "nfs", "lustre", "gpfs", "beegfs", ... */
	unsigned long magic;
	char mount[4096]; /* mount point from /proc/self/mountinfo, "" if unknown */
	int64_t total_bytes, free_bytes;
	int parallel; /* a parallel/distributed file system (lustre, gpfs, beegfs, ceph, ...) */
};

/* path may name a file that does not exist yet: its directory is examined. Returns 0 or
 * -errno. */
int sonde_fsinfo_get(const char *path, struct sonde_fsinfo *out);

/* The "FS" line IOR and mdtest print: size, used share and inodes of the file system that
 * holds the directory dir. */
struct sonde_fs_usage {
	double size;      /* in unit */
	const char *unit; /* "GiB", or "TiB" above 1024 GiB */
	double used_pct, inodes_mi, used_inodes_pct;
};

/* Returns 0, or -1 when dir's file system cannot be examined. */
int sonde_fs_usage(const char *dir, struct sonde_fs_usage *u);
/* "FS                  : 24.0 GiB   Used FS: 5.4%   Inodes: 16.0 Mi   Used Inodes: 2.6%" */
void sonde_fs_usage_print(FILE *out, const struct sonde_fs_usage *u);

#endif
