/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde <workload> [options]: dispatch to a workload, with MPI set up around it.
 * --version, the help texts, --parse-only and --describe-options need no MPI launcher and never
 * initialise MPI. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backend.h"
#include "fail.h"
#include "json.h"
#include "manpage.h"
#include "mix.h"
#include "shell_completion.h"
#include "stop.h"
#include "topology.h"
#include "units.h"
#include "workload.h"

#define SONDE_WORKLOAD(n) extern const struct sonde_workload sonde_workload_##n;
#include "workloads.inc"
#undef SONDE_WORKLOAD

static const struct sonde_workload *const workloads[] = {
#define SONDE_WORKLOAD(n) &sonde_workload_##n,
#include "workloads.inc"
#undef SONDE_WORKLOAD
    NULL,
};

static const struct sonde_workload *find_workload(const char *name)
{
	for (int i = 0; workloads[i]; i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}

/* A usage error found before MPI_Init: rank 0 prints it, the other ranks wait a moment before
 * failing, so that the launcher, which ends the job at the first non-zero exit, does not kill
 * rank 0 before its line is out. */
static int early_usage_error(int launcher_rank)
{
	if (launcher_rank != 0) {
		struct timespec pause = {0, 500 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	return SONDE_EXIT_USAGE;
}

/* The wrong MPI's launcher starts every process as a singleton of this binary's MPI: N
 * independent 1-rank jobs on the same files, each exiting 0. The launcher's own variables say
 * how many processes it started; MPI_COMM_WORLD of 1 against more is that mismatch. */
struct launcher_view {
	int rank, size;
	const char *kind;
};

static int launcher_mismatch(const struct launcher_view *launcher, int mpi_size)
{
	if (mpi_size != 1 || launcher->size <= 1)
		return 0;
	if (launcher->rank == 0) {
		char lib[MPI_MAX_LIBRARY_VERSION_STRING];
		int len = 0;
		MPI_Get_library_version(lib, &len);
		lib[strcspn(lib, ",\n")] = '\0';
		for (char *c = lib; *c; c++)
			if (*c == '\t')
				*c = ' ';
		/* srun --mpi=pmix is the Slurm launch tested with Open MPI (tests/test_slurm.py) */
		int open_mpi = strncmp(lib, "Open MPI", 8) == 0;
		fprintf(stderr,
		        "sonde: error: %s started %d processes, but each runs alone in this "
		        "binary's MPI (%s): launch it with %s%s\n",
		        launcher->kind, launcher->size, lib,
		        *SONDE_MPIEXEC ? SONDE_MPIEXEC : "this MPI's mpiexec",
		        open_mpi ? " or srun --mpi=pmix" : "");
	}
	return 1;
}

static void print_usage(FILE *out)
{
	fprintf(out,
	        "usage: sonde <workload> [options]\n"
	        "       sonde <workload> --help    (or: sonde help <workload>)\n"
	        "       sonde --version\n"
	        "       sonde --parse-only RANKS TASKS_PER_NODE <workload> [options]\n"
	        "       sonde --describe-options\n"
	        "       %s %s\n\n"
	        "Parallel I/O and MPI benchmarks. Workloads:\n",
	        sonde_mix_options.command, sonde_mix_options.usage);
	for (int i = 0; workloads[i]; i++)
		fprintf(out, "  %-8s %s\n", workloads[i]->name, workloads[i]->summary);
	fprintf(out, "\nOptions every workload accepts:\n");
	sonde_options_list(&sonde_common_options, SONDE_SECTION_OPTIONS, out);
	fprintf(out,
	        "\nLaunch with mpirun or srun, e.g. mpirun -n 4 sonde ior -w -r -o /scratch/f\n");
}

static void print_version(void)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0, major = 0, minor = 0;
	/* Both calls are allowed before MPI_Init. */
	MPI_Get_library_version(lib, &len);
	MPI_Get_version(&major, &minor);
	char *nl = strchr(lib, '\n');
	if (nl)
		*nl = '\0';
	printf("sonde %s (%s)\nMPI %d.%d: %s\n", sonde_version, sonde_git_describe, major, minor,
	       lib);
	/* The launcher of the MPI this binary is built with, for the tests, sonde-suite and the
	 * benchmarks, which launch with it rather than with whatever mpirun the PATH or the
	 * system's alternatives pick. */
	if (*SONDE_MPIEXEC)
		printf("Launcher: %s\n", SONDE_MPIEXEC);
	printf("License: %s (the LICENSE file); there is no warranty\n", sonde_license);
}

/* The help a user asked for: --help always; -h (getopt style) or -help (LANL style) when the
 * workload does not use that word for something else. */
static int asks_for_help(const struct sonde_workload *w, int argc, char **argv)
{
	const struct sonde_option_table *t = sonde_options_full(w->options);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0)
			return 1;
		if (t->style == SONDE_STYLE_SHORT && strcmp(argv[i], "-h") == 0 &&
		    !sonde_option_find(t, "h"))
			return 1;
		if (t->style == SONDE_STYLE_WORDS && strcmp(argv[i], "-help") == 0 &&
		    !sonde_option_find(t, "help"))
			return 1;
		/* -h is what users type first, in either style, where it means nothing else */
		if (t->style == SONDE_STYLE_WORDS && strcmp(argv[i], "-h") == 0 &&
		    !sonde_option_find(t, "h"))
			return 1;
	}
	return 0;
}

/* A whole number >= 1 of the --parse-only command line, else the usage line and -1. */
static int launch_count(const char *text, const char *what, int *out)
{
	int64_t v;
	char why[128];
	if (sonde_parse_int(text, 1, INT32_MAX, &v, why, sizeof why) != 0) {
		fprintf(stderr,
		        "sonde: error: --parse-only %s %s (usage: sonde --parse-only RANKS "
		        "TASKS_PER_NODE <workload> [options])\n",
		        what, why);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* sonde --parse-only RANKS TASKS_PER_NODE <workload> [options]: the command line checked as a
 * launch of RANKS ranks, TASKS_PER_NODE per node, would check it, by the workload's own
 * function, and the params its header record would hold, as one JSON line. Tools (sonde-suite
 * --dry-run) learn from it how the binary reads a command line before they launch anything.
 *
 * Without MPI: a parse is one process that must run where no launcher is (a login node, a
 * Python test), and the checks it makes are the ones every rank of a run makes alike, so the
 * collectives of the run's checks (sonde_agree, the broadcast of an input file) have nothing
 * to agree on; they take MPI_COMM_NULL as mib -M does. MPI_Init as a singleton would work with
 * some MPI libraries only, and with Open MPI it starts a runtime daemon for each parse. */
static int parse_only(int argc, char **argv)
{
	int ranks, tasks_per_node;
	if (argc < 5) {
		fprintf(stderr, "sonde: error: usage: sonde --parse-only RANKS TASKS_PER_NODE "
		                "<workload> [options]\n");
		return SONDE_EXIT_USAGE;
	}
	if (launch_count(argv[2], "RANKS", &ranks) < 0 ||
	    launch_count(argv[3], "TASKS_PER_NODE", &tasks_per_node) < 0)
		return SONDE_EXIT_USAGE;
	int mix = strcmp(argv[4], "mix") == 0;
	const struct sonde_workload *w = mix ? NULL : find_workload(argv[4]);
	if (!w && !mix) {
		fprintf(stderr, "sonde: error: unknown workload '%s' (sonde --help lists them)\n",
		        argv[4]);
		return SONDE_EXIT_USAGE;
	}
	const char *name = mix ? "mix" : w->name;
	sonde_fail_set_workload(name);
	/* argv as a run sees it from [1] on: the workload, then its options */
	struct sonde_context ctx = {
	    .workload = name,
	    .comm = MPI_COMM_NULL,
	    .size = ranks,
	    .argc = argc - 3,
	    .argv = argv + 3,
	    .parse_only = 1,
	};
	sonde_topology_planned(&ctx.topo, ranks, tasks_per_node);
	char *params = mix ? sonde_mix_params(&ctx, workloads, argc - 3, argv + 3)
	                   : w->params(&ctx, argc - 4, argv + 4);
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_string(&j, "workload", name);
	sonde_json_int(&j, "ranks", ranks);
	sonde_json_int(&j, "tasks_per_node", ctx.topo.tasks_per_node);
	sonde_json_raw(&j, "params", params);
	sonde_json_object_end(&j);
	printf("%s\n", j.buf);
	sonde_json_free(&j);
	free(params);
	sonde_topology_free(&ctx.topo);
	return fflush(stdout) == 0 ? SONDE_EXIT_OK : SONDE_EXIT_RUNTIME;
}

/* sonde --describe-options: every workload with the parameters its records' params hold (from
 * its option table: name, JSON type, command-line spellings and whether it is a path), and every
 * storage backend (-a) with the library this build lacks for it (null: usable), as one JSON line,
 * so that tools that read the records (sonde-suite's checks of a suite file) or drive the binary
 * (bench/) know them without a list of their own (python/sonde/results/names.py). What a workload
 * adds to its records besides its options is not in its table, and not described (but for
 * the paths a table names, .positional_paths). */
static int describe_options(int argc)
{
	if (argc != 2) {
		fprintf(stderr, "sonde: error: usage: sonde --describe-options\n");
		return SONDE_EXIT_USAGE;
	}
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_array_begin(&j, "workloads");
	for (int i = 0; workloads[i]; i++) {
		sonde_json_object_begin(&j, NULL);
		sonde_json_string(&j, "workload", workloads[i]->name);
		sonde_json_string(&j, "summary", workloads[i]->summary);
		sonde_options_describe(workloads[i]->options, "params", &j);
		sonde_json_object_end(&j);
	}
	sonde_json_array_end(&j);
	sonde_json_array_begin(&j, "backends");
	for (int i = 0; i < sonde_backend_count(); i++) {
		const struct sonde_backend *b = sonde_backend_at(i);
		sonde_json_object_begin(&j, NULL);
		sonde_json_string(&j, "name", b->name);
		sonde_json_string(&j, "missing", b->missing);
		sonde_json_object_end(&j);
	}
	sonde_json_array_end(&j);
	sonde_json_object_end(&j);
	printf("%s\n", j.buf);
	sonde_json_free(&j);
	return fflush(stdout) == 0 ? SONDE_EXIT_OK : SONDE_EXIT_RUNTIME;
}

/* MPI_COMM_WORLD: the launch. Every workload runs on the communicator its context gives: this
 * one when it runs alone, its group's in `sonde mix`. */
static void start_mpi(struct sonde_context *ctx, int *argc, char ***argv)
{
	/* Read before MPI_Init: a singleton's MPI may set launcher variables of its own (Open MPI
	 * gives each singleton PMIX_RANK=0). */
	struct launcher_view launcher = {sonde_launcher_rank(), sonde_launcher_size(),
	                                 sonde_launcher_kind()};
	/* The threads MPI starts (Open MPI's event and PMIx threads) inherit this mask: SIGTERM and
	 * SIGINT then come to the thread running the workload, whose handler ends the run (one
	 * handled on another thread let the workload go on writing records after the end record);
	 * one arriving meanwhile waits until the mask is restored. */
	sigset_t before;
	sonde_stop_defer(&before);
	MPI_Init(argc, argv);
	sonde_stop_allow(&before);
	ctx->mpi = 1;
	ctx->comm = MPI_COMM_WORLD;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(ctx->comm, &ctx->rank);
	MPI_Comm_size(ctx->comm, &ctx->size);
	if (launcher_mismatch(&launcher, ctx->size))
		sonde_exit(early_usage_error(launcher.rank));
	sonde_topology_init(ctx->comm, &ctx->topo);
	/* The run's one global clock: phases' finish times, profiles and intervals share it. */
	ctx->clock = *sonde_run_clock(ctx->comm);
	sonde_stop_init();
}

/* sonde mix ...: groups of ranks, each running a workload (src/core/mix.h). */
static int mix(int argc, char **argv)
{
	if (argc == 2 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
		if (sonde_launcher_rank() == 0)
			sonde_mix_usage(argc == 2 ? stderr : stdout);
		return argc == 2 ? early_usage_error(sonde_launcher_rank()) : 0;
	}
	struct sonde_context ctx = {.workload = "mix", .argc = argc, .argv = argv};
	start_mpi(&ctx, &argc, &argv);
	int code = sonde_mix_run(&ctx, workloads, argc, argv);
	sonde_topology_free(&ctx.topo);
	sonde_exit(code);
}

int main(int argc, char **argv)
{
	/* Benchmark files land on shared file systems: none may be writable by group or others,
	 * whatever the caller's umask. The umask is the one place that also covers the files that
	 * ROMIO and PnetCDF create (with 0666 & ~umask, no mode of ours). */
	umask(umask(0) | 022);
	if (argc < 2) {
		if (sonde_launcher_rank() == 0)
			print_usage(stderr);
		return early_usage_error(sonde_launcher_rank());
	}
	/* Texts printed instead of a run come from rank 0 alone, also under a launcher. */
	int speaks = sonde_launcher_rank() == 0;
	if (strcmp(argv[1], "--version") == 0) {
		if (speaks)
			print_version();
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		if (speaks)
			print_usage(stdout);
		return 0;
	}
	/* sonde help WORKLOAD: the workload's --help */
	if (strcmp(argv[1], "help") == 0) {
		const struct sonde_workload *w = argc == 3 ? find_workload(argv[2]) : NULL;
		if (!w) {
			if (speaks)
				fprintf(stderr,
				        "sonde: error: usage: sonde help [WORKLOAD] (workloads: "
				        "sonde --help)\n");
			return early_usage_error(sonde_launcher_rank());
		}
		if (speaks)
			sonde_options_help(sonde_options_full(w->options), stdout);
		return 0;
	}
	/* The build's generated documents (CMakeLists.txt): sonde(1) and the shell completion. */
	if (strcmp(argv[1], "--help-man") == 0) {
		sonde_manpage_sonde(workloads, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--parse-only") == 0)
		return parse_only(argc, argv);
	if (strcmp(argv[1], "--describe-options") == 0)
		return describe_options(argc);
	if (strcmp(argv[1], "--help-completion") == 0) {
		if (argc != 3 || strcmp(argv[2], "bash") != 0) {
			fprintf(stderr, "sonde: error: usage: sonde --help-completion bash\n");
			return SONDE_EXIT_USAGE;
		}
		sonde_completion_bash(workloads, stdout);
		return 0;
	}
	if (strcmp(argv[1], "mix") == 0)
		return mix(argc, argv);
	const struct sonde_workload *w = find_workload(argv[1]);
	if (!w) {
		if (sonde_launcher_rank() == 0)
			fprintf(stderr,
			        "sonde: error: unknown workload '%s' (sonde --help lists them)\n",
			        argv[1]);
		return early_usage_error(sonde_launcher_rank());
	}
	sonde_fail_set_workload(w->name);
	if (argc > 2 && strcmp(argv[2], "--help-markdown") == 0) {
		if (speaks)
			sonde_options_markdown(sonde_options_full(w->options), stdout);
		return 0;
	}
	/* sonde-<workload>(1), with the DIFFERENCES of its docs page (docs/workloads/<w>.md), or
	 * saying it has none when no page is named. */
	if (argc > 2 && strcmp(argv[2], "--help-man") == 0) {
		char err[512];
		if (argc > 4) {
			fprintf(stderr, "sonde: error: usage: sonde %s --help-man [DOCS_PAGE]\n",
			        w->name);
			return SONDE_EXIT_USAGE;
		}
		if (sonde_manpage_workload(w, argc == 4 ? argv[3] : NULL, stdout, err, sizeof err) <
		    0) {
			fprintf(stderr, "sonde %s: error: %s\n", w->name, err);
			return SONDE_EXIT_USAGE;
		}
		return 0;
	}
	if (asks_for_help(w, argc, argv)) {
		if (speaks)
			sonde_options_help(sonde_options_full(w->options), stdout);
		return 0;
	}

	struct sonde_context ctx = {
	    .workload = w->name,
	    .comm = MPI_COMM_NULL,
	    .size = 1,
	    .argc = argc,
	    .argv = argv,
	};
	if (!w->wants_mpi || w->wants_mpi(argc - 1, argv + 1))
		start_mpi(&ctx, &argc, &argv);
	else
		sonde_topology_single(&ctx.topo);
	int code = w->run(&ctx, argc - 1, argv + 1);
	sonde_topology_free(&ctx.topo);
	sonde_exit(code);
}
