/* SPDX-License-Identifier: BSD-3-Clause */
/* mdtest's arithmetic: directories and items of a tree as mdtest derives them from -n, -I, -z,
 * -b, -L; where item k lives; whose items and tree a rank works on in each phase; -R's order;
 * the data of -w and its check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
/* Compiled in rather than linked, so this test builds whichever workloads the library holds. */
#include "workloads/mdtest/data.c"
#include "workloads/mdtest/tree.c"

static struct mdtest_params shape(int64_t n, int64_t per_dir, int depth, int branch, int leaf,
                                  int unique)
{
	struct mdtest_params p;
	memset(&p, 0, sizeof p);
	p.items = n;
	p.items_per_dir = per_dir;
	p.depth = depth;
	p.branch = branch;
	p.leaf_only = leaf;
	p.unique_dir = unique;
	return p;
}

static struct mdtest_tree plan(int64_t n, int64_t per_dir, int depth, int branch, int leaf,
                               int unique)
{
	struct mdtest_params p = shape(n, per_dir, depth, branch, leaf, unique);
	struct mdtest_tree t;
	char err[256] = "";
	if (mdtest_tree_plan(&p, &t, err, sizeof err) != 0) {
		memset(&t, 0, sizeof t);
		t.items = -1;
	}
	return t;
}

/* The shape is refused with a message that contains why. */
static int refused(int64_t n, int64_t per_dir, int depth, int branch, int leaf, int unique,
                   const char *why)
{
	struct mdtest_params p = shape(n, per_dir, depth, branch, leaf, unique);
	struct mdtest_tree t;
	char err[256] = "";
	int rc = mdtest_tree_plan(&p, &t, err, sizeof err);
	if (rc == 0 || !strstr(err, why))
		fprintf(stderr, "  message: %s\n  wanted: %s\n", err, why);
	return rc != 0 && strstr(err, why) != NULL;
}

/* The directories and item counts mdtest prints ("2 tasks, 14 files/directories" for -n 10
 * -z 2 -b 2 on two ranks), and its files on disk, were compared with mdtest 4.1's. */
static void test_shapes(void)
{
	struct mdtest_tree t = plan(100, 0, 0, 1, 0, 0);
	CHECK_INT(t.dirs, 1);
	CHECK_INT(t.items, 100);
	CHECK_INT(t.items_per_dir, 100);
	t = plan(10, 0, 2, 2, 0, 0); /* 7 directories, 10/7 = 1 item each */
	CHECK_INT(t.dirs, 7);
	CHECK_INT(t.items_per_dir, 1);
	CHECK_INT(t.items, 7);
	t = plan(20, 0, 2, 3, 1, 0); /* leaves only: 9 leaves of 13 directories */
	CHECK_INT(t.dirs, 13);
	CHECK_INT(t.leaves, 9);
	CHECK_INT(t.first_item_dir, 4);
	CHECK_INT(t.items_per_dir, 2);
	CHECK_INT(t.items, 18);
	t = plan(0, 3, 2, 2, 0, 0); /* -I alone: every directory */
	CHECK_INT(t.items, 21);
	t = plan(0, 3, 2, 2, 1, 0); /* -I with -L: the leaves */
	CHECK_INT(t.items, 12);
	t = plan(7, 0, 3, 1, 1, 1); /* a chain: the leaf holds them all */
	CHECK_INT(t.dirs, 4);
	CHECK_INT(t.first_item_dir, 3);
	CHECK_INT(t.items_per_dir, 7);
	t = plan(12, 4, 0, 1, 0, 0); /* -n with -I: three test directories of four */
	CHECK_INT(t.loops, 3);
	CHECK_INT(t.items, 4);
	CHECK(refused(12, 5, 0, 1, 0, 0, "multiple of items per directory"));
	CHECK(refused(12, 4, 0, 1, 0, 1, "only specify the number of items"));
	CHECK(refused(12, 4, 2, 2, 0, 0, "give -z 0"));
	CHECK(refused(5, 0, 2, 2, 0, 0, "fewer than one item"));
	CHECK(refused(0, 0, 0, 1, 0, 0, "no items"));
	CHECK(refused(1, 0, 200, 10, 0, 0, "more than 2^62 directories"));
	CHECK(refused(1, 0, 2, 0, 0, 0, "branching factor"));
}

static void test_paths(void)
{
	struct mdtest_tree t = plan(0, 1, 3, 2, 0, 0);
	char buf[256];
	CHECK_INT(mdtest_tree_subpath(&t, "mdtest_tree.3", 0, buf, sizeof buf), 0);
	CHECK_STR(buf, "");
	mdtest_tree_subpath(&t, "mdtest_tree.3", 4, buf, sizeof buf);
	CHECK_STR(buf, "mdtest_tree.3.1/mdtest_tree.3.4");
	mdtest_tree_subpath(&t, "mdtest_tree", 13, buf, sizeof buf);
	CHECK_STR(buf, "mdtest_tree.2/mdtest_tree.6/mdtest_tree.13");
	CHECK_INT(mdtest_tree_subpath(&t, "mdtest_tree", 13, buf, 20), -1);
	struct mdtest_tree chain = plan(0, 1, 4, 1, 0, 0);
	mdtest_tree_subpath(&chain, "b", 4, buf, sizeof buf);
	CHECK_STR(buf, "b.1/b.2/b.3/b.4");
}

/* With -N s, rank r works on the items of rank r + k*s in phase k (create 0, stat 1, read 2,
 * remove 3), and with -u the items of rank c live in the tree of rank c + s. */
static void test_owners(void)
{
	for (int tasks = 1; tasks <= 6; tasks++)
		for (int s = 0; s < 8; s++)
			for (int r = 0; r < tasks; r++)
				for (int k = MDTEST_STEP_CREATE; k <= MDTEST_STEP_REMOVE; k++) {
					int owner = mdtest_item_owner(r, tasks, s, k);
					CHECK_INT(owner, (r + k * s) % tasks);
					/* every phase finds the items where their creator put them
					 */
					int creator_tree = mdtest_tree_owner(owner, tasks, s, 0);
					CHECK_INT(mdtest_tree_owner(r, tasks, s, k), creator_tree);
				}
}

static void test_shuffle(void)
{
	enum { N = 1000 };
	uint64_t v[N], w[N];
	unsigned char seen[N] = {0};
	mdtest_shuffle(v, N, 7);
	int moved = 0;
	for (int i = 0; i < N; i++) {
		CHECK(v[i] < N);
		if (v[i] < N)
			seen[v[i]]++;
		moved += v[i] != (uint64_t)i;
	}
	for (int i = 0; i < N; i++)
		CHECK_INT(seen[i], 1);
	CHECK(moved > N / 2);
	mdtest_shuffle(w, N, 7);
	CHECK(memcmp(v, w, sizeof v) == 0);
	mdtest_shuffle(w, N, 8);
	CHECK(memcmp(v, w, sizeof v) != 0);
}

/* 3901 bytes as mdtest-hard writes them: another item's data, another creator's, and one flipped
 * byte are all caught, at their offsets. */
static void test_data(void)
{
	struct mdtest_data a, b;
	CHECK_INT(mdtest_data_init(&a, 42, 3, 3901), 0);
	CHECK_INT(mdtest_data_init(&b, 42, 4, 3901), 0);
	unsigned char *copy = malloc(3901);
	struct sonde_verify v;
	mdtest_data_stamp(&a, 17);
	memcpy(copy, a.buf, 3901);
	memset(&v, 0, sizeof v);
	mdtest_data_check(&a, copy, 3901, 17, &v);
	CHECK_INT(v.errors, 0);
	CHECK_INT(v.bytes_checked, 3901);
	mdtest_data_check(&a, copy, 3901, 18, &v); /* item 18's name, item 17's bytes */
	CHECK(v.errors > 0 && v.first[0].offset == 0);
	memset(&v, 0, sizeof v);
	mdtest_data_stamp(&b, 17);
	mdtest_data_check(&a, b.buf, 3901, 17, &v); /* another creator */
	CHECK(v.errors > 3000);
	memset(&v, 0, sizeof v);
	copy[2000] ^= 0x40;
	mdtest_data_check(&a, copy, 3901, 17, &v);
	CHECK_INT(v.errors, 1);
	CHECK_INT(v.first[0].offset, 2000);
	copy[2000] ^= 0x40;
	copy[3584] ^= 1; /* inside the last stamp */
	memset(&v, 0, sizeof v);
	mdtest_data_check(&a, copy, 3901, 17, &v);
	CHECK_INT(v.errors, 1);
	CHECK_INT(v.first[0].offset, 3584);
	free(copy);
	mdtest_data_free(&a);
	mdtest_data_free(&b);
}

int main(void)
{
	test_shapes();
	test_paths();
	test_owners();
	test_shuffle();
	test_data();
	return check_finish("test_mdtest_tree");
}
