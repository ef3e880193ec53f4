/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 2
/* The results writer: records land as whole lines, in order, appended to an existing file,
 * with the figures derived from what the workload passed; only rank 0 writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "results.h"
#include "stats.h"
#include "workload.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* A failed run's end record names why, which rank, which file; a run that never wrote its
 * header writes no end record, and a results file it created and left empty goes away. */
static void ends(struct sonde_context *ctx, const char *dir)
{
	char json[128], csv[128], err[512];
	snprintf(json, sizeof json, "%s/fail.jsonl", dir);
	snprintf(csv, sizeof csv, "%s/fail.csv", dir);
	CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", json, csv, err, sizeof err), 0);
	sonde_results_header(ctx, "{}", dir);
	sonde_results_note_failure(1, "/scratch/f", "write /scratch/f: No space left on device");
	sonde_results_note_failure(0, "/other", "a later failure is not the cause");
	CHECK_INT(sonde_results_close(1), 1);
	if (ctx->rank == 0) {
		const char *text = slurp(json);
		CHECK(strstr(text, "\"exit_code\":1,\"reason\":\"io-error\",\"rank\":1,\"path\":"
		                   "\"/scratch/f\",\"error\":\"write /scratch/f: No space left on "
		                   "device\",") != NULL);
		CHECK(access(csv, F_OK) != 0); /* created, no row: removed */
	}

	snprintf(json, sizeof json, "%s/usage.jsonl", dir);
	CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", json, NULL, err, sizeof err), 0);
	CHECK_INT(sonde_results_close(2), 2);
	if (ctx->rank == 0)
		CHECK(access(json, F_OK) != 0);
}

/* Refusals before anything is written: the other format, the same file twice, a FIFO (which
 * would block or swallow the records), an empty name. The files keep their bytes. */
static void refusals(const char *dir)
{
	char json[128], csv[128], fifo[128], err[512];
	snprintf(json, sizeof json, "%s/old.jsonl", dir);
	snprintf(csv, sizeof csv, "%s/old.csv", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		put(json, "{\"type\":\"header\"}\n");
		put(csv, "run_id,workload\n");
		CHECK_INT(mkfifo(fifo, 0600), 0);
		CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", csv, NULL, err, sizeof err),
		          -1);
		CHECK(strstr(err, "--json") && strstr(err, "holds something else"));
		CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", NULL, json, err, sizeof err),
		          -1);
		CHECK(strstr(err, "--csv") && strstr(err, "holds something else"));
		CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", fifo, NULL, err, sizeof err),
		          -1);
		CHECK(strstr(err, "not a regular file") != NULL);
		CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", "", NULL, err, sizeof err),
		          -1);
		CHECK(strstr(err, "empty file name") != NULL);
		char fresh[128];
		snprintf(fresh, sizeof fresh, "%s/same", dir);
		CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", fresh, fresh, err, sizeof err),
		          -1);
		CHECK(strstr(err, "are the same file") != NULL);
		CHECK(access(fresh, F_OK) != 0);
		CHECK_STR(slurp(json), "{\"type\":\"header\"}\n");
		CHECK_STR(slurp(csv), "run_id,workload\n");
		sonde_results_close(2);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char dir[] = "/tmp/sonde-results-XXXXXX";
	if (rank == 0 && !mkdtemp(dir))
		abort();
	MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
	char json[128], csv[128];
	snprintf(json, sizeof json, "%s/r.jsonl", dir);
	snprintf(csv, sizeof csv, "%s/r.csv", dir);
	if (rank == 0) {
		FILE *f = fopen(json, "w");
		fputs("{\"type\":\"earlier\"}\n", f);
		fclose(f);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	struct sonde_context ctx = {.workload = "test",
	                            .mpi = 1,
	                            .comm = MPI_COMM_WORLD,
	                            .rank = rank,
	                            .size = 2,
	                            .argc = argc,
	                            .argv = argv};
	sonde_topology_init(MPI_COMM_WORLD, &ctx.topo);
	char err[256];
	CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", json, csv, err, sizeof err), 0);
	sonde_results_header(&ctx, "{\"block\":4096}", dir);

	struct sonde_stats s;
	sonde_stats_across(MPI_COMM_WORLD, rank ? 2.0 : 1.0, &s);
	struct sonde_measurement m = {.phase = "write",
	                              .iteration = 0,
	                              .bytes = 4 << 20,
	                              .seconds = 2.0,
	                              .ops = 8,
	                              .per_rank = &s,
	                              .verified = 1,
	                              .bytes_checked = 4 << 20,
	                              .params_json = "{\"t\":\"a,\\\"b\"}"};
	sonde_results_measurement("test", &m);
	/* Latency from a histogram (percentiles are bucket midpoints, never above the maximum,
	 * with their error bound: the record says so), and a latency of no call (figures null,
	 * never 0). */
	struct sonde_latency from_hist = {.count = 2, .max = 10e-6, .mean = 6.5e-6};
	sonde_hist_add(&from_hist.hist, 3e-6);
	sonde_hist_add(&from_hist.hist, 10e-6);
	sonde_latency_from_histogram(&from_hist);
	struct sonde_latency no_call = {0};
	struct sonde_measurement lat = {.phase = "read", .seconds = 1.0, .latency = &from_hist};
	sonde_results_measurement("test", &lat);
	lat.latency = &no_call;
	sonde_results_measurement("test", &lat);
	sonde_results_record("summary", "test", "{\"score\":1.5}");
	sonde_results_record("summary", "test", "{}");
	sonde_results_close(0);
	sonde_results_close(0); /* a second close (from sonde_exit) is harmless */

	if (rank == 0) {
		const char *text = slurp(json);
		CHECK(text != NULL);
		CHECK_INT(count_lines(text), 8);
		CHECK(strncmp(text, "{\"type\":\"earlier\"}\n{\"type\":\"header\",\"run_id\":\"",
		              45) == 0);
		CHECK(strstr(text, "\"workload\":\"test\",\"schema_version\":2,") != NULL);
		CHECK(strstr(text, "\"ranks\":2,\"nodes\":1,\"tasks_per_node\":2,") != NULL);
		CHECK(strstr(text, "\"params\":{\"block\":4096},\"filesystem\":{\"path\":\"") !=
		      NULL);
		CHECK(strstr(text, "\"type\":\"tmpfs\"") || strstr(text, "\"type\":\"ext4\"") ||
		      strstr(text, "\"type\":\"overlay\""));
		CHECK(strstr(text, "\"phase\":\"write\",\"iteration\":0,\"bytes\":4194304,"
		                   "\"seconds\":2,\"bandwidth_mib_s\":2,\"ops\":8,\"ops_per_s\":4,"
		                   "\"per_rank\":{\"n\":2,\"min\":1,\"min_rank\":0,\"max\":2,"
		                   "\"max_rank\":1,\"mean\":1.5,\"stddev\":0.5},\"latency\":null,"
		                   "\"finish\":null,\"verify\":{\"checked\":true,\"errors\":0,"
		                   "\"bytes_checked\":4194304}") != NULL);
		CHECK(strstr(text, ",\"score\":1.5}\n") != NULL);
		CHECK(strstr(text, "\"type\":\"summary\",\"run_id\":") != NULL);
		CHECK(strstr(text, "\"exit_code\":0,") != NULL);
		/* 3 us lies in [2976, 3008) ns, 10 us in [9984, 10112) ns, whose midpoint is above
		 * the maximum */
		CHECK(strstr(text, "\"latency\":{\"count\":2,\"p50\":2.9920000000000003e-06,"
		                   "\"p90\":1e-05,"
		                   "\"p99\":1e-05,\"p999\":1e-05,\"max\":1e-05,\"mean\":6.5e-06,"
		                   "\"percentiles\":\"log-linear-bucket-midpoint\","
		                   "\"error_rel\":0.0078125,"
		                   "\"histogram_ns\":[[2976,3008,1],[9984,10112,1]]}") != NULL);
		CHECK(strstr(text, "\"latency\":{\"count\":0,\"p50\":null,\"p90\":null,"
		                   "\"p99\":null,\"p999\":null,\"max\":null,\"mean\":null,"
		                   "\"percentiles\":\"exact\",\"error_rel\":null,"
		                   "\"histogram_ns\":[]}") != NULL);
		CHECK(strstr(text, "\"measurements\":3}\n") != NULL);
		text = slurp(csv);
		CHECK(strncmp(text, "run_id,workload,ranks,nodes,tasks_per_node,phase,", 49) == 0);
		CHECK_INT(count_lines(text), 4);
		CHECK(strstr(text,
		             ",2,2.992e-06,1e-05,1e-05,1e-05,1e-05,6.5e-06,"
		             "log-linear-bucket-midpoint,0.0078125,false,0,\"{}\",\"{}\"\n") !=
		      NULL);
		CHECK(strstr(text, ",0,,,,,,,exact,,false,0,") != NULL);
		/* The run's shape on the row; no latency: empty fields; params and extra as JSON.
		 */
		CHECK(strstr(text,
		             ",test,2,1,2,write,0,4194304,2,2,8,4,1,0,2,1,1.5,0.5,,,,,,,,,,true,0,"
		             "\"{\"\"t\"\":\"\"a,\\\"\"b\"\"}\",\"{}\"\n") != NULL);
	} else {
		CHECK(!sonde_results_active());
	}
	ends(&ctx, dir);
	refusals(dir);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		char cmd[160];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		CHECK_INT(system(cmd), 0);
	}
	sonde_topology_free(&ctx.topo);
	int code = check_finish("results");
	MPI_Finalize();
	return code;
}
