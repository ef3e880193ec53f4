/* SPDX-License-Identifier: BSD-3-Clause */
/* Before the first phase: where the report and errors go, who writes which file under which
 * name, and the hints every open carries. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "fail.h"
#include "files.h"
#include "results.h"
#include "space.h"
#include "workloads/mpiio/mpiio.h"

/* A file this run writes that is also --json or --csv would overwrite or pollute the results:
 * refused (usage error) before anything is written. */
static void refuse_collision(struct mpiio_run *run, const char *path, const char *what)
{
	char err[PATH_MAX + 256] = "";
	int ok = !path || sonde_results_collision(path, what, err, sizeof err) == 0;
	if (!sonde_agree(run->ctx->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
}

static void redirect_output(struct mpiio_run *run)
{
	const struct mpiio_params *p = run->p;
	MPI_Comm comm = run->ctx->comm;
	refuse_collision(run, p->output, "-output file");
	refuse_collision(run, p->errout, "-errout file");
	if (p->errout) {
		int fd =
		    open(p->errout, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		int ok = fd >= 0;
		if (!sonde_agree(comm, ok, "-errout %s: %s", p->errout, sonde_strerror(errno)))
			sonde_exit(SONDE_EXIT_USAGE);
		fflush(stderr);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	run->out = stdout;
	int ok = 1;
	if (run->rank == 0 && p->output) {
		run->out = sonde_fopen_nofollow(p->output, "a");
		ok = run->out != NULL;
	}
	if (!sonde_agree(comm, ok, "-output %s: %s", p->output ? p->output : "",
	                 sonde_strerror(errno)))
		sonde_exit(SONDE_EXIT_USAGE);
}

/* Line k (0-based) of the -targets file for each file; all lines it needs must be there. */
static const char *targets_line(const struct mpiio_run *run, int needed, int k)
{
	static char *text;
	static char **lines;
	static int nlines;
	if (!text) {
		text = mpiio_read_text(run->ctx->comm, "targets", run->p->targets);
		for (char *s = text; *s;) {
			char *nl = strchr(s, '\n');
			char *end = nl ? nl : s + strlen(s);
			while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			char *next = nl ? nl + 1 : end;
			*end = '\0';
			lines = realloc(lines, sizeof *lines * (size_t)(nlines + 1));
			lines[nlines++] = s;
			s = next;
		}
		if (nlines < needed)
			mpiio_usage_error("-targets %s: %d lines, but %d files need a name each",
			                  run->p->targets, nlines, needed);
		for (int i = 0; i < needed; i++)
			if (!lines[i][0])
				mpiio_usage_error("-targets %s: line %d is empty", run->p->targets,
				                  i + 1);
	}
	return lines[k];
}

/* Expands this rank's name when it opens a file (name_rank: the %r it uses, line: its line of
 * -targets); agreed over the world so one bad expansion is one line. */
static void expand_name(struct mpiio_run *run, int expands, int name_rank, int line, int needed)
{
	if (run->p->nofile)
		return; /* no file, no name: -target and -targets are accepted and unused */
	/* Every rank reads -targets (collective); only the ones that expand use a line. */
	const char *tmpl =
	    run->p->targets ? targets_line(run, needed, expands ? line : 0) : run->p->target;
	char err[512] = "";
	int ok = 1;
	if (expands) {
		ok = mpiio_expand_target(tmpl, name_rank, run->hostname, (long)getpid(), run->path,
		                         sizeof run->path, err, sizeof err) == 0;
		/* up to the last '/' before the first escape: what expands is sonde's */
		const char *esc = strchr(tmpl, '%'), *slash = NULL;
		for (const char *c = tmpl; esc && c < esc; c++)
			if (*c == '/')
				slash = c;
		run->literal = !esc ? (int)strlen(tmpl) : slash ? (int)(slash - tmpl) : 0;
	}
	if (!sonde_agree(run->ctx->comm, ok, "%s '%s': %s",
	                 run->p->targets ? "-targets" : "-target", tmpl, err))
		sonde_exit(SONDE_EXIT_USAGE);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Files meant to be distinct must have distinct names: two ranks writing one type-1 file would
 * overwrite each other (the original let them). */
static void check_distinct(struct mpiio_run *run, const char *hint)
{
	if (run->p->nofile)
		return;
	MPI_Comm comm = run->ctx->comm;
	uint64_t mine[2] = {run->owns_file, run->owns_file ? fnv1a(run->path) : 0};
	uint64_t *all = run->rank == 0 ? malloc(sizeof *all * 2 * (size_t)run->nranks) : NULL;
	MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, comm);
	int a = -1, b = -1;
	if (run->rank == 0) {
		/* (hash, rank) pairs sorted: equal names end up next to each other. */
		int *owners = malloc(sizeof *owners * (size_t)run->nranks);
		int n = 0;
		for (int r = 0; r < run->nranks; r++)
			if (all[2 * r])
				owners[n++] = r;
		uint64_t *keys = malloc(sizeof *keys * (size_t)n * 2);
		for (int i = 0; i < n; i++) {
			keys[2 * i] = all[2 * owners[i] + 1];
			keys[2 * i + 1] = (uint64_t)owners[i];
		}
		qsort(keys, (size_t)n, 2 * sizeof *keys, cmp_pair);
		for (int i = 1; i < n && a < 0; i++)
			if (keys[2 * i] == keys[2 * i - 2]) {
				a = (int)keys[2 * i - 1];
				b = (int)keys[2 * i + 1];
			}
		free(keys);
		free(owners);
		free(all);
	}
	int named = run->rank == 0 && (a == 0 || b == 0);
	if (!sonde_agree(comm, a < 0, "ranks %d and %d would write the same file%s%s (%s)",
	                 a < b ? a : b, a < b ? b : a, named ? " " : "", named ? run->path : "",
	                 hint))
		sonde_exit(SONDE_EXIT_USAGE);
}

/* The name of file 0 travels to rank 0 for the report. */
static void share_shown(struct mpiio_run *run, int holder)
{
	MPI_Comm comm = run->ctx->comm;
	if (holder == 0) {
		if (run->rank == 0)
			snprintf(run->shown, sizeof run->shown, "%s", run->path);
		return;
	}
	if (run->rank == holder)
		MPI_Send(run->path, (int)sizeof run->path, MPI_CHAR, 0, 0, comm);
	else if (run->rank == 0)
		MPI_Recv(run->shown, (int)sizeof run->shown, MPI_CHAR, holder, 0, comm,
		         MPI_STATUS_IGNORE);
}

static void build_info(struct mpiio_run *run)
{
	const struct mpiio_params *p = run->p;
	int n = p->hints.count / 2 + (p->dio ? 2 : 0);
	const char **kv = calloc((size_t)n + 1, sizeof *kv);
	int k = 0;
	for (int i = 0; i + 1 < p->hints.count; i += 2) {
		size_t len = strlen(p->hints.items[i]) + strlen(p->hints.items[i + 1]) + 2;
		char *s = malloc(len);
		snprintf(s, len, "%s=%s", p->hints.items[i], p->hints.items[i + 1]);
		kv[k++] = s;
	}
	if (p->dio) {
		kv[k++] = "direct_read=true";
		kv[k++] = "direct_write=true";
	}
	int ok = sonde_io_hints_info(kv, k, &run->info) == 0;
	if (!sonde_agree(run->ctx->comm, ok, "-hints: %s", sonde_io_last_error()))
		sonde_exit(SONDE_EXIT_USAGE);
	for (int i = 0; i < p->hints.count / 2; i++)
		free((char *)kv[i]);
	free(kv);
}

static void split_comm(struct mpiio_run *run, int color)
{
	MPI_Comm_split(run->ctx->comm, color, run->rank, &run->file_comm);
	if (run->file_comm != MPI_COMM_NULL) {
		MPI_Comm_rank(run->file_comm, &run->file_rank);
		MPI_Comm_size(run->file_comm, &run->file_ranks);
	}
}

/* A shared file's name is expanded by its lowest rank and given to the others. */
static void share_name(struct mpiio_run *run)
{
	if (run->file_comm != MPI_COMM_NULL) {
		MPI_Bcast(run->path, (int)sizeof run->path, MPI_CHAR, 0, run->file_comm);
		MPI_Bcast(&run->literal, 1, MPI_INT, 0, run->file_comm);
	}
}

/* Directories a template made (-target /scratch/%h/f): entered without following a link
 * planted at any of them, which would send the writes, and -deletefile's removals, wherever it
 * points; the file is then reached through the directory's descriptor, so a link planted later
 * cannot redirect it either. The user's own part of the path is followed as written. */
static void enter_dirs(struct mpiio_run *run)
{
	snprintf(run->io_path, sizeof run->io_path, "%s", run->path);
	if (run->p->nofile)
		return;
	char dir[PATH_MAX] = "", why[PATH_MAX + 128] = "";
	const char *slash = strrchr(run->path, '/');
	if (run->file_comm != MPI_COMM_NULL && slash && slash - run->path > run->literal) {
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - run->path), run->path);
		int fd = sonde_open_dir_below(dir, (size_t)run->literal);
		if (fd >= 0) {
			run->dir_fd1 = fd + 1;
			sonde_path_in_dir(fd, slash + 1, run->io_path, sizeof run->io_path);
		} else if (errno == ELOOP || errno == ENOTDIR)
			snprintf(why, sizeof why,
			         "directory %s: a symbolic link or no directory in what -target's "
			         "%%-escapes made; sonde does not follow links there",
			         dir);
		else
			snprintf(why, sizeof why, "directory %s: %s", dir, sonde_strerror(errno));
	}
	if (!sonde_agree(run->ctx->comm, !*why, "%s", why))
		sonde_exit(SONDE_EXIT_USAGE);
}

void mpiio_run_counts(struct mpiio_run *run)
{
	const struct mpiio_params *p = run->p;
	long page = sysconf(_SC_PAGESIZE);
	run->page = page > 0 ? page : 4096;
	int n = run->nranks;
	switch (p->type) {
	case MPIIO_N_TO_N:
		run->writers = run->nfiles = n;
		run->senders = n;
		break;
	case MPIIO_N_TO_1:
		run->writers = n;
		run->nfiles = 1;
		run->senders = n;
		break;
	case MPIIO_N_TO_M: {
		int64_t m = p->num_io.count ? mpiio_num_io_sum(&p->num_io) : n;
		if (m > n)
			mpiio_usage_error("-num_io %lld: more files than the %d processes",
			                  (long long)m, n);
		run->writers = (int)m; /* the original's M: -num_io, the number of files */
		run->nfiles = (int)m;
		run->senders = n;
		break;
	}
	case MPIIO_N_TO_M_TO_M:
	case MPIIO_N_TO_M_TO_1: {
		mpiio_plan_build(run);
		struct mpiio_plan *pl = &run->plan;
		run->writers = pl->naggs;
		run->nfiles = p->type == MPIIO_N_TO_M_TO_M ? pl->naggs : 1;
		run->senders = 0;
		for (int i = 0; i < pl->naggs; i++)
			run->senders += pl->nsenders[i];
		if (run->senders == 0)
			mpiio_usage_error(
			    "-norsend with every process an aggregator leaves nothing to "
			    "write");
		break;
	}
	}
}

void mpiio_run_setup(struct mpiio_run *run)
{
	const struct mpiio_params *p = run->p;
	run->rank = run->ctx->rank;
	run->nranks = run->ctx->size;
	run->blk = p->size / 8;
	run->hostname = sonde_host_of(&run->ctx->topo, run->rank);
	run->file_comm = MPI_COMM_NULL;
	run->agg_comm = MPI_COMM_NULL;
	run->info = MPI_INFO_NULL;
	run->used = MPI_INFO_NULL;
	run->plan.my_agg = -1;
	redirect_output(run);
	mpiio_run_counts(run);

	int n = run->nranks;
	switch (p->type) {
	case MPIIO_N_TO_N:
		run->file_comm = MPI_COMM_SELF;
		run->file_rank = 0;
		run->file_ranks = 1;
		run->owns_file = 1;
		expand_name(run, 1, run->rank, run->rank, n);
		if (n > 1)
			check_distinct(run,
			               "add %r to -target, or name one file per line in -targets");
		share_shown(run, 0);
		break;
	case MPIIO_N_TO_1:
		split_comm(run, 0);
		run->owns_file = run->rank == 0;
		expand_name(run, run->rank == 0, 0, 0, 1);
		share_name(run);
		share_shown(run, 0);
		break;
	case MPIIO_N_TO_M: {
		int m = run->nfiles;
		run->color = run->rank % m;
		split_comm(run, run->color);
		run->owns_file = run->file_rank == 0;
		/* The lowest rank of file c is rank c: %r names the file index. */
		expand_name(run, run->owns_file, run->rank, run->color, m);
		share_name(run);
		if (m > 1)
			check_distinct(run, "give a different name on each line of -targets");
		share_shown(run, 0);
		break;
	}
	case MPIIO_N_TO_M_TO_M:
	case MPIIO_N_TO_M_TO_1: {
		struct mpiio_plan *pl = &run->plan;
		int agg = pl->my_agg >= 0;
		MPI_Comm_split(run->ctx->comm, agg ? 0 : MPI_UNDEFINED, run->rank, &run->agg_comm);
		if (p->type == MPIIO_N_TO_M_TO_M) {
			run->file_comm = agg ? MPI_COMM_SELF : MPI_COMM_NULL;
			run->file_rank = 0;
			run->file_ranks = agg;
			run->owns_file = agg;
			expand_name(run, agg, run->rank, pl->my_agg, pl->naggs);
			if (pl->naggs > 1)
				check_distinct(run, "add %r to -target, or name one file per line "
				                    "in -targets");
		} else {
			run->file_comm = run->agg_comm;
			if (agg) {
				MPI_Comm_rank(run->file_comm, &run->file_rank);
				MPI_Comm_size(run->file_comm, &run->file_ranks);
			}
			run->owns_file = pl->my_agg == 0;
			expand_name(run, run->owns_file, run->rank, 0, 1);
			share_name(run);
		}
		run->io_leader = pl->agg_rank[0];
		share_shown(run, run->io_leader);
		break;
	}
	}
	run->job_bytes = run->senders * (int64_t)p->nobj * p->size;
	int64_t objects = (int64_t)run->file_ranks * p->nobj; /* types 1, 2, 5 */
	if (p->type == MPIIO_N_TO_M_TO_M && run->plan.my_agg >= 0)
		objects = (int64_t)run->plan.nsenders[run->plan.my_agg] * p->nobj;
	else if (p->type == MPIIO_N_TO_M_TO_1)
		objects = run->senders * p->nobj;
	run->layout_bytes = objects * p->size;
	enter_dirs(run);
	if (!p->nofile) {
		refuse_collision(run, run->file_comm != MPI_COMM_NULL ? run->path : NULL,
		                 "test file");
		build_info(run);
	}
	/* rank 0's file stands for the job's: the test files share a file system (-target's
	 * directory, or -targets' lines, which a user spreads over file systems at his risk) */
	if (!p->nofile && mpiio_writes(p) &&
	    sonde_space_check(run->ctx, run->path, run->job_bytes, NULL, "the test files") < 0)
		sonde_exit(SONDE_EXIT_USAGE);
}

void mpiio_run_free(struct mpiio_run *run)
{
	if (run->file_comm != MPI_COMM_NULL && run->file_comm != MPI_COMM_SELF &&
	    run->file_comm != run->agg_comm)
		MPI_Comm_free(&run->file_comm);
	if (run->agg_comm != MPI_COMM_NULL)
		MPI_Comm_free(&run->agg_comm);
	if (run->info != MPI_INFO_NULL)
		MPI_Info_free(&run->info);
	if (run->used != MPI_INFO_NULL)
		MPI_Info_free(&run->used);
	mpiio_plan_free(&run->plan);
	if (run->dir_fd1)
		close(run->dir_fd1 - 1);
	if (run->out && run->out != stdout)
		fclose(run->out);
}
