/* SPDX-License-Identifier: BSD-3-Clause */
/* --format hdf5: the HDF5 files of DLIO's hdf5 generator and reader, behind a backend of train's
 * own that generate.c and reader.c call as they call POSIX's. A file holds the data set
 * "records_0", unsigned bytes of shape (samples, rows, row) with rows x row the file's sample
 * size (train_sample_dims), contiguous or in the chunks of --chunk-dims, and "labels", one
 * 64-bit zero a sample, written with the latest file format, as DLIO's generator makes them;
 * with --compression gzip records_0 is deflated, and with --max-shape it may grow; either
 * needs chunks: those of --chunk-dims or h5py's when DLIO gives none (train_hdf5_guess_chunk).
 * With --num-dset-per-record N a sample is split over records_0 .. records_<N-1>, each of
 * rows / N of its rows. write_at and read_at take byte ranges of the samples in C order
 * (offset s x size is sample s; its parts in the data sets one after the other): a range
 * becomes a hyperslab selection of each data set it covers, for a whole sample [s, 0, 0] of
 * [1, rows, row], the one read DLIO's records_0[s] makes, and in general the union of up to
 * five hyperslabs (a range may start and end inside a row or a sample).
 *
 * HDF5's sec2 driver (plain POSIX, the driver h5py opens DLIO's files with), not its MPI-IO
 * driver on MPI_COMM_SELF: every file is one process's (a rank writes its files alone, a reader
 * thread opens its own handle), so MPI-IO would add nothing but MPI calls from the reader
 * threads, which sonde's MPI_Init does not allow (it asks for no MPI_THREAD_MULTIPLE); with
 * sec2 a sample's read is one pread of its bytes (of its part of each chunk). HDF5's sieve
 * buffer and chunk cache are off: with them, a read of under 64 KiB reads a 64 KiB window, a
 * read in a chunk of up to 1 MiB the whole chunk, and the next samples come from memory; the
 * bytes sonde counts would not be those read. A deflated chunk can only be read whole: each
 * read reads every chunk it touches, and counts the chunks' stored sizes (the file's chunk
 * index, looked up once at the open).
 *
 * Debian's parallel HDF5 is not thread-safe (built without H5_HAVE_THREADSAFE): every HDF5 call
 * here is made under one lock, so the reader threads of a rank read one at a time, and a read
 * call's latency includes its wait for the lock. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "workloads/train/train.h"

#ifdef SONDE_HAVE_HDF5
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "completion.h"
#include "hdf5_common.h"
#include "open_errno.h"

#define RECORDS "records_0"
#define LABELS  "labels"
/* records_<k>: the name of a file's data set k (DLIO's records_{dataset_id}) */
#define RECORDS_NAME_MAX 24

static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

struct sonde_file {
	hid_t file, space; /* space: records_0's, where the selections are made */
	hid_t *dset;       /* records_0 .. records_<ndset - 1>, each of shape dims */
	int ndset;         /* DLIO's num_dset_per_record: each holds a part of every sample */
	int fd;            /* the sec2 driver's: fstat finds a file cut short */
	int writing;
	/* reading: where records_0's bytes start in the file (contiguous, one data set), or where
	 * the file ends as HDF5 has it (chunked, or several data sets): a file shorter than a
	 * read's end is cut short */
	int64_t data_at;
	hsize_t dims[3];
	hsize_t max[3];     /* the most records_0 may grow to (--max-shape), else dims */
	hsize_t chunk[3];   /* records_0's chunks; all 0: contiguous */
	int deflate;        /* the deflate filter's level; -1: none */
	hsize_t grid[3];    /* chunks along each dimension */
	int64_t *stored;    /* reading deflated chunks: each chunk's bytes in the file, C order,
	                     * data set after data set */
	int64_t read_bytes; /* bytes the reads took from the file */
	char path[];
};

/* One HDF5 return value (herr_t or hid_t), negative when the call failed: then the line
 * "<what> <path>: HDF5 <call>: <reason>" and -EIO. */
static int h5_check(int64_t rc, const char *path, const char *what)
{
	if (rc >= 0)
		return 0;
	char words[600];
	sonde_hdf5_words(words, sizeof words);
	sonde_io_set_error("%s %s: %s", what, path, words);
	return -EIO;
}

int train_hdf5_start(char *err, size_t errlen)
{
	/* the library starts here, on the main thread: in a parallel build its start makes MPI
	 * calls, which a reader thread may not */
	pthread_mutex_lock(&h5_lock);
	int rc = H5open();
	/* failures come back as return values, described by sonde, never printed by HDF5 */
	if (rc >= 0)
		rc = H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	pthread_mutex_unlock(&h5_lock);
	if (rc < 0)
		snprintf(err, errlen, "--format hdf5: the HDF5 library did not start");
	return rc < 0 ? -1 : 0;
}

/* The labels, zeros as DLIO's: HDF5 writes them itself as the data set's fill value when it
 * creates it, so no buffer of 8 bytes a sample is needed. */
static int create_labels(struct sonde_file *f)
{
	hsize_t n = f->dims[0];
	int64_t zero = 0;
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	int rc = h5_check(dcpl, f->path, "create a data set property list for");
	if (rc == 0)
		rc = h5_check(H5Pset_fill_value(dcpl, H5T_NATIVE_INT64, &zero), f->path,
		              "set the labels' fill value in");
	if (rc == 0)
		rc = h5_check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), f->path,
		              "set the labels' allocation in");
	if (rc == 0)
		rc = h5_check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC), f->path,
		              "set the labels' fill time in");
	hid_t space = rc == 0 ? H5Screate_simple(1, &n, NULL) : H5I_INVALID_HID;
	if (rc == 0)
		rc = h5_check(space, f->path, "create the labels' data space in");
	hid_t d = rc == 0 ? H5Dcreate2(f->file, LABELS, H5T_STD_I64LE, space, H5P_DEFAULT, dcpl,
	                               H5P_DEFAULT)
	                  : H5I_INVALID_HID;
	if (rc == 0)
		rc = h5_check(d, f->path, "create data set " LABELS " in");
	if (d >= 0 && H5Dclose(d) < 0 && rc == 0)
		rc = h5_check(-1, f->path, "close data set " LABELS " in");
	if (space >= 0)
		H5Sclose(space);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return rc;
}

static hsize_t next_power_of_2(hsize_t n)
{
	hsize_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

/* Writing deflated chunks: a chunk is compressed when it leaves HDF5's chunk cache, so a chunk
 * must stay there until the writes, which come in C order, have filled it: the cache holds a
 * row of chunks (chunk[0] samples, every chunk along the other two dimensions), with a slot
 * for each (HDF5 hashes a chunk's coordinates as bit fields of up to twice their counts'
 * powers of 2). Once the writes pass to the next row, the chunks given up are whole. */
static hid_t records_write_access(const struct sonde_file *f)
{
	hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
	if (dapl < 0 || f->deflate < 0)
		return dapl;
	hsize_t row = f->grid[1] * f->grid[2];
	size_t slots = (size_t)(2 * next_power_of_2(f->grid[1]) * 2 * next_power_of_2(f->grid[2]));
	size_t bytes = (size_t)(row * f->chunk[0] * f->chunk[1] * f->chunk[2]);
	if (H5Pset_chunk_cache(dapl, slots, bytes, 1.0) < 0) {
		H5Pclose(dapl);
		dapl = H5I_INVALID_HID;
	}
	return dapl;
}

/* records_0 (.. records_<ndset - 1>), then the labels (DLIO's order); records_0's storage is
 * allocated at its first write (a chunk's at the first write into it), without a fill (HDF5's
 * default without a fill value): each byte is written once. */
static int create_datasets(struct sonde_file *f)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	int rc = h5_check(dcpl, f->path, "create a data set property list for");
	if (rc == 0 && f->chunk[0])
		rc = h5_check(H5Pset_chunk(dcpl, 3, f->chunk), f->path,
		              "set the chunks of " RECORDS " in");
	if (rc == 0 && f->deflate >= 0)
		rc = h5_check(H5Pset_deflate(dcpl, (unsigned)f->deflate), f->path,
		              "set the deflate filter of " RECORDS " in");
	hid_t dapl = rc == 0 ? records_write_access(f) : H5I_INVALID_HID;
	if (rc == 0)
		rc = h5_check(dapl, f->path, "size the chunk cache of " RECORDS " in");
	for (int k = 0; rc == 0 && k < f->ndset; k++) {
		char name[RECORDS_NAME_MAX];
		snprintf(name, sizeof name, "records_%d", k);
		f->dset[k] =
		    H5Dcreate2(f->file, name, H5T_STD_U8LE, f->space, H5P_DEFAULT, dcpl, dapl);
		rc = h5_check(f->dset[k], f->path, "create a data set records_<k> in");
	}
	if (dapl >= 0)
		H5Pclose(dapl);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return rc == 0 ? create_labels(f) : rc;
}

/* The storage records_0 must have: contiguous, or chunked as the options say, deflated at
 * the level asked or not filtered. */
static int storage_as_asked(const struct sonde_file *f, hid_t dcpl)
{
	hsize_t chunk[3] = {0, 0, 0};
	if (!f->chunk[0])
		return H5Pget_layout(dcpl) == H5D_CONTIGUOUS;
	if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 3, chunk) != 3 ||
	    memcmp(chunk, f->chunk, sizeof chunk) != 0)
		return 0;
	if (f->deflate < 0)
		return H5Pget_nfilters(dcpl) == 0;
	unsigned flags, level = 0;
	size_t nvalues = 1;
	return H5Pget_nfilters(dcpl) == 1 &&
	       H5Pget_filter2(dcpl, 0, &flags, &nvalues, &level, 0, NULL, NULL) ==
	           H5Z_FILTER_DEFLATE &&
	       nvalues == 1 && level == (unsigned)f->deflate;
}

/* Deflated data set k: every chunk's stored size, from the chunk index (a chunk never written
 * has none: the file is not a whole dataset file). */
static int chunk_sizes(struct sonde_file *f, int k)
{
	hsize_t n = f->grid[0] * f->grid[1] * f->grid[2];
	if (!f->stored)
		f->stored = malloc((size_t)(n * (hsize_t)f->ndset) * sizeof *f->stored);
	if (!f->stored) {
		sonde_io_set_error("open %s: out of memory for %llu chunk sizes", f->path,
		                   (unsigned long long)n);
		return -ENOMEM;
	}
	int64_t *stored = f->stored + (hsize_t)k * n;
	for (hsize_t i = 0; i < n; i++) {
		hsize_t at[3] = {i / (f->grid[1] * f->grid[2]) * f->chunk[0],
		                 i / f->grid[2] % f->grid[1] * f->chunk[1],
		                 i % f->grid[2] * f->chunk[2]};
		unsigned mask;
		haddr_t addr = HADDR_UNDEF;
		hsize_t size = 0;
		if (H5Dget_chunk_info_by_coord(f->dset[k], at, &mask, &addr, &size) < 0)
			return h5_check(-1, f->path, "look up a chunk of " RECORDS " in");
		if (addr == HADDR_UNDEF || size == 0) {
			sonde_io_set_error(
			    "%s: chunk %llu of data set records_%d was never written (a file cut "
			    "short in its generation)",
			    f->path, (unsigned long long)i, k);
			return -EINVAL;
		}
		stored[i] = (int64_t)size;
	}
	return 0;
}

/* Reading chunks: HDF5's chunk cache off, so that a read reads the sample's bytes in each chunk
 * it touches, not whole chunks kept for the next samples (h5py keeps a 1 MiB cache: DLIO reads
 * whole chunks of up to 1 MiB so). */
static hid_t records_access(void)
{
	hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
	if (dapl >= 0 && H5Pset_chunk_cache(dapl, 0, 0, 1.0) < 0) {
		H5Pclose(dapl);
		dapl = H5I_INVALID_HID;
	}
	return dapl;
}

/* Data set k (records_<k>) of a file to read: the type, shape and storage the options make,
 * its bytes in the file (written: a data set never written has no storage). */
static int open_records(struct sonde_file *f, int k)
{
	char name[RECORDS_NAME_MAX];
	snprintf(name, sizeof name, "records_%d", k);
	hid_t dapl = records_access();
	if (dapl < 0)
		return h5_check(-1, f->path, "turn the chunk cache off for");
	f->dset[k] = H5Dopen2(f->file, name, dapl);
	H5Pclose(dapl);
	if (f->dset[k] < 0) {
		char what[64];
		snprintf(what, sizeof what, "open data set %s in", name);
		return h5_check(-1, f->path, what);
	}
	hid_t type = H5Dget_type(f->dset[k]), space = H5Dget_space(f->dset[k]);
	hid_t dcpl = H5Dget_create_plist(f->dset[k]);
	hsize_t dims[3] = {0, 0, 0}, max[3] = {0, 0, 0};
	int ok = type >= 0 && space >= 0 && dcpl >= 0 && H5Tget_class(type) == H5T_INTEGER &&
	         H5Tget_size(type) == 1 && H5Tget_sign(type) == H5T_SGN_NONE &&
	         H5Sget_simple_extent_ndims(space) == 3 &&
	         H5Sget_simple_extent_dims(space, dims, max) == 3 &&
	         memcmp(dims, f->dims, sizeof dims) == 0 && memcmp(max, f->max, sizeof max) == 0 &&
	         storage_as_asked(f, dcpl);
	/* chunks have addresses of their own: a read is checked against the file's end as HDF5
	 * has it (every chunk lies below it) */
	haddr_t at = HADDR_UNDEF;
	if (ok && (f->chunk[0] || f->ndset > 1))
		ok = H5Fget_eoa(f->file, &at) >= 0;
	else if (ok)
		at = H5Dget_offset(f->dset[k]);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	H5Eclear2(H5E_DEFAULT);
	if (!ok) {
		sonde_io_set_error(
		    "%s: data set %s is not the %s uint8 array of shape (%llu, %llu, %llu) the "
		    "options make, growing as far as they say (a file generated with other "
		    "options, or not by sonde train --format hdf5)",
		    f->path, name,
		    f->deflate >= 0 ? "deflated"
		    : f->chunk[0]   ? "chunked"
		                    : "contiguous",
		    (unsigned long long)f->dims[0], (unsigned long long)f->dims[1],
		    (unsigned long long)f->dims[2]);
		return -EINVAL;
	}
	if (at == HADDR_UNDEF) {
		sonde_io_set_error("%s: data set %s has no data (never written)", f->path, name);
		return -EINVAL;
	}
	f->data_at = (int64_t)at;
	return f->deflate >= 0 ? chunk_sizes(f, k) : 0;
}

/* The file access: sec2 (the top comment says why), no sieve buffer, and for a file written
 * the latest format (DLIO's libver='latest'). */
static hid_t access_list(const struct sonde_file *f, int *rc)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	*rc = h5_check(fapl, f->path, "create a file access property list for");
	if (*rc == 0)
		*rc = h5_check(H5Pset_fapl_sec2(fapl), f->path, "use the sec2 driver for");
	if (*rc == 0)
		*rc = h5_check(H5Pset_sieve_buf_size(fapl, 0), f->path, "turn the sieve off for");
	if (*rc == 0 && f->writing)
		*rc = h5_check(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
		               f->path, "ask the latest format for");
	return fapl;
}

static int open_file(struct sonde_file *f)
{
	int rc;
	hid_t fapl = access_list(f, &rc);
	if (rc == 0) {
		f->file = f->writing ? H5Fcreate(f->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
		                     : H5Fopen(f->path, H5F_ACC_RDONLY, fapl);
		if (f->file < 0) {
			char words[600];
			sonde_hdf5_words(words, sizeof words);
			int e = sonde_path_open_errno(f->path, f->writing);
			sonde_io_set_error("open %s: %s (%s)", f->path,
			                   e ? strerror(e) : "not an HDF5 file, or one cut short",
			                   words);
			rc = e ? -e : -EINVAL;
		}
	}
	void *handle = NULL;
	if (rc == 0 && (H5Fget_vfd_handle(f->file, fapl, &handle) < 0 || !handle))
		rc = h5_check(-1, f->path, "get the file descriptor of");
	if (rc == 0)
		f->fd = *(int *)handle;
	if (fapl >= 0)
		H5Pclose(fapl);
	return rc;
}

static int close_all(struct sonde_file *f)
{
	int rc = 0;
	if (f->space >= 0 && H5Sclose(f->space) < 0)
		rc = h5_check(-1, f->path, "close the data space of " RECORDS " in");
	for (int k = 0; f->dset && k < f->ndset; k++)
		if (f->dset[k] >= 0 && H5Dclose(f->dset[k]) < 0 && rc == 0)
			rc = h5_check(-1, f->path, "close a data set records_<k> in");
	free(f->dset);
	f->dset = NULL;
	if (f->file >= 0) {
		int crc = sonde_hdf5_close_file(f->file, f->path);
		rc = rc < 0 ? rc : crc;
	}
	free(f->stored);
	f->stored = NULL;
	return rc;
}

static int h5_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                   struct sonde_file **out)
{
	*out = NULL;
	const struct train_hdf5_layout *lay = opt->params;
	if (!lay) {
		sonde_io_set_error("open %s: no layout for an HDF5 dataset file", path);
		return -EINVAL;
	}
	/* as sonde's other opens: never through a symbolic link planted at the path */
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return sonde_io_link_refused("open", path);
	struct sonde_file *f = calloc(1, sizeof *f + strlen(path) + 1);
	if (!f) {
		sonde_io_set_error("open %s: out of memory", path);
		return -ENOMEM;
	}
	strcpy(f->path, path);
	f->writing = (flags & SONDE_IO_RDONLY) == 0;
	f->file = f->space = H5I_INVALID_HID;
	f->ndset = lay->dsets;
	f->dset = malloc((size_t)f->ndset * sizeof *f->dset);
	if (!f->dset) {
		free(f);
		sonde_io_set_error("open %s: out of memory", path);
		return -ENOMEM;
	}
	for (int k = 0; k < f->ndset; k++)
		f->dset[k] = H5I_INVALID_HID;
	int64_t rows, row;
	train_sample_dims(lay->size, &rows, &row);
	f->dims[0] = (hsize_t)lay->samples;
	f->dims[1] = (hsize_t)(rows / f->ndset);
	f->dims[2] = (hsize_t)row;
	f->deflate = lay->deflate;
	f->max[0] = f->dims[0];
	f->max[1] = lay->max[0] ? (hsize_t)lay->max[0] : f->dims[1];
	f->max[2] = lay->max[1] ? (hsize_t)lay->max[1] : f->dims[2];
	for (int k = 0; k < 3; k++) {
		f->chunk[k] = (hsize_t)lay->chunk[k];
		f->grid[k] = f->chunk[k] ? (f->dims[k] + f->chunk[k] - 1) / f->chunk[k] : 0;
	}
	pthread_mutex_lock(&h5_lock);
	int rc = open_file(f);
	if (rc == 0 && f->writing) {
		f->space = H5Screate_simple(3, f->dims, f->max);
		rc = h5_check(f->space, path, "create the data space of " RECORDS " in");
		if (rc == 0)
			rc = create_datasets(f);
	} else if (rc == 0) {
		for (int k = 0; rc == 0 && k < f->ndset; k++)
			rc = open_records(f, k);
		if (rc == 0)
			f->space = H5Dget_space(f->dset[0]);
		if (rc == 0)
			rc = h5_check(f->space, path, "get the data space of " RECORDS " in");
	}
	if (rc < 0) {
		char why[1024];
		snprintf(why, sizeof why, "%s", sonde_io_last_error());
		close_all(f);
		sonde_io_set_error("%s", why);
		free(f);
	} else {
		*out = f;
	}
	pthread_mutex_unlock(&h5_lock);
	return rc;
}

/* The chunks a read touches (their indexes in C order, repeats allowed until counted). */
struct chunk_list {
	int64_t *index;
	size_t n, cap;
};

/* Adds the chunks the box [start, start + count) lies in. */
static int add_chunks(struct sonde_file *f, const hsize_t start[3], const hsize_t count[3],
                      struct chunk_list *l)
{
	hsize_t lo[3], hi[3];
	for (int k = 0; k < 3; k++) {
		lo[k] = start[k] / f->chunk[k];
		hi[k] = (start[k] + count[k] - 1) / f->chunk[k];
	}
	size_t more = (size_t)((hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1));
	if (l->n + more > l->cap) {
		size_t cap = 2 * (l->n + more);
		int64_t *grown = realloc(l->index, cap * sizeof *grown);
		if (!grown) {
			sonde_io_set_error("read %s: out of memory for the chunks of a read",
			                   f->path);
			return -ENOMEM;
		}
		l->index = grown;
		l->cap = cap;
	}
	for (hsize_t a = lo[0]; a <= hi[0]; a++)
		for (hsize_t b = lo[1]; b <= hi[1]; b++)
			for (hsize_t c = lo[2]; c <= hi[2]; c++)
				l->index[l->n++] = (int64_t)((a * f->grid[1] + b) * f->grid[2] + c);
	return 0;
}

static int by_index(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The stored bytes of the chunks in l (of the data set whose sizes stored holds), each once:
 * what HDF5 reads for them. */
static int64_t stored_bytes(const int64_t *stored, struct chunk_list *l)
{
	qsort(l->index, l->n, sizeof *l->index, by_index);
	int64_t bytes = 0;
	for (size_t i = 0; i < l->n; i++)
		if (i == 0 || l->index[i] != l->index[i - 1])
			bytes += stored[l->index[i]];
	return bytes;
}

/* Selects the bytes [at, at + len) of records_0's array in C order: whole samples, whole rows
 * of a sample, or a part of a row at a time, each a hyperslab added to the selection; with
 * chunks (touched not NULL) the chunks each lies in are added to touched. */
static int select_range(struct sonde_file *f, int64_t at, int64_t len, struct chunk_list *touched)
{
	hsize_t row = f->dims[2], sample = f->dims[1] * f->dims[2];
	H5S_seloper_t op = H5S_SELECT_SET;
	for (hsize_t pos = (hsize_t)at, end = (hsize_t)(at + len); pos < end;) {
		hsize_t left = end - pos;
		hsize_t start[3] = {pos / sample, pos % sample / row, pos % row}, count[3];
		if (start[2] || left < row) {
			count[0] = count[1] = 1;
			count[2] = row - start[2] < left ? row - start[2] : left;
		} else if (start[1] || left < sample) {
			count[0] = 1;
			count[1] =
			    f->dims[1] - start[1] < left / row ? f->dims[1] - start[1] : left / row;
			count[2] = row;
		} else {
			count[0] = left / sample;
			count[1] = f->dims[1];
			count[2] = row;
		}
		if (H5Sselect_hyperslab(f->space, op, start, NULL, count, NULL) < 0)
			return h5_check(-1, f->path, "select a range of " RECORDS " in");
		if (touched && add_chunks(f, start, count, touched) < 0)
			return -ENOMEM;
		op = H5S_SELECT_OR;
		pos += count[0] * count[1] * count[2];
	}
	return 0;
}

/* HDF5's sec2 driver reads what lies past the end of the file as zeros: a read is checked
 * against the file's size, so that a file cut short is an error, never samples of zeros. */
static int check_not_cut(struct sonde_file *f, int64_t at, int64_t len)
{
	struct stat st;
	if (fstat(f->fd, &st) < 0) {
		int e = errno;
		sonde_io_set_error("read %s: fstat: %s", f->path, strerror(e));
		return -e;
	}
	int whole = f->chunk[0] || f->ndset > 1; /* data_at: the file's end as HDF5 has it */
	int64_t end = whole ? f->data_at : f->data_at + at + len;
	if (st.st_size >= end)
		return 0;
	if (whole)
		sonde_io_set_error(
		    "read %s at byte %lld of its data set: the file ends at "
		    "%lld bytes, before HDF5's end of it, %lld (a short sample file)",
		    f->path, (long long)at, (long long)st.st_size, (long long)end);
	else
		sonde_io_set_error(
		    "read %s at offset %lld: the file ends at %lld bytes, before the "
		    "%lld bytes read end (a short sample file)",
		    f->path, (long long)(f->data_at + at), (long long)st.st_size, (long long)len);
	return -EIO;
}

/* One H5Dread or H5Dwrite: the bytes [at, at + len) of data set k's array in C order. */
static int transfer_one(struct sonde_file *f, int writing, int k, void *buf, int64_t len,
                        int64_t at)
{
	struct chunk_list touched = {NULL, 0, 0};
	int rc = select_range(f, at, len, f->stored ? &touched : NULL);
	hsize_t n = (hsize_t)len;
	hid_t mspace = rc == 0 ? H5Screate_simple(1, &n, NULL) : H5I_INVALID_HID;
	if (rc == 0)
		rc = h5_check(mspace, f->path, "create a memory data space for");
	if (rc == 0) {
		struct sonde_mpio_op call;
		sonde_mpio_begin(&call, "%s %s at byte %lld of data set records_%d",
		                 writing ? "write" : "read", f->path, (long long)at, k);
		herr_t hr =
		    writing
		        ? H5Dwrite(f->dset[k], H5T_NATIVE_UCHAR, mspace, f->space, H5P_DEFAULT, buf)
		        : H5Dread(f->dset[k], H5T_NATIVE_UCHAR, mspace, f->space, H5P_DEFAULT, buf);
		char words[600] = "";
		if (hr < 0)
			sonde_hdf5_words(words, sizeof words);
		rc = sonde_lib_end(&call, hr < 0, words);
	}
	if (rc == 0 && !writing)
		rc = check_not_cut(f, at, len);
	hsize_t chunks = f->grid[0] * f->grid[1] * f->grid[2];
	if (rc == 0 && !writing)
		f->read_bytes +=
		    f->stored ? stored_bytes(f->stored + (hsize_t)k * chunks, &touched) : len;
	free(touched.index);
	if (mspace >= 0)
		H5Sclose(mspace);
	return rc;
}

/* The bytes [at, at + len) of the file's samples in C order, a sample's parts in records_0 ..
 * records_<ndset - 1> one after the other: one call per data set's part it covers (with one
 * data set, one call). */
static ssize_t transfer(struct sonde_file *f, int writing, void *buf, size_t len, int64_t at)
{
	const char *op = writing ? "write" : "read";
	int64_t part = (int64_t)(f->dims[1] * f->dims[2]), sample = part * f->ndset;
	int64_t total = (int64_t)f->dims[0] * sample;
	if (at < 0 || len == 0 || at + (int64_t)len > total) {
		sonde_io_set_error("%s %s: bytes %lld to %lld are outside the samples (%lld bytes)",
		                   op, f->path, (long long)at, (long long)(at + (int64_t)len),
		                   (long long)total);
		return -EINVAL;
	}
	if (writing != f->writing) {
		sonde_io_set_error("%s %s: the file is open for %s", op, f->path,
		                   f->writing ? "writing" : "reading");
		return -EBADF;
	}
	pthread_mutex_lock(&h5_lock);
	int rc = 0;
	for (int64_t pos = at, end = at + (int64_t)len; rc == 0 && pos < end;) {
		int k = 0;
		int64_t in = pos, n = end - pos;
		if (f->ndset > 1) {
			int64_t within = pos % sample;
			k = (int)(within / part);
			in = pos / sample * part + within % part;
			n = n < part - within % part ? n : part - within % part;
		}
		rc = transfer_one(f, writing, k, (unsigned char *)buf + (pos - at), n, in);
		pos += n;
	}
	pthread_mutex_unlock(&h5_lock);
	return rc < 0 ? rc : (ssize_t)len;
}

static ssize_t h5_write_at(struct sonde_file *f, const void *buf, size_t len, int64_t offset)
{
	return transfer(f, 1, (void *)(uintptr_t)buf, len, offset);
}

static ssize_t h5_read_at(struct sonde_file *f, void *buf, size_t len, int64_t offset)
{
	return transfer(f, 0, buf, len, offset);
}

/* HDF5's flush, then the file's data and metadata to the device. */
static int h5_sync(struct sonde_file *f)
{
	pthread_mutex_lock(&h5_lock);
	int rc = sonde_hdf5_flush(f->file, f->path);
	if (rc == 0 && fsync(f->fd) < 0) {
		rc = -errno;
		sonde_io_set_error("sync %s: %s", f->path, strerror(-rc));
	}
	pthread_mutex_unlock(&h5_lock);
	return rc;
}

/* A file written gets one more write at its close (the latest format's superblock marks the
 * file closed), made durable through a copy of the driver's descriptor: the file may have lost
 * its name meanwhile, and its data goes on being written, as POSIX's does. */
static int h5_close(struct sonde_file *f)
{
	int keep = f->writing ? dup(f->fd) : -1;
	int rc = f->writing && keep < 0 ? -errno : 0;
	if (rc < 0)
		sonde_io_set_error("close %s: dup: %s", f->path, strerror(-rc));
	pthread_mutex_lock(&h5_lock);
	int crc = close_all(f);
	pthread_mutex_unlock(&h5_lock);
	rc = rc < 0 ? rc : crc;
	if (rc == 0 && keep >= 0 && fsync(keep) < 0) {
		rc = -errno;
		sonde_io_set_error("sync %s after its close: %s", f->path, strerror(-rc));
	}
	if (keep >= 0)
		close(keep);
	free(f);
	return rc;
}

int64_t train_hdf5_read_bytes(const struct sonde_file *f)
{
	return f->read_bytes;
}

const struct sonde_backend train_hdf5_backend = {
    .name = "HDF5",
    .summary = "DLIO's HDF5 files: records_0 of shape (samples, rows, row), a hyperslab a read",
    .open = h5_open,
    .write_at = h5_write_at,
    .read_at = h5_read_at,
    .sync = h5_sync,
    .close = h5_close,
};

#else

int train_hdf5_start(char *err, size_t errlen)
{
	snprintf(err, errlen, "--format hdf5: this build of sonde has no HDF5");
	return -1;
}

/* Never opened: train_params_check refuses --format hdf5 in a build without HDF5. */
const struct sonde_backend train_hdf5_backend = {.name = "HDF5"};

int64_t train_hdf5_read_bytes(const struct sonde_file *f)
{
	(void)f;
	return 0;
}

#endif

/* h5py's guess (its filters.guess_chunk, for one-byte elements): a target chunk size grows
 * with the data set's, 16 KiB x 2^log10(size in MiB), kept within 8 KiB and 1 MiB; the
 * dimensions are halved in turn (rounding up), the first first, until the chunk is below the
 * target or within half of it, and below 1 MiB (or one element). */
void train_hdf5_guess_chunk(const int64_t shape[3], int64_t chunk[3])
{
	double c[3] = {(double)shape[0], (double)shape[1], (double)shape[2]};
	double target = 16.0 * 1024 * pow(2.0, log10(c[0] * c[1] * c[2] / (1024.0 * 1024.0)));
	if (target > 1024.0 * 1024)
		target = 1024.0 * 1024;
	else if (target < 8.0 * 1024)
		target = 8.0 * 1024;
	for (int k = 0;; k = (k + 1) % 3) {
		double bytes = c[0] * c[1] * c[2];
		if ((bytes < target || fabs(bytes - target) / target < 0.5) &&
		    bytes < 1024.0 * 1024)
			break;
		if (bytes == 1)
			break;
		c[k] = ceil(c[k] / 2.0);
	}
	for (int k = 0; k < 3; k++)
		chunk[k] = (int64_t)c[k];
}
