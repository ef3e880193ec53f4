/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde train's presets: the settings of MLPerf Storage's workloads, to emulate their I/O
 * (never an MLPerf result). Every figure is from MLPerf Storage v2.0's DLIO workload files
 * (github mlcommons/storage, configs/dlio/workload/<name>_<accelerator>.yaml and
 * llama3_<size>.yaml) or what DLIO computes from them, as each entry says; docs/workloads/
 * train.md lists them with what differs. A preset fills only the options not given. */
#include <stdio.h>
#include <string.h>

#include "workloads/train/presets.h"
#include "workloads/train/train.h"

struct training_preset {
	const char *name;
	const char *format; /* TFRecord's pattern (many samples per file, read record by record)
	                       is sonde's indexed format */
	int64_t num_files, samples_per_file, record_size, record_size_stdev;
	int batch_size, read_threads, epochs;
	double compute_a100, compute_h100; /* seconds per batch (computation_time) */
	double au;                         /* metric.au */
	const char *shuffle;               /* file_shuffle and sample_shuffle */
	/* the checkpoint DLIO's file asks for: model bytes, written by rank 0, every N epochs
	 * (with the preset's 5 epochs, after the 5th, as checkpoint_after_epoch 5 does) */
	int64_t model_size;
	int epochs_between;
};

static const struct training_preset training_presets[] = {
    /* unet3d_a100.yaml, unet3d_h100.yaml: npz, 168 files of 1 sample of 146600628 bytes
     * (stdev 68341808), batch 7, 4 read threads, 0.636 s / 0.323 s, 5 epochs, AU 0.90,
     * file and sample shuffle seed; model_size 499153191, checkpoint_after_epoch 5 */
    {"unet3d", "npz", 168, 1, 146600628, 68341808, 7, 4, 5, 0.636, 0.323, 0.90, "seed", 499153191,
     5},
    /* resnet50_a100.yaml, resnet50_h100.yaml: tfrecord, 1024 files of 1251 samples of
     * 114660.07 bytes, batch 400, 8 read threads, 0.435 s / 0.224 s, 5 epochs, AU 0.90, no
     * shuffle */
    {"resnet50", "indexed", 1024, 1251, 114660, 0, 400, 8, 5, 0.435, 0.224, 0.90, "off", 0, 0},
    /* cosmoflow_a100.yaml, cosmoflow_h100.yaml: tfrecord, 524288 files of 1 sample of
     * 2828486 bytes (stdev 71311), batch 1, 4 read threads, 0.00551 s / 0.00350 s, 5 epochs,
     * AU 0.70, file and sample shuffle seed */
    {"cosmoflow", "indexed", 524288, 1, 2828486, 71311, 1, 4, 5, 0.00551, 0.00350, 0.70, "seed", 0,
     0},
};

struct checkpoint_preset {
	const char *name;
	int64_t model_size; /* model + optimizer states of one checkpoint, all ranks */
	int num_layers;
};

/* llama3_<size>.yaml (layers, hidden, ffn, heads, kv heads, vocab 128256, TP x PP x DP,
 * ZeRO, fp16 model, fp32 optimizer) through DLIO's checkpoint sizes
 * (checkpointing/base_checkpointing.py): 104.7 GiB, 911.2 GiB, 5292 GiB as MLPerf Storage's
 * Table 2 says (105 GB, 912 GB, 5.29 TB); for 1t DLIO's formula gives 15427 GiB where Table 2
 * says 18 TB. Each is written by every rank (all_ranks): 8, 64, 512, 1024 ranks in MLPerf's
 * CLOSED division. */
static const struct checkpoint_preset checkpoint_presets[] = {
    {"llama3-8b", INT64_C(112425623552), 32},
    {"llama3-70b", INT64_C(978406572032), 80},
    {"llama3-405b", INT64_C(5682508791808), 126},
    {"llama3-1t", INT64_C(16564174094592), 128},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void set_i64(int64_t *field, int64_t v, const struct sonde_option_set *given,
                    const char *option)
{
	if (!sonde_option_given(given, option))
		*field = v;
}

static void set_int(int *field, int v, const struct sonde_option_set *given, const char *option)
{
	if (!sonde_option_given(given, option))
		*field = v;
}

static void set_double(double *field, double v, const struct sonde_option_set *given,
                       const char *option)
{
	if (!sonde_option_given(given, option))
		*field = v;
}

static void set_str(const char **field, const char *v, const struct sonde_option_set *given,
                    const char *option)
{
	if (!sonde_option_given(given, option))
		*field = v;
}

int train_preset_apply(const char *name, const char *accelerator, struct train_params *cfg,
                       const struct sonde_option_set *given, char *err, size_t len)
{
	const struct training_preset *t = NULL;
	for (int i = 0; i < COUNT(training_presets); i++)
		if (strcmp(name, training_presets[i].name) == 0)
			t = &training_presets[i];
	if (!t) {
		snprintf(err, len, "option --preset: '%s' is not unet3d, resnet50 or cosmoflow",
		         name);
		return -1;
	}
	double compute;
	if (!accelerator) {
		snprintf(err, len,
		         "--preset %s needs --accelerator a100 or h100 (its compute time)", name);
		return -1;
	} else if (strcmp(accelerator, "a100") == 0) {
		compute = t->compute_a100;
	} else if (strcmp(accelerator, "h100") == 0) {
		compute = t->compute_h100;
	} else {
		snprintf(err, len, "option --accelerator: '%s' is not a100 or h100", accelerator);
		return -1;
	}
	set_str(&cfg->format, t->format, given, "format");
	set_i64(&cfg->num_files, t->num_files, given, "num-files");
	set_i64(&cfg->samples_per_file, t->samples_per_file, given, "samples-per-file");
	set_i64(&cfg->record_size, t->record_size, given, "record-size");
	set_i64(&cfg->record_size_stdev, t->record_size_stdev, given, "record-size-stdev");
	set_int(&cfg->batch_size, t->batch_size, given, "batch-size");
	set_int(&cfg->read_threads, t->read_threads, given, "read-threads");
	set_int(&cfg->epochs, t->epochs, given, "epochs");
	set_double(&cfg->compute_time, compute, given, "compute-time");
	set_double(&cfg->au_threshold, t->au, given, "au-threshold");
	set_str(&cfg->file_shuffle, t->shuffle, given, "file-shuffle");
	set_str(&cfg->sample_shuffle, t->shuffle, given, "sample-shuffle");
	/* the preset's checkpoint goes where the user says checkpoints go */
	if (t->model_size && cfg->ckpt.folder && sonde_option_given(given, "train")) {
		set_i64(&cfg->ckpt.model_size, t->model_size, given, "model-size");
		set_int(&cfg->ckpt.epochs_between, t->epochs_between, given,
		        "epochs-between-checkpoints");
	}
	return 0;
}

int train_checkpoint_preset_apply(const char *name, struct train_checkpoint_config *c,
                                  const struct sonde_option_set *given, char *err, size_t len)
{
	for (int i = 0; i < COUNT(checkpoint_presets); i++) {
		const struct checkpoint_preset *k = &checkpoint_presets[i];
		if (strcmp(name, k->name) != 0)
			continue;
		set_i64(&c->model_size, k->model_size, given, "model-size");
		set_int(&c->num_layers, k->num_layers, given, "num-layers");
		set_str(&c->type, "all_ranks", given, "checkpoint-type");
		/* every llama3 file of MLPerf Storage v2.0 has time_between_checkpoints: 5, the
		 * compute before each checkpoint of its checkpoint-only runs */
		if (!sonde_option_given(given, "train"))
			set_double(&c->time_between, 5, given, "time-between-checkpoints");
		return 0;
	}
	snprintf(err, len,
	         "option --checkpoint-preset: '%s' is not llama3-8b, llama3-70b, llama3-405b or "
	         "llama3-1t",
	         name);
	return -1;
}
