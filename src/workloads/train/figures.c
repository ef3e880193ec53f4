/* SPDX-License-Identifier: BSD-3-Clause */
/* The figures DLIO reports, from what every rank did: samples/s and MiB/s over the epoch's time
 * (the longest rank's compute + wait: verification is outside it), and the accelerator
 * utilization AU = compute / (compute + wait) of each rank, against the threshold. Compute and
 * wait are the emulated accelerator's (train.c): its compute takes exactly the time drawn, and
 * it waits from when that compute was due to end. */
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "json.h"
#include "units.h"
#include "workloads/train/train.h"

static double au_of(const struct train_part *p)
{
	double busy = p->compute + p->wait;
	/* no time at all (no batch): nothing waited */
	return busy > 0 ? p->compute / busy : 1.0;
}

static int64_t sum(MPI_Comm comm, int64_t v)
{
	int64_t r;
	MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_SUM, comm);
	return r;
}

void train_figures_reduce(MPI_Comm comm, const struct train_part *mine, int epoch, double threshold,
                          struct train_figures *f)
{
	int rank, ranks;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &ranks);
	memset(f, 0, sizeof *f);
	f->epoch = epoch;
	f->threshold = threshold;
	f->samples = sum(comm, mine->io.samples);
	f->bytes = sum(comm, mine->io.bytes);
	f->calls = sum(comm, mine->io.calls);
	f->index_bytes = sum(comm, mine->io.index_bytes);
	f->index_calls = sum(comm, mine->io.index_calls);
	f->batches = sum(comm, mine->batches);
	double au = au_of(mine);
	sonde_stats_across(comm, au, &f->au);
	sonde_stats_across(comm, mine->compute + mine->wait, &f->busy);
	struct sonde_stats s;
	sonde_stats_across(comm, mine->compute, &s);
	f->compute_mean = s.mean;
	sonde_stats_across(comm, mine->wait, &s);
	f->wait_mean = s.mean;
	f->wait_max = s.max;
	sonde_stats_across(comm, mine->verify, &s);
	f->verify_max = s.max;
	sonde_stats_across(comm, mine->stalled, &s);
	f->stalled_max = s.max;
	sonde_stats_across(comm, mine->overrun, &s);
	f->overrun_max = s.max;
	f->seconds = f->busy.max;
	f->samples_per_s = f->seconds > 0 ? (double)f->samples / f->seconds : 0;
	f->mib_per_s = f->seconds > 0 ? (double)f->bytes / SONDE_MIB / f->seconds : 0;
	double *all = NULL;
	if (rank == 0 && !(all = malloc(sizeof *all * (size_t)ranks)))
		sonde_fatal("out of memory for the AU of %d ranks", ranks);
	MPI_Gather(&au, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm);
	f->judged = f->compute_mean > 0;
	f->pass = f->judged && f->au.min >= threshold;
	if (rank == 0 && f->judged) {
		if (!(f->below = malloc(sizeof *f->below * (size_t)ranks)))
			sonde_fatal("out of memory for the AU of %d ranks", ranks);
		for (int r = 0; r < ranks; r++)
			if (all[r] < threshold)
				f->below[f->nbelow++] = r;
	}
	free(all);
}

void train_figures_json(const struct train_figures *f, struct sonde_json *j)
{
	sonde_json_int(j, "samples", f->samples);
	sonde_json_int(j, "batches", f->batches);
	sonde_json_double(j, "samples_per_s", f->samples_per_s);
	sonde_json_int(j, "index_bytes", f->index_bytes);
	sonde_json_int(j, "index_calls", f->index_calls);
	sonde_json_double(j, "au_min", f->au.min);
	sonde_json_int(j, "au_min_rank", f->au.min_rank);
	sonde_json_double(j, "au_mean", f->au.mean);
	sonde_json_double(j, "au_max", f->au.max);
	sonde_json_double(j, "au_threshold", f->threshold);
	if (f->judged)
		sonde_json_bool(j, "au_pass", f->pass);
	else
		sonde_json_null(j, "au_pass");
	sonde_json_array_begin(j, "ranks_below_threshold");
	for (int i = 0; i < f->nbelow; i++)
		sonde_json_int(j, NULL, f->below[i]);
	sonde_json_array_end(j);
	sonde_json_double(j, "compute_s_mean", f->compute_mean);
	sonde_json_double(j, "wait_s_mean", f->wait_mean);
	sonde_json_double(j, "wait_s_max", f->wait_max);
	sonde_json_double(j, "verify_s_max", f->verify_max);
	sonde_json_double(j, "checkpoint_stall_s_max", f->stalled_max);
	sonde_json_double(j, "compute_overrun_s_max", f->overrun_max);
}

void train_figures_print(FILE *out, const struct train_figures *f)
{
	if (f->epoch >= 0)
		fprintf(out, "epoch %d:", f->epoch + 1);
	else
		fprintf(out, "train:");
	fprintf(out, " %lld samples in %.3f s: %.1f samples/s, %.2f MiB/s; ", (long long)f->samples,
	        f->seconds, f->samples_per_s, f->mib_per_s);
	if (!f->judged)
		fprintf(out, "no compute time: AU not judged (the samples/s are what the readers "
		             "deliver)");
	else
		fprintf(out, "AU min %.4f (rank %d) mean %.4f max %.4f: %s (threshold %.2f)",
		        f->au.min, f->au.min_rank, f->au.mean, f->au.max, f->pass ? "pass" : "FAIL",
		        f->threshold);
	if (f->nbelow) {
		fprintf(out, "; below it: rank");
		for (int i = 0; i < f->nbelow && i < 16; i++)
			fprintf(out, "%s %d", i ? "," : "", f->below[i]);
		if (f->nbelow > 16)
			fprintf(out, " and %d more", f->nbelow - 16);
	}
	fputc('\n', out);
	fflush(out);
}

void train_figures_free(struct train_figures *f)
{
	free(f->below);
	f->below = NULL;
}
