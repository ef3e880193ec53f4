/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 backend (ior -a HDF5), with the layout of IOR's HDF5 backend: one file per communicator
 * through HDF5's MPI-IO driver; in it one 1-D data set of 64-bit integers per segment, named
 * "Dataset-0000.NNNN" (NNNN the segment), of tasks x block bytes (block bytes for a file per
 * process). write_at's offset is where IOR's layout puts the bytes: the segment picks the data
 * set, the offset within the segment the first element of the hyperslab. Data sets are created
 * (collectively, as parallel HDF5 requires) when the transfers reach them, opened by name for
 * reading. Every HDF5 call is checked; data calls also by the system calls under them
 * (completion.h), since a full disk under HDF5's MPI-IO driver is not always an HDF5 error. */
#include "backend.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --hdf5.*: IOR's HDF5 options, declared whether or not this build has HDF5 (a build without it
 * refuses -a HDF5 by name). */
struct hdf5_params {
	int64_t alignment;       /* H5Pset_alignment's threshold and alignment, bytes (IOR: 1) */
	int chunk;               /* elements per chunk (H5Pset_chunk); 0: contiguous */
	int collective_metadata; /* H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write */
	int no_fill;             /* H5Pset_fill_time(H5D_FILL_TIME_NEVER) */
	const char *hints_file;  /* read by the workload, as IOR's -U */
	int show_hints;          /* read by the workload, as IOR 3.3's -H */
};
SONDE_BACKEND_PARAMS_FIT(struct hdf5_params);

#define F(field) offsetof(struct hdf5_params, field)
static const struct sonde_option hdf5_options[] = {
    {0, "hdf5.setAlignment", SONDE_OPT_SIZE, F(alignment), "N",
     "objects of N bytes or more start at a multiple of N (k/m/g suffixes; default 1)", 1,
     INT64_MAX},
    {0, "hdf5.chunkSize", SONDE_OPT_INT, F(chunk), "N",
     "chunked data sets of N elements (8 bytes each) a chunk; 0: contiguous", 0, 2147483647},
    {0, "hdf5.noFill", SONDE_OPT_FLAG, F(no_fill), NULL,
     "data sets without fill values (H5D_FILL_TIME_NEVER)"},
    {0, "hdf5.collectiveMetadata", SONDE_OPT_FLAG, F(collective_metadata), NULL,
     "collective metadata reads and writes"},
    {0, "hdf5.hintsFileName", SONDE_OPT_STRING, F(hints_file), "FILE",
     "MPI-IO hints file for the HDF5 file (lines IOR_HINT__MPI__key=value), as -U"},
    {0, "hdf5.showHints", SONDE_OPT_FLAG, F(show_hints), NULL,
     "show the MPI-IO hints passed to the file access property list of each open and those "
     "in effect on the opened file"},
    {0, "hdf5.individualDataSets", SONDE_OPT_REFUSED, 0, NULL,
     "HDF5 data sets of their own per task are not implemented (in IOR neither)"},
};
#undef F

static void hdf5_defaults(void *params)
{
	((struct hdf5_params *)params)->alignment = 1;
}

/* IOR's rules for its HDF5 backend, before any I/O. */
static int hdf5_check(const void *params, const struct sonde_io_options *opt, char *err,
                      size_t errlen)
{
	(void)params;
	if (opt->random_offsets) {
		snprintf(err, errlen, "random offset not available with HDF5");
		return -1;
	}
	if (opt->transfer_size % 8) {
		snprintf(err, errlen,
		         "-a HDF5 stores 8-byte integers: the transfer size must be a "
		         "multiple of 8");
		return -1;
	}
	return 0;
}

#ifdef SONDE_HAVE_HDF5
#include <errno.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"
#include "hdf5_common.h"
#include "metadata.h"
#include "open_errno.h"

#define ELEMENT ((int64_t)sizeof(long long)) /* IOR stores H5T_NATIVE_LLONG */

struct sonde_file {
	hid_t file, dxpl;
	hid_t dset, fspace; /* the data set in use (H5I_INVALID_HID: none) */
	int64_t dset_index; /* its segment, -1 for none */
	int writing;
	int64_t seg_bytes; /* one segment: one data set */
	struct hdf5_params opt;
	char path[];
};

/* The error stack in one line (hdf5_common.h): the API call that failed and the innermost
 * reason. */
struct h5_words {
	char api[128], inner[384];
};

static herr_t walk_stack(unsigned n, const H5E_error2_t *e, void *data)
{
	struct h5_words *w = data;
	if (n == 0)
		snprintf(w->api, sizeof w->api, "%s", e->func_name ? e->func_name : "?");
	snprintf(w->inner, sizeof w->inner, "%s", e->desc ? e->desc : "");
	return 0;
}

void sonde_hdf5_words(char *buf, size_t len)
{
	struct h5_words w = {"", ""};
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_stack, &w);
	H5Eclear2(H5E_DEFAULT);
	if (w.api[0])
		snprintf(buf, len, "HDF5 %s: %s", w.api, w.inner);
	else
		snprintf(buf, len, "HDF5 reported a failure without a reason");
}

/* A failed HDF5 call outside the data path: "<what> <path>: HDF5 <call>: <reason>". */
static int h5_fail(const char *path, const char *what)
{
	char words[600];
	sonde_hdf5_words(words, sizeof words);
	sonde_io_set_error("%s %s: %s", what, path, words);
	return -EIO;
}

/* Checks one HDF5 return value (herr_t or hid_t, negative on failure). */
static int h5_check(int64_t rc, const char *path, const char *what)
{
	return rc < 0 ? h5_fail(path, what) : 0;
}

static const char *hdf5_version(void)
{
	static char version[64];
	unsigned major = 0, minor = 0, release = 0;
	if (!version[0] && H5get_libversion(&major, &minor, &release) >= 0)
		snprintf(version, sizeof version, "%u.%u.%u (Parallel)", major, minor, release);
	return version;
}

static int close_dataset(struct sonde_file *f)
{
	int rc = 0;
	if (f->fspace != H5I_INVALID_HID && H5Sclose(f->fspace) < 0)
		rc = h5_fail(f->path, "close the data space of a data set in");
	if (f->dset != H5I_INVALID_HID && H5Dclose(f->dset) < 0 && rc == 0)
		rc = h5_fail(f->path, "close a data set in");
	f->fspace = f->dset = H5I_INVALID_HID;
	f->dset_index = -1;
	return rc;
}

static int create_dataset(struct sonde_file *f, const char *name)
{
	hsize_t dims = (hsize_t)(f->seg_bytes / ELEMENT);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	int rc = h5_check(dcpl, f->path, "create a data set property list for");
	if (rc == 0 && f->opt.chunk > 0) {
		hsize_t chunk = (hsize_t)f->opt.chunk;
		rc = h5_check(H5Pset_chunk(dcpl, 1, &chunk), f->path, "set the chunk size for");
	}
	if (rc == 0 && f->opt.no_fill)
		rc = h5_check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), f->path,
		              "set no fill for");
	hid_t space = rc == 0 ? H5Screate_simple(1, &dims, NULL) : H5I_INVALID_HID;
	if (rc == 0)
		rc = h5_check(space, f->path, "create a data space for");
	if (rc == 0) {
		f->dset = H5Dcreate2(f->file, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, dcpl,
		                     H5P_DEFAULT);
		if (f->dset < 0) {
			char what[96];
			snprintf(what, sizeof what, "create data set %s in", name);
			rc = h5_fail(f->path, what);
			f->dset = H5I_INVALID_HID;
		}
	}
	if (space >= 0 && space != H5I_INVALID_HID)
		H5Sclose(space);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return rc;
}

/* An existing data set must have the shape and type IOR's layout gives it. */
static int open_dataset(struct sonde_file *f, const char *name)
{
	f->dset = H5Dopen2(f->file, name, H5P_DEFAULT);
	if (f->dset < 0) {
		char what[96];
		snprintf(what, sizeof what, "open data set %s in", name);
		f->dset = H5I_INVALID_HID;
		return h5_fail(f->path, what);
	}
	hid_t space = H5Dget_space(f->dset), type = H5Dget_type(f->dset);
	hsize_t dims = 0;
	int ok = space >= 0 && type >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
	         H5Sget_simple_extent_dims(space, &dims, NULL) == 1 &&
	         H5Tget_class(type) == H5T_INTEGER && H5Tget_size(type) == (size_t)ELEMENT;
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	if (!ok || (int64_t)dims != f->seg_bytes / ELEMENT) {
		H5Eclear2(H5E_DEFAULT);
		sonde_io_set_error("data set %s in %s is not IOR's 1-D array of %lld 64-bit "
		                   "integers (written with other -b, -s or tasks?)",
		                   name, f->path, (long long)(f->seg_bytes / ELEMENT));
		return -EINVAL;
	}
	return 0;
}

/* Makes the data set of segment index the one in use: created when writing and absent, else
 * opened. Collective over the file's ranks, as parallel HDF5 needs. */
static int use_dataset(struct sonde_file *f, int64_t index)
{
	if (index == f->dset_index)
		return 0;
	int rc = close_dataset(f);
	if (rc < 0)
		return rc;
	char name[40];
	snprintf(name, sizeof name, "Dataset-0000.%04lld", (long long)index);
	htri_t exists = H5Lexists(f->file, name, H5P_DEFAULT);
	if (exists < 0)
		return h5_fail(f->path, "look for a data set in");
	if (!exists && !f->writing) {
		sonde_io_set_error("%s has no data set %s (written with fewer segments, or not by "
		                   "-a HDF5?)",
		                   f->path, name);
		return -EINVAL;
	}
	rc = exists ? open_dataset(f, name) : create_dataset(f, name);
	if (rc == 0) {
		f->fspace = H5Dget_space(f->dset);
		rc = h5_check(f->fspace, f->path, "get the data space of a data set in");
	}
	if (rc < 0) {
		if (f->fspace < 0)
			f->fspace = H5I_INVALID_HID;
		close_dataset(f);
		return rc;
	}
	f->dset_index = index;
	return 0;
}

/* Selects len bytes at the offset within the data set (none for len 0: a rank that only takes
 * part in a collective call). */
static int select_elements(struct sonde_file *f, int64_t within, size_t len, hid_t *mspace)
{
	hsize_t start = (hsize_t)(within / ELEMENT), count = (hsize_t)len / (hsize_t)ELEMENT;
	hsize_t one = 1;
	*mspace = H5Screate_simple(1, count ? &count : &one, NULL);
	if (*mspace < 0)
		return h5_fail(f->path, "create a memory data space for");
	herr_t hr = count
	                ? H5Sselect_hyperslab(f->fspace, H5S_SELECT_SET, &start, NULL, &count, NULL)
	                : H5Sselect_none(f->fspace);
	if (hr >= 0 && !count)
		hr = H5Sselect_none(*mspace);
	return h5_check(hr, f->path, "select the elements of a transfer in");
}

static ssize_t transfer(struct sonde_file *f, int writing, void *buf, size_t len, int64_t offset)
{
	const char *op = writing ? "write" : "read";
	int64_t within = offset >= 0 ? offset % f->seg_bytes : -1;
	if (offset < 0 || offset % ELEMENT || len % (size_t)ELEMENT ||
	    (uint64_t)within + len > (uint64_t)f->seg_bytes) {
		sonde_io_set_error(
		    "%s %s: bad range for HDF5 data sets of %lld bytes: offset %lld, "
		    "length %zu (multiples of 8 within one segment)",
		    op, f->path, (long long)f->seg_bytes, (long long)offset, len);
		return -EINVAL;
	}
	if (writing && !f->writing) {
		sonde_io_set_error("write %s: the file is open read-only", f->path);
		return -EBADF;
	}
	int rc = use_dataset(f, offset / f->seg_bytes);
	hid_t mspace = H5I_INVALID_HID;
	if (rc == 0)
		rc = select_elements(f, within, len, &mspace);
	if (rc == 0) {
		struct sonde_mpio_op call;
		sonde_mpio_begin(&call, "%s %s at offset %lld (data set Dataset-0000.%04lld)", op,
		                 f->path, (long long)offset, (long long)f->dset_index);
		herr_t hr =
		    writing ? H5Dwrite(f->dset, H5T_NATIVE_LLONG, mspace, f->fspace, f->dxpl, buf)
		            : H5Dread(f->dset, H5T_NATIVE_LLONG, mspace, f->fspace, f->dxpl, buf);
		char words[600] = "";
		if (hr < 0)
			sonde_hdf5_words(words, sizeof words);
		rc = sonde_lib_end(&call, hr < 0, words);
	}
	if (mspace >= 0 && mspace != H5I_INVALID_HID)
		H5Sclose(mspace);
	return rc < 0 ? rc : (ssize_t)len;
}

static ssize_t hdf5_write_at(struct sonde_file *f, const void *buf, size_t len, int64_t offset)
{
	return transfer(f, 1, (void *)(uintptr_t)buf, len, offset);
}

static ssize_t hdf5_read_at(struct sonde_file *f, void *buf, size_t len, int64_t offset)
{
	return transfer(f, 0, buf, len, offset);
}

/* The file access properties: the MPI-IO driver over comm with the hints, IOR's alignment and
 * collective metadata. */
static hid_t access_list(const char *path, MPI_Comm comm, MPI_Info info,
                         const struct hdf5_params *o, int *rc)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	*rc = h5_check(fapl, path, "create a file access property list for");
	if (*rc == 0)
		*rc = h5_check(H5Pset_fapl_mpio(fapl, comm, info), path, "use MPI-IO for");
	if (*rc == 0)
		*rc = h5_check(H5Pset_alignment(fapl, (hsize_t)o->alignment, (hsize_t)o->alignment),
		               path, "set the alignment of");
	if (*rc == 0 && o->collective_metadata)
		*rc = h5_check(H5Pset_all_coll_metadata_ops(fapl, 1), path,
		               "set collective metadata reads for");
	if (*rc == 0 && o->collective_metadata)
		*rc = h5_check(H5Pset_coll_metadata_write(fapl, 1), path,
		               "set collective metadata writes for");
	if (*rc < 0 && fapl >= 0) {
		H5Pclose(fapl);
		fapl = H5I_INVALID_HID;
	}
	return fapl;
}

/* Creates (truncating, as IOR does) or opens the file; the HDF5 file id or a negative errno. */
static int64_t open_file(const char *path, unsigned flags, hid_t fapl)
{
	int creating = (flags & SONDE_IO_CREATE) != 0;
	hid_t file;
	if (creating) {
		hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
		if (fcpl < 0)
			return h5_fail(path, "create a file creation property list for");
		/* IOR sets 8-byte offsets and lengths (HDF5's default on 64-bit systems) */
		if (H5Pset_sizes(fcpl, sizeof(hsize_t), sizeof(hsize_t)) < 0) {
			H5Pclose(fcpl);
			return h5_fail(path, "set the offset sizes of");
		}
		file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
		H5Pclose(fcpl);
	} else {
		file = H5Fopen(path, flags & SONDE_IO_RDONLY ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl);
	}
	if (file >= 0)
		return file;
	char words[600];
	sonde_hdf5_words(words, sizeof words);
	int e = sonde_path_open_errno(path, creating);
	sonde_io_set_error("open %s: %s (%s)", path, e ? strerror(e) : "not an HDF5 file", words);
	return e ? -e : -EINVAL;
}

/* The hints in effect on the MPI-IO file under HDF5 (its driver's handle). */
static void show_file_hints(FILE *out, hid_t file, hid_t fapl)
{
	if (!out)
		return;
	void *handle = NULL;
	if (H5Fget_vfd_handle(file, fapl, &handle) < 0 || !handle) {
		char words[600];
		sonde_hdf5_words(words, sizeof words);
		fprintf(out, "\n%s {\n\t(HDF5 gives no MPI-IO file handle: %s)\n}\n",
		        SONDE_HINTS_RETURNED, words);
		fflush(out);
		return;
	}
	sonde_io_show_file_hints(out, *(MPI_File *)handle);
}

static int hdf5_open(const char *path, unsigned flags, const struct sonde_io_options *opt,
                     struct sonde_file **out)
{
	*out = NULL;
	MPI_Comm comm;
	MPI_Info info;
	int rc = sonde_mpio_layout_open(path, flags, opt, "HDF5", &comm, &info);
	if (rc < 0)
		return rc;
	struct sonde_file *f = sonde_io_file_alloc(offsetof(struct sonde_file, path), path, &info);
	if (!f)
		return -ENOMEM;
	if (opt->params)
		f->opt = *(const struct hdf5_params *)opt->params;
	else
		hdf5_defaults(&f->opt);
	f->writing = (flags & SONDE_IO_RDONLY) == 0;
	f->seg_bytes = opt->block * opt->ntasks;
	f->dset = f->fspace = H5I_INVALID_HID;
	f->dset_index = -1;
	f->file = f->dxpl = H5I_INVALID_HID;
	/* errors come back as return values, described by sonde, never printed by HDF5 */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

	sonde_io_show_hints(opt->show_hints, SONDE_HINTS_PASSED_FAPL, info);
	hid_t fapl = access_list(path, comm, info, &f->opt, &rc);
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	int64_t file = rc == 0 ? open_file(path, flags, fapl) : rc;
	if (file >= 0)
		show_file_hints(opt->show_hints, (hid_t)file, fapl);
	if (fapl >= 0 && fapl != H5I_INVALID_HID)
		H5Pclose(fapl);
	if (file < 0) {
		free(f);
		return (int)file;
	}
	f->file = (hid_t)file;
	f->dxpl = H5Pcreate(H5P_DATASET_XFER);
	rc = h5_check(f->dxpl, path, "create a transfer property list for");
	if (rc == 0)
		rc = h5_check(H5Pset_dxpl_mpio(f->dxpl, opt->collective ? H5FD_MPIO_COLLECTIVE
		                                                        : H5FD_MPIO_INDEPENDENT),
		              path, "set the transfer mode of");
	if (rc < 0) {
		if (f->dxpl >= 0)
			H5Pclose(f->dxpl);
		H5Fclose(f->file);
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* HDF5 1.10 frees a file whose close failed (its metadata could not be written) but keeps its
 * id, and its own termination at MPI_Finalize then closes it again and crashes (HDF5 issue
 * 2257, fixed in 1.14.1); a failed H5Fflush leaves the metadata cache so that the close fails
 * ("slist already enabled?"). So the writes of flush and close are shielded: the system's
 * failures under them are noted and reported by sonde (sonde_lib_end), never seen by HDF5. */
static int shielded(hid_t file, const char *path, int closing)
{
	struct sonde_mpio_op call;
	sonde_mpio_begin(&call, "%s %s", closing ? "close" : "sync", path);
	sonde_io_shield_writes(1);
	herr_t hr = closing ? H5Fclose(file) : H5Fflush(file, H5F_SCOPE_LOCAL);
	sonde_io_shield_writes(0);
	char words[600] = "";
	if (hr < 0)
		sonde_hdf5_words(words, sizeof words);
	return sonde_lib_end(&call, hr < 0, words);
}

int sonde_hdf5_flush(hid_t file, const char *path)
{
	return shielded(file, path, 0);
}

int sonde_hdf5_close_file(hid_t file, const char *path)
{
	return shielded(file, path, 1);
}

static int hdf5_sync(struct sonde_file *f)
{
	return sonde_hdf5_flush(f->file, f->path);
}

static int hdf5_close(struct sonde_file *f)
{
	int rc = close_dataset(f);
	if (H5Pclose(f->dxpl) < 0 && rc == 0)
		rc = h5_fail(f->path, "close the transfer property list of");
	int crc = sonde_hdf5_close_file(f->file, f->path);
	free(f);
	return rc < 0 ? rc : crc;
}

static int64_t hdf5_size(struct sonde_file *f)
{
	hsize_t size = 0;
	if (H5Fget_filesize(f->file, &size) < 0)
		return h5_fail(f->path, "size of");
	return (int64_t)size;
}

/* HDF5 1.10 has no H5Fdelete; IOR then deletes through MPI-IO, as here. */
static int hdf5_remove(const char *path)
{
	return sonde_backend_mpiio.remove(path);
}

#endif

const struct sonde_backend sonde_backend_hdf5 = {
    .name = "HDF5",
    .summary = "IOR's HDF5 layout: a data set per segment, a hyperslab per transfer, through "
               "HDF5's MPI-IO driver",
    .options = hdf5_options,
    .noptions = (int)(sizeof hdf5_options / sizeof hdf5_options[0]),
    .params_size = sizeof(struct hdf5_params),
    .params_defaults = hdf5_defaults,
    .check = hdf5_check,
#ifdef SONDE_HAVE_HDF5
    .version = hdf5_version,
    .caps = SONDE_CAP_COLLECTIVE | SONDE_CAP_SHARED_OPEN | SONDE_CAP_HINTS | SONDE_CAP_FORMATTED |
            SONDE_CAP_LOCKSTEP,
    .open = hdf5_open,
    .write_at = hdf5_write_at,
    .read_at = hdf5_read_at,
    .sync = hdf5_sync,
    .close = hdf5_close,
    .size = hdf5_size,
    .remove = hdf5_remove,
    SONDE_PATH_OPERATIONS,
#else
    /* built without parallel HDF5: its options parse, -a HDF5 is refused naming the library */
    .missing = "parallel HDF5 for this MPI library (Open MPI: libhdf5-openmpi-dev; Debian has "
               "none for MPICH)",
#endif
};
