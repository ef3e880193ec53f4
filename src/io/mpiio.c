/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO backend: one MPI_File per communicator (opt->comm, MPI_COMM_SELF by default), data moved
 * with MPI_File_{write,read}_at or, in collective mode, their _all forms. open, close, sync and
 * a truncating open are collective over that communicator; every rank must pass the same path,
 * flags and hints, as MPI requires. */
#include "backend.h"
#include "metadata.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "completion.h"
#include "fail.h"
#include "open_errno.h"

/* --mpiio.*: the MPI-IO backend's own parameters. The hints file is read by the workload (IOR's
 * -U names it too), which hands the hints to open; showHints too is the workload's to read (IOR
 * 3.3's -H sets it), which hands open the stream to show them on. */
struct mpiio_params {
	const char *hints_file;
	int show_hints;
};
SONDE_BACKEND_PARAMS_FIT(struct mpiio_params);

static const struct sonde_option mpiio_options[] = {
    {0, "mpiio.hintsFileName", SONDE_OPT_STRING, offsetof(struct mpiio_params, hints_file), "FILE",
     "MPI-IO hints file (lines IOR_HINT__MPI__key=value)"},
    {0, "mpiio.showHints", SONDE_OPT_FLAG, offsetof(struct mpiio_params, show_hints), NULL,
     "show the MPI-IO hints passed to each open and those in effect on the opened file"},
    {0, "mpiio.preallocate", SONDE_OPT_REFUSED, 0, NULL,
     "not implemented: files grow as they are written, as with POSIX"},
    {0, "mpiio.useFileView", SONDE_OPT_REFUSED, 0, NULL, "file views are not implemented"},
    {0, "mpiio.useStridedDatatype", SONDE_OPT_REFUSED, 0, NULL,
     "strided datatypes are not implemented"},
};

/* A transfer larger than INT_MAX bytes is described by one derived datatype made of pieces of
 * this size, so that every rank makes exactly one call per transfer (see transfer()). */
#define PIECE ((size_t)1 << 30)

struct sonde_file {
	MPI_File fh;
	int collective;
	char path[];
};

/* ROMIO and OMPIO accept a file system prefix ("lustre:/x", "ufs:/x"); the prefix is at least
 * two characters so that a Windows-like "c:" is not one. */
static const char *strip_fs_prefix(const char *path)
{
	const char *colon = strchr(path, ':');
	const char *slash = strchr(path, '/');
	if (colon && colon - path > 1 && (!slash || colon < slash))
		return colon + 1;
	return path;
}

int sonde_io_refuse_symlink(MPI_Comm comm, const char *path)
{
	int rank, is_link = 0;
	MPI_Comm_rank(comm, &rank);
	if (rank == 0) {
		struct stat st;
		is_link = lstat(strip_fs_prefix(path), &st) == 0 && S_ISLNK(st.st_mode);
	}
	MPI_Bcast(&is_link, 1, MPI_INT, 0, comm);
	return is_link ? sonde_io_link_refused("open", path) : 0;
}

static int amode_of(const char *path, unsigned flags, int *amode)
{
	int rc = sonde_io_check_flags(path, flags);
	if (rc < 0)
		return rc;
	*amode = (flags & SONDE_IO_RDONLY)   ? MPI_MODE_RDONLY
	         : (flags & SONDE_IO_WRONLY) ? MPI_MODE_WRONLY
	                                     : MPI_MODE_RDWR;
	/* MPI makes these combinations erroneous; say so instead of leaving it to the library. */
	if ((flags & SONDE_IO_RDONLY) && (flags & (SONDE_IO_CREATE | SONDE_IO_TRUNC))) {
		sonde_io_set_error("open %s: MPI-IO cannot create or truncate a file opened "
		                   "read-only",
		                   path);
		return -EINVAL;
	}
	if (flags & SONDE_IO_CREATE)
		*amode |= MPI_MODE_CREATE;
	if (flags & SONDE_IO_EXCL)
		*amode |= MPI_MODE_EXCL;
	return 0;
}

/* The user's hints plus, for direct I/O, ROMIO's direct_read/direct_write. Whether O_DIRECT
 * follows depends on the driver: ROMIO's xfs and lustre drivers honour the hints; its ufs
 * driver and Open MPI's OMPIO store and report them back (MPI_File_get_info says "true") but
 * open without O_DIRECT (seen with strace, Open MPI 4.1.4 on ext4). sonde cannot tell the two
 * apart at run time; docs/io-backends.md says so. */
int sonde_mpio_open_info(const char *path, unsigned flags, const struct sonde_io_options *opt,
                         MPI_Info *info)
{
	if (sonde_io_hints_info(opt ? opt->hints : NULL, opt ? opt->nhints : 0, info) != 0) {
		char why[512];
		snprintf(why, sizeof why, "%s", sonde_io_last_error());
		sonde_io_set_error("open %s: %s", path, why);
		return -EINVAL;
	}
	if (flags & SONDE_IO_DIRECT) {
		if (*info == MPI_INFO_NULL)
			MPI_Info_create(info);
		MPI_Info_set(*info, "direct_read", "true");
		MPI_Info_set(*info, "direct_write", "true");
	}
	return 0;
}

static int mpiio_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                      struct sonde_file **out)
{
	*out = NULL;
	/* A zero-initialised options struct means "a private file", like MPI_COMM_NULL. */
	MPI_Comm comm = MPI_COMM_SELF;
	if (opt && opt->comm != MPI_COMM_NULL && opt->comm != (MPI_Comm)0)
		comm = opt->comm;
	int amode = 0;
	int rc = amode_of(path, flags, &amode);
	if (rc == 0)
		rc = sonde_mpio_check_name(comm, path);
	if (rc == 0)
		rc = sonde_io_refuse_symlink(comm, path);
	if (rc != 0)
		return rc;
	MPI_Info info;
	rc = sonde_mpio_open_info(path, flags, opt, &info);
	if (rc != 0)
		return rc;

	size_t plen = strlen(path) + 1;
	struct sonde_file *f = malloc(sizeof *f + plen);
	if (!f) {
		if (info != MPI_INFO_NULL)
			MPI_Info_free(&info);
		sonde_io_set_error("open %s: out of memory", path);
		return -ENOMEM;
	}
	memcpy(f->path, path, plen);
	f->collective = opt && opt->collective;

	/* Errors are return codes here, never the fatal default of other objects. */
	MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
	FILE *show = opt ? opt->show_hints : NULL;
	sonde_io_show_hints(show, SONDE_HINTS_PASSED_OPEN, info);
	int mrc = MPI_File_open(comm, path, amode, info, &f->fh);
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	if (mrc != MPI_SUCCESS) {
		free(f);
		return sonde_mpio_explain_open(sonde_mpio_fail(mrc, "open %s", path),
		                               strip_fs_prefix(path),
		                               (amode & MPI_MODE_CREATE) != 0);
	}
	MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);

	/* MPI has no O_TRUNC; setting the size to zero is its collective equivalent. */
	if (flags & SONDE_IO_TRUNC) {
		mrc = MPI_File_set_size(f->fh, 0);
		if (mrc != MPI_SUCCESS) {
			rc = sonde_mpio_fail(mrc, "truncate %s", path);
			MPI_File_close(&f->fh);
			free(f);
			return rc;
		}
	}
	sonde_io_show_file_hints(show, f->fh);
	*out = f;
	return 0;
}

/* Describes len contiguous bytes as (count, type) with count fitting an int. */
static void bytes_type(size_t len, MPI_Datatype *type, int *count)
{
	if (len <= INT_MAX) {
		*type = MPI_BYTE;
		*count = (int)len;
		return;
	}
	MPI_Datatype piece, body;
	MPI_Type_contiguous((int)PIECE, MPI_BYTE, &piece);
	MPI_Type_contiguous((int)(len / PIECE), piece, &body);
	MPI_Type_free(&piece);
	size_t rest = len % PIECE;
	if (rest == 0) {
		*type = body;
	} else {
		int lengths[2] = {1, (int)rest};
		MPI_Aint displs[2] = {0, (MPI_Aint)(len - rest)};
		MPI_Datatype types[2] = {body, MPI_BYTE};
		MPI_Type_create_struct(2, lengths, displs, types, type);
		MPI_Type_free(&body);
	}
	MPI_Type_commit(type);
	*count = 1;
}

static int call(struct sonde_file *f, int writing, int collective, MPI_Offset off, char *p,
                int count, MPI_Datatype type, MPI_Status *st)
{
	if (writing)
		return collective ? MPI_File_write_at_all(f->fh, off, p, count, type, st)
		                  : MPI_File_write_at(f->fh, off, p, count, type, st);
	return collective ? MPI_File_read_at_all(f->fh, off, p, count, type, st)
	                  : MPI_File_read_at(f->fh, off, p, count, type, st);
}

/* Moves len bytes at offset. The whole transfer is one call whatever its size (a derived
 * datatype beyond INT_MAX bytes), so in collective mode every rank makes exactly one
 * collective call per transfer, even ranks with nothing to move or more than 2 GiB. The
 * status tells how many bytes really moved; a short transfer is completed with independent
 * calls, which need no matching on other ranks. A read that reaches the end of the file
 * returns the short count; a write that makes no progress is an error.
 * ROMIO's two-phase collective read reports the requested count even when the read crosses
 * the end of the file. Correcting it would cost a size query per call and rank (a lock round
 * trip to every stripe on Lustre), so sonde trusts the status: its workloads read what they
 * wrote, and data verification catches a file that is shorter. */
static ssize_t transfer(struct sonde_file *f, int writing, char *buf, size_t len, int64_t offset)
{
	const char *op = writing ? "write" : "read";
	if (offset < 0 || len > (size_t)SSIZE_MAX || (uint64_t)offset + len > (uint64_t)INT64_MAX) {
		sonde_io_set_error("%s %s: bad range: offset %lld, length %zu", op, f->path,
		                   (long long)offset, len);
		return -EINVAL;
	}
	int collective = f->collective;
	size_t done = 0;
	while (done < len || collective) {
		size_t want = len - done;
		MPI_Offset off = (MPI_Offset)(offset + (int64_t)done);
		MPI_Datatype type;
		int count;
		MPI_Status st;
		MPI_Count moved = 0;
		struct sonde_mpio_op call_op;
		if (done)
			sonde_mpio_begin(&call_op, "%s %s at offset %lld (after %zu of %zu bytes)",
			                 op, f->path, (long long)off, done, len);
		else
			sonde_mpio_begin(&call_op, "%s %s at offset %lld", op, f->path,
			                 (long long)off);
		bytes_type(want, &type, &count);
		int rc = call(f, writing, collective, off, buf + done, count, type, &st);
		rc = sonde_mpio_end(&call_op, rc, &st, type, &moved);
		if (type != MPI_BYTE)
			MPI_Type_free(&type);
		collective = 0;
		if (rc < 0)
			return rc;
		if ((uint64_t)moved > want) {
			sonde_io_set_error("%s %s at offset %lld: the MPI library reported an "
			                   "impossible byte count %lld for %zu bytes",
			                   op, f->path, (long long)off, (long long)moved, want);
			return -EIO;
		}
		if (moved == 0) {
			if (writing && want) {
				sonde_io_set_error(
				    "write %s at offset %lld: the MPI library wrote "
				    "nothing and reported no error (after %zu of %zu "
				    "bytes)",
				    f->path, (long long)off, done, len);
				return -EIO;
			}
			break;
		}
		done += (size_t)moved;
	}
	return (ssize_t)done;
}

static ssize_t mpiio_write_at(struct sonde_file *f, const void *buf, size_t len, int64_t offset)
{
	/* MPI-2 prototypes (still in some MPI libraries) take a non-const buffer. */
	return transfer(f, 1, (char *)(uintptr_t)buf, len, offset);
}

static ssize_t mpiio_read_at(struct sonde_file *f, void *buf, size_t len, int64_t offset)
{
	return transfer(f, 0, buf, len, offset);
}

static int mpiio_sync(struct sonde_file *f)
{
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "sync %s", f->path);
	return sonde_mpio_end(&op, MPI_File_sync(f->fh), NULL, MPI_BYTE, NULL);
}

static int mpiio_close(struct sonde_file *f)
{
	struct sonde_mpio_op op;
	sonde_mpio_begin(&op, "close %s", f->path);
	int ret = sonde_mpio_end(&op, MPI_File_close(&f->fh), NULL, MPI_BYTE, NULL);
	free(f);
	return ret;
}

static int64_t mpiio_size(struct sonde_file *f)
{
	MPI_Offset size = 0;
	int rc = MPI_File_get_size(f->fh, &size);
	return rc == MPI_SUCCESS ? (int64_t)size : sonde_mpio_fail(rc, "size of %s", f->path);
}

static int mpiio_remove(const char *path)
{
	MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
	int rc = MPI_File_delete(path, MPI_INFO_NULL);
	return rc == MPI_SUCCESS ? 0 : sonde_mpio_fail(rc, "remove %s", path);
}

const struct sonde_backend sonde_backend_mpiio = {
    .name = "MPIIO",
    .alias = "MPI-IO",
    .summary = "one MPI_File per file, MPI_File_write_at/read_at (their _all forms with -c)",
    .caps = SONDE_CAP_COLLECTIVE | SONDE_CAP_SHARED_OPEN | SONDE_CAP_HINTS | SONDE_CAP_DIRECT,
    .options = mpiio_options,
    .noptions = (int)(sizeof mpiio_options / sizeof mpiio_options[0]),
    .params_size = sizeof(struct mpiio_params),
    .open = mpiio_open,
    .write_at = mpiio_write_at,
    .read_at = mpiio_read_at,
    .sync = mpiio_sync,
    .close = mpiio_close,
    .size = mpiio_size,
    .remove = mpiio_remove,
    SONDE_PATH_OPERATIONS,
};
