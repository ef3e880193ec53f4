/* SPDX-License-Identifier: BSD-3-Clause */
/* -F safety: mib writes only to parallel file systems unless forced. sonde decides "parallel"
 * with fsinfo (Lustre, GPFS, BeeGFS, Ceph, PanFS, DAOS dfuse, Weka, ... by magic and mount
 * type), where mib allowed Lustre and any type missing from its table (btrfs, overlay, ...).
 * The messages name a type the way mib did, by its kernel macro, when mib knew it. */
#include <stdio.h>
#include <sys/stat.h>

#include "backend.h"
#include "fail.h"
#include "fsinfo.h"
#include "workloads/mib/mib.h"

static const struct {
	unsigned long magic;
	const char *name;
} mib_names[] = {
    {0xEF53, "EXT2_SUPER_MAGIC"},         {0x01021994, "TMPFS_MAGIC"},
    {0x6969, "NFS_SUPER_MAGIC"},          {0x58465342, "XFS_SUPER_MAGIC"},
    {0x52654973, "REISERFS_SUPER_MAGIC"}, {0x3153464A, "JFS_SUPER_MAGIC"},
    {0xFF534D42, "CIFS_MAGIC_NUMBER"},    {0x517B, "SMB_SUPER_MAGIC"},
    {0x4D44, "MSDOS_SUPER_MAGIC"},        {0x5346544E, "NTFS_SB_MAGIC"},
    {0x958458F6, "HUGETLBFS_MAGIC"},      {0x9660, "ISOFS_SUPER_MAGIC"},
    {0x9FA0, "PROC_SUPER_MAGIC"},         {0x28CD3D45, "CRAMFS_MAGIC"},
    {0x15013346, "UDF_SUPER_MAGIC"},      {0x0BD00BD0, "S_MAGIC_LUSTRE"},
};

static const char *type_name(const struct sonde_fsinfo *fs)
{
	for (size_t i = 0; i < sizeof mib_names / sizeof *mib_names; i++)
		if (mib_names[i].magic == fs->magic)
			return mib_names[i].name;
	return fs->type;
}

int mib_check_fs(const struct sonde_backend *io, const char *dir, int force, char *line,
                 size_t linelen, char *err, size_t errlen)
{
	struct stat st;
	int rc = io->stat(dir, &st);
	if (rc < 0) {
		snprintf(err, errlen, "test directory %s: %s", dir, sonde_strerror(-rc));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "test directory %s: not a directory", dir);
		return -1;
	}
	struct sonde_fsinfo fs;
	rc = sonde_fsinfo_get(dir, &fs);
	if (rc < 0) {
		snprintf(err, errlen, "test directory %s: %s", dir, sonde_strerror(-rc));
		return -1;
	}
	const char *name = type_name(&fs);
	if (!fs.parallel && !force) {
		snprintf(
		    err, errlen,
		    "Mib will not write to a file system of type \"%s\" (f_type = %#lx) unless "
		    "you use the \"-F\" (--force) option",
		    name, fs.magic);
		return -1;
	}
	snprintf(line, linelen, "Testing a file system of type \"%s\" (f_type = %#lx)", name,
	         fs.magic);
	return 0;
}
