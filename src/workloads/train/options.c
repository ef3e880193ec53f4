/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train's options: DLIO's configuration names (dataset, reader, train, checkpoint, metric)
 * as long options, record names with underscores. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/train/train.h"

#define F(field) SONDE_FIELD(struct train_params, field)

static const char *unless_training(const void *cfg)
{
	return ((const struct train_params *)cfg)->train ? NULL : "applies to --train";
}

static const char *unless_threads(const void *cfg)
{
	const struct train_params *p = cfg;
	if (!p->train)
		return "applies to --train";
	return p->read_threads > 0 ? NULL : "applies with --read-threads above 0";
}

static const char *unless_hdf5(const void *cfg)
{
	return strcmp(((const struct train_params *)cfg)->format, "hdf5") == 0
	           ? NULL
	           : "applies to --format hdf5";
}

/* DLIO compresses hdf5 (h5py's filters) and npz (zip: numpy's savez_compressed); its other
 * generators write what they write whatever dataset.compression says. */
static const char *unless_compressing(const void *cfg)
{
	const struct train_params *p = cfg;
	if (strcmp(p->compression, "none") == 0 || strcmp(p->format, "hdf5") == 0 ||
	    (strcmp(p->format, "npz") == 0 && strcmp(p->compression, "zip") == 0))
		return NULL;
	return strcmp(p->format, "npz") == 0
	           ? "applies to --format hdf5 (DLIO compresses npz with zip only)"
	           : "applies to --format hdf5 (DLIO's npy and indexed files are never compressed)";
}

static const char *unless_gzip(const void *cfg)
{
	const struct train_params *p = cfg;
	return strcmp(p->format, "hdf5") == 0 && strcmp(p->compression, "gzip") == 0
	           ? NULL
	           : "applies to --format hdf5 with --compression gzip";
}

static const struct sonde_option options[] = {
    {'d', "data-dir", SONDE_OPT_STRING, F(data_dir), "DIR",
     "required: the dataset is DIR/train (DLIO's data_folder)", .key = "data_dir"},
    {0, "generate", SONDE_OPT_FLAG, F(generate), NULL,
     "write the dataset (files split over the ranks); with --train, before the epochs"},
    {0, "train", SONDE_OPT_FLAG, F(train), NULL,
     "read the dataset in epochs of shuffled batches with emulated compute"},
    {0, "num-files", SONDE_OPT_LONG, F(num_files), "N", "files in the dataset (default 8)", 1,
     INT64_C(1) << 40, .key = "num_files"},
    {0, "samples-per-file", SONDE_OPT_LONG, F(samples_per_file), "N",
     "samples in each file (default 1)", 1, INT64_C(1) << 32, .key = "samples_per_file"},
    {0, "record-size", SONDE_OPT_SIZE, F(record_size), "BYTES",
     "mean bytes of a sample, k/m/g binary (default 64k)", 1, INT64_C(1) << 40, SONDE_SIZE_BINARY,
     .key = "record_size"},
    {0, "record-size-stdev", SONDE_OPT_SIZE, F(record_size_stdev), "BYTES",
     "standard deviation of the sample size, drawn per file with --seed (default 0)", 0,
     INT64_C(1) << 40, SONDE_SIZE_BINARY, .key = "record_size_stdev"},
    {0, "num-subfolders", SONDE_OPT_INT, F(num_subfolders), "K",
     "spread the files over K subfolders of DIR/train (0 or 1: none, as DLIO)", 0, 1000000,
     .key = "num_subfolders"},
    {0, "format", SONDE_OPT_STRING, F(format), "npy|npz|indexed|hdf5",
     "npy and npz: a numpy array of uint8 per file, shape (samples, size); indexed: a data "
     "file and an index file of (offset, length) pairs; hdf5: DLIO's HDF5 file, data set "
     "records_0 of uint8, shape (samples, rows, row) with rows x row the sample size, read a "
     "sample a hyperslab (default npy)"},
    {0, "chunk-dims", SONDE_OPT_STRING, F(chunk_dims), "A,B,C",
     "hdf5: records_0 stored in chunks of A samples x B rows x C bytes (DLIO's "
     "dataset.hdf5.chunk_dims; each at most the file's shape), read with HDF5's chunk cache "
     "off (default: contiguous)",
     .key = "chunk_dims", .inert = unless_hdf5},
    {0, "num-dset-per-record", SONDE_OPT_INT, F(num_dset), "N",
     "hdf5: each sample split over N data sets, records_0 to records_<N-1>, each of rows/N of "
     "its rows (N must divide every file's rows), read as N hyperslab reads (DLIO's "
     "dataset.hdf5.num_dset_per_record; default 1)",
     1, 1 << 16, .key = "num_dset_per_record", .inert = unless_hdf5},
    {0, "max-shape", SONDE_OPT_STRING, F(max_shape), "B,C",
     "hdf5: records_0 may grow to B rows x C bytes a sample (DLIO's dataset.hdf5.max_shape; "
     "each at least the file's shape), so HDF5 stores it in chunks: those of --chunk-dims or "
     "else h5py's (default: it cannot grow)",
     .key = "max_shape", .inert = unless_hdf5},
    {0, "compression", SONDE_OPT_STRING, F(compression), "none|gzip|lzf|bz2|zip|xz",
     "DLIO's dataset.compression. hdf5: gzip stores records_0 deflated, in the chunks of "
     "--chunk-dims or else h5py's (DLIO's); a read reads each chunk it touches whole, and the "
     "bytes counted are those read, compressed. lzf (h5py's own filter), bz2, zip and xz (no "
     "HDF5 filter) are refused, as is zip with npz; npy and indexed ignore it, as DLIO "
     "(default none)",
     .inert = unless_compressing},
    {0, "compression-level", SONDE_OPT_INT, F(compression_level), "N",
     "gzip's level, 0 to 9 (DLIO's dataset.compression_level; default 4)", 0, 9,
     .key = "compression_level", .inert = unless_gzip},
    {0, "batch-size", SONDE_OPT_INT, F(batch_size), "N", "samples per batch (default 4)", 1,
     1 << 24, .key = "batch_size", .inert = unless_training},
    {0, "epochs", SONDE_OPT_INT, F(epochs), "N", "epochs (default 1)", 1, 1 << 24,
     .inert = unless_training},
    {0, "read-threads", SONDE_OPT_INT, F(read_threads), "N",
     "reader threads per rank; 0: the main thread reads each batch (default 1)", 0, 1024,
     .key = "read_threads", .inert = unless_training},
    {0, "prefetch", SONDE_OPT_INT, F(prefetch), "N",
     "batches the readers read ahead of compute, per rank, each held in memory (default 2)", 1,
     1 << 20, .inert = unless_threads},
    {0, "compute-time", SONDE_OPT_DOUBLE, F(compute_time), "SECONDS",
     "emulated accelerator time per batch (default 0: no accelerator, AU is not judged and "
     "samples/s is what the readers deliver)",
     .key = "compute_time", .inert = unless_training},
    {0, "compute-time-stdev", SONDE_OPT_DOUBLE, F(compute_time_stdev), "SECONDS",
     "standard deviation of the compute time, drawn per batch with --seed (default 0)",
     .key = "compute_time_stdev", .inert = unless_training},
    {0, "transfer-size", SONDE_OPT_SIZE, F(transfer_size), "BYTES",
     "bytes per read call (hdf5: per H5Dread of the sample's bytes; default 0: a sample in "
     "one call)",
     0, INT64_C(1) << 40, SONDE_SIZE_BINARY, .key = "transfer_size", .inert = unless_training},
    {0, "seed", SONDE_OPT_LONG, F(seed), "N",
     "seed of the sizes, the data, the seeded shuffles and the compute times (default 1)", 0,
     INT64_MAX},
    {0, "file-shuffle", SONDE_OPT_STRING, F(file_shuffle), "off|seed|random",
     "order of the files each epoch, before the ranks take their blocks of samples: as named, "
     "shuffled with --seed, or with a seed drawn for the run (default off)",
     .key = "file_shuffle", .inert = unless_training},
    {0, "sample-shuffle", SONDE_OPT_STRING, F(sample_shuffle), "off|seed|random",
     "order of the samples of each rank's block each epoch (default off)", .key = "sample_shuffle",
     .inert = unless_training},
    {0, "verify", SONDE_OPT_FLAG, F(verify), NULL,
     "check every sample read against the pattern written (not counted as I/O wait)",
     .inert = unless_training},
    {0, "odirect", SONDE_OPT_FLAG, F(odirect), NULL,
     "read the data files with O_DIRECT (DLIO's reader.odirect): each sample in the 4 KiB "
     "aligned span around it, which the bytes read count (not with --format hdf5)",
     .inert = unless_training},
    {0, "au-threshold", SONDE_OPT_DOUBLE, F(au_threshold), "FRACTION",
     "the run passes when every rank's accelerator utilization is at least this (default "
     "0.9; not judged without --compute-time)",
     .key = "au_threshold", .inert = unless_training},
    {0, "preset", SONDE_OPT_STRING, F(preset), "NAME",
     "the dataset, reader and compute settings of a known training workload (options given "
     "win)"},
    {0, "accelerator", SONDE_OPT_STRING, F(accelerator), "TYPE",
     "the accelerator whose compute time --preset uses"},
    {0, "checkpoint-folder", SONDE_OPT_STRING, F(ckpt.folder), "DIR",
     "where checkpoints are written", .key = "checkpoint_folder"},
    {0, "model-size", SONDE_OPT_SIZE, F(ckpt.model_size), "BYTES",
     "bytes of one checkpoint, all ranks together", 0, INT64_C(1) << 50, SONDE_SIZE_BINARY,
     .key = "model_size"},
    {0, "num-layers", SONDE_OPT_INT, F(ckpt.num_layers), "N",
     "layers of the model: the shards of a checkpoint", 1, 1 << 20, .key = "num_layers"},
    {0, "checkpoint-type", SONDE_OPT_STRING, F(ckpt.type), "rank_zero|all_ranks",
     "rank 0 writes the whole checkpoint, or every rank its shards", .key = "checkpoint_type"},
    {0, "checkpoint-shared-file", SONDE_OPT_FLAG, F(ckpt.shared_file), NULL,
     "one shared checkpoint file through MPI-IO instead of one file per rank and shard",
     .key = "checkpoint_shared_file"},
    {0, "steps-between-checkpoints", SONDE_OPT_INT, F(ckpt.steps_between), "N",
     "a checkpoint every N steps (batches)", 0, 1 << 30, .key = "steps_between_checkpoints"},
    {0, "epochs-between-checkpoints", SONDE_OPT_INT, F(ckpt.epochs_between), "N",
     "a checkpoint every N epochs", 0, 1 << 30, .key = "epochs_between_checkpoints"},
    {0, "checkpoint-verify", SONDE_OPT_FLAG, F(ckpt.verify), NULL,
     "read each checkpoint back and check it", .key = "checkpoint_verify"},
    {0, "checkpoint-writes", SONDE_OPT_INT, F(ckpt.writes), "N",
     "checkpoint-only: write N checkpoints without training", 0, 1 << 20,
     .key = "checkpoint_writes"},
    {0, "checkpoint-reads", SONDE_OPT_INT, F(ckpt.reads), "N",
     "checkpoint-only: read N checkpoints back", 0, 1 << 20, .key = "checkpoint_reads"},
    {0, "checkpoint-preset", SONDE_OPT_STRING, F(ckpt.preset), "NAME",
     "the checkpoint size and layers of a known model (options given win)",
     .key = "checkpoint_preset"},
    {0, "time-between-checkpoints", SONDE_OPT_DOUBLE, F(ckpt.time_between), "SECONDS",
     "checkpoint-only: emulated compute before each checkpoint written or read, not counted "
     "in its time (default 0)",
     .key = "time_between_checkpoints"},
    {0, "recovery-rank-shift", SONDE_OPT_FLAG, F(ckpt.rank_shift), NULL,
     "rank r reads the checkpoint shards rank (r + ranks per node) % ranks wrote, on another "
     "node, so that its own node's page cache does not serve the reads",
     .key = "recovery_rank_shift"},
};

static void table_defaults(void *cfg)
{
	train_params_defaults(cfg);
}

const struct sonde_option_table train_options = {
    .command = "sonde train",
    .usage = "-d DIR --generate|--train [options]",
    .summary = "Emulates the I/O of AI training as the DLIO benchmark defines it: --generate "
               "writes a dataset of files of samples (npy, npz, indexed, hdf5), --train reads "
               "it in epochs, each rank its share of every epoch's shuffled samples, in batches "
               "read ahead by reader threads while the main thread emulates the accelerator's "
               "compute. Prints samples/s, I/O MiB/s and accelerator utilization (AU) per "
               "epoch and overall, with pass or fail against --au-threshold.",
    .style = SONDE_STYLE_SHORT,
    .options = options,
    .count = (int)(sizeof options / sizeof options[0]),
    .cfg_size = sizeof(struct train_params),
    .defaults = table_defaults,
    .epilog = "AU of a rank = compute / (compute + time waiting for batches). Samples/s and "
              "MiB/s are over the epoch's time: the longest rank's compute + wait.\n"
              "Example: mpirun -n 4 sonde train -d /scratch/ds --generate --train --num-files "
              "64 --record-size 1m --batch-size 8 --read-threads 2 --compute-time 0.01",
};

void train_params_defaults(struct train_params *p)
{
	memset(p, 0, sizeof *p);
	p->num_files = 8;
	p->samples_per_file = 1;
	p->record_size = 64 * 1024;
	p->format = "npy";
	p->compression = "none";
	p->compression_level = 4;
	p->num_dset = 1;
	p->deflate = -1;
	p->batch_size = 4;
	p->epochs = 1;
	p->read_threads = 1;
	p->prefetch = 2;
	p->seed = 1;
	p->file_shuffle = "off";
	p->sample_shuffle = "off";
	p->au_threshold = 0.9;
	p->ckpt.type = "rank_zero";
}

static int shuffle_of(const char *word, const char *option, enum train_shuffle *out, char *err,
                      size_t errlen)
{
	static const char *const names[] = {"off", "seed", "random"};
	for (int i = 0; i < 3; i++)
		if (strcmp(word, names[i]) == 0) {
			*out = (enum train_shuffle)i;
			return 0;
		}
	snprintf(err, errlen, "option --%s: '%s' is not off, seed or random", option, word);
	return -1;
}

/* n whole numbers from 1, comma-separated, into out; or one line naming option. */
static int dims_of(const char *text, int n, int64_t *out, const char *option, const char *form,
                   char *err, size_t errlen)
{
	const char *s = text;
	for (int k = 0; k < n; k++) {
		char *end;
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (end == s || errno || v < 1 || *end != (k < n - 1 ? ',' : '\0')) {
			snprintf(err, errlen,
			         "option --%s: '%s' is not %d whole numbers from 1, %s", option,
			         text, n, form);
			return -1;
		}
		out[k] = v;
		s = end + 1;
	}
	return 0;
}

/* --num-dset-per-record N divides every file's rows; --chunk-dims A,B,C within the shape of
 * every file's data sets, --max-shape B,C at least it (the files' sizes are drawn: each is
 * looked at). */
static int hdf5_dims_of(struct train_params *p, char *err, size_t errlen)
{
	if (p->chunk_dims &&
	    dims_of(p->chunk_dims, 3, p->chunk, "chunk-dims", "A,B,C", err, errlen) < 0)
		return -1;
	if (p->max_shape && dims_of(p->max_shape, 2, p->max, "max-shape", "B,C", err, errlen) < 0)
		return -1;
	int64_t files = p->record_size_stdev ? p->num_files : 1;
	for (int64_t f = 0; f < files; f++) {
		int64_t rows, row, size = train_sample_size(p, f);
		train_sample_dims(size, &rows, &row);
		if (rows % p->num_dset) {
			snprintf(err, errlen,
			         "option --num-dset-per-record: %d does not divide the %lld rows "
			         "of file "
			         "%lld's samples (%lld rows x %lld bytes)",
			         p->num_dset, (long long)rows, (long long)f, (long long)rows,
			         (long long)row);
			return -1;
		}
		rows /= p->num_dset;
		if (p->chunk_dims && (p->chunk[0] > p->samples_per_file || p->chunk[1] > rows ||
		                      p->chunk[2] > row)) {
			snprintf(
			    err, errlen,
			    "option --chunk-dims: chunks of %s do not fit file %lld's records_0, "
			    "of shape (%lld, %lld, %lld)",
			    p->chunk_dims, (long long)f, (long long)p->samples_per_file,
			    (long long)rows, (long long)row);
			return -1;
		}
		if (p->max_shape && (p->max[0] < rows || p->max[1] < row)) {
			snprintf(
			    err, errlen,
			    "option --max-shape: %s is below file %lld's samples, of %lld rows "
			    "x %lld bytes",
			    p->max_shape, (long long)f, (long long)rows, (long long)row);
			return -1;
		}
	}
	return 0;
}

/* --compression: what HDF5's C library can do as DLIO asks it (h5py's calls), or one line
 * saying why not; sets p->deflate. */
static int compression_of(struct train_params *p, char *err, size_t errlen)
{
	static const char *const names[] = {"none", "gzip", "lzf", "bz2", "zip", "xz"};
	int c = -1;
	for (int i = 0; i < 6; i++)
		if (strcmp(p->compression, names[i]) == 0)
			c = i;
	if (c < 0) {
		snprintf(err, errlen,
		         "option --compression: '%s' is not none, gzip, lzf, bz2, zip or xz",
		         p->compression);
		return -1;
	}
	p->deflate = -1;
	if (p->fmt == TRAIN_NPZ && c == 4) {
		snprintf(err, errlen,
		         "option --compression zip with --format npz (DLIO's savez_compressed: "
		         "each member deflated, read whole) is not implemented in sonde");
		return -1;
	}
	if (p->fmt != TRAIN_HDF5 || c < 2) {
		if (p->fmt == TRAIN_HDF5 && c == 1)
			p->deflate = p->compression_level;
		return 0;
	}
	if (c == 2)
		snprintf(
		    err, errlen,
		    "option --compression lzf: LZF is h5py's own HDF5 filter, not one HDF5's C "
		    "library has (gzip is)");
	else
		snprintf(
		    err, errlen,
		    "option --compression %s: HDF5 has no %s filter (h5py refuses it, so DLIO's "
		    "hdf5 generator fails with it; gzip is HDF5's)",
		    p->compression, p->compression);
	return -1;
}

int train_params_check(struct train_params *p, char *err, size_t errlen)
{
	static const char *const formats[] = {"npy", "npz", "indexed", "hdf5"};
	int fmt = -1;
	for (int i = 0; i < 4; i++)
		if (strcmp(p->format, formats[i]) == 0)
			fmt = i;
	if (fmt < 0) {
		snprintf(err, errlen, "option --format: '%s' is not npy, npz, indexed or hdf5",
		         p->format);
		return -1;
	}
	p->fmt = (enum train_format)fmt;
	if (shuffle_of(p->file_shuffle, "file-shuffle", &p->file_order, err, errlen) < 0 ||
	    shuffle_of(p->sample_shuffle, "sample-shuffle", &p->sample_order, err, errlen) < 0)
		return -1;
	if (!p->data_dir) {
		snprintf(err, errlen, "-d DIR is required: the dataset is DIR/train");
		return -1;
	}
	if (train_longest_path(p) >= PATH_MAX) {
		snprintf(err, errlen,
		         "-d DIR: the dataset's file names would be %lld bytes, above "
		         "PATH_MAX (%d)",
		         (long long)train_longest_path(p), PATH_MAX);
		return -1;
	}
	if (p->fmt == TRAIN_HDF5 && sonde_backend_hdf5.missing) {
		/* one source for what the build lacks: the HDF5 backend's words */
		snprintf(err, errlen,
		         "--format hdf5: this build of sonde has no HDF5: %s was not found when it "
		         "was built",
		         sonde_backend_hdf5.missing);
		return -1;
	}
	if (p->fmt == TRAIN_HDF5 && p->odirect) {
		snprintf(err, errlen,
		         "option --odirect does not apply to --format hdf5: HDF5 reads through its "
		         "sec2 driver, which has no O_DIRECT (DLIO's odirect readers are npy and "
		         "npz)");
		return -1;
	}
	if (compression_of(p, err, errlen) < 0)
		return -1;
	if ((p->chunk_dims || p->max_shape || p->num_dset > 1) && p->fmt == TRAIN_HDF5 &&
	    hdf5_dims_of(p, err, errlen) < 0)
		return -1;
	if (p->odirect && p->transfer_size % TRAIN_DIRECT_ALIGN) {
		snprintf(
		    err, errlen,
		    "option --odirect: the transfer size (%lld) must be a multiple of %d bytes",
		    (long long)p->transfer_size, TRAIN_DIRECT_ALIGN);
		return -1;
	}
	if (!(p->compute_time >= 0) || !(p->compute_time_stdev >= 0) ||
	    !isfinite(p->compute_time) || !isfinite(p->compute_time_stdev)) {
		snprintf(err, errlen, "--compute-time and --compute-time-stdev must be 0 or more");
		return -1;
	}
	if (!(p->au_threshold >= 0 && p->au_threshold <= 1)) {
		snprintf(err, errlen, "option --au-threshold: %g is not a fraction from 0 to 1",
		         p->au_threshold);
		return -1;
	}
	if (p->samples_per_file > INT64_MAX / p->num_files) {
		snprintf(err, errlen, "--num-files x --samples-per-file does not fit 64 bits");
		return -1;
	}
	/* A drawn sample size is below record size + 9 stdev (train_normal's |z| stays under
	 * 8.6: its uniform draw has 53 bits). The dataset's bytes, index entries and headers
	 * included, must fit 64 bits with room to spare: every size and sum of sizes is int64. */
	int64_t largest = p->record_size + 9 * p->record_size_stdev + 16;
	if (p->num_files * p->samples_per_file > INT64_MAX / 4 / largest) {
		snprintf(err, errlen,
		         "--num-files x --samples-per-file x --record-size does not fit 64 bits");
		return -1;
	}
	/* every file has the same size without a stdev; with one, files are looked at only when
	 * the largest sample a draw gives could pass the limit */
	int64_t files = p->record_size_stdev ? p->num_files : 1;
	if (p->samples_per_file * largest + 2 * TRAIN_HEADER_MAX <= train_format_limit(p))
		files = 0;
	for (int64_t f = 0; p->fmt == TRAIN_NPZ && f < files; f++)
		if (train_file_size(p, f) > train_format_limit(p)) {
			snprintf(err, errlen,
			         "file %lld would be %lld bytes: npz files above 4 GiB need ZIP64, "
			         "which sonde does not write; use npy or indexed",
			         (long long)f, (long long)train_file_size(p, f));
			return -1;
		}
	return 0;
}
