/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde mdtest: mdtest (IOR repository, 4.x), the metadata benchmark.
 *
 * Each iteration makes the directory tree (every rank its own with -u, else rank 0 one shared
 * tree), then runs the phases in mdtest's order: directories (create, stat, rename, remove),
 * then files (create, stat, read, remove); finally it removes the tree. In a phase every rank
 * works on its items between two barriers, and the rate is the items of all ranks over the
 * slowest rank's time. In the k-th phase (create 0, stat 1, read 2, remove 3) rank r works on
 * the items of rank r + k*N, so that with -N a rank stats, reads and removes what a rank on
 * another node made. Under a stonewall (-W) file creation stops at the deadline and every rank
 * catches up to the largest count any rank reached. mdtest's SUMMARY table closes the run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fail.h"
#include "files.h"
#include "fsinfo.h"
#include "json.h"
#include "results.h"
#include "space.h"
#include "workloads/mdtest/run.h"

/* ---- checks before anything is made ------------------------------------------------------- */

static int phases_given(const struct mdtest_params *p)
{
	return p->create || p->stat || p->read || p->remove || p->rename;
}

/* mdtest's defaults: every phase when none is named, files and directories when neither is. */
static void settle_phases(struct mdtest_params *p)
{
	if (!phases_given(p))
		p->create = p->stat = p->read = p->remove = p->rename = 1;
	if (!p->dirs_only && !p->files_only)
		p->dirs_only = p->files_only = 1;
	if (p->shared_file)
		p->dirs_only = 0;
}

/* mdtest's parameter rules (its words where it has them), then the ones sonde adds where mdtest
 * would run and mis-measure. */
static int check_params(const struct mdtest_run *run, int size, char *err, size_t errlen)
{
	const struct mdtest_params *p = &run->p;
	const struct mdtest_tree *t = &run->tree;
#define REFUSE(...) return snprintf(err, errlen, __VA_ARGS__), -1
	if (p->stonewall > 0 && (p->branch > 1 || p->no_barriers))
		REFUSE("stone wall timer does only work with a branch factor <= 1 (current is %d) "
		       "and with barriers",
		       p->branch);
	if (p->no_barriers && p->stride)
		REFUSE("Possible race conditions will occur: -B not compatible with -N");
	if (p->shared_file && p->collective)
		REFUSE("-c not compatible with -S");
	if (run->ndirs > 1 && p->collective)
		REFUSE("-c not compatible with multiple test directories");
	if (p->collective && p->no_barriers)
		REFUSE("-c not compatible with -B");
	if (p->unique_dir && p->shared_file)
		REFUSE("-u not compatible with -S");
	if (run->ndirs > 1 && p->stride > 0)
		REFUSE(
		    "cannot have multiple directory paths with -N strides between neighbor tasks");
	if (run->ndirs > 1 && !p->unique_dir)
		REFUSE("shared directory mode is not compatible with multiple directory paths");
	if (run->ndirs > size)
		REFUSE("cannot have more directory paths than MPI tasks");
	if (p->write_bytes > 0 && p->mknod)
		REFUSE("-k not compatible with -w");
	if (p->verify_read && !p->read)
		REFUSE("Verify read requires that the read test is used");
	if (p->verify_read && p->read_bytes <= 0)
		REFUSE("Verify read requires that read bytes is > 0");
	if (p->create && p->read && p->read_bytes > p->write_bytes)
		REFUSE(
		    "When writing and reading files, read bytes must be smaller than write bytes");
	if (p->last_tasks && p->first_tasks > p->last_tasks)
		REFUSE("process number: first > last doesn't make sense");
	if (p->last_tasks > size)
		REFUSE("process number: last > number of processes doesn't make sense");
	if (p->stonewall > 0 && (t->dirs - t->first_item_dir != 1 || t->loops != 1))
		REFUSE("-W needs each rank's files in one directory: a tree of depth 0 (-z 0), or "
		       "-L with -b 1");
	if (p->stonewall > 0 && p->collective)
		REFUSE("-W with -c: the stonewall's catch-up needs every rank to create its own "
		       "items");
	if (p->verify_read && p->shared_file)
		REFUSE("-X with -S: every rank writes the shared files, so no one writer's data "
		       "can be "
		       "verified");
	if (p->verify_read && !p->create && p->seed < 0)
		REFUSE("-X without -C checks data an earlier run wrote: give that run's -G");
	if (*(const int *)sonde_backend_option_field(&p->backends, "posix.odirect") &&
	    (p->write_bytes % 4096 || p->read_bytes % 4096))
		REFUSE("--posix.odirect: -w and -e must be multiples of 4096 (O_DIRECT)");
#undef REFUSE
	return 0;
}

/* -d a@b@c: every part a directory, none empty. */
static int split_dirs(struct mdtest_run *run, char *err, size_t errlen)
{
	const char *text = run->p.dirs;
	run->ndirs = 1;
	for (const char *c = text; *c; c++)
		run->ndirs += *c == '@';
	run->dirs = calloc((size_t)run->ndirs, sizeof *run->dirs);
	if (!run->dirs)
		sonde_fatal("out of memory");
	const char *from = text;
	for (int i = 0; i < run->ndirs; i++) {
		const char *at = strchr(from, '@');
		size_t len = at ? (size_t)(at - from) : strlen(from);
		if (len == 0) {
			snprintf(err, errlen, "option -d '%s': an empty directory path", text);
			return -1;
		}
		run->dirs[i] = strndup(from, len);
		if (!run->dirs[i])
			sonde_fatal("out of memory");
		from = at ? at + 1 : from + len;
	}
	return 0;
}

/* ---- set-up ------------------------------------------------------------------------------- */

/* -G: the data seed, drawn by rank 0 when not given (mdtest draws it from the clock). */
static uint64_t data_seed(const struct mdtest_run *run)
{
	int64_t seed = run->p.seed;
	if (seed < 0)
		seed = (int64_t)time(NULL) & 0x7fffffff;
	if (run->ctx->mpi)
		MPI_Bcast(&seed, 1, MPI_INT64_T, 0, run->ctx->comm);
	return (uint64_t)seed;
}

/* -R: mdtest's seed is drawn by rank 0 when --random-seed is 0, and differs per rank. */
static void random_order_seed(struct mdtest_run *run)
{
	struct mdtest_params *p = &run->p;
	if (!p->random_order && p->random_seed == 0)
		return;
	if (p->random_seed == 0)
		p->random_seed = (int)(time(NULL) & 0x3fffffff);
	if (run->ctx->mpi)
		MPI_Bcast(&p->random_seed, 1, MPI_INT, 0, run->ctx->comm);
	p->random_order = 1;
}

/* -N counts nodes when ranks are placed in blocks, as mdtest's shift does: a rank then works on
 * the items of a rank on another node. */
static int stride_in_ranks(const struct mdtest_run *run)
{
	const struct sonde_topology *t = &run->ctx->topo;
	int block = t->size > 1 && t->node_of_rank[1] == t->node_of_rank[0];
	if (run->p.stride > 0 && t->nnodes > 1 && block)
		return run->p.stride * t->tasks_per_node;
	return run->p.stride;
}

/* -x without -C: the file phases work on the count an earlier stonewalled run saved. */
static void read_status_file(struct mdtest_run *run)
{
	int64_t v[2] = {-1, 0}; /* count, problem (1 missing, 2 malformed) */
	if (run->rank == 0) {
		FILE *f = fopen(run->p.status_file, "r");
		long long count;
		if (!f)
			v[1] = 1;
		else if (fscanf(f, "%lld", &count) != 1 || count < 0)
			v[1] = 2;
		else
			v[0] = count;
		if (f)
			fclose(f);
	}
	MPI_Bcast(v, 2, MPI_INT64_T, 0, run->ctx->comm);
	if (v[1] == 1) {
		sonde_warn("Could not read stonewall status file %s: the file phases use -n",
		           run->p.status_file);
		return;
	}
	if (v[1] == 2 || (run->tree.loops > 1 && v[0] % run->tree.items_per_dir)) {
		sonde_error("-x %s: not a stonewall status file (one item count%s)",
		            run->p.status_file, run->tree.loops > 1 ? ", a multiple of -I" : "");
		sonde_exit(SONDE_EXIT_USAGE);
	}
	run->file_items = v[0];
	if (run->p.verbose >= 1 && run->rank == 0)
		printf("V-1: Rank   0 Read stonewall status; items: %lld\n", (long long)v[0]);
}

static void write_status_file(const struct mdtest_run *run, int64_t count)
{
	char err[PATH_MAX + 64] = "";
	int ok = 1;
	if (run->rank == 0) {
		FILE *f = sonde_fopen_nofollow(run->p.status_file, "w");
		int e = f ? 0 : errno;
		if (f) {
			fprintf(f, "%lld", (long long)count);
			e = sonde_fclose_checked(f);
		}
		ok = !e;
		if (!ok) {
			snprintf(err, sizeof err, "-x %s: %s", run->p.status_file,
			         sonde_strerror(e));
			sonde_results_note_failure(0, run->p.status_file, err);
		}
	}
	if (!sonde_agree(run->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_RUNTIME);
}

static char *params_json(const struct mdtest_run *run)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_options_json(sonde_options_full(&mdtest_options), &run->p, &j);
	sonde_json_int(&j, "items_per_rank", run->tree.items * run->tree.loops);
	sonde_json_int(&j, "items_per_directory", run->tree.items_per_dir);
	sonde_json_int(&j, "tree_directories", run->tree.dirs);
	sonde_json_int(&j, "stride_ranks", run->stride);
	sonde_json_int(&j, "data_seed", (int64_t)run->seed);
	sonde_json_object_end(&j);
	return j.buf;
}

static void print_header(const struct mdtest_run *run)
{
	const struct sonde_context *ctx = run->ctx;
	const struct sonde_topology *t = &ctx->topo;
	char when[64];
	mdtest_timestamp(when, sizeof when);
	printf("-- started at %s --\n\n", when);
	printf("mdtest-%s (sonde %s) was launched with %d total task(s) on %d node(s)\n",
	       MDTEST_COMPAT_VERSION, sonde_version, ctx->size, t->nnodes);
	printf("Command line used: sonde mdtest");
	for (int i = 2; i < ctx->argc; i++)
		printf(" '%s'", ctx->argv[i]);
	printf("\n");
	if (run->p.verbose >= 1)
		mdtest_print_params(stdout, &run->p, run->dirs, run->ndirs);
	printf("Nodemap: ");
	for (int r = 0; r < ctx->size; r++)
		printf("%d", t->node_of_rank[r] == t->node_of_rank[0]);
	printf("\n");
	struct sonde_fs_usage fs;
	if (sonde_fs_usage(run->dirs[0], &fs) == 0) {
		printf("%-20s: %s\n", "Path", run->dirs[0]);
		sonde_fs_usage_print(stdout, &fs);
	}
	if (run->stride > 0)
		printf("V-0: Rank   0 Shifting ranks by %d for each phase.\n", run->stride);
	if (run->p.random_order)
		printf("random seed: %d\n", run->p.random_seed);
	fflush(stdout);
}

/* The -d directories (ranks below their number make them when missing and the run creates);
 * returns whether this rank made its own, which the last remove phase removes again. */
static int make_base_dirs(struct mdtest_run *run)
{
	int made = 0, err = 0;
	char msg[PATH_MAX + 128] = "";
	const char *d = run->rank < run->ndirs ? run->dirs[run->rank] : "";
	if (run->rank < run->ndirs) {
		/* A run that creates nothing needs an earlier run's directory: it makes none. */
		int rc = run->p.create ? run->io->mkdir(d, 0775) : -EEXIST;
		struct stat st;
		if (rc == 0) {
			made = 1;
		} else if (rc != -EEXIST) {
			err = -rc;
			snprintf(msg, sizeof msg, "-d: %s", sonde_io_last_error());
		} else if (lstat(d, &st) != 0) {
			err = errno;
			snprintf(msg, sizeof msg, "-d %s: %s", d, sonde_strerror(err));
		} else if (!S_ISDIR(st.st_mode)) {
			err = ENOTDIR;
			snprintf(msg, sizeof msg,
			         "-d %s: not a directory (a symbolic link is not followed)", d);
		}
	}
	err = sonde_agree_path(run->ctx->comm, err, d, "%s", msg);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_INPUT));
	return made;
}

/* The command line, parsed and checked, and what follows from it (the tree, the seeds, the
 * stride): everything the header's params hold. By the run and by sonde --parse-only, where
 * the seeds drawn by rank 0 need no broadcast (ctx->mpi is 0). */
static void parse(struct mdtest_run *run, int argc, char **argv)
{
	struct sonde_context *ctx = run->ctx;
	mdtest_params_defaults(&run->p);
	struct sonde_parse_result pos;
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &mdtest_options, &run->p, argc, argv, &pos);
	if (pos.npositional > 0) {
		sonde_error("unexpected argument '%s' (sonde mdtest --help lists the options)",
		            pos.positional[0]);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	sonde_parse_result_free(&pos);
	sonde_options_warn_inert(set);
	settle_phases(&run->p);
	char err[PATH_MAX + 256];
	if (split_dirs(run, err, sizeof err) < 0 ||
	    mdtest_tree_plan(&run->p, &run->tree, err, sizeof err) < 0 ||
	    check_params(run, ctx->size, err, sizeof err) < 0) {
		sonde_error("%s", err);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	if (run->p.read && run->p.files_only && run->p.read_bytes <= 0)
		sonde_warn("Read bytes is 0, thus, a read test will actually just open/close");
	run->io = sonde_backend_find(run->p.api);
	run->rank = ctx->rank;
	run->seed = data_seed(run);
	random_order_seed(run);
	run->stride = stride_in_ranks(run);
	run->file_items = run->tree.items * run->tree.loops;
}

static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct mdtest_run run = {.ctx = ctx};
	parse(&run, argc, argv);
	char *params = params_json(&run);
	for (int i = 0; i < run.ndirs; i++)
		free(run.dirs[i]);
	free(run.dirs);
	return params;
}

static void setup(struct mdtest_run *run, int argc, char **argv)
{
	struct sonde_context *ctx = run->ctx;
	parse(run, argc, argv);
	if (run->p.status_file && !run->p.create && run->p.files_only)
		read_status_file(run);
	run->params = params_json(run);
	sonde_results_header(ctx, run->params, run->dirs[0]);
	/* the data of the files (-w), every rank's at once at the largest task count */
	if (run->p.create && run->p.files_only && run->p.write_bytes > 0 &&
	    sonde_space_check(ctx, run->dirs[0],
	                      (int64_t)ctx->size * run->file_items * run->p.write_bytes, NULL,
	                      "the files' data (-w)") < 0)
		sonde_exit(SONDE_EXIT_USAGE);
	run->made_base = make_base_dirs(run);
	if (ctx->rank == 0)
		print_header(run);
}

/* ---- one phase ---------------------------------------------------------------------------- */

static int creates(enum mdtest_op op)
{
	return op == MDTEST_DIR_CREATE || op == MDTEST_FILE_CREATE;
}

/* The latency buffer holds every item this rank may do in the phase (rank 0 does every
 * rank's with -c); -R's order is drawn for the phase's items. Both before the clock starts. */
static void prepare(struct mdtest_run *run, enum mdtest_op op)
{
	int64_t per_loop = op <= MDTEST_DIR_REMOVE ? run->tree.items
	                   : op <= MDTEST_FILE_REMOVE
	                       ? (run->tree.loops > 1 ? run->tree.items_per_dir : run->file_items)
	                       : run->tree.dirs;
	int64_t need = per_loop * run->tree.loops;
	if (run->p.collective)
		need *= run->tasks;
	if (need > run->caplat) {
		free(run->lat);
		run->lat = malloc(sizeof *run->lat * (size_t)need);
		if (!run->lat)
			sonde_fatal("out of memory for %lld latencies", (long long)need);
		run->caplat = need;
	}
	free(run->order);
	run->order = NULL;
	if (run->p.random_order &&
	    (op == MDTEST_DIR_STAT || op == MDTEST_FILE_STAT || op == MDTEST_FILE_READ)) {
		run->order = malloc(sizeof *run->order * (size_t)(per_loop ? per_loop : 1));
		if (!run->order)
			sonde_fatal("out of memory for %lld items' order", (long long)per_loop);
		mdtest_shuffle(run->order, per_loop,
		               (uint64_t)run->p.random_seed + (uint64_t)run->rank);
	}
}

static void shell(const char *cmd, const char *what)
{
	int rc = system(cmd);
	if (rc != 0)
		sonde_fatal("%s '%s' exited with status %d", what, cmd, rc);
}

static void barrier(const struct mdtest_run *run)
{
	if (!run->p.no_barriers)
		MPI_Barrier(run->comm);
}

/* A phase as mdtest times it: after a barrier, until after the closing barrier (-Y's sync and
 * the after-phase command inside). */
static struct mdtest_pass phase(struct mdtest_run *run, enum mdtest_op op, int iteration)
{
	struct mdtest_pass pass = {.op = op, .iteration = iteration, .wearout_items = -1};
	prepare(run, op);
	if (run->p.prologue)
		shell(run->p.prologue, "--run-cmd-before-phase");
	barrier(run);
	pass.start = sonde_now();
	for (int loop = 0; loop < run->tree.loops; loop++) {
		if (creates(op) && run->p.unique_dir) {
			/* mdtest enters the unique directory after a barrier, outside the time
			 * unless -t asks for it. */
			MPI_Barrier(run->comm);
			if (!run->p.time_unique_dir)
				pass.start = sonde_now();
		}
		mdtest_items(run, &pass, loop);
	}
	pass.before_barrier = sonde_now();
	if (run->p.sync_phase)
		sync();
	if (run->p.epilogue)
		shell(run->p.epilogue, "--run-cmd-after-phase");
	barrier(run);
	pass.end = sonde_now();
	mdtest_report_phase(run, &pass);
	return pass;
}

/* Tree creation and removal: between barriers always, one tree's directories counted. */
static void tree_phase(struct mdtest_run *run, enum mdtest_op op, int iteration)
{
	struct mdtest_pass pass = {.op = op, .iteration = iteration, .wearout_items = -1};
	prepare(run, op);
	MPI_Barrier(run->comm);
	pass.start = sonde_now();
	for (int loop = 0; loop < run->tree.loops; loop++)
		mdtest_tree_dirs(run, &pass, loop);
	pass.before_barrier = sonde_now();
	MPI_Barrier(run->comm);
	pass.end = sonde_now();
	mdtest_report_phase(run, &pass);
}

/* ---- one iteration ------------------------------------------------------------------------ */

/* test-dir.<iteration>-<loop> in each -d directory, made by the ranks below their number;
 * an existing one is used only when it is a directory (not a link to one). */
static void test_dirs(struct mdtest_run *run, int iteration, int make)
{
	char msg[PATH_MAX + 128] = "", d[PATH_MAX] = "";
	int err = 0;
	for (int loop = 0; run->rank < run->ndirs && loop < run->tree.loops && !err; loop++) {
		struct stat st;
		mdtest_test_dir(run, run->rank, iteration, loop, d, sizeof d);
		int rc = make ? run->io->mkdir(d, 0775) : run->io->rmdir(d);
		if (make && rc == -EEXIST && (lstat(d, &st) != 0 || !S_ISDIR(st.st_mode))) {
			err = ENOTDIR;
			snprintf(msg, sizeof msg,
			         "%s: not a directory (a symbolic link is not followed)", d);
		} else if (rc != 0 && rc != -EEXIST && !(rc == -ENOENT && !make)) {
			err = -rc;
			snprintf(msg, sizeof msg, "%s", sonde_io_last_error());
		}
	}
	err = sonde_agree_path(run->comm, err, d, "%s", msg);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_RUN));
}

/* A run that does not create works in an earlier run's tree: it must be there, and be made of
 * directories, before any of its items is touched. */
static void existing_tree(struct mdtest_run *run, int iteration)
{
	char msg[2 * PATH_MAX], path[PATH_MAX] = "";
	int err = mdtest_tree_check(run, iteration, msg, sizeof msg, path, sizeof path);
	err = sonde_agree_path(run->comm, err, path, "%s", msg);
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_INPUT));
}

static void pre_delay(const struct mdtest_run *run)
{
	if (run->p.pre_delay > 0 && run->rank == 0) {
		if (run->p.verbose >= 1)
			printf("delaying %d seconds . . .\n", run->p.pre_delay);
		sleep((unsigned)run->p.pre_delay);
	}
}

static void directory_phases(struct mdtest_run *run, int j)
{
	const struct mdtest_params *p = &run->p;
	pre_delay(run);
	if (p->create)
		phase(run, MDTEST_DIR_CREATE, j);
	if (p->stat)
		phase(run, MDTEST_DIR_STAT, j);
	if (p->rename && run->tree.items > 1)
		phase(run, MDTEST_DIR_RENAME, j);
	if (p->remove)
		phase(run, MDTEST_DIR_REMOVE, j);
}

static void file_phases(struct mdtest_run *run, int j)
{
	const struct mdtest_params *p = &run->p;
	int64_t planned = run->file_items;
	pre_delay(run);
	if (p->create) {
		struct mdtest_pass pass = phase(run, MDTEST_FILE_CREATE, j);
		/* After a stonewall the later phases work on what was made. */
		if (pass.wearout_items >= 0)
			run->file_items = pass.wearout_items;
		if (p->status_file)
			write_status_file(run, run->file_items);
	}
	if (p->stat)
		phase(run, MDTEST_FILE_STAT, j);
	if (p->read)
		phase(run, MDTEST_FILE_READ, j);
	if (p->remove)
		phase(run, MDTEST_FILE_REMOVE, j);
	run->file_items = planned;
}

static void iteration(struct mdtest_run *run, int j)
{
	const struct mdtest_params *p = &run->p;
	if (run->rank == 0 && p->verbose >= 1)
		printf("V-1: Rank   0 main: * iteration %d *\n", j + 1);
	if (p->create) {
		test_dirs(run, j, 1);
		tree_phase(run, MDTEST_TREE_CREATE, j);
	} else {
		existing_tree(run, j);
	}
	if (p->dirs_only && !p->shared_file)
		directory_phases(run, j);
	if (p->files_only)
		file_phases(run, j);
	MPI_Barrier(run->comm);
	if (p->remove) {
		tree_phase(run, MDTEST_TREE_REMOVE, j);
		test_dirs(run, j, 0);
	}
	if (run->rank == 0 && p->verbose >= 1)
		mdtest_print_iteration(stdout, &run->summary, j);
}

/* ---- a round of -f/-l/-s ------------------------------------------------------------------ */

static void round_header(const struct mdtest_run *run)
{
	const struct mdtest_params *p = &run->p;
	long long all = (long long)run->tasks * run->file_items;
	if (p->files_only && p->dirs_only)
		printf("%d tasks, %lld files/directories\n", run->tasks, all);
	else if (p->files_only && p->shared_file)
		printf("%d tasks, 1 file\n", run->tasks);
	else if (p->files_only)
		printf("%d tasks, %lld files\n", run->tasks, all);
	else
		printf("%d tasks, %lld directories\n", run->tasks, all);
	if (p->verbose >= 1)
		printf(
		    "V-1: Rank   0 \nV-1: Rank   0    Operation               Duration             "
		    " "
		    "Rate\nV-1: Rank   0    ---------               --------              ----\n");
	fflush(stdout);
}

static void summarize(struct mdtest_run *run)
{
	const struct mdtest_params *p = &run->p;
	int64_t errors = run->verify_errors; /* already the sum over the ranks */
	if (run->rank != 0)
		return;
	const struct mdtest_summary *s = &run->summary;
	if (p->print_all_procs)
		mdtest_print_all_procs(stdout, s, p->print_time);
	if (p->print_rate_and_time) {
		mdtest_print_summary(stdout, s, 0, p->rank_statistics);
		mdtest_print_summary(stdout, s, 1, p->rank_statistics);
	} else {
		mdtest_print_summary(stdout, s, p->print_time, p->rank_statistics);
	}
	if (errors) {
		printf("\nERROR: verifying the data on read (%lld errors)! Take the performance "
		       "values "
		       "with care!\n\n",
		       (long long)errors);
		sonde_error("verify: %lld bytes read differ from what their writers wrote",
		            (long long)errors);
	}
	fflush(stdout);
}

static void summary_init(struct mdtest_run *run)
{
	struct mdtest_summary *s = &run->summary;
	s->iterations = run->p.iterations;
	s->tasks = run->tasks;
	s->first_op = run->p.files_only && !run->p.dirs_only ? MDTEST_FILE_CREATE : 0;
	s->last_op =
	    run->p.dirs_only && !run->p.files_only ? MDTEST_FILE_CREATE : MDTEST_TREE_CREATE;
	s->fig = calloc((size_t)s->iterations, sizeof *s->fig);
	if (!s->fig)
		sonde_fatal("out of memory");
}

static void summary_free(struct mdtest_summary *s)
{
	for (int j = 0; j < s->iterations; j++)
		for (int op = 0; op < MDTEST_NOPS; op++) {
			free(s->fig[j][op].rank_seconds);
			free(s->fig[j][op].rank_items);
		}
	free(s->fig);
	s->fig = NULL;
}

/* The test on the first `tasks` ranks; the others wait at the end. Returns whether data
 * verified. */
static int test_round(struct mdtest_run *run, int tasks)
{
	MPI_Comm comm;
	MPI_Comm_split(run->ctx->comm, run->ctx->rank < tasks ? 0 : MPI_UNDEFINED, run->ctx->rank,
	               &comm);
	int64_t errors = 0;
	if (comm != MPI_COMM_NULL) {
		run->comm = comm;
		MPI_Comm_size(comm, &run->tasks);
		MPI_Comm_rank(comm, &run->rank);
		run->verify_errors = 0;
		summary_init(run);
		if (run->rank == 0)
			round_header(run);
		for (int j = 0; j < run->p.iterations; j++)
			iteration(run, j);
		summarize(run);
		char err[PATH_MAX + 128] = "";
		int ok = run->rank != 0 || !run->p.rank_csv ||
		         mdtest_rank_csv(run, run->p.rank_csv, err, sizeof err) == 0;
		if (!sonde_agree(comm, ok, "%s", err))
			sonde_exit(SONDE_EXIT_RUNTIME);
		errors = run->verify_errors;
		summary_free(&run->summary);
		MPI_Comm_free(&comm);
	}
	MPI_Barrier(run->ctx->comm);
	MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT64_T, MPI_MAX, run->ctx->comm);
	return errors == 0;
}

/* ---- the run ------------------------------------------------------------------------------ */

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	struct mdtest_run run = {.ctx = ctx};
	setup(&run, argc, argv);
	size_t buf =
	    (size_t)(run.p.read_bytes > run.p.write_bytes ? run.p.read_bytes : run.p.write_bytes);
	if (buf && posix_memalign(&run.read_buf, 4096, (buf + 4095) / 4096 * 4096) != 0)
		sonde_fatal("out of memory for %zu bytes", buf);
	int first = run.p.last_tasks ? run.p.first_tasks : ctx->size;
	int last = run.p.last_tasks ? run.p.last_tasks : ctx->size;
	int verified = 1;
	for (int tasks = first; tasks <= last; tasks += run.p.step_tasks)
		verified &= test_round(&run, tasks);
	/* mdtest removes the -d directory when it made it and removed what it made. */
	if (run.made_base && run.p.remove && run.io->rmdir(run.dirs[run.rank]) != 0)
		sonde_fatal("%s", sonde_io_last_error());
	if (ctx->rank == 0) {
		char when[64];
		mdtest_timestamp(when, sizeof when);
		printf("-- finished at %s --\n\n", when);
		fflush(stdout);
	}
	for (int i = 0; i < run.ndirs; i++)
		free(run.dirs[i]);
	free(run.dirs);
	free(run.lat);
	free(run.order);
	free(run.read_buf);
	free(run.params);
	return verified ? SONDE_EXIT_OK : SONDE_EXIT_VERIFY;
}

const struct sonde_workload sonde_workload_mdtest = {
    .name = "mdtest",
    .summary = "mdtest: create/stat/read/remove files and directories in trees, per-phase rates",
    .options = &mdtest_options,
    .run = run,
    .params = params_only,
};
