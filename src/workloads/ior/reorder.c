/* SPDX-License-Identifier: BSD-3-Clause */
/* IOR's read-back rank offsets. The C library's rand() is used on purpose: IOR draws -Z
 * offsets with it, and the same library gives the same offsets for the same seed. */
#include "workloads/ior/reorder.h"

#include <stdlib.h>

int ior_node_stride(const struct ior_mapping *m)
{
	return m->block ? m->tasks_on_node0 : 1;
}

int ior_offset_constant(const struct ior_mapping *m, int q)
{
	return (int)(((long long)q * ior_node_stride(m)) % m->ntasks);
}

int ior_offset_check(const struct ior_mapping *m, int q)
{
	return (int)(((long long)(q + 1) * ior_node_stride(m)) % m->ntasks);
}

static unsigned seed_of(int x, int rep)
{
	return x < 0 ? (unsigned)(-x + rep) : (unsigned)x;
}

int ior_offset_random(const struct ior_mapping *m, int q, int x, int rep, int rank)
{
	int nodeoffset = q < m->nnodes ? q : m->nnodes - 1;
	srand((unsigned)rank + seed_of(x, rep));
	int off = rand() % m->ntasks;
	while (off < nodeoffset * m->tasks_on_node0)
		off = rand() % m->ntasks;
	return off;
}

int ior_offset_shuffle(const struct ior_mapping *m, int x, int rep, int rank)
{
	int n = m->ntasks;
	int *perm = calloc((size_t)n, sizeof *perm);
	if (!perm)
		abort();
	for (int i = 0; i < n; i++)
		perm[i] = i;
	srand(seed_of(x, rep));
	for (int i = 0; i < n; i++) {
		int tgt = i + rand() % (n - i);
		int tmp = perm[tgt];
		perm[tgt] = perm[i];
		perm[i] = tmp;
	}
	/* IOR reads rank perm[rank]; as an offset, subtracting the rank (it may be negative, and
	 * (rank + offset) mod n stays right once normalised). */
	int off = ((perm[rank] - rank) % n + n) % n;
	free(perm);
	return off;
}

int ior_same_node_reads(const int *node_of_rank, int ntasks, const int *offset_of_rank)
{
	int same = 0;
	for (int r = 0; r < ntasks; r++)
		if (node_of_rank[r] == node_of_rank[(r + offset_of_rank[r]) % ntasks])
			same++;
	return same;
}
