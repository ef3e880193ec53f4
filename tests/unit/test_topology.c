/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 4
/* Topology: node ids by lowest rank, tasks per node and node names, checked against each rank's
 * own host name (so the test holds on one machine and under tests/uts-agent.sh, where every
 * "host" is a UTS namespace with its own name); the Slurm cross-check warnings; the parser of
 * Slurm's tasks-per-node lists. Prints one "topology:" line per rank for the integration test. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "topology.h"

static void test_parse(void)
{
	int c[8];
	CHECK_INT(sonde_slurm_tasks_per_node_parse("2(x3),1", c, 8), 4);
	CHECK_INT(c[0], 2);
	CHECK_INT(c[2], 2);
	CHECK_INT(c[3], 1);
	CHECK_INT(sonde_slurm_tasks_per_node_parse("16", c, 8), 1);
	CHECK_INT(c[0], 16);
	CHECK_INT(sonde_slurm_tasks_per_node_parse("1,2,3", c, 8), 3);
	CHECK_INT(c[1], 2);
	CHECK_INT(sonde_slurm_tasks_per_node_parse("4(x2),3,1(x1)", c, 8), 4);
	CHECK_INT(c[1], 4);
	CHECK_INT(c[2], 3);
	CHECK_INT(c[3], 1);
	/* More nodes than room: counted, the first ones stored, nothing written beyond. */
	c[2] = -7;
	CHECK_INT(sonde_slurm_tasks_per_node_parse("5(x1000)", c, 2), 1000);
	CHECK_INT(c[1], 5);
	CHECK_INT(c[2], -7);
	CHECK_INT(sonde_slurm_tasks_per_node_parse("1(x100000),2", NULL, 0), 100001);

	const char *bad[] = {"",       "x",           "2(x",    "2(3)",  "2(x0)", "2(x3",
	                     "2,,3",   "2,",          ",2",     "-1",    " 2",    "2 ",
	                     "2(x-1)", "99999999999", "2(x3)4", "2(x3)x"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int got = sonde_slurm_tasks_per_node_parse(bad[i], c, 8);
		if (got != -1)
			check_fail(__FILE__, __LINE__, "\"%s\" parsed as %d nodes", bad[i], got);
		check_count++;
	}
}

/* What the topology must be, derived from every rank's host name alone. */
static void test_against_hostnames(MPI_Comm comm, const struct sonde_topology *t)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	char host[MPI_MAX_PROCESSOR_NAME] = "";
	int len;
	MPI_Get_processor_name(host, &len);
	char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
	MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
	              comm);
	int *node = calloc((size_t)size, sizeof *node), nnodes = 0;
	for (int r = 0; r < size; r++) {
		node[r] = -1;
		for (int q = 0; q < r && node[r] < 0; q++)
			if (strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
			           all + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0)
				node[r] = node[q];
		if (node[r] < 0)
			node[r] = nnodes++;
	}
	CHECK_INT(t->rank, rank);
	CHECK_INT(t->size, size);
	CHECK_INT(t->nnodes, nnodes);
	CHECK_INT(t->node_id, node[rank]);
	int local_rank = 0, local_size = 0, on0 = 0, lo = size, hi = 0;
	for (int r = 0; r < size; r++) {
		CHECK_INT(t->node_of_rank[r], node[r]);
		local_size += node[r] == node[rank];
		local_rank += node[r] == node[rank] && r < rank;
		on0 += node[r] == 0;
	}
	CHECK_INT(t->local_rank, local_rank);
	CHECK_INT(t->local_size, local_size);
	CHECK_INT(t->tasks_per_node, on0);
	for (int n = 0; n < nnodes; n++) {
		int count = 0;
		for (int r = 0; r < size; r++)
			count += node[r] == n;
		CHECK_INT(t->tasks_on_node[n], count);
		lo = count < lo ? count : lo;
		hi = count > hi ? count : hi;
		for (int r = 0; r < size; r++)
			if (node[r] == n) {
				CHECK_STR(t->node_names[n],
				          all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
				break;
			}
	}
	CHECK_INT(t->tasks_per_node_min, lo);
	CHECK_INT(t->tasks_per_node_max, hi);
	free(node);
	free(all);
}

static const char *const slurm_vars[] = {"SLURM_JOB_ID",
                                         "SLURM_JOBID",
                                         "SLURM_JOB_NODELIST",
                                         "SLURM_NODELIST",
                                         "SLURM_NNODES",
                                         "SLURM_JOB_NUM_NODES",
                                         "SLURM_TASKS_PER_NODE",
                                         "SLURM_NTASKS_PER_NODE",
                                         "SLURM_STEP_NUM_NODES",
                                         "SLURM_STEP_TASKS_PER_NODE",
                                         NULL};

/* Runs sonde_topology_init on comm and returns what this rank printed on stderr. */
static void init_captured(MPI_Comm comm, struct sonde_topology *t, char *out, size_t len)
{
	char path[] = "/tmp/sonde-test-topology-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	sonde_topology_init(comm, t);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* The same, with exactly the given Slurm variables set (name, value, ..., NULL). */
static void init_with_slurm(const char *const *env, struct sonde_topology *t, char *out, size_t len)
{
	for (int i = 0; slurm_vars[i]; i++)
		unsetenv(slurm_vars[i]);
	for (int i = 0; env[i]; i += 2)
		setenv(env[i], env[i + 1], 1);
	init_captured(MPI_COMM_WORLD, t, out, len);
	for (int i = 0; slurm_vars[i]; i++)
		unsetenv(slurm_vars[i]);
}

static void test_slurm(const struct sonde_topology *mpi, int rank)
{
	char tpn[64], nn[16], bad_nn[16], out[4096];
	snprintf(tpn, sizeof tpn, "%d(x%d)", mpi->tasks_per_node, mpi->nnodes);
	snprintf(nn, sizeof nn, "%d", mpi->nnodes);
	snprintf(bad_nn, sizeof bad_nn, "%d", mpi->nnodes + 2);
	struct sonde_topology t;

	/* Agreeing (when nodes are even): silent, and the job id and node list are kept. */
	const char *agree[] = {"SLURM_JOB_ID",
	                       "4242",
	                       "SLURM_JOB_NODELIST",
	                       "node[01-02]",
	                       "SLURM_NNODES",
	                       nn,
	                       "SLURM_TASKS_PER_NODE",
	                       tpn,
	                       NULL};
	init_with_slurm(agree, &t, out, sizeof out);
	if (mpi->tasks_per_node_min == mpi->tasks_per_node_max)
		CHECK_STR(out, "");
	CHECK_STR(t.slurm_job_id, "4242");
	CHECK_STR(t.slurm_nodelist, "node[01-02]");
	sonde_topology_free(&t);

	/* Disagreeing: rank 0 names both views, once each. */
	char more[64];
	snprintf(more, sizeof more, "%d,1", mpi->tasks_per_node + 1);
	const char *disagree[] = {"SLURM_JOB_ID",
	                          "4242",
	                          "SLURM_NNODES",
	                          bad_nn,
	                          "SLURM_TASKS_PER_NODE",
	                          more,
	                          "SLURM_NTASKS_PER_NODE",
	                          "64",
	                          NULL};
	init_with_slurm(disagree, &t, out, sizeof out);
	if (rank == 0) {
		char want[256];
		snprintf(want, sizeof want,
		         "SLURM_NNODES=%s, but MPI places the %d ranks on %d node", bad_nn, t.size,
		         t.nnodes);
		CHECK(strstr(out, want) != NULL);
		snprintf(want, sizeof want,
		         "SLURM_TASKS_PER_NODE=%s, but MPI sees %s tasks per node", more,
		         mpi->nnodes == 1 ? "4" : "2(x2)");
		if (mpi->size == 4 && mpi->tasks_per_node_min == mpi->tasks_per_node_max)
			CHECK(strstr(out, want) != NULL);
		CHECK(strstr(out, "SLURM_NTASKS_PER_NODE=64, but MPI sees") != NULL);
		int lines = 0;
		for (char *c = out; *c; c++)
			lines += *c == '\n';
		CHECK_INT(lines, 3);
		if (lines != 3)
			fprintf(stderr, "%s", out);
	} else {
		CHECK_STR(out, "");
	}
	sonde_topology_free(&t);

	/* The step's own view wins over the allocation's. */
	const char *step[] = {"SLURM_JOB_ID",
	                      "1",
	                      "SLURM_NNODES",
	                      bad_nn,
	                      "SLURM_STEP_NUM_NODES",
	                      nn,
	                      "SLURM_TASKS_PER_NODE",
	                      "junk",
	                      "SLURM_STEP_TASKS_PER_NODE",
	                      tpn,
	                      NULL};
	init_with_slurm(step, &t, out, sizeof out);
	if (mpi->tasks_per_node_min == mpi->tasks_per_node_max)
		CHECK_STR(out, "");
	sonde_topology_free(&t);

	/* A malformed list is named as such. */
	const char *junk[] = {"SLURM_JOB_ID", "1", "SLURM_TASKS_PER_NODE", "2(x", NULL};
	init_with_slurm(junk, &t, out, sizeof out);
	if (rank == 0)
		CHECK(strstr(out, "SLURM_TASKS_PER_NODE=2(x is not a tasks-per-node list") != NULL);
	sonde_topology_free(&t);
}

/* The launcher's rank and size without MPI: the MPI launcher's variables win over Slurm's, and
 * the batch script's job size is no process count. Runs on a copy of nothing: every variable
 * the lookup reads is cleared first, and the launcher's own are put back afterwards. */
static void test_launcher(void)
{
	static const char *const names[] = {
	    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",   "PMI_RANK", "PMI_SIZE",
	    "SLURM_PROCID",         "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"};
	enum { N = sizeof names / sizeof *names };
	char *saved[N];
	for (int i = 0; i < N; i++) {
		saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
		unsetenv(names[i]);
	}
	CHECK_INT(sonde_launcher_rank(), 0);
	CHECK_INT(sonde_launcher_size(), 1);

	/* srun: its step's variables */
	setenv("SLURM_PROCID", "3", 1);
	setenv("SLURM_STEP_NUM_TASKS", "4", 1);
	setenv("SLURM_NTASKS", "4", 1);
	CHECK_INT(sonde_launcher_rank(), 3);
	CHECK_INT(sonde_launcher_size(), 4);

	/* an sbatch script: SLURM_PROCID=0 and the job's SLURM_NTASKS, but no step: one process */
	unsetenv("SLURM_STEP_NUM_TASKS");
	setenv("SLURM_PROCID", "0", 1);
	CHECK_INT(sonde_launcher_rank(), 0);
	CHECK_INT(sonde_launcher_size(), 1);

	/* mpirun inside it: every rank inherits SLURM_PROCID=0; Open MPI's variables decide */
	setenv("OMPI_COMM_WORLD_RANK", "1", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
	CHECK_INT(sonde_launcher_rank(), 1);
	CHECK_INT(sonde_launcher_size(), 2);

	/* MPICH's hydra (PMI), and PMIx without Open MPI's own; an empty value says nothing */
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("OMPI_COMM_WORLD_SIZE");
	setenv("PMI_RANK", "5", 1);
	setenv("PMI_SIZE", "6", 1);
	CHECK_INT(sonde_launcher_rank(), 5);
	CHECK_INT(sonde_launcher_size(), 6);
	setenv("PMIX_RANK", "2", 1);
	CHECK_INT(sonde_launcher_rank(), 2);
	setenv("PMIX_RANK", "", 1);
	CHECK_INT(sonde_launcher_rank(), 5);

	for (int i = 0; i < N; i++) {
		if (saved[i])
			setenv(names[i], saved[i], 1);
		else
			unsetenv(names[i]);
		free(saved[i]);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	test_parse();
	test_launcher();

	/* Launched by srun: Slurm's view of the step is MPI's, so no warning. */
	char out[4096];
	struct sonde_topology t;
	if (getenv("SLURM_PROCID") && getenv("SLURM_STEP_ID")) {
		init_captured(MPI_COMM_WORLD, &t, out, sizeof out);
		CHECK_STR(out, "");
		CHECK(t.slurm_job_id != NULL);
		sonde_topology_free(&t);
	}

	/* Outside Slurm for the plain checks, whatever launched the test. */
	const char *none[] = {NULL};
	init_with_slurm(none, &t, out, sizeof out);
	CHECK_STR(out, "");
	CHECK(t.slurm_job_id == NULL);
	test_against_hostnames(MPI_COMM_WORLD, &t);
	printf("topology: rank=%d size=%d nnodes=%d node=%d local_rank=%d local_size=%d tpn=%d "
	       "name=%s\n",
	       t.rank, t.size, t.nnodes, t.node_id, t.local_rank, t.local_size, t.tasks_per_node,
	       t.node_names[t.node_id]);
	fflush(stdout);
	test_slurm(&t, rank);
	sonde_topology_free(&t);
	CHECK(t.node_of_rank == NULL);

	/* A sub-communicator: the upper half, alone. */
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
	sonde_topology_init(half, &t);
	test_against_hostnames(half, &t);
	sonde_topology_free(&t);
	MPI_Comm_free(&half);

	/* Without MPI's help. */
	sonde_topology_single(&t);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	CHECK_INT(t.size, 1);
	CHECK_INT(t.nnodes, 1);
	CHECK_INT(t.tasks_per_node, 1);
	CHECK_INT(t.tasks_on_node[0], 1);
	CHECK_INT(t.node_of_rank[0], 0);
	CHECK_STR(t.node_names[0], host);
	sonde_topology_free(&t);

	/* A launch still to come (sonde --parse-only): 5 ranks, 2 per node, in blocks. */
	sonde_topology_planned(&t, 5, 2);
	CHECK_INT(t.size, 5);
	CHECK_INT(t.nnodes, 3);
	CHECK_INT(t.tasks_per_node, 2);
	CHECK_INT(t.local_size, 2);
	CHECK_INT(t.tasks_per_node_min, 1);
	CHECK_INT(t.tasks_per_node_max, 2);
	CHECK_INT(t.node_of_rank[1], 0);
	CHECK_INT(t.node_of_rank[2], 1);
	CHECK_INT(t.node_of_rank[4], 2);
	CHECK_STR(t.node_names[2], "");
	sonde_topology_free(&t);
	/* more tasks per node than ranks: one node holds them all */
	sonde_topology_planned(&t, 3, 64);
	CHECK_INT(t.nnodes, 1);
	CHECK_INT(t.tasks_per_node, 3);
	sonde_topology_free(&t);

	int failed = check_finish("test_topology"), any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
