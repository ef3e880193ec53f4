/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mpiio: the LANL MPI-IO Test (mpi_io_test 1.00.009).
 *
 * Reads top to bottom as the test runs: the input parameters (defaults, the -setup master
 * file, the command line over it); who writes which file under which name (types 1, 2, 5
 * write directly, types 3 and 4 through aggregators, src/workloads/mpiio/plan.c); the report
 * header; the write phase, the hints the file carried, -sleep, the read phase with its checks
 * (-op runs one of them); -deletefile. Each phase starts after a barrier and ends with the
 * statistics over all ranks (report.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "files.h"
#include "results.h"
#include "timeseries.h"
#include "workloads/mpiio/mpiio.h"

static int phase(struct mpiio_run *run, int write)
{
	struct mpiio_times t = {0};
	struct mpiio_verify v = {0};
	mpiio_print_phase_start(run, write);
	sonde_series_begin(run->ctx->comm, write ? "write" : "read", -1);
	MPI_Barrier(run->ctx->comm);
	sonde_series_start();
	if (mpiio_aggregating(run->p->type))
		mpiio_aggregate_phase(run, write, &t, &v);
	else
		mpiio_direct_phase(run, write, &t, &v);
	sonde_series_stop();
	int code = mpiio_report_phase(run, write, &t, &v);
	if (!code)
		sonde_series_report();
	if (!code && write && !run->p->nofile && (run->p->hints.count || run->p->dio))
		mpiio_print_hints(run);
	return code;
}

/* Each file is removed once, by the rank that named it. */
static void delete_files(struct mpiio_run *run)
{
	MPI_Barrier(run->ctx->comm);
	if (!run->owns_file)
		return;
	int rc = MPI_File_delete(run->io_path, MPI_INFO_NULL);
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		MPI_Error_string(rc, msg, &len);
		fprintf(stderr, "sonde mpiio: rank %d: warning: cannot delete %s: %s\n", run->rank,
		        run->path, msg);
	}
}

/* The header's params of a command line, by the run's own parse, checks and counts. */
static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct mpiio_params p;
	mpiio_params_load(ctx, argc, argv, &p);
	struct mpiio_run run = {.p = &p, .ctx = ctx, .nranks = ctx->size};
	mpiio_run_counts(&run);
	char *params = mpiio_params_json(&run);
	mpiio_plan_free(&run.plan);
	mpiio_params_free(&p);
	return params;
}

static int mpiio_main(struct sonde_context *ctx, int argc, char **argv)
{
	struct mpiio_params p;
	mpiio_params_load(ctx, argc, argv, &p);
	struct mpiio_run run = {.p = &p, .ctx = ctx};
	mpiio_run_setup(&run);

	char *params = mpiio_params_json(&run);
	sonde_results_header(ctx, params, p.nofile ? NULL : run.shown);
	free(params);
	mpiio_print_header(&run);

	int writes = mpiio_writes(&p), reads = mpiio_reads(&p);
	int code = SONDE_EXIT_OK;
	if (writes)
		code = phase(&run, 1);
	run.wrote = writes;
	if (writes && reads && p.sleep > 0)
		sleep((unsigned)p.sleep);
	if (reads && !code) {
		int rc = phase(&run, 0);
		code = code ? code : rc;
	}
	/* Files of an earlier run (-op read) go only once this run read them without error. */
	if (p.deletefile && !p.nofile && (writes || code == SONDE_EXIT_OK))
		delete_files(&run);
	if (run.out && run.out != stdout) {
		int c = sonde_close_output(run.out, "-output", p.output);
		run.out = stdout;
		code = code ? code : c;
	}
	mpiio_run_free(&run);
	mpiio_params_free(&p);
	return code;
}

const struct sonde_workload sonde_workload_mpiio = {
    .name = "mpiio",
    .summary = "LANL MPI-IO Test: N->N, N->1, N->M->M, N->M->1, N->M files, touch/chkdata",
    .options = &mpiio_table,
    .run = mpiio_main,
    .params = params_only,
};
