/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's case coll_percall (bench/README.md): sonde coll's per-call kernel and the plainest
 * loop that measures a collective the OSU/IMB way, taking turns in one launch.
 *
 * Why one launch: on a VM, whole launches of the same 2-rank program land in one of two modes
 * about 2x apart (an 8-byte Bcast takes 0.15 or 0.34 us) and stay in it for several launches;
 * launches within a mode still differ by 5-7 %. A sonde launch against a reference launch then
 * measures the modes more than the kernels. Here both kernels run in the same processes, with
 * the same buffers, moments apart: the launch's mode divides out of their ratio.
 *
 * sonde's side: coll_measure with the per-call kernel, as `sonde coll --per-call -i N` runs it
 * (one call to prime, five to estimate, N measured: barrier, clock, the call through sonde's
 * operation table, clock), its time per call averaged over ranks, as sonde's Avg. The
 * reference: per iteration MPI_Barrier, MPI_Wtime, the MPI call written out, MPI_Wtime, after
 * six warm-up calls; the same average. Both start from sonde's start-up state: the node layout
 * learnt by splitting MPI_COMM_WORLD (sonde_topology_init), which with Open MPI 4.1 leaves the
 * libnbc progress function registered for every later poll.
 *
 * usage: coll_pair <Bcast|Allreduce|Alltoall> <bytes> <iterations> <pairs> <sonde|ref>
 * The last argument says which side goes first in the first pair; the sides alternate after.
 * Rank 0 prints {"sonde_us": [...], "ref_us": [...]}, a time per call for each pair. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "topology.h"
#include "workloads/coll/coll.h"

#define WARMUP_CALLS 6 /* sonde's prime and estimate calls */

/* The operations the bare loop writes out, by their sonde names. */
enum bare_op { BARE_BCAST, BARE_ALLREDUCE, BARE_ALLTOALL, BARE_OPS };
static const char *const bare_names[BARE_OPS] = {"Bcast", "Allreduce", "Alltoall"};

/* The bare loop's operation named so, or BARE_OPS. */
static enum bare_op bare_named(const char *name)
{
	enum bare_op k = 0;
	while (k < BARE_OPS && strcmp(bare_names[k], name) != 0)
		k++;
	return k;
}

/* sonde's operation of that name, from its table */
static const struct coll_op *sonde_op(const char *name)
{
	for (int i = 0; i < coll_nops; i++)
		if (strcmp(coll_ops[i].name, name) == 0)
			return &coll_ops[i];
	return NULL;
}

/* The time per call averaged over ranks, as sonde's Avg (report.c) takes it. */
static double mean_over_ranks(double mine)
{
	struct sonde_stats across;
	sonde_stats_across(MPI_COMM_WORLD, mine, &across);
	return across.mean;
}

static double sonde_kernel(struct coll_call *c, int iters)
{
	struct coll_cfg cfg = {
	    .iters = iters, .timing = COLL_TIMING_PERCALL, .per_call = 1, .whole = MPI_COMM_WORLD};
	struct coll_result r;
	coll_measure(&cfg, c, &r);
	if (r.iters != iters || r.estimate_only) {
		fprintf(stderr, "coll_pair: sonde's kernel ran %d iterations, not %d\n", r.iters,
		        iters);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double per_call = r.per_iter_s;
	coll_result_free(&r);
	return mean_over_ranks(per_call);
}

/* Between the two clock reads: the operation chosen by an integer, as sonde's by a pointer. */
static double bare_loop(enum bare_op op, const struct coll_call *c, int iters)
{
	char *sbuf = c->b->sbuf, *rbuf = c->b->rbuf;
	double total = 0;
	for (int i = -WARMUP_CALLS; i < iters; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		switch (op) {
		case BARE_BCAST:
			MPI_Bcast(c->rank == 0 ? sbuf : rbuf, c->count, MPI_BYTE, 0,
			          MPI_COMM_WORLD);
			break;
		case BARE_ALLREDUCE:
			MPI_Allreduce(sbuf, rbuf, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			break;
		default:
			MPI_Alltoall(sbuf, c->count, MPI_BYTE, rbuf, c->count, MPI_BYTE,
			             MPI_COMM_WORLD);
			break;
		}
		double dt = MPI_Wtime() - t0;
		if (i >= 0)
			total += dt;
	}
	return mean_over_ranks(total / iters);
}

static void print_list(const char *key, const double *v, int n, const char *end)
{
	printf("\"%s\": [", key);
	for (int i = 0; i < n; i++)
		printf("%s%.6f", i ? ", " : "", v[i] * 1e6);
	printf("]%s", end);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	struct sonde_topology topo;
	if (sonde_topology_init(MPI_COMM_WORLD, &topo) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	sonde_topology_free(&topo);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	enum bare_op bare = argc == 6 ? bare_named(argv[1]) : BARE_OPS;
	const struct coll_op *op = bare < BARE_OPS ? sonde_op(argv[1]) : NULL;
	long bytes = argc == 6 ? atol(argv[2]) : 0;
	int iters = argc == 6 ? atoi(argv[3]) : 0, pairs = argc == 6 ? atoi(argv[4]) : 0;
	int sonde_first = argc == 6 && strcmp(argv[5], "sonde") == 0;
	if (!op || bytes < 8 || bytes > INT_MAX || iters < 1 || pairs < 1 ||
	    (!sonde_first && strcmp(argv[5], "ref") != 0)) {
		if (rank == 0)
			fprintf(stderr, "usage: coll_pair <Bcast|Allreduce|Alltoall> <bytes >= 8> "
			                "<iterations> <pairs> <sonde|ref>\n");
		MPI_Finalize();
		return 2;
	}

	struct coll_buffers b;
	if (coll_buffers_alloc(&b, bytes, size) != 0) {
		fprintf(stderr, "coll_pair: no memory for %ld-byte buffers\n", bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int reduction = (op->flags & COLL_REDUCTION) != 0;
	struct coll_call c = {.op = op,
	                      .comm = MPI_COMM_WORLD,
	                      .rank = rank,
	                      .nranks = size,
	                      .world_rank = rank,
	                      .size = bytes,
	                      .count = (int)(reduction ? bytes / 8 : bytes),
	                      .type = reduction ? MPI_DOUBLE : MPI_BYTE,
	                      .b = &b};
	double *mine = malloc(sizeof *mine * (size_t)pairs);
	double *ref = malloc(sizeof *ref * (size_t)pairs);
	if (!mine || !ref)
		MPI_Abort(MPI_COMM_WORLD, 1);
	/* sonde's fill (coll_measure fills again before each of its runs, to the same bytes) */
	coll_set_span(&c);
	coll_fill(&c);
	for (int p = 0; p < pairs; p++) {
		if ((p % 2 == 0) == sonde_first) {
			mine[p] = sonde_kernel(&c, iters);
			ref[p] = bare_loop(bare, &c, iters);
		} else {
			ref[p] = bare_loop(bare, &c, iters);
			mine[p] = sonde_kernel(&c, iters);
		}
	}
	if (rank == 0) {
		printf("{");
		print_list("sonde_us", mine, pairs, ", ");
		print_list("ref_us", ref, pairs, "}\n");
	}
	free(mine);
	free(ref);
	coll_buffers_free(&b);
	MPI_Finalize();
	return 0;
}
