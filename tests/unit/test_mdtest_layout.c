/* SPDX-License-Identifier: BSD-3-Clause */
/* mdtest's SUMMARY table, line for line. The expected lines are mdtest 4.1's own output
 * (IOR repository, commit 5fcf0ba, `mpirun -n 2 mdtest -n 100 -F -u -i 2` and others): the
 * header, the rows with their widths, and the standard deviation over iterations with N-1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
/* Compiled in rather than linked, so this test builds whichever workloads the library holds. */
#include "workloads/mdtest/output.c"

static char text[8192];

static const char *render(const struct mdtest_summary *s, int time_table, int rank_stats)
{
	memset(text, 0, sizeof text);
	FILE *f = fmemopen(text, sizeof text, "w");
	mdtest_print_summary(f, s, time_table, rank_stats);
	fclose(f);
	return text;
}

static int has_line(const char *all, const char *line)
{
	char want[512];
	snprintf(want, sizeof want, "\n%s\n", line);
	if (strstr(all, want))
		return 1;
	fprintf(stderr, "  missing line:\n%s\n  in:\n%s", line, all);
	return 0;
}

static double rank_seconds[2][2] = {{0.01, 0.012}, {0.02, 0.021}};
static int64_t rank_items[2] = {100, 100};

/* Two iterations of files only whose figures print as mdtest's own run printed them: each pair
 * is mean +- sd/sqrt(2) of the Mean and Std Dev mdtest printed. */
static void two_iterations(struct mdtest_summary *s, struct mdtest_figure (*fig)[MDTEST_NOPS])
{
	memset(fig, 0, sizeof(struct mdtest_figure[2][MDTEST_NOPS]));
	double mean_sd[][2] = {
	    [MDTEST_FILE_CREATE] = {10354.801, 8210.100},
	    [MDTEST_FILE_STAT] = {644707.659, 888440.405},
	    [MDTEST_FILE_READ] = {72047.042, 70266.288},
	    [MDTEST_FILE_REMOVE] = {151625.774, 186084.750},
	    [MDTEST_TREE_CREATE] = {4028.873, 2107.105},
	    [MDTEST_TREE_REMOVE] = {140.110, 47.970},
	};
	for (int j = 0; j < 2; j++)
		for (int op = MDTEST_FILE_CREATE; op < MDTEST_NOPS; op++) {
			double half = mean_sd[op][1] / sqrt(2.0);
			fig[j][op].ran = 1;
			fig[j][op].rate = mean_sd[op][0] + (j == 0 ? half : -half);
			fig[j][op].items = 200;
			fig[j][op].seconds = 200 / fig[j][op].rate;
			fig[j][op].rank_seconds = rank_seconds[j];
			fig[j][op].rank_items = rank_items;
		}
	*s = (struct mdtest_summary){.iterations = 2,
	                             .tasks = 2,
	                             .first_op = MDTEST_FILE_CREATE,
	                             .last_op = MDTEST_TREE_CREATE,
	                             .fig = fig};
}

static void test_rate_table(void)
{
	struct mdtest_figure fig[2][MDTEST_NOPS];
	struct mdtest_summary s;
	two_iterations(&s, fig);
	const char *t = render(&s, 0, 0);
	CHECK(strncmp(t, "\nSUMMARY rate (in ops/sec): (of 2 iterations)\n", 46) == 0);
	CHECK(has_line(t,
	               "   Operation                     Max            Min           Mean        "
	               "Std Dev"));
	CHECK(has_line(t,
	               "   ---------                     ---            ---           ----        "
	               "-------"));
	/* mdtest printed exactly these (its Std Dev is the sample one, N-1) */
	CHECK(has_line(t,
	               "   File stat                 1272929.894      16485.424     644707.659     "
	               "888440.405"));
	CHECK(has_line(t,
	               "   File read                  121732.811      22361.273      72047.042     "
	               " 70266.288"));
	CHECK(has_line(t,
	               "   Tree creation                5518.821       2538.925       4028.873     "
	               "  2107.105"));
	CHECK(has_line(t,
	               "   Tree removal                  174.030        106.190        140.110     "
	               "    47.970"));
	/* files only: no directory rows */
	CHECK(strstr(t, "Directory") == NULL);
}

static void test_one_iteration_and_directories(void)
{
	struct mdtest_figure fig[1][MDTEST_NOPS];
	memset(fig, 0, sizeof fig);
	for (int op = 0; op < MDTEST_NOPS; op++) {
		fig[0][op].ran = op != MDTEST_DIR_READ && op != MDTEST_FILE_READ;
		fig[0][op].rate = 1000.5 * (op + 1);
		fig[0][op].seconds = 0.25;
	}
	struct mdtest_summary s = {
	    .iterations = 1, .tasks = 2, .first_op = 0, .last_op = MDTEST_TREE_CREATE, .fig = fig};
	const char *t = render(&s, 0, 0);
	CHECK(has_line(t,
	               "   Directory creation           1000.500       1000.500       1000.500     "
	               "     0.000"));
	CHECK(has_line(t,
	               "   Directory rename             4002.000       4002.000       4002.000     "
	               "     0.000"));
	/* a phase that did not run shows zeros, as mdtest's rows do; "Directory read" never shows
	 */
	CHECK(has_line(t,
	               "   File read                       0.000          0.000          0.000     "
	               "     0.000"));
	CHECK(strstr(t, "Directory read") == NULL);
	t = render(&s, 1, 0);
	CHECK(strncmp(t, "\nSUMMARY time (in seconds): (of 1 iterations)\n", 46) == 0);
	CHECK(has_line(t,
	               "   Tree removal                    0.250          0.250          0.250     "
	               "     0.000"));
}

/* --showRankStatistics: mdtest's wider header, then per-rank max, min, mean of the ranks'
 * own rates (items over their time before the closing barrier), then the iteration figures. */
static void test_rank_statistics(void)
{
	struct mdtest_figure fig[2][MDTEST_NOPS];
	struct mdtest_summary s;
	two_iterations(&s, fig);
	const char *t = render(&s, 0, 1);
	CHECK(has_line(t, "   Operation     per Rank: Max            Min           Mean      per "
	                  "Iteration: Max            Min           Mean        Std Dev"));
	CHECK(has_line(t, "   ---------      "
	                  "         ---            ---           ----       "
	                  "               ---            ---           ----        -------"));
	/* ranks: 100/0.01, 100/0.012, 100/0.02, 100/0.021 items per second; mdtest's pieces are
	 * "   %-18s ", three "%14.3f ", "    ", "    ", then the iteration columns */
	char want[256];
	const struct mdtest_figure *a = &fig[0][MDTEST_FILE_STAT], *b = &fig[1][MDTEST_FILE_STAT];
	double rates[] = {a->rate, b->rate};
	snprintf(want, sizeof want,
	         "   %-18s %14.3f %14.3f %14.3f         %14.3f %14.3f %14.3f %14.3f", "File stat",
	         10000.0, 100 / 0.021, (10000.0 + 100 / 0.012 + 5000.0 + 100 / 0.021) / 4, a->rate,
	         b->rate, (a->rate + b->rate) / 2, mdtest_sample_stddev(rates, 2));
	CHECK(has_line(t, want));
	/* the tree rows: "   %-22s " and no second "    " */
	CHECK(strstr(t, "\n   Tree creation               10000.000 ") != NULL);
}

static void test_stddev(void)
{
	double one[] = {5};
	CHECK_NEAR(mdtest_sample_stddev(one, 1), 0, 0);
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	CHECK_NEAR(mdtest_sample_stddev(v, 8), sqrt(32.0 / 7), 1e-12);
}

int main(void)
{
	test_rate_table();
	test_one_iteration_and_directories();
	test_rank_statistics();
	test_stddev();
	return check_finish("test_mdtest_layout");
}
