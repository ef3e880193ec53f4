/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde btio: what the workload and its helpers share. */
#ifndef SONDE_BTIO_H
#define SONDE_BTIO_H

#include <mpi.h>
#include <stdint.h>

#include "options.h"
#include "workloads/btio/decomposition.h"

#define BTIO_DEFAULT_INPUT "inputbt.data"
#define BTIO_PATH_MAX      4096
#define BTIO_FIVE          5 /* doubles per grid point (BT's five solution components) */

enum btio_method {
	BTIO_MPI_COLLECTIVE = 0,
	BTIO_MPI_INDEPENDENT = 1,
	BTIO_PNETCDF_BLOCKING = 2,
	BTIO_PNETCDF_NONBLOCKING = 3,
};

/* What a run does: the input file's five lines, then the long options over them. */
struct btio_setup {
	int write, read; /* mode w: write; r: read; rw: both, write first */
	int method;
	int64_t dumps;
	int64_t grid[3]; /* X, Y, Z */
	char dir[BTIO_PATH_MAX];
};

/* Command-line options (long options override the input file). */
struct btio_options {
	int mode; /* bit 1 write, bit 2 read */
	int method;
	int64_t dumps;
	int64_t grid[3];
	const char *dir;
	const char *file;
	int no_verify;
	struct sonde_strlist hints;
};

extern const struct sonde_option_table btio_option_table;

/* Reads and parses the input file: collective over comm (rank 0 reads it, every rank parses
 * it; MPI_COMM_NULL: alone). Returns 0, or -1 with a one-line message in err and the errno value
 * of a file that could not be read in *read_err (0 for one that was read and is wrong). */
int btio_read_input(MPI_Comm comm, const char *path, struct btio_setup *out, int *read_err,
                    char *err, size_t errlen);

/* Parses "XxYxZ" (also "X,Y,Z"). Returns 0 or -1 with err. */
int btio_parse_grid(const char *text, int64_t grid[3], char *err, size_t errlen);

/* One rank's share of the global array and its memory buffer, laid out as the original's: per
 * cell a (Z', Y', X', 5) block of doubles with a ghost layer of 2 points on every side. */
struct btio_layout {
	int64_t grid[3];
	int n; /* cells per rank */
	struct btio_cell *cells;
	int64_t mem[3];      /* X', Y', Z': buffer points per cell in each dimension */
	int64_t cell_stride; /* doubles per cell block */
	double *buf;
	int64_t record_bytes; /* X*Y*Z*5*8: one dump of the whole array */
};

int btio_layout_init(struct btio_layout *L, int rank, int n, const int64_t grid[3]);
void btio_layout_free(struct btio_layout *L);
/* Index in L->buf of component f of point (z, y, x) of cell k, in cell-local coordinates. */
static inline int64_t btio_buf_index(const struct btio_layout *L, int k, int64_t z, int64_t y,
                                     int64_t x, int f)
{
	return k * L->cell_stride +
	       (((z + 2) * L->mem[1] + (y + 2)) * L->mem[0] + (x + 2)) * BTIO_FIVE + f;
}

/* Fills every cell's interior with dump's values: element (dump, z, y, x, f) of the global array
 * is a fixed function of those five numbers, uniform in [0, 1). */
void btio_fill(const struct btio_layout *L, int64_t dump);
/* Sets the whole buffer to a value no dump has, so a read that leaves points untouched shows. */
void btio_poison(const struct btio_layout *L);

#define BTIO_REPORT_KEEP 5 /* mismatches printed per rank */
struct btio_check {
	int64_t checked, errors;
};
/* Where the dumps lie in the file read: the first one's byte offset and the distance between
 * them. */
struct btio_extent {
	int64_t begin, stride;
};
/* Checks every cell's interior against dump's values; prints the first mismatches of this rank
 * with their (dump, z, y, x, f) index and their byte offset in the file. */
void btio_check_dump(const struct btio_layout *L, int64_t dump, const char *path,
                     const struct btio_extent *where, int rank, struct btio_check *c);
/* Converts every cell's interior from big-endian (netCDF's byte order) in place. */
void btio_from_big_endian(const struct btio_layout *L);

/* An I/O method's state for one phase (write or read) of one file. */
struct btio_job {
	MPI_Comm comm;
	int writing;
	const char *path;
	MPI_Info info; /* user hints (or MPI_INFO_NULL) */
	struct btio_layout *L;
	int64_t dumps;
	/* figures the phase reports */
	int striping_factor, striping_unit;
	/* method state */
	MPI_File fh;
	MPI_Datatype memtype, filetype, celltype;
	int byteswap;            /* reading a netCDF file through MPI-IO: big-endian values */
	struct btio_extent data; /* reads: where the dumps are, for the verification report */
	int ncid, varid;
	MPI_Datatype *cellmem; /* PnetCDF: one memory type per cell */
	int *reqs;
	int64_t posted; /* the dump whose requests are pending */
	/* This rank's first failure (a negative errno value and its line): it moves no more
	 * data, its collective calls go on empty so that the others never wait, and the phase
	 * agrees on it after the close instead of reporting figures. */
	int err;
	char why[1024];
};

/* Keeps the job's first failure (err < 0, its line in sonde_io_last_error()). */
void btio_fail(struct btio_job *j, int err);

struct btio_method_ops {
	const char *banner; /* the original's "Using ... method" line */
	/* Collective: sets up the types and opens or creates the file. Returns 0, or the same
	 * negative errno value on every rank after one line said why. */
	int (*open)(struct btio_job *j);
	/* One dump: the write/read calls, or the non-blocking posts. A failure is kept in the
	 * job (btio_fail); after one, collective calls are made empty. */
	void (*post)(struct btio_job *j, int64_t dump);
	/* Completes the posts of one dump (non-blocking methods only; NULL otherwise). */
	void (*wait)(struct btio_job *j);
	void (*close)(struct btio_job *j);
};

extern const struct btio_method_ops btio_mpiio_ops[2];
/* Cell c as a 3-D subarray of a (Z, Y, X) array of dims points (X first in dims and start),
 * starting at start, of the given point type. Not committed. */
MPI_Datatype btio_cell_subarray(const struct btio_cell *c, const int64_t dims[3],
                                const int64_t start[3], MPI_Datatype point);
/* NULL without PnetCDF. */
const struct btio_method_ops *btio_pnetcdf_ops(int method);

/* Collective: refuses (one line, -EINVAL on every rank) a file of another grid or of fewer dumps
 * than the job reads. */
int btio_agree_shape(const struct btio_job *j, const int64_t grid[3], int64_t records);

/* Shape of a netCDF file written by BTIO, for reading it through MPI-IO. */
struct btio_nc_shape {
	int64_t grid[3];
	int64_t records;
	int64_t begin;       /* byte offset of record 0 of var */
	int64_t record_size; /* bytes between records */
};
/* Collective. Returns 0, or -1 with err (also when sonde was built without PnetCDF). */
int btio_nc_inquire(MPI_Comm comm, const char *path, MPI_Info info, struct btio_nc_shape *s,
                    char *err, size_t errlen);

/* Timings of one phase, each already the maximum over ranks. */
struct btio_times {
	double total, open, post, wait;
};

/* The original's output block. */
void btio_print_block(const struct btio_setup *s, int writing, int nprocs,
                      const struct btio_times *t, int64_t dumps, const char *banner,
                      int striping_factor, int striping_unit);

#endif
