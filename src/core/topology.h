/* SPDX-License-Identifier: BSD-3-Clause */
/* Where ranks run: node ids from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), numbered in the
 * order of each node's lowest rank (node 0 holds rank 0), node names, tasks per node; and the
 * Slurm view (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NTASKS_PER_NODE...) cross-checked. */
#ifndef SONDE_TOPOLOGY_H
#define SONDE_TOPOLOGY_H

#include <mpi.h>

struct sonde_topology {
	int rank, size;
	int node_id; /* this rank's node */
	int nnodes;
	int local_rank;     /* rank within its node */
	int local_size;     /* ranks on this rank's node */
	int *node_of_rank;  /* [size] node id of every rank */
	int *tasks_on_node; /* [nnodes] */
	int tasks_per_node; /* ranks on node 0 (IOR's notion) */
	int tasks_per_node_min, tasks_per_node_max;
	char **node_names;        /* [nnodes] host name of each node */
	const char *slurm_job_id; /* NULL outside Slurm */
	const char *slurm_nodelist;
};

/* The host name of a rank (its node's name, MPI_Get_processor_name): every rank knows every
 * rank's, without another gather. */
const char *sonde_host_of(const struct sonde_topology *t, int rank);

/* Collective. Returns 0. Warns (rank 0) when SLURM_* variables disagree with MPI's view. */
int sonde_topology_init(MPI_Comm comm, struct sonde_topology *t);
/* A one-process topology for runs without MPI. */
void sonde_topology_single(struct sonde_topology *t);
/* The topology of a launch still to come, as its rank 0 will see it (sonde --parse-only):
 * ranks placed in blocks of tasks_per_node (the last node may hold fewer), node names unknown
 * (empty). */
void sonde_topology_planned(struct sonde_topology *t, int ranks, int tasks_per_node);
void sonde_topology_free(struct sonde_topology *t);

/* Before MPI_Init, or without MPI, a process knows its place only from its launcher's
 * environment. The MPI launchers' variables come first (OMPI_COMM_WORLD_*, PMIX_RANK, PMI_*):
 * mpirun inside an sbatch job passes the batch script's SLURM_PROCID=0 on to every rank. Then
 * srun's: SLURM_PROCID, and SLURM_STEP_NUM_TASKS, which only a step has (the batch script's
 * SLURM_NTASKS is the job's size, not the number of processes started). 0 and 1 when nothing
 * says. */
int sonde_launcher_rank(void);
int sonde_launcher_size(void);
/* Which launcher the size comes from, as a phrase for a message ("srun (SLURM_STEP_NUM_TASKS)"),
 * or NULL when no launcher says. */
const char *sonde_launcher_kind(void);

/* Slurm's compressed tasks per node ("2(x3),1" = 2,2,2,1, as in SLURM_TASKS_PER_NODE): stores
 * the first max counts and returns how many nodes the string describes, or -1 if malformed. */
int sonde_slurm_tasks_per_node_parse(const char *s, int *counts, int max);

#endif
