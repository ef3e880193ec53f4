/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train: the pieces of src/workloads/train.c that are not the training loop itself. */
#ifndef SONDE_TRAIN_H
#define SONDE_TRAIN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "options.h"
#include "pattern.h"
#include "stats.h"
#include "workloads/train/checkpoint.h"

struct sonde_json;

enum train_format { TRAIN_NPY, TRAIN_NPZ, TRAIN_INDEXED, TRAIN_HDF5 };
enum train_shuffle { TRAIN_SHUFFLE_OFF, TRAIN_SHUFFLE_SEED, TRAIN_SHUFFLE_RANDOM };

struct train_params {
	const char *data_dir;      /* -d: the dataset goes under DIR/train */
	int64_t num_files;         /* files in the dataset */
	int64_t samples_per_file;  /* samples in each file */
	int64_t record_size;       /* mean bytes of a sample */
	int64_t record_size_stdev; /* its standard deviation (drawn per file, seeded) */
	int num_subfolders;        /* 0: the files directly under DIR/train */
	const char *format;        /* npy, npz, indexed, hdf5 */
	const char *chunk_dims;    /* hdf5: "A,B,C", records_0's chunks (DLIO's chunk_dims); NULL */
	const char *max_shape;     /* hdf5: "B,C", records_0's largest rows and row (max_shape) */
	int num_dset;            /* hdf5: data sets a sample is split over (num_dset_per_record) */
	const char *compression; /* DLIO's dataset.compression: none, gzip, lzf, bz2, zip, xz */
	int compression_level;   /* gzip's level, 0 to 9 (DLIO's dataset.compression_level) */
	int batch_size;          /* samples per batch (step) */
	int epochs;
	int read_threads;    /* 0: the main thread reads each batch itself */
	int prefetch;        /* batches read ahead per rank */
	double compute_time; /* seconds of emulated compute per batch */
	double compute_time_stdev;
	int64_t transfer_size; /* bytes per read call; 0: a sample in one call */
	int64_t seed;
	const char *file_shuffle;   /* off, seed, random */
	const char *sample_shuffle; /* off, seed, random */
	int generate;               /* write the dataset */
	int train;                  /* run the epochs */
	int verify;                 /* check every sample read, outside the timed path */
	int odirect;                /* read the data files with O_DIRECT, in aligned spans */
	double au_threshold;        /* pass when every rank's AU is at least this */
	const char *preset;         /* --preset: a known training workload's settings */
	const char *accelerator;    /* --accelerator: the accelerator the preset's compute is for */
	struct train_checkpoint_config ckpt;
	/* From the strings above, by train_params_check. */
	enum train_format fmt;
	enum train_shuffle file_order, sample_order;
	int64_t chunk[3]; /* chunk_dims parsed; all 0: contiguous (or h5py's chunks, below) */
	int64_t max[2];   /* max_shape parsed; 0: records_0 cannot grow */
	int deflate;      /* hdf5 with --compression gzip: the level; -1: no compression */
};

extern const struct sonde_option_table train_options;
void train_params_defaults(struct train_params *p);
/* After parsing (and the preset): the values and their combinations; fills fmt, file_order and
 * sample_order. Returns 0, or -1 with one line in err. Reads nothing but p. */
int train_params_check(struct train_params *p, char *err, size_t errlen);

/* ---- the dataset (dataset.c): names, sizes and formats, all functions of the parameters ---- */

/* Sample sizes are drawn per file (every sample of a file has the file's size). */
int64_t train_sample_size(const struct train_params *p, int64_t file);
/* The largest size of the given samples (ids of the dataset's samples): work in proportion to
 * the samples, none without a --record-size-stdev, not to --num-files. */
int64_t train_max_sample_size(const struct train_params *p, const int64_t *samples, int64_t count);
/* DIR/train, or with 2 subfolders or more DIR/train/<folder> (DLIO's layout). */
void train_folder_path(const struct train_params *p, int64_t folder, char *out, size_t len);
/* <folder>/img_<file>_of_<files>.<ext>, file i in folder i % subfolders, numbers zero-padded to
 * the digits of their count; index: the index file of an indexed file (the data file
 * otherwise). */
void train_file_path(const struct train_params *p, int64_t file, int index, char *out, size_t len);
/* The length of the dataset's longest path (its data or index file names), NUL not counted. */
int64_t train_longest_path(const struct train_params *p);
/* Where the array of samples starts in the file (the npy header; npz's zip header too). */
int64_t train_data_offset(const struct train_params *p, int64_t file);
/* The whole file's size (hdf5: the bytes of its data set records_0; HDF5 adds its metadata and
 * the labels). */
int64_t train_file_size(const struct train_params *p, int64_t file);
/* Files whose sizes train_dataset_bytes adds one by one when they have a deviation. */
#define TRAIN_SUMMED_FILES (INT64_C(1) << 20)
/* The bytes of the dataset's files (index files included), cheap for any --num-files: *exact
 * set when they are the files' sizes (no size deviation: one size for all; or up to
 * TRAIN_SUMMED_FILES files, added), cleared when they are a lower bound (more files with a
 * deviation: every sample at the smallest size a draw gives, headers left out). */
int64_t train_dataset_bytes(const struct train_params *p, int *exact);
/* --odirect: offsets, lengths and buffers of direct reads are multiples of this. */
#define TRAIN_DIRECT_ALIGN 4096
/* What a read of sample s of file whose array data starts at offset (the sample's own offset,
 * size bytes) covers: the sample itself, or with --odirect the aligned span around it. */
void train_read_span(const struct train_params *p, int64_t offset, int64_t size, int64_t *start,
                     int64_t *len);
/* hdf5: a sample of size bytes is rows x row bytes (records_0's shape is (samples, rows, row)):
 * rows the largest divisor of size up to its square root, so that a square size has DLIO's
 * shape (int(sqrt(size)), int(sqrt(size))) and any other the size itself. */
void train_sample_dims(int64_t size, int64_t *rows, int64_t *row);
/* The data pattern of a file's samples: byte k of the array is the pattern's byte k. */
struct sonde_pattern train_pattern(const struct train_params *p, int64_t file);
/* The largest file a format allows (npz: 4 GiB minus its headers without ZIP64), or INT64_MAX. */
int64_t train_format_limit(const struct train_params *p);

/* The bytes a file holds before its samples (npy header, npz local header + npy header), into
 * buf (at least TRAIN_HEADER_MAX bytes); returns their count. crc: the CRC-32 of the npz member
 * (unused for npy). */
#define TRAIN_HEADER_MAX 256
/* npz: the zip local header (30 bytes and the member's name, x.npy) before the npy header. */
#define TRAIN_ZIP_LOCAL_LEN 35
size_t train_file_head(const struct train_params *p, int64_t file, uint32_t crc,
                       unsigned char *buf);
/* The bytes after the samples (npz's central directory and end record), into buf (at least
 * TRAIN_HEADER_MAX); returns their count. */
size_t train_file_tail(const struct train_params *p, int64_t file, uint32_t crc,
                       unsigned char *buf);
uint32_t train_crc32(uint32_t crc, const void *buf, size_t len);

/* ---- the files' backend (hdf5.c for --format hdf5, else POSIX) ---------------------------- */

/* What the HDF5 files' backend is told at open (sonde_io_options.params): the file's shape. */
struct train_hdf5_layout {
	int64_t samples, size;
	int64_t chunk[3]; /* records_0's chunk dimensions; all 0: contiguous */
	int64_t max[2];   /* the most rows and row records_0 may grow to; 0: its own */
	int dsets;        /* records_0 .. records_<dsets - 1>, each rows / dsets of a sample */
	int deflate;      /* the deflate (gzip) filter's level; -1: none */
};
/* The chunks h5py gives a data set of this shape (uint8) when it is compressed or may grow and
 * no chunks are asked for, as DLIO's generator creates it (h5py's guess from its size). */
void train_hdf5_guess_chunk(const int64_t shape[3], int64_t chunk[3]);
/* The bytes the reads of a file open with train_hdf5_backend took from it so far: the bytes
 * selected, or with deflate the stored (compressed) size of every chunk each read touched. */
int64_t train_hdf5_read_bytes(const struct sonde_file *f);
/* DLIO's HDF5 files: write_at and read_at take byte ranges of the samples in C order, records_0's
 * array (with several data sets, each sample's parts in records_0, records_1, ... in turn). */
extern const struct sonde_backend train_hdf5_backend;
/* On the main thread, before any other HDF5 call of the run: 0, or -1 with one line in err. */
int train_hdf5_start(char *err, size_t errlen);
/* The backend of the format's data files (index files are POSIX's). */
const struct sonde_backend *train_backend(const struct train_params *p);
/* The options of an open of file's data file: MPI_COMM_SELF, and for hdf5 its layout in lay. */
void train_open_options(const struct train_params *p, int64_t file, struct train_hdf5_layout *lay,
                        struct sonde_io_options *opt);

/* ---- generation (generate.c) --------------------------------------------------------------- */

struct train_generated {
	int64_t files, bytes, calls;
	double start, end; /* local times */
	int err;           /* errno of this rank's failure, 0 */
	char path[4096];
	char why[1024];
};
/* Writes this rank's files (file i is rank i % ranks's); creating the folders is the caller's.
 * live: the phase's --progress line, updated with the bytes written. */
struct sonde_progress;
void train_generate(const struct train_params *p, int rank, int ranks, struct train_generated *g,
                    struct sonde_progress *live);

/* ---- the epoch's order (order.c) ----------------------------------------------------------- */

/* The samples rank reads in epoch (0-based), in order: global ids file * samples_per_file +
 * sample. The list of the files' samples (the files in file-shuffle order) is cut into blocks
 * of ceil(total / ranks), one a rank; the sample shuffle permutes the rank's block.
 * random_seed: the seed of the "random" shuffles, drawn once per run. Returns a malloc'd array
 * of *count ids, or NULL when out of memory. */
int64_t *train_epoch_order(const struct train_params *p, int epoch, uint64_t random_seed, int rank,
                           int ranks, int64_t *count);
/* A uniform double in [0, 1) and a normal draw, from a pattern word: the seeded draws. */
double train_uniform(uint64_t seed, uint64_t stream, uint64_t index);
double train_normal(uint64_t seed, uint64_t stream, uint64_t index);

/* ---- the readers (reader.c) ---------------------------------------------------------------- */

struct train_io {
	int64_t samples, bytes, calls;    /* sample reads and their read calls */
	int64_t index_bytes, index_calls; /* indexed: the index files read */
	struct sonde_latency_acc latency; /* per read call */
	int err;                          /* errno of the first failure, 0 */
	char path[4096];
	char why[8192];
};

struct train_reader;
/* Starts p->read_threads readers over the rank's samples of the epoch (none: the batches are
 * read by train_reader_wait), waiting for train_reader_go, then at most p->prefetch batches
 * ahead of the consumer, each batch in a buffer of its own until released. keep (--verify): a
 * checker thread runs train_reader_check's checks. Returns NULL when out of memory or
 * threads. */
struct train_reader *train_reader_start(const struct train_params *p, const int64_t *samples,
                                        int64_t count, int keep);
/* The epoch starts: the readers begin (they wait for this, so that no read precedes the epoch's
 * clock). */
void train_reader_go(struct train_reader *r);
/* Blocks until batch b (in order, from 0) is read. Returns 0, or -1 when a read failed (the
 * failure is in train_reader_finish's io). */
int train_reader_wait(struct train_reader *r, int64_t b);
/* When batch b's last sample was handed over (after train_reader_wait returned 0; without
 * reader threads, when the wait's own reads ended). */
double train_reader_ready_at(struct train_reader *r, int64_t b);
/* The bytes the readers read for batch b (after train_reader_wait returned 0). */
int64_t train_reader_batch_bytes(struct train_reader *r, int64_t b);
/* The bytes of sample k of batch b (until it is released) and its global id. */
const unsigned char *train_reader_sample(struct train_reader *r, int64_t b, int k, int64_t *id);
/* keep (--verify): runs check(arg) in the readers' checker thread while the readers stand as if
 * time stood still (reader.c), so that neither the check's time nor its CPU changes a wait or
 * the main thread's sleeps; returns the seconds check took, and in *paused the seconds the
 * readers stood still (the check, and the reads under way finishing before it). */
double train_reader_check(struct train_reader *r, void (*check)(void *), void *arg, double *paused);
/* Batch b is consumed: its buffer may take the next batch. */
void train_reader_release(struct train_reader *r, int64_t b);
/* Stops and joins the readers, adds what they did to io, frees r. */
void train_reader_finish(struct train_reader *r, struct train_io *io);

#endif

/* ---- figures (figures.c) ------------------------------------------------------------------- */

/* One rank's part of an epoch (or of the run). */
struct train_part {
	double compute, wait, verify; /* seconds: emulated compute, waiting for batches, checks */
	double overrun;               /* seconds the compute sleeps lasted past their time */
	double stalled;               /* seconds training stood still for checkpoints */
	int64_t batches;
	struct train_io io;
};

/* What an epoch (epoch >= 0) or the run (epoch -1) did, over the ranks. */
struct train_figures {
	int epoch;
	int64_t samples, bytes, calls, index_bytes, index_calls, batches;
	double seconds; /* the longest rank's compute + wait */
	double samples_per_s, mib_per_s;
	double compute_mean, wait_mean, wait_max, verify_max, stalled_max, overrun_max;
	struct sonde_stats au, busy; /* AU per rank; compute + wait per rank */
	double threshold;
	int judged; /* some rank computed: without compute time every second is a wait, and AU
	             * (0) says nothing of the storage; samples/s is then the readers' ceiling */
	int pass;   /* judged, and every rank's AU at least the threshold */
	int nbelow; /* ranks below it */
	int *below; /* rank 0: the ranks below it (malloc'd) */
};

/* Collective over comm. */
void train_figures_reduce(MPI_Comm comm, const struct train_part *mine, int epoch, double threshold,
                          struct train_figures *f);
/* The figures as members of the open JSON object j. */
void train_figures_json(const struct train_figures *f, struct sonde_json *j);
/* "epoch 1: ..." or "train: ..." on out. */
void train_figures_print(FILE *out, const struct train_figures *f);
void train_figures_free(struct train_figures *f);
