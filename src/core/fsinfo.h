/* File-system facts for a path: type by statfs magic, mount point, free space. */
#ifndef SONDE_FSINFO_H
#define SONDE_FSINFO_H

#include <stdint.h>

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

#endif
