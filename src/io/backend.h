/* SPDX-License-Identifier: BSD-3-Clause */
/* Storage backends: one small struct of function pointers. A workload opens files through
 * sonde_backend_find("POSIX"), ("MPIIO"), ("MMAP") ... and never needs to know which it has,
 * except through the capability flags.
 *
 * Backends declare themselves: each src/io/<file>.c that defines
 *     const struct sonde_backend sonde_backend_<name> = {
 * (at the start of a line, exactly so) is one, and CMakeLists.txt generates the registry
 * (generated/backends.inc) from those lines. A backend brings its name, capability flags and its
 * own option table (--<name>.*) with the struct those options fill; workloads whose table
 * takes_backends get every backend's options merged in (sonde_options_full). Adding a backend
 * is adding one file (docs/io-backends.md). Calls return a byte count or 0 on success, and a
 * negative errno value on failure; sonde_io_last_error() then holds a one-line description (with
 * the MPI error string for MPI-IO). */
#ifndef SONDE_IO_BACKEND_H
#define SONDE_IO_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum sonde_io_flags {
	SONDE_IO_RDONLY = 1 << 0,
	SONDE_IO_WRONLY = 1 << 1,
	SONDE_IO_RDWR = 1 << 2,
	SONDE_IO_CREATE = 1 << 3,
	SONDE_IO_EXCL = 1 << 4,
	SONDE_IO_TRUNC = 1 << 5,
	SONDE_IO_DIRECT = 1 << 6, /* O_DIRECT (POSIX) / direct_read+direct_write hints (ROMIO) */
};

enum sonde_io_caps {
	SONDE_CAP_COLLECTIVE = 1 << 0,  /* write_at/read_at can be collective over comm */
	SONDE_CAP_SHARED_OPEN = 1 << 1, /* open is collective over comm (one handle per comm) */
	SONDE_CAP_DIRECT = 1 << 2,
	SONDE_CAP_HINTS = 1 << 3,
	/* mdtest runs on it (-a): IOR's mdtest takes only the backends it marks so (of sonde's:
	 * POSIX), since MPI-IO, MMAP, HDF5 and PnetCDF have no metadata operations of their own */
	SONDE_CAP_MDTEST = 1 << 4,
	/* The file is a library's format (HDF5, PnetCDF): its size is more than the bytes moved,
	 * and the library, not the caller, places them (write_at's offset is where IOR's layout
	 * puts the bytes; the backend maps it to its data set). */
	SONDE_CAP_FORMATTED = 1 << 5,
	/* Every rank sharing the file must make every data call and sync in the same order, even
	 * independent ones (the library creates its data sets and flushes collectively): after a
	 * failure a rank makes its calls empty (len 0), and the ranks agree on where to stop. */
	SONDE_CAP_LOCKSTEP = 1 << 6,
};

struct sonde_io_options {
	MPI_Comm comm;      /* who opens the file together: MPI_COMM_SELF for a private file */
	int collective;     /* collective data calls (MPI-IO *_at_all) */
	const char **hints; /* "key=value" strings, or NULL */
	int nhints;
	size_t alignment; /* for O_DIRECT: buffers, offsets and sizes must be multiples */
	/* The backend's own parameters (its slot of a struct sonde_backend_params, from
	 * sonde_backend_params_of); NULL: its defaults. */
	const void *params;
	/* What the workload will do with the file, for backends that need to know it before the
	 * first transfer (IOR hands its backends the same): the size the file has once written
	 * (0: unknown), the largest transfer, random offsets, a sync after every write. */
	int64_t file_size;
	int64_t transfer_size;
	int random_offsets;
	int sync_per_write;
	/* IOR's layout, for the backends that store data sets (SONDE_CAP_FORMATTED): bytes per
	 * task per segment (-b) and the tasks sharing the file (1 for a file per process); the
	 * transfer size is transfer_size. */
	int64_t block;
	int ntasks;
	/* IOR's showHints (backends over MPI-IO): where to show the hints the open passes and
	 * those in effect on the opened file; NULL: not shown. The workload sets it on the one
	 * rank that prints (IOR: rank 0), the others open with NULL. */
	FILE *show_hints;
};

struct sonde_file; /* backend-specific */

struct sonde_backend {
	const char *name;    /* "POSIX", "MPIIO": what -a takes (without case) */
	const char *alias;   /* another spelling -a takes ("MPI-IO"), or NULL */
	const char *summary; /* one line for the docs and --help */
	/* NULL when the backend is built; else the library it needs, which this build did not
	 * find: "-a NAME" is then refused with one line naming it. */
	const char *missing;
	unsigned caps;
	/* The library's version for IOR's apiVersion line ("1.10.8 (Parallel)"); NULL: none. */
	const char *(*version)(void);
	/* The backend's options: long names "<name>.<option>" (lower-case name), offsets into
	 * its own parameter struct of params_size bytes (at most SONDE_BACKEND_PARAMS_MAX),
	 * which params_defaults fills (NULL: all zero). */
	const struct sonde_option *options;
	int noptions;
	size_t params_size;
	void (*params_defaults)(void *params);
	/* Optional: refuses, before any I/O, a run its parameters and opt (with transfer_size and
	 * the other plan fields) cannot do. Returns 0, or -1 with one line in err. */
	int (*check)(const void *params, const struct sonde_io_options *opt, char *err,
	             size_t errlen);
	int (*open)(const char *path, unsigned flags, const struct sonde_io_options *opt,
	            struct sonde_file **out);
	/* Moves all len bytes or fails: short transfers and EINTR are retried inside. */
	ssize_t (*write_at)(struct sonde_file *f, const void *buf, size_t len, int64_t offset);
	ssize_t (*read_at)(struct sonde_file *f, void *buf, size_t len, int64_t offset);
	int (*sync)(struct sonde_file *f);
	/* Optional: what the backend does itself after each write under IOR's -Y, before the
	 * workload's sync (MMAP: msync of the range just written and the advice that its pages
	 * are not needed, as IOR's MMAP backend does). */
	int (*sync_range)(struct sonde_file *f, int64_t offset, size_t len);
	int (*close)(struct sonde_file *f);
	int64_t (*size)(struct sonde_file *f);
	/* Removes a file: unlink(2) for POSIX, MPI_File_delete for MPI-IO. Not collective. */
	int (*remove)(const char *path);
	/* Metadata operations on paths, as IOR's backends have them (mdtest's create, stat, rename
	 * and remove work on them). Not collective; 0, or -errno with the message set. stat
	 * follows a link as stat(2) does (st_size, st_mode's type and st_mtim are what sonde
	 * reads); exists does not follow one and returns 1 when anything is at the path, 0 when
	 * nothing is; truncate never follows one (ELOOP) and changes only a regular file. */
	int (*stat)(const char *path, struct stat *st);
	int (*mkdir)(const char *path, mode_t mode);
	int (*rmdir)(const char *path);
	int (*rename)(const char *from, const char *to);
	int (*truncate)(const char *path, int64_t size);
	int (*exists)(const char *path);
	int (*mknod)(const char *path, mode_t mode); /* a file without opening it (mdtest -k) */
};

/* The registry, generated from the backend files. */
#define SONDE_BACKEND(n) extern const struct sonde_backend sonde_backend_##n;
#include "backends.inc"
#undef SONDE_BACKEND
enum sonde_backend_index {
#define SONDE_BACKEND(n) SONDE_BACKEND_INDEX_##n,
#include "backends.inc"
#undef SONDE_BACKEND
	SONDE_BACKEND_COUNT
};

/* Every backend's parameters, one slot each in registry order: a plain struct, so that a
 * workload's parameters (IOR's tests of a script) copy with it. */
#define SONDE_BACKEND_PARAMS_MAX 256
struct sonde_backend_params {
	union {
		max_align_t align;
		unsigned char bytes[SONDE_BACKEND_PARAMS_MAX];
	} slot[SONDE_BACKEND_COUNT];
};
/* In a backend file: its parameter struct fits its slot. */
#define SONDE_BACKEND_PARAMS_FIT(type)                                                             \
	_Static_assert(sizeof(type) <= SONDE_BACKEND_PARAMS_MAX,                                   \
	               #type " does not fit a backend's parameter slot")

int sonde_backend_count(void);
const struct sonde_backend *sonde_backend_at(int i);
/* The backend -a names (name or alias, without case), or NULL with the message set: an unknown
 * name, or a backend this build left out (naming its missing library). */
const struct sonde_backend *sonde_backend_find(const char *name);
/* The names of the backends that have every capability in caps, joined by sep
 * ("HDF5|MMAP|MPIIO|NCMPI|POSIX"), in the registry's order whichever the build has: the help
 * and the option reference read the same under every build (-a refuses one not built). */
void sonde_backend_names(char *buf, size_t len, const char *sep, unsigned caps);
/* Every backend's defaults into bp. */
void sonde_backend_params_defaults(struct sonde_backend_params *bp);
/* Backend b's parameters in bp. */
const void *sonde_backend_params_of(const struct sonde_backend_params *bp,
                                    const struct sonde_backend *b);
/* The field of the backend option named name ("mpiio.hintsFileName") in bp, for a workload
 * that reads one under its own meaning (IOR's hints file); NULL when no backend has it. */
const void *sonde_backend_option_field(const struct sonde_backend_params *bp, const char *name);
/* b's check of its parameters in bp against opt (0 when it has none). */
int sonde_backend_check(const struct sonde_backend *b, const struct sonde_backend_params *bp,
                        const struct sonde_io_options *opt, char *err, size_t errlen);
/* One warning line (rank 0) per option given on set (a workload's merged table) that belongs to
 * another backend than b, unless a workload entry of the table sets it under its own name. */
void sonde_backend_warn_unused(const struct sonde_option_set *set, const struct sonde_backend *b);

/* MPI_File_open (and PnetCDF, which opens through it) follows symbolic links and has no
 * O_NOFOLLOW; sonde never follows a link planted at its test file path (see posix.c). Collective
 * over comm: rank 0 looks and every rank shares its verdict. Returns 0, or -ELOOP with the
 * message in sonde_io_last_error(). A link created between the look and the open is not
 * caught. */
int sonde_io_refuse_symlink(MPI_Comm comm, const char *path);

/* For backends: sets the message for a symbolic link refused at path by operation op ("open",
 * "truncate") and returns -ELOOP. */
int sonde_io_link_refused(const char *op, const char *path);

/* For backends: exactly one access mode, and exclusive only with create. Returns 0, or -EINVAL
 * with the message set. */
int sonde_io_check_flags(const char *path, unsigned flags);

/* The MPI_Info of an MPI-IO open (for backends over MPI-IO): opt's hints, and for
 * SONDE_IO_DIRECT ROMIO's direct_read/direct_write. Returns 0, or -EINVAL with the message
 * ("open <path>: <bad hint>"); *info is MPI_INFO_NULL for none. */
int sonde_mpio_open_info(const char *path, unsigned flags, const struct sonde_io_options *opt,
                         MPI_Info *info);

/* For backends of a library over MPI-IO that store IOR's layout (HDF5, PnetCDF), before the
 * library's open: the communicator (opt->comm, else MPI_COMM_SELF), the flags, the layout
 * (block, transfer_size, ntasks), no direct I/O or exclusive create, the name and a planted
 * symbolic link refused (collective over the communicator), and the hints' MPI_Info. Returns 0,
 * or a negative errno value with the message set. */
int sonde_mpio_layout_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                           const char *backend, MPI_Comm *comm, MPI_Info *info);
/* A zeroed backend file struct of head bytes followed by path (its flexible member at head);
 * NULL when out of memory, with the message set and *info freed. */
void *sonde_io_file_alloc(size_t head, const char *path, MPI_Info *info);

/* IOR's showHints blocks: "\n<title> {", a "\t<key> = <value>" line per hint in info's order
 * (MPI_INFO_NULL: none), "}"; nothing when out is NULL. A key the MPI library cannot list is
 * a line saying so, never made up. The titles are IOR's. */
#define SONDE_HINTS_PASSED_OPEN "hints passed to MPI_File_open()"
#define SONDE_HINTS_PASSED_FAPL "hints passed to access property list"
#define SONDE_HINTS_RETURNED    "hints returned from opened file"
void sonde_io_show_hints(FILE *out, const char *title, MPI_Info info);
/* The block of the hints in effect on fh (MPI_File_get_info). */
void sonde_io_show_file_hints(FILE *out, MPI_File fh);

/* The description of the last failure on this thread. */
const char *sonde_io_last_error(void);
/* Backends set it; printf-like. */
void sonde_io_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Builds an MPI_Info from "key=value" strings; returns MPI_INFO_NULL for none. Returns 0 or -1
 * with the bad string named in sonde_io_last_error(). With out NULL, only checks the strings
 * (no MPI call: sonde --parse-only runs without MPI). */
int sonde_io_hints_info(const char **hints, int nhints, MPI_Info *out);

#endif
