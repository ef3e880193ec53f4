/* SPDX-License-Identifier: BSD-3-Clause */
/* The dataset: every name, size and byte is a function of the parameters, so that a reader knows
 * what a file holds without asking its writer.
 *
 * npy: NumPy's format 1.0, a header (magic, version, length, a dict padded to a multiple of 64
 * bytes) before a C-order uint8 array of shape (samples, size). npz: a zip archive holding that
 * array as the member x.npy, stored (no compression): a local header, the member, the central
 * directory and the end record, with the member's CRC-32 (numpy checks it). indexed: the samples
 * back to back in <name>.bin, and <name>.idx holding one (offset, length) pair of little-endian
 * 64-bit words per sample. hdf5: DLIO's HDF5 file (hdf5.c), the samples in data set records_0. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fail.h"
#include "workloads/train/train.h"

/* The draws' streams (sonde_pattern_stream parts): the data is (0, file, 0), the sizes
 * (1, 0, 0), the shuffles (2 or 3, epoch, 0) and the compute times (4, epoch, rank). */
#define STREAM_SIZES sonde_pattern_stream(1, 0, 0)

double train_uniform(uint64_t seed, uint64_t stream, uint64_t index)
{
	struct sonde_pattern p = {seed, stream};
	return (double)(sonde_pattern_word(&p, index) >> 11) * 0x1.0p-53;
}

/* Box-Muller from the draws 2 index and 2 index + 1. */
double train_normal(uint64_t seed, uint64_t stream, uint64_t index)
{
	double u1 = train_uniform(seed, stream, 2 * index);
	double u2 = train_uniform(seed, stream, 2 * index + 1);
	return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
}

int64_t train_sample_size(const struct train_params *p, int64_t file)
{
	if (p->record_size_stdev == 0)
		return p->record_size;
	double z = train_normal((uint64_t)p->seed, STREAM_SIZES, (uint64_t)file);
	double size = llround((double)p->record_size + z * (double)p->record_size_stdev);
	return size < 1 ? 1 : (int64_t)size;
}

int64_t train_max_sample_size(const struct train_params *p, const int64_t *samples, int64_t count)
{
	if (p->record_size_stdev == 0) /* one size for every file */
		return p->record_size;
	int64_t most = 0, last = -1;
	for (int64_t k = 0; k < count; k++) {
		int64_t file = samples[k] / p->samples_per_file;
		if (file == last) /* a file's samples are often read in a row */
			continue;
		last = file;
		int64_t s = train_sample_size(p, file);
		most = s > most ? s : most;
	}
	return most;
}

static const char *extension(const struct train_params *p, int index)
{
	switch (p->fmt) {
	case TRAIN_NPY:
		return "npy";
	case TRAIN_NPZ:
		return "npz";
	case TRAIN_INDEXED:
		return index ? "idx" : "bin";
	case TRAIN_HDF5:
		break;
	}
	return "hdf5"; /* DLIO's extension is its format's name */
}

static int digits(int64_t n)
{
	int d = 1;
	for (; n >= 10; n /= 10)
		d++;
	return d;
}

/* Names as DLIO's: numbers zero-padded to the digits of their count. Each returns snprintf's
 * count, the length the whole name needs. */
static int folder_path(const struct train_params *p, int64_t folder, char *out, size_t len)
{
	if (p->num_subfolders > 1)
		return snprintf(out, len, "%s/train/%0*" PRId64, p->data_dir,
		                digits(p->num_subfolders), folder);
	return snprintf(out, len, "%s/train", p->data_dir);
}

static int file_path(const struct train_params *p, int64_t file, int index, char *out, size_t len)
{
	if (p->num_subfolders > 1)
		return snprintf(out, len,
		                "%s/train/%0*" PRId64 "/img_%0*" PRId64 "_of_%" PRId64 ".%s",
		                p->data_dir, digits(p->num_subfolders), file % p->num_subfolders,
		                digits(p->num_files), file, p->num_files, extension(p, index));
	return snprintf(out, len, "%s/train/img_%0*" PRId64 "_of_%" PRId64 ".%s", p->data_dir,
	                digits(p->num_files), file, p->num_files, extension(p, index));
}

/* train_params_check refused a dataset whose names do not fit PATH_MAX, so a cut name here is
 * a caller's too small buffer: it ends the run rather than touch another file. */
static void whole_name(int needed, const char *out, size_t len)
{
	if (needed < 0 || (size_t)needed >= len)
		sonde_fatal("train: a dataset path needs %d bytes, its buffer has %zu: %s...",
		            needed, len, out);
}

void train_folder_path(const struct train_params *p, int64_t folder, char *out, size_t len)
{
	whole_name(folder_path(p, folder, out, len), out, len);
}

void train_file_path(const struct train_params *p, int64_t file, int index, char *out, size_t len)
{
	whole_name(file_path(p, file, index, out, len), out, len);
}

int64_t train_longest_path(const struct train_params *p)
{
	/* numbers are zero-padded, so every file's name has the last one's length */
	int64_t longest = 0;
	for (int index = 0; index < 2; index++) {
		int n = file_path(p, p->num_files - 1, index, NULL, 0);
		longest = n < 0 ? INT64_MAX : n > longest ? n : longest;
	}
	return longest;
}

void train_sample_dims(int64_t size, int64_t *rows, int64_t *row)
{
	int64_t root = (int64_t)sqrt((double)size);
	while (root * root > size)
		root--;
	while ((root + 1) * (root + 1) <= size)
		root++;
	int64_t d = root;
	while (size % d)
		d--;
	*rows = d;
	*row = size / d;
}

const struct sonde_backend *train_backend(const struct train_params *p)
{
	return p->fmt == TRAIN_HDF5 ? &train_hdf5_backend : &sonde_backend_posix;
}

void train_open_options(const struct train_params *p, int64_t file, struct train_hdf5_layout *lay,
                        struct sonde_io_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->comm = MPI_COMM_SELF;
	lay->samples = p->samples_per_file;
	lay->size = train_sample_size(p, file);
	memcpy(lay->chunk, p->chunk, sizeof lay->chunk);
	memcpy(lay->max, p->max, sizeof lay->max);
	lay->deflate = p->deflate;
	lay->dsets = p->fmt == TRAIN_HDF5 ? p->num_dset : 1;
	/* h5py chunks a data set that is compressed or may grow, when no chunks are given */
	if (p->fmt == TRAIN_HDF5 && (p->deflate >= 0 || p->max[0]) && !p->chunk_dims) {
		int64_t shape[3] = {lay->samples};
		train_sample_dims(lay->size, &shape[1], &shape[2]);
		shape[1] /= lay->dsets;
		train_hdf5_guess_chunk(shape, lay->chunk);
	}
	/* POSIX reads params as its own: only HDF5's get the layout */
	opt->params = p->fmt == TRAIN_HDF5 ? lay : NULL;
}

struct sonde_pattern train_pattern(const struct train_params *p, int64_t file)
{
	struct sonde_pattern pat = {(uint64_t)p->seed, sonde_pattern_stream(0, file, 0)};
	return pat;
}

/* ---- npy ----------------------------------------------------------------------------------- */

#define NPY_ALIGN 64

static size_t npy_header(const struct train_params *p, int64_t file, unsigned char *buf)
{
	char dict[160];
	int n = snprintf(dict, sizeof dict,
	                 "{'descr': '|u1', 'fortran_order': False, 'shape': (%" PRId64 ", %" PRId64
	                 "), }",
	                 p->samples_per_file, train_sample_size(p, file));
	size_t total = 10 + (size_t)n + 1; /* magic, version, length, dict, '\n' */
	total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	size_t header_len = total - 10;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)(header_len & 0xff);
	buf[9] = (unsigned char)(header_len >> 8);
	memcpy(buf + 10, dict, (size_t)n);
	memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
	buf[total - 1] = '\n';
	return total;
}

static int64_t array_bytes(const struct train_params *p, int64_t file)
{
	return p->samples_per_file * train_sample_size(p, file);
}

/* ---- npz (zip) ----------------------------------------------------------------------------- */

#define ZIP_MEMBER      "x.npy"
#define ZIP_MEMBER_LEN  5
#define ZIP_LOCAL_LEN   TRAIN_ZIP_LOCAL_LEN
#define ZIP_CENTRAL_LEN (46 + ZIP_MEMBER_LEN)
#define ZIP_END_LEN     22
_Static_assert(ZIP_LOCAL_LEN == 30 + ZIP_MEMBER_LEN, "the local header's length");
#define ZIP_VERSION  20
#define ZIP_DOS_DATE ((0 << 9) | (1 << 5) | 1) /* 1980-01-01: the data has no date */

static unsigned char *le16(unsigned char *b, unsigned v)
{
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	return b + 2;
}

static unsigned char *le32(unsigned char *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return b + 4;
}

/* The fields the local header and the central directory entry share, from "version needed". */
static unsigned char *zip_common(unsigned char *b, uint32_t crc, uint32_t size)
{
	b = le16(b, ZIP_VERSION);
	b = le16(b, 0); /* flags */
	b = le16(b, 0); /* stored */
	b = le16(b, 0); /* time */
	b = le16(b, ZIP_DOS_DATE);
	b = le32(b, crc);
	b = le32(b, size); /* compressed */
	b = le32(b, size); /* uncompressed */
	b = le16(b, ZIP_MEMBER_LEN);
	return le16(b, 0); /* extra field */
}

static uint32_t member_size(const struct train_params *p, int64_t file)
{
	unsigned char h[TRAIN_HEADER_MAX];
	return (uint32_t)(npy_header(p, file, h) + (size_t)array_bytes(p, file));
}

int64_t train_format_limit(const struct train_params *p)
{
	/* without ZIP64 every size and offset is 32 bits */
	return p->fmt == TRAIN_NPZ ? INT64_C(0xFFFFFFFF) - ZIP_CENTRAL_LEN - ZIP_END_LEN
	                           : INT64_MAX;
}

size_t train_file_head(const struct train_params *p, int64_t file, uint32_t crc, unsigned char *buf)
{
	if (p->fmt == TRAIN_NPY)
		return npy_header(p, file, buf);
	if (p->fmt != TRAIN_NPZ)
		return 0;
	unsigned char *b = le32(buf, 0x04034b50);
	b = zip_common(b, crc, member_size(p, file));
	memcpy(b, ZIP_MEMBER, ZIP_MEMBER_LEN);
	return ZIP_LOCAL_LEN + npy_header(p, file, buf + ZIP_LOCAL_LEN);
}

size_t train_file_tail(const struct train_params *p, int64_t file, uint32_t crc, unsigned char *buf)
{
	if (p->fmt != TRAIN_NPZ)
		return 0;
	uint32_t size = member_size(p, file);
	unsigned char *b = le32(buf, 0x02014b50);
	b = le16(b, ZIP_VERSION); /* made by */
	b = zip_common(b, crc, size);
	b = le16(b, 0); /* comment */
	b = le16(b, 0); /* disk */
	b = le16(b, 0); /* internal attributes */
	b = le32(b, 0); /* external attributes */
	b = le32(b, 0); /* the local header's offset */
	memcpy(b, ZIP_MEMBER, ZIP_MEMBER_LEN);
	b += ZIP_MEMBER_LEN;
	b = le32(b, 0x06054b50);
	b = le16(b, 0); /* this disk */
	b = le16(b, 0); /* the directory's disk */
	b = le16(b, 1); /* entries here */
	b = le16(b, 1); /* entries */
	b = le32(b, ZIP_CENTRAL_LEN);
	b = le32(b, (uint32_t)(ZIP_LOCAL_LEN + size));
	b = le16(b, 0); /* comment */
	return (size_t)(b - buf);
}

int64_t train_data_offset(const struct train_params *p, int64_t file)
{
	unsigned char h[TRAIN_HEADER_MAX];
	return (int64_t)train_file_head(p, file, 0, h);
}

int64_t train_file_size(const struct train_params *p, int64_t file)
{
	unsigned char t[TRAIN_HEADER_MAX];
	return train_data_offset(p, file) + array_bytes(p, file) +
	       (int64_t)train_file_tail(p, file, 0, t);
}

/* The smallest sample size a draw gives: train_normal's |z| stays under 8.6 (options.c). */
static int64_t smallest_sample_size(const struct train_params *p)
{
	int64_t least = p->record_size - 9 * p->record_size_stdev;
	return least < 1 ? 1 : least;
}

int64_t train_dataset_bytes(const struct train_params *p, int *exact)
{
	/* besides the samples: an index's pairs; HDF5's labels (its metadata, a few KiB, is not
	 * counted) */
	int64_t index = p->fmt == TRAIN_INDEXED ? 16 * p->samples_per_file
	                : p->fmt == TRAIN_HDF5  ? 8 * p->samples_per_file
	                                        : 0;
	*exact = 1;
	if (p->record_size_stdev == 0) /* one size for every file */
		return p->num_files * (train_file_size(p, 0) + index);
	if (p->num_files <= TRAIN_SUMMED_FILES) {
		int64_t bytes = 0;
		for (int64_t f = 0; f < p->num_files; f++)
			bytes += train_file_size(p, f) + index;
		return bytes;
	}
	*exact = 0;
	return p->num_files * (p->samples_per_file * smallest_sample_size(p) + index);
}

void train_read_span(const struct train_params *p, int64_t offset, int64_t size, int64_t *start,
                     int64_t *len)
{
	if (!p->odirect) {
		*start = offset;
		*len = size;
		return;
	}
	int64_t a = TRAIN_DIRECT_ALIGN;
	*start = offset / a * a;
	*len = (offset + size + a - 1) / a * a - *start;
}

/* CRC-32 of zip (reflected polynomial 0xEDB88320), a table made once. */
uint32_t train_crc32(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	static int made;
	if (!made) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		made = 1;
	}
	const unsigned char *b = buf;
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}
