/* SPDX-License-Identifier: BSD-3-Clause */
/* IOR's read-back reordering and offset arithmetic (sonde ior), checked against hand-worked
 * cases, including the JUPITER rule -Q = tasks per node on 16 nodes of 64 tasks. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "workloads/ior/layout.h"
#include "workloads/ior/reorder.h"

static void constant_shift(void)
{
	struct ior_mapping block = {.ntasks = 4, .tasks_on_node0 = 2, .nnodes = 2, .block = 1};
	struct ior_mapping rr = {.ntasks = 4, .tasks_on_node0 = 2, .nnodes = 2, .block = 0};
	CHECK_INT(ior_node_stride(&block), 2);
	CHECK_INT(ior_node_stride(&rr), 1);
	CHECK_INT(ior_offset_constant(&block, 1), 2); /* one node away */
	CHECK_INT(ior_offset_constant(&block, 2), 0); /* two nodes of two: wraps to itself */
	CHECK_INT(ior_offset_constant(&block, 3), 2);
	CHECK_INT(ior_offset_constant(&rr, 1), 1);
	CHECK_INT(ior_offset_constant(&rr, 2), 2);
	/* -W reads (Q + 1) nodes away (IOR 4.1), so -Q moves the check too */
	CHECK_INT(ior_offset_check(&block, 1), 0);
	CHECK_INT(ior_offset_check(&rr, 1), 2);
	CHECK_INT(ior_offset_check(&rr, 2), 3);
	CHECK_INT(ior_offset_check(&block, 2), 2);
	/* JUPITER: 16 nodes x 64 tasks, -Q 64 = 64 nodes = 4 x 16: no shift at all */
	struct ior_mapping jup = {.ntasks = 1024, .tasks_on_node0 = 64, .nnodes = 16, .block = 1};
	CHECK_INT(ior_offset_constant(&jup, 64), 0);
	CHECK_INT(ior_offset_constant(&jup, 1), 64);
	CHECK_INT(ior_offset_constant(&jup, 17), 64);
	/* one node: the shift is the node's task count, i.e. 0 */
	struct ior_mapping one = {.ntasks = 8, .tasks_on_node0 = 8, .nnodes = 1, .block = 1};
	CHECK_INT(ior_offset_constant(&one, 1), 0);
}

static void random_shift(void)
{
	struct ior_mapping m = {.ntasks = 8, .tasks_on_node0 = 2, .nnodes = 4, .block = 1};
	for (int rank = 0; rank < 8; rank++) {
		int a = ior_offset_random(&m, 1, 5, 0, rank);
		CHECK(a >= 2 && a < 8); /* at least one node (2 tasks) away */
		CHECK_INT(ior_offset_random(&m, 1, 5, 3, rank), a); /* X >= 0: same every rep */
		int far = ior_offset_random(&m, 9, 5, 0, rank);     /* Q capped to nnodes - 1 */
		CHECK(far >= 6 && far < 8);
	}
	/* X < 0: the seed moves with the repetition */
	int differ = 0;
	for (int rank = 0; rank < 8; rank++)
		differ +=
		    ior_offset_random(&m, 1, -5, 0, rank) != ior_offset_random(&m, 1, -5, 1, rank);
	CHECK(differ > 0);
	/* -Z -Z: every rank's data is read exactly once */
	int seen[8] = {0};
	for (int rank = 0; rank < 8; rank++) {
		int off = ior_offset_shuffle(&m, 7, 0, rank);
		CHECK(off >= 0 && off < 8);
		seen[(rank + off) % 8]++;
	}
	for (int k = 0; k < 8; k++)
		CHECK_INT(seen[k], 1);
}

static void same_node(void)
{
	int block_nodes[4] = {0, 0, 1, 1}, rr_nodes[4] = {0, 1, 0, 1};
	int two[4] = {2, 2, 2, 2}, zero[4] = {0, 0, 0, 0}, one[4] = {1, 1, 1, 1};
	CHECK_INT(ior_same_node_reads(block_nodes, 4, two), 0);
	CHECK_INT(ior_same_node_reads(block_nodes, 4, zero), 4);
	CHECK_INT(ior_same_node_reads(block_nodes, 4, one), 2);
	CHECK_INT(ior_same_node_reads(rr_nodes, 4, one), 0);
}

static void offsets(void)
{
	struct ior_geometry shared = {.block = 1024, .xfer = 256, .segments = 3, .ntasks = 4};
	struct ior_geometry fpp = shared;
	fpp.fpp = 1;
	CHECK_INT(ior_offset(&shared, 1, 2, 3), 1 * 4 * 1024 + 3 * 1024 + 2 * 256);
	CHECK_INT(ior_offset(&fpp, 1, 2, 3), 1024 + 512);
	CHECK_INT(ior_offset(&shared, 0, 0, 0), 0);

	int64_t n;
	int64_t *v = ior_random_offsets(&fpp, 2, 42, &n);
	CHECK_INT(n, 4);
	int hit[4] = {0};
	for (int64_t i = 0; i < n; i++) {
		CHECK(v[i] % 256 == 0 && v[i] >= 0 && v[i] < 1024);
		hit[v[i] / 256]++;
	}
	for (int k = 0; k < 4; k++)
		CHECK_INT(hit[k], 1);
	free(v);
	/* shared file: the ranks' shares of a segment cover it exactly once */
	int cover[16] = {0};
	int64_t total = 0;
	for (int r = 0; r < 4; r++) {
		v = ior_random_offsets(&shared, r, 99, &n);
		total += n;
		for (int64_t i = 0; i < n; i++)
			cover[v[i] / 256]++;
		free(v);
	}
	CHECK_INT(total, 16);
	for (int k = 0; k < 16; k++)
		CHECK_INT(cover[k], 1);
}

static void names(void)
{
	char b[256];
	CHECK_INT(ior_file_name("d/f@e/g", 1, 0, 3, -1, b, sizeof b), 0);
	CHECK_STR(b, "e/g.00000003");
	CHECK_INT(ior_file_name("d/f@e/g", 1, 0, 2, -1, b, sizeof b), 0);
	CHECK_STR(b, "d/f.00000002");
	CHECK_INT(ior_file_name("d/f", 1, 1, 2, -1, b, sizeof b), 0);
	CHECK_STR(b, "d/2/f.00000002");
	CHECK_INT(ior_file_name("f", 1, 1, 5, -1, b, sizeof b), 0);
	CHECK_STR(b, "5/f.00000005");
	CHECK_INT(ior_file_name("d/f", 0, 0, 7, 1, b, sizeof b), 0);
	CHECK_STR(b, "d/f.1");
	CHECK_INT(ior_file_name("d/f", 0, 0, 7, -1, b, 3), -1);
	ior_dir_of("/a/b/c", b, sizeof b);
	CHECK_STR(b, "/a/b");
	ior_dir_of("c", b, sizeof b);
	CHECK_STR(b, ".");
}

int main(void)
{
	constant_shift();
	random_shift();
	same_node();
	offsets();
	names();
	return check_finish("test_ior_reorder");
}
