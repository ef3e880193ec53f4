// ranks: 2
/* The results writer: records land as whole lines, in order, appended to an existing file,
 * with the figures derived from what the workload passed; only rank 0 writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	CHECK_INT(sonde_results_open("test", json, csv, err, sizeof err), 0);
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
	sonde_results_record("summary", "test", "{\"score\":1.5}");
	sonde_results_record("summary", "test", "{}");
	sonde_results_close(0);
	sonde_results_close(0); /* a second close (from sonde_exit) is harmless */

	if (rank == 0) {
		const char *text = slurp(json);
		CHECK(text != NULL);
		CHECK_INT(count_lines(text), 6);
		CHECK(strncmp(text, "{\"type\":\"earlier\"}\n{\"type\":\"header\",\"run_id\":\"",
		              45) == 0);
		CHECK(strstr(text, "\"workload\":\"test\",\"schema_version\":1,") != NULL);
		CHECK(strstr(text, "\"ranks\":2,\"nodes\":1,\"tasks_per_node\":2,") != NULL);
		CHECK(strstr(text, "\"params\":{\"block\":4096},\"filesystem\":{\"path\":\"") !=
		      NULL);
		CHECK(strstr(text, "\"type\":\"tmpfs\"") || strstr(text, "\"type\":\"ext4\"") ||
		      strstr(text, "\"type\":\"overlay\""));
		CHECK(strstr(
		          text,
		          "\"phase\":\"write\",\"iteration\":0,\"bytes\":4194304,"
		          "\"seconds\":2,\"bandwidth_mib_s\":2,\"ops\":8,\"ops_per_s\":4,"
		          "\"per_rank\":{\"n\":2,\"min\":1,\"min_rank\":0,\"max\":2,"
		          "\"max_rank\":1,\"mean\":1.5,\"stddev\":0.5},\"latency\":null,"
		          "\"verify\":{\"checked\":true,\"errors\":0,\"bytes_checked\":4194304}") !=
		      NULL);
		CHECK(strstr(text, ",\"score\":1.5}\n") != NULL);
		CHECK(strstr(text, "\"type\":\"summary\",\"run_id\":") != NULL);
		CHECK(strstr(text, "\"exit_code\":0,") != NULL);
		CHECK(strstr(text, "\"measurements\":1}\n") != NULL);
		text = slurp(csv);
		CHECK(strncmp(text, "run_id,workload,phase,", 22) == 0);
		CHECK_INT(count_lines(text), 2);
		CHECK(strstr(text, ",test,write,0,4194304,2,2,8,4,1,0,2,1,1.5,0.5,,,,,true,0,"
		                   "\"{\"\"t\"\":\"\"a,\\\"\"b\"\"}\"\n") != NULL);
		char cmd[160];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		CHECK_INT(system(cmd), 0);
	} else {
		CHECK(!sonde_results_active());
	}
	sonde_topology_free(&ctx.topo);
	int code = check_finish("results");
	MPI_Finalize();
	return code;
}
