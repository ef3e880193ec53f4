/* SPDX-License-Identifier: BSD-3-Clause */
#include "topology.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		sonde_fatal("out of memory for the topology of the job");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		sonde_fatal("out of memory for the topology of the job");
	return d;
}

static void count_tasks(struct sonde_topology *t)
{
	t->tasks_on_node = xcalloc((size_t)t->nnodes, sizeof *t->tasks_on_node);
	for (int r = 0; r < t->size; r++)
		t->tasks_on_node[t->node_of_rank[r]]++;
	t->tasks_per_node = t->tasks_on_node[0];
	t->tasks_per_node_min = t->tasks_per_node_max = t->tasks_on_node[0];
	for (int n = 1; n < t->nnodes; n++) {
		if (t->tasks_on_node[n] < t->tasks_per_node_min)
			t->tasks_per_node_min = t->tasks_on_node[n];
		if (t->tasks_on_node[n] > t->tasks_per_node_max)
			t->tasks_per_node_max = t->tasks_on_node[n];
	}
}

static int digits_at(const char *s)
{
	return isdigit((unsigned char)*s);
}

int sonde_slurm_tasks_per_node_parse(const char *s, int *counts, int max)
{
	int n = 0;
	for (;;) {
		if (!digits_at(s))
			return -1;
		char *end;
		long v = strtol(s, &end, 10), reps = 1;
		if (v > INT_MAX)
			return -1;
		s = end;
		if (s[0] == '(') {
			if (s[1] != 'x' || !digits_at(s + 2))
				return -1;
			reps = strtol(s + 2, &end, 10);
			if (*end != ')' || reps < 1 || reps > INT_MAX - n)
				return -1;
			s = end + 1;
		}
		for (long i = 0; i < reps && n + i < max; i++)
			counts[n + i] = (int)v;
		n += (int)reps;
		if (*s == '\0')
			return n;
		if (*s++ != ',')
			return -1;
	}
}

/* "2(x3),1": the counts in Slurm's own notation, so a warning compares like with like. */
static void compress_counts(const int *c, int n, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < n && used < len;) {
		int j = i;
		while (j < n && c[j] == c[i])
			j++;
		int w = j - i > 1 ? snprintf(out + used, len - used, "%s%d(x%d)", i ? "," : "",
		                             c[i], j - i)
		                  : snprintf(out + used, len - used, "%s%d", i ? "," : "", c[i]);
		used += (size_t)w;
		i = j;
	}
	if (used >= len && len > 4)
		strcpy(out + len - 4, "...");
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Same counts, in any node order: Slurm lists nodes by name, MPI by lowest rank. */
static int same_counts(const int *a, const int *b, int n)
{
	int *x = xcalloc((size_t)n, sizeof *x), *y = xcalloc((size_t)n, sizeof *y);
	memcpy(x, a, (size_t)n * sizeof *x);
	memcpy(y, b, (size_t)n * sizeof *y);
	qsort(x, (size_t)n, sizeof *x, cmp_int);
	qsort(y, (size_t)n, sizeof *y, cmp_int);
	int same = memcmp(x, y, (size_t)n * sizeof *x) == 0;
	free(x);
	free(y);
	return same;
}

/* The first variable of names that is set (a job step's own view before the allocation's). */
static const char *env_first(const char *const *names, const char **which)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v) {
			*which = *names;
			return v;
		}
	}
	return NULL;
}

static int env_int(const char *const *names, int fallback)
{
	const char *which;
	const char *v = env_first(names, &which);
	return v ? atoi(v) : fallback;
}

int sonde_launcher_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
	                                   "SLURM_PROCID", NULL};
	return env_int(vars, 0);
}

/* The variables each kind of launcher sets for the processes it starts, with the launcher they
 * name: only those set per process by the launcher itself (a batch script has SLURM_NTASKS but
 * no SLURM_STEP_NUM_TASKS: it was not started by srun). */
static const char *const launcher_size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                                 "SLURM_STEP_NUM_TASKS", NULL};

int sonde_launcher_size(void)
{
	return env_int(launcher_size_vars, 1);
}

const char *sonde_launcher_kind(void)
{
	const char *which;
	if (!env_first(launcher_size_vars, &which))
		return NULL;
	if (strcmp(which, "OMPI_COMM_WORLD_SIZE") == 0)
		return "Open MPI's mpirun (OMPI_COMM_WORLD_SIZE)";
	if (strcmp(which, "PMI_SIZE") == 0)
		return "a PMI launcher such as MPICH's mpiexec (PMI_SIZE)";
	return "srun (SLURM_STEP_NUM_TASKS)";
}

static void check_slurm(const struct sonde_topology *t)
{
	static const char *const nnodes_vars[] = {"SLURM_STEP_NUM_NODES", "SLURM_NNODES",
	                                          "SLURM_JOB_NUM_NODES", NULL};
	static const char *const tpn_vars[] = {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE",
	                                       NULL};
	const char *name, *v;
	char mpi_view[256];
	compress_counts(t->tasks_on_node, t->nnodes, mpi_view, sizeof mpi_view);

	if ((v = env_first(nnodes_vars, &name)) && atoi(v) != t->nnodes)
		sonde_warn("%s=%s, but MPI places the %d ranks on %d node%s", name, v, t->size,
		           t->nnodes, t->nnodes == 1 ? "" : "s");

	if ((v = env_first(tpn_vars, &name))) {
		int n = sonde_slurm_tasks_per_node_parse(v, NULL, 0);
		if (n < 0) {
			sonde_warn("%s=%s is not a tasks-per-node list; MPI sees %s", name, v,
			           mpi_view);
		} else if (n != t->nnodes) {
			sonde_warn("%s=%s, but MPI sees %s tasks per node", name, v, mpi_view);
		} else {
			int *c = xcalloc((size_t)n, sizeof *c);
			sonde_slurm_tasks_per_node_parse(v, c, n);
			if (!same_counts(c, t->tasks_on_node, n))
				sonde_warn("%s=%s, but MPI sees %s tasks per node", name, v,
				           mpi_view);
			free(c);
		}
	}

	v = getenv("SLURM_NTASKS_PER_NODE");
	if (v && *v && (atoi(v) != t->tasks_per_node_min || atoi(v) != t->tasks_per_node_max))
		sonde_warn("SLURM_NTASKS_PER_NODE=%s, but MPI sees %s tasks per node", v, mpi_view);
}

static void slurm_ids(struct sonde_topology *t)
{
	static const char *const job[] = {"SLURM_JOB_ID", "SLURM_JOBID", NULL};
	static const char *const nodelist[] = {"SLURM_JOB_NODELIST", "SLURM_NODELIST", NULL};
	const char *name;
	t->slurm_job_id = env_first(job, &name);
	t->slurm_nodelist = env_first(nodelist, &name);
}

int sonde_topology_init(MPI_Comm comm, struct sonde_topology *t)
{
	memset(t, 0, sizeof *t);
	MPI_Comm_rank(comm, &t->rank);
	MPI_Comm_size(comm, &t->size);

	/* Ranks keep their order inside a node, so a node's local rank 0 is its lowest rank, and
	 * numbering those leaders by rank numbers the nodes by their lowest rank. */
	MPI_Comm node, leaders;
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &t->local_rank);
	MPI_Comm_size(node, &t->local_size);
	MPI_Comm_split(comm, t->local_rank == 0 ? 0 : MPI_UNDEFINED, t->rank, &leaders);

	int ids[2] = {0, 0};
	char name[MPI_MAX_PROCESSOR_NAME] = "";
	if (leaders != MPI_COMM_NULL) {
		MPI_Comm_rank(leaders, &ids[0]);
		MPI_Comm_size(leaders, &ids[1]);
		int len;
		MPI_Get_processor_name(name, &len);
	}
	MPI_Bcast(ids, 2, MPI_INT, 0, node);
	t->node_id = ids[0];
	t->nnodes = ids[1];

	t->node_of_rank = xcalloc((size_t)t->size, sizeof *t->node_of_rank);
	MPI_Allgather(&t->node_id, 1, MPI_INT, t->node_of_rank, 1, MPI_INT, comm);
	count_tasks(t);

	/* One name per node: leaders exchange theirs, then each shares the list with its node. */
	char *names = xcalloc((size_t)t->nnodes, MPI_MAX_PROCESSOR_NAME);
	if (leaders != MPI_COMM_NULL)
		MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
		              MPI_CHAR, leaders);
	MPI_Bcast(names, t->nnodes * MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, node);
	t->node_names = xcalloc((size_t)t->nnodes, sizeof *t->node_names);
	for (int n = 0; n < t->nnodes; n++) {
		names[(size_t)(n + 1) * MPI_MAX_PROCESSOR_NAME - 1] = '\0';
		t->node_names[n] = xstrdup(names + (size_t)n * MPI_MAX_PROCESSOR_NAME);
	}
	free(names);
	if (leaders != MPI_COMM_NULL)
		MPI_Comm_free(&leaders);
	MPI_Comm_free(&node);

	slurm_ids(t);
	/* Slurm describes the whole job: compare only when this communicator is all of it. */
	int world_rank, world_size;
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world_size);
	if (t->slurm_job_id && world_rank == 0 && t->size == world_size)
		check_slurm(t);
	return 0;
}

void sonde_topology_single(struct sonde_topology *t)
{
	memset(t, 0, sizeof *t);
	t->size = t->nnodes = t->local_size = 1;
	t->node_of_rank = xcalloc(1, sizeof *t->node_of_rank);
	count_tasks(t);
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0)
		strcpy(host, "localhost");
	t->node_names = xcalloc(1, sizeof *t->node_names);
	t->node_names[0] = xstrdup(host);
	slurm_ids(t);
}

void sonde_topology_planned(struct sonde_topology *t, int ranks, int tasks_per_node)
{
	memset(t, 0, sizeof *t);
	t->size = ranks;
	t->nnodes = (ranks + tasks_per_node - 1) / tasks_per_node;
	t->node_of_rank = xcalloc((size_t)ranks, sizeof *t->node_of_rank);
	for (int r = 0; r < ranks; r++)
		t->node_of_rank[r] = r / tasks_per_node;
	count_tasks(t);
	t->local_size = t->tasks_on_node[0];
	t->node_names = xcalloc((size_t)t->nnodes, sizeof *t->node_names);
	for (int n = 0; n < t->nnodes; n++)
		t->node_names[n] = xstrdup("");
	slurm_ids(t);
}

const char *sonde_host_of(const struct sonde_topology *t, int rank)
{
	return t->node_names[t->node_of_rank[rank]];
}

void sonde_topology_free(struct sonde_topology *t)
{
	if (t->node_names)
		for (int n = 0; n < t->nnodes; n++)
			free(t->node_names[n]);
	free(t->node_names);
	free(t->node_of_rank);
	free(t->tasks_on_node);
	memset(t, 0, sizeof *t);
}
