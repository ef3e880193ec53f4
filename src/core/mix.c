/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mix: the command line, the placement of the groups, the check of every group's options
 * by its workload's own parser, and the runs (mix.h). */
#include "mix.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fail.h"
#include "timeseries.h"
#include "units.h"

/* The groups' --interval unless the mix or the group gives one: a histogram per interval and
 * rank (timeseries.h) stays small over hours of phases. */
#define MIX_INTERVAL "1"

/* The mix's own options, before its first --group. */
struct mix_options {
	const char *json_path;
	int solo, strict;
	const char *interval;
};

/* --interval SECONDS: kept as given (it goes on the groups' command lines), checked as the
 * workloads' --interval is. */
static int parse_interval(void *cfg, const char *value, char *err, size_t errlen)
{
	double seconds;
	if (sonde_series_parse_interval(value, &seconds, err, errlen) < 0)
		return -1;
	((struct mix_options *)cfg)->interval = value;
	return 0;
}

static const struct sonde_option mix_option_list[] = {
    {0, "json", SONDE_OPT_STRING, offsetof(struct mix_options, json_path), "FILE",
     "the mix's records (mix: each overlap of the groups' phases), and every group's records "
     "unless its ARGS name a --json of their own"},
    {0, "solo", SONDE_OPT_FLAG, offsetof(struct mix_options, solo), NULL,
     "first run each group alone (the others wait), then all at once: the mix records give "
     "each group's concurrent / alone ratio"},
    {0, "strict", SONDE_OPT_FLAG, offsetof(struct mix_options, strict), NULL,
     "every group's --strict (a run whose data cannot fit is refused)"},
    {0, "interval", SONDE_OPT_CALLBACK, 0, "SECONDS",
     "the time series of every group that gives neither --interval nor --live "
     "(default " MIX_INTERVAL " s): the overlaps' figures are sums of its intervals",
     .parse = parse_interval},
    {0, "csv", SONDE_OPT_REFUSED, 0, "FILE",
     "a mix's overlaps are no CSV rows, and groups appending to one CSV file would race for its "
     "header row: give --csv FILE in a group's arguments, one file per group, or --json"},
};

const struct sonde_option_table sonde_mix_options = {
    .command = "sonde mix",
    .usage = "[options] " SONDE_MIX_GROUP " SPEC: WORKLOAD [ARGS...] [" SONDE_MIX_GROUP
             " SPEC: WORKLOAD [ARGS...]]...",
    .summary = "Runs several workloads at once in one launch: each group of ranks runs its own\n"
               "workload with its own options on its own communicator; all groups start "
               "together\nafter one barrier. Every rank belongs to exactly one group.",
    .style = SONDE_STYLE_SHORT,
    .options = mix_option_list,
    .count = (int)(sizeof mix_option_list / sizeof mix_option_list[0]),
    .epilog = "SPEC:\n"
              "  N          the next N ranks not yet in a group, in rank order\n"
              "  N/node     N such ranks of each node (every node then runs a mix)\n"
              "  ...@NODES  either, on these nodes only (0,2-3: node 0 holds rank 0)",
};

void sonde_mix_usage(FILE *out)
{
	const struct sonde_option_table *t = &sonde_mix_options;
	fprintf(out, "usage: %s %s\n\n%s\n\nOptions:\n", t->command, t->usage, t->summary);
	sonde_options_list(t, SONDE_SECTION_OPTIONS, out);
	fprintf(out, "\nRefused:\n");
	sonde_options_list(t, SONDE_SECTION_REFUSED, out);
	fprintf(out, "\n%s\n", t->epilog);
}

/* "1,3-4" into a set of node numbers below nnodes. */
static int parse_nodes(const char *text, int nnodes, char *in, char *err, size_t errlen)
{
	const char *p = text;
	if (!*p) {
		snprintf(err, errlen, "no node after '@'");
		return -1;
	}
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0) {
			snprintf(err, errlen, "'%s' is not a node list (e.g. 0,2-3)", text);
			return -1;
		}
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a) {
				snprintf(err, errlen, "'%s' is not a node list (e.g. 0,2-3)", text);
				return -1;
			}
			p = end;
		}
		if (b >= nnodes) {
			snprintf(err, errlen, "node %ld: the launch has %d node%s (0 to %d)", b,
			         nnodes, nnodes == 1 ? "" : "s", nnodes - 1);
			return -1;
		}
		for (long n = a; n <= b; n++)
			in[n] = 1;
		if (*p == ',')
			p++;
		else if (*p) {
			snprintf(err, errlen, "'%s' is not a node list (e.g. 0,2-3)", text);
			return -1;
		}
	}
	return 0;
}

/* Takes the group's ranks from the free ones (taken[] marks them) as its SPEC says. */
static int place(struct mix_group *g, const struct sonde_topology *t, char *taken, char *err,
                 size_t errlen)
{
	char spec[64];
	snprintf(spec, sizeof spec, "%s", g->spec);
	char *nodes = calloc((size_t)t->nnodes, 1);
	g->ranks = calloc((size_t)t->size, sizeof *g->ranks);
	if (!nodes || !g->ranks)
		sonde_fatal("no memory for the placement of a group");
	char *at = strchr(spec, '@');
	int ok = 0;
	if (at) {
		*at = '\0';
		if (parse_nodes(at + 1, t->nnodes, nodes, err, errlen) < 0)
			goto out;
	} else {
		memset(nodes, 1, (size_t)t->nnodes);
	}
	char *per_node = strchr(spec, '/');
	if (per_node && strcmp(per_node, "/node") != 0) {
		snprintf(err, errlen, "'%s': a count per node is written N/node", g->spec);
		goto out;
	}
	if (per_node)
		*per_node = '\0';
	int64_t count;
	char why[128];
	if (sonde_parse_int(spec, 1, t->size, &count, why, sizeof why) != 0) {
		snprintf(err, errlen, "'%s': the count %s", g->spec, why);
		goto out;
	}
	for (int n = 0; n < t->nnodes; n++) {
		if (!nodes[n] || (!per_node && n > 0 && g->nranks == count))
			continue;
		int here = 0;
		for (int r = 0; r < t->size && (per_node ? here < count : g->nranks < count); r++)
			if (t->node_of_rank[r] == n && !taken[r]) {
				taken[r] = 1;
				g->ranks[g->nranks++] = r;
				here++;
			}
		if (per_node && here < count) {
			const char *host = t->node_names[n];
			snprintf(err, errlen, "'%s': node %d%s%s%s has %d free rank%s, not %lld",
			         g->spec, n, *host ? " (" : "", host, *host ? ")" : "", here,
			         here == 1 ? "" : "s", (long long)count);
			goto out;
		}
	}
	if (!per_node && g->nranks < count) {
		snprintf(err, errlen, "'%s': %d free rank%s left for %lld", g->spec, g->nranks,
		         g->nranks == 1 ? "" : "s", (long long)count);
		goto out;
	}
	/* per node, ranks were taken node by node: the group's order is the world's */
	for (int i = 1; i < g->nranks; i++)
		for (int j = i; j > 0 && g->ranks[j - 1] > g->ranks[j]; j--) {
			int tmp = g->ranks[j];
			g->ranks[j] = g->ranks[j - 1];
			g->ranks[j - 1] = tmp;
		}
	g->leader = g->ranks[0];
	ok = 1;
out:
	free(nodes);
	return ok ? 0 : -1;
}

static const struct sonde_workload *find(const struct sonde_workload *const *workloads,
                                         const char *name)
{
	for (int i = 0; workloads[i]; i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}

static int has_option(char **args, int nargs, const char *name)
{
	size_t len = strlen(name);
	for (int i = 0; i < nargs; i++)
		if (strncmp(args[i], name, len) == 0 &&
		    (args[i][len] == '\0' || args[i][len] == '='))
			return 1;
	return 0;
}

/* A group's command line as the workload alone would get it: the program, the workload, its
 * arguments, and --json FILE and --strict when the mix has them and the group's arguments do
 * not, and --interval (the mix's or its default) unless they give --interval or --live and
 * unless the workload has no time series. */
static void group_argv(struct mix_plan *plan, struct mix_group *g, char *program, char **args,
                       int nargs)
{
	int json = plan->json_path && !has_option(args, nargs, "--json");
	int strict = plan->strict && !has_option(args, nargs, "--strict");
	int interval = !g->w->no_time_series && !has_option(args, nargs, "--interval") &&
	               !has_option(args, nargs, "--live");
	g->argv = calloc((size_t)(nargs + 7), sizeof *g->argv);
	if (!g->argv)
		sonde_fatal("no memory for a group's command line");
	g->argv[0] = program;
	g->argc = 1;
	for (int i = 0; i < nargs; i++)
		g->argv[g->argc++] = args[i];
	if (json) {
		g->argv[g->argc++] = "--json";
		g->argv[g->argc++] = (char *)plan->json_path;
	}
	if (strict)
		g->argv[g->argc++] = "--strict";
	if (interval) {
		g->argv[g->argc++] = "--interval";
		g->argv[g->argc++] = (char *)(plan->interval ? plan->interval : MIX_INTERVAL);
	}
}

/* The command line into plan; -1 with a one-line reason in err. */
static int parse_plan(const struct sonde_workload *const *workloads, const struct sonde_topology *t,
                      int argc, char **argv, struct mix_plan *plan, char *err, size_t errlen)
{
	int i = 2;
	while (i < argc && strcmp(argv[i], SONDE_MIX_GROUP) != 0)
		i++;
	struct mix_options o = {0};
	struct sonde_option_set set = {.table = &sonde_mix_options, .cfg = &o};
	struct sonde_parse_result pos = {0};
	char why[512];
	int parsed = sonde_options_parse(&set, 1, i, argv, 2, &pos, why, sizeof why);
	if (parsed == 0 && (pos.help || pos.npositional > 0))
		snprintf(why, sizeof why, "'%s' before the first " SONDE_MIX_GROUP,
		         pos.help ? "--help" : pos.positional[0]);
	int bad = parsed < 0 || pos.help || pos.npositional > 0;
	sonde_parse_result_free(&pos);
	free(set.given);
	if (bad) {
		snprintf(err, errlen, "%s (sonde mix --help)", why);
		return -1;
	}
	plan->json_path = o.json_path;
	plan->solo = o.solo;
	plan->strict = o.strict;
	plan->interval = o.interval;
	plan->groups = calloc((size_t)argc, sizeof *plan->groups);
	char *taken = calloc((size_t)t->size, 1);
	if (!plan->groups || !taken)
		sonde_fatal("no memory for the groups");
	int ok = 0;
	if (i == argc) {
		snprintf(err, errlen,
		         "no " SONDE_MIX_GROUP " SPEC: WORKLOAD [ARGS...] (sonde mix --help)");
		goto out;
	}
	while (i < argc) {
		struct mix_group *g = &plan->groups[plan->ngroups++];
		int k = plan->ngroups;
		size_t len = i + 1 < argc ? strlen(argv[i + 1]) : 0;
		if (len < 2 || argv[i + 1][len - 1] != ':') {
			snprintf(err, errlen,
			         "group %d: --group needs SPEC: (e.g. --group 4: ior ...)", k);
			goto out;
		}
		argv[i + 1][len - 1] = '\0';
		g->spec = argv[i + 1];
		int first = i + 2, end = first;
		while (end < argc && strcmp(argv[end], SONDE_MIX_GROUP) != 0)
			end++;
		if (first == end) {
			snprintf(err, errlen, "group %d (%s): no workload after the colon", k,
			         g->spec);
			goto out;
		}
		g->w = find(workloads, argv[first]);
		if (!g->w) {
			snprintf(err, errlen, "group %d (%s): unknown workload '%s' (sonde --help)",
			         k, g->spec, argv[first]);
			goto out;
		}
		if (g->w->wants_mpi && !g->w->wants_mpi(end - first, argv + first)) {
			snprintf(err, errlen,
			         "group %d (%s): this %s command line runs without MPI; a mix runs "
			         "its groups on MPI communicators",
			         k, g->spec, g->w->name);
			goto out;
		}
		if (place(g, t, taken, why, sizeof why) < 0) {
			snprintf(err, errlen, "group %d: %s", k, why);
			goto out;
		}
		group_argv(plan, g, argv[0], argv + first, end - first);
		i = end;
	}
	int placed = 0;
	for (int r = 0; r < t->size; r++)
		placed += taken[r];
	if (placed != t->size) {
		snprintf(err, errlen,
		         "the groups take %d of the launch's %d ranks: every rank belongs to one "
		         "group",
		         placed, t->size);
		goto out;
	}
	ok = 1;
out:
	free(taken);
	return ok ? 0 : -1;
}

/* Frees what parse_plan and collect allocated for the plan (its strings are argv's). */
static void plan_free(struct mix_plan *plan)
{
	for (int k = 0; k < plan->ngroups; k++) {
		struct mix_group *g = &plan->groups[k];
		free(g->argv);
		free(g->ranks);
		free(g->spans);
		free(g->solo);
		free(g->intervals);
	}
	free(plan->groups);
	*plan = (struct mix_plan){0};
}

/* World rank 0: every group's command line through its workload's own parser and checks, as
 * `sonde --parse-only` does, before any group runs. 0, or -1 once the workload printed the
 * group's one error line. */
static int check_groups(struct mix_plan *plan, const struct sonde_context *world)
{
	/* the runs print the warnings, once */
	sonde_fail_set_warnings(0);
	volatile int bad = 0;
	for (int k = 0; k < plan->ngroups; k++) {
		struct mix_group *g = &plan->groups[k];
		int on_first = 0;
		for (int i = 0; i < g->nranks; i++)
			on_first += world->topo.node_of_rank[g->ranks[i]] ==
			            world->topo.node_of_rank[g->leader];
		struct sonde_context ctx = {
		    .workload = g->w->name,
		    .comm = MPI_COMM_NULL,
		    .size = g->nranks,
		    .argc = g->argc,
		    .argv = g->argv,
		    .parse_only = 1,
		    .in_mix = 1,
		};
		sonde_topology_planned(&ctx.topo, g->nranks, on_first);
		sonde_fail_set_workload(g->w->name);
		sonde_fail_set_comm(MPI_COMM_SELF, k + 1);
		jmp_buf trap;
		if (setjmp(trap) == 0) {
			sonde_fail_set_exit_trap(&trap);
			free(g->w->params(&ctx, g->argc - 1, g->argv + 1));
		} else {
			bad = 1;
		}
		sonde_fail_set_exit_trap(NULL);
		sonde_topology_free(&ctx.topo);
		if (bad)
			break;
	}
	sonde_fail_set_warnings(1);
	return bad ? -1 : 0;
}

/* A group leader's stdout during a run goes to a temporary file, printed whole after the run
 * (replay): groups running at once would interleave their reports line by line. */
struct capture {
	FILE *file;
	int saved;
};

static void capture_begin(struct capture *c, int leader)
{
	c->file = NULL;
	fflush(stdout);
	if (!leader || !(c->file = tmpfile()))
		return;
	c->saved = dup(STDOUT_FILENO);
	if (c->saved < 0 || dup2(fileno(c->file), STDOUT_FILENO) < 0) {
		fclose(c->file);
		c->file = NULL;
	}
}

static void capture_end(struct capture *c)
{
	fflush(stdout);
	if (!c->file)
		return;
	dup2(c->saved, STDOUT_FILENO);
	close(c->saved);
}

/* In group order: each leader prints its group's report under a heading. */
static void replay(const struct mix_plan *plan, int my_group, struct capture *c, const char *stage,
                   MPI_Comm world)
{
	for (int k = 0; k < plan->ngroups; k++) {
		MPI_Barrier(world);
		if (k != my_group || !c->file)
			continue;
		const struct mix_group *g = &plan->groups[k];
		printf("== sonde mix: group %d (%s: %s on %d rank%s), %s ==\n", k + 1, g->spec,
		       g->w->name, g->nranks, g->nranks == 1 ? "" : "s", stage);
		char buf[8192];
		size_t n;
		rewind(c->file);
		while ((n = fread(buf, 1, sizeof buf, c->file)) > 0)
			fwrite(buf, 1, n, stdout);
		fflush(stdout);
		fclose(c->file);
		c->file = NULL;
	}
	MPI_Barrier(world);
}

/* This rank's group runs its workload once (stage "solo" or "concurrent"); its exit code. */
static int run_group(struct mix_plan *plan, int k, struct sonde_context *ctx,
                     const struct sonde_clock *clock, const char *stage, struct capture *out)
{
	struct mix_group *g = &plan->groups[k];
	/* a fresh copy each time: a run may keep pointers into its arguments */
	char **args = calloc((size_t)g->argc + 1, sizeof *args);
	if (!args)
		sonde_fatal("no memory for a group's command line");
	memcpy(args, g->argv, sizeof *args * (size_t)g->argc);
	ctx->argc = g->argc;
	ctx->argv = args;
	int solo = strcmp(stage, "solo") == 0;
	sonde_series_keep();
	sonde_results_join_mix(k + 1, solo ? g->solo_run_id : g->run_id, stage, clock->offset,
	                       clock->zero);
	capture_begin(out, ctx->rank == 0);
	jmp_buf trap;
	volatile int code;
	int jumped = setjmp(trap);
	if (!jumped) {
		sonde_fail_set_exit_trap(&trap);
		code = g->w->run(ctx, g->argc - 1, args + 1);
		code = sonde_results_close(code);
	} else {
		code = jumped - 1;
	}
	sonde_fail_set_exit_trap(NULL);
	capture_end(out);
	free(args);
	return code;
}

/* World rank 0 collects from the leader of each group (of group only, when only >= 0) its exit
 * code, the failing rank its end record names, and its spans (of the solo run when solo). */
static void collect(struct mix_plan *plan, int only, int my_group, int code, int solo,
                    MPI_Comm world)
{
	int rank;
	MPI_Comm_rank(world, &rank);
	int n = 0;
	const struct sonde_mix_span *spans = sonde_results_mix_spans(&n);
	int nkept = 0;
	const struct sonde_series_interval *kept = sonde_series_kept(&nkept);
	int head[4] = {code, sonde_results_failed_rank(), n, nkept};
	if (rank == plan->groups[my_group].leader && rank != 0 && (only < 0 || only == my_group)) {
		MPI_Send(head, 4, MPI_INT, 0, 7101, world);
		MPI_Send(spans, (int)sizeof *spans * n, MPI_BYTE, 0, 7102, world);
		MPI_Send(kept, (int)sizeof *kept * nkept, MPI_BYTE, 0, 7103, world);
	}
	if (rank != 0)
		return;
	for (int k = 0; k < plan->ngroups; k++) {
		struct mix_group *g = &plan->groups[k];
		if (only >= 0 && k != only)
			continue;
		int h[4] = {head[0], head[1], head[2], head[3]};
		if (g->leader != 0)
			MPI_Recv(h, 4, MPI_INT, g->leader, 7101, world, MPI_STATUS_IGNORE);
		struct sonde_mix_span *copy = calloc((size_t)h[2] + 1, sizeof *copy);
		struct sonde_series_interval *ivals = calloc((size_t)h[3] + 1, sizeof *ivals);
		if (!copy || !ivals)
			sonde_fatal("no memory for the spans of group %d", k + 1);
		if (g->leader != 0) {
			MPI_Recv(copy, (int)sizeof *copy * h[2], MPI_BYTE, g->leader, 7102, world,
			         MPI_STATUS_IGNORE);
			MPI_Recv(ivals, (int)sizeof *ivals * h[3], MPI_BYTE, g->leader, 7103, world,
			         MPI_STATUS_IGNORE);
		} else {
			if (h[2])
				memcpy(copy, spans, sizeof *copy * (size_t)h[2]);
			if (h[3])
				memcpy(ivals, kept, sizeof *ivals * (size_t)h[3]);
		}
		/* the first failure of a group is the one its line names */
		if (!g->code) {
			g->code = h[0];
			g->failed_rank = h[1];
		}
		if (solo) {
			g->solo = copy;
			g->nsolo = h[2];
			free(ivals);
		} else {
			g->spans = copy;
			g->nspans = h[2];
			g->intervals = ivals;
			g->nintervals = h[3];
		}
	}
}

/* World rank 0: one line for each group whose run failed; the launch's exit code (the first
 * failing group's). */
static int verdict(const struct mix_plan *plan)
{
	int code = SONDE_EXIT_OK;
	for (int k = 0; k < plan->ngroups; k++) {
		const struct mix_group *g = &plan->groups[k];
		if (!g->code)
			continue;
		if (!code)
			code = g->code;
		char rank[48] = "";
		if (g->failed_rank >= 0)
			snprintf(rank, sizeof rank, " (rank %d)", g->failed_rank);
		/* the group's own error line said why; this one says what it did to the launch */
		fprintf(
		    stderr,
		    "sonde mix: group %d (%s: %s) ended with exit code %d%s, the launch with it; "
		    "the records of every group are kept\n",
		    k + 1, g->spec, g->w->name, g->code, rank);
	}
	return code;
}

char *sonde_mix_params(struct sonde_context *ctx, const struct sonde_workload *const *workloads,
                       int argc, char **argv)
{
	struct mix_plan plan = {0};
	char err[1024];
	sonde_fail_set_workload("mix");
	if (parse_plan(workloads, &ctx->topo, argc, argv, &plan, err, sizeof err) < 0) {
		sonde_error("%s", err);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	if (check_groups(&plan, ctx) < 0)
		sonde_exit(SONDE_EXIT_USAGE);
	char *params = mix_params(&plan);
	plan_free(&plan);
	return params;
}

int sonde_mix_run(struct sonde_context *ctx, const struct sonde_workload *const *workloads,
                  int argc, char **argv)
{
	struct mix_plan plan = {0};
	char err[1024];
	sonde_fail_set_workload("mix");
	if (parse_plan(workloads, &ctx->topo, argc, argv, &plan, err, sizeof err) < 0) {
		sonde_error("%s", err);
		plan_free(&plan);
		return SONDE_EXIT_USAGE;
	}
	snprintf(plan.run_id, sizeof plan.run_id, "%s", sonde_results_run_id());
	MPI_Bcast(plan.run_id, sizeof plan.run_id, MPI_CHAR, 0, ctx->comm);
	int my_group = 0;
	for (int k = 0; k < plan.ngroups; k++) {
		struct mix_group *g = &plan.groups[k];
		snprintf(g->run_id, sizeof g->run_id, "%s-g%d", plan.run_id, k + 1);
		snprintf(g->solo_run_id, sizeof g->solo_run_id, "%s-g%d-solo", plan.run_id, k + 1);
		for (int i = 0; i < g->nranks; i++)
			if (g->ranks[i] == ctx->rank)
				my_group = k;
	}
	int bad = ctx->rank == 0 && check_groups(&plan, ctx) < 0;
	sonde_fail_set_workload("mix");
	sonde_fail_set_comm(MPI_COMM_NULL, -1);
	/* the mix's header before any group runs: a launch stopped early still has it */
	if (ctx->rank == 0 && !bad && mix_open_records(&plan, ctx, err, sizeof err) < 0) {
		fprintf(stderr, "sonde mix: error: %s\n", err);
		bad = 1;
	}
	MPI_Bcast(&bad, 1, MPI_INT, 0, ctx->comm);
	if (bad) {
		plan_free(&plan);
		return SONDE_EXIT_USAGE;
	}

	struct mix_group *mine = &plan.groups[my_group];
	/* one clock for every group, the launch's (main.c): the measurements' start and end,
	 * the intervals of their time series, the overlaps */
	const struct sonde_clock clock = ctx->clock;
	struct sonde_context gctx = {
	    .workload = mine->w->name,
	    .mpi = 1,
	    .clock = clock,
	    .common = {0},
	    .in_mix = 1,
	};
	MPI_Comm_split(ctx->comm, my_group, ctx->rank, &gctx.comm);
	MPI_Comm_set_errhandler(gctx.comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(gctx.comm, &gctx.rank);
	MPI_Comm_size(gctx.comm, &gctx.size);
	sonde_topology_init(gctx.comm, &gctx.topo);
	sonde_fail_set_workload(mine->w->name);
	sonde_fail_set_comm(gctx.comm, my_group + 1);

	struct capture out = {0};
	if (plan.solo)
		for (int k = 0; k < plan.ngroups; k++) {
			MPI_Barrier(ctx->comm);
			int code = 0;
			if (k == my_group)
				code = run_group(&plan, k, &gctx, &clock, "solo", &out);
			MPI_Barrier(ctx->comm);
			replay(&plan, my_group, &out, "alone", ctx->comm);
			collect(&plan, k, my_group, code, 1, ctx->comm);
		}
	/* the one barrier every group starts after */
	MPI_Barrier(ctx->comm);
	int code = run_group(&plan, my_group, &gctx, &clock, "concurrent", &out);
	MPI_Barrier(ctx->comm);
	replay(&plan, my_group, &out, "concurrent", ctx->comm);
	sonde_fail_set_workload("mix");
	sonde_fail_set_comm(MPI_COMM_NULL, -1);
	collect(&plan, -1, my_group, code, 0, ctx->comm);
	int launch_code = SONDE_EXIT_OK;
	if (ctx->rank == 0) {
		launch_code = verdict(&plan);
		launch_code = mix_report_overlaps(&plan, launch_code);
	}
	MPI_Bcast(&launch_code, 1, MPI_INT, 0, ctx->comm);
	sonde_topology_free(&gctx.topo);
	MPI_Comm_free(&gctx.comm);
	plan_free(&plan);
	return launch_code;
}
