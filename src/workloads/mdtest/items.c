/* SPDX-License-Identifier: BSD-3-Clause */
/* The timed work of sonde mdtest: what each rank does to each item of a phase, and to the
 * directories of its tree. Every call goes through the I/O backend and is checked; the first
 * failure stops the rank's items and is kept for the phase's verdict, taken after the phase's
 * time. Item paths are built once per directory and completed with the item's number, and the
 * clock is read once per item (its latency is the time since the previous item's end). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "fail.h"
#include "progress.h"
#include "units.h"
#include "workloads/mdtest/run.h"

#define DIR_MODE  0775 /* mdtest's, less the umask */
#define NODE_MODE (S_IFREG | 0400)

/* ---- paths -------------------------------------------------------------------------------- */

void mdtest_test_dir(const struct mdtest_run *run, int rank, int iteration, int loop, char *buf,
                     size_t len)
{
	const char *dir = run->dirs[rank % run->ndirs];
	size_t n = strlen(dir);
	snprintf(buf, len, "%s%stest-dir.%d-%d", dir, n && dir[n - 1] == '/' ? "" : "/", iteration,
	         loop);
}

/* mdtest_tree.<owner> with -u, else the one shared mdtest_tree. */
static void tree_base(const struct mdtest_run *run, int owner, char *buf, size_t len)
{
	if (run->p.unique_dir)
		snprintf(buf, len, "mdtest_tree.%d", owner);
	else
		snprintf(buf, len, "mdtest_tree");
}

void mdtest_tree_root(const struct mdtest_run *run, int owner, int iteration, int loop, char *buf,
                      size_t len)
{
	char dir[PATH_MAX], base[64];
	mdtest_test_dir(run, run->p.unique_dir ? owner : 0, iteration, loop, dir, sizeof dir);
	tree_base(run, owner, base, sizeof base);
	snprintf(buf, len, "%s/%s.0", dir, base);
}

/* The path of directory d of a tree, or -1 when longer than PATH_MAX. */
static int dir_path(const struct mdtest_run *run, int owner, const char *root, int64_t d, char *buf,
                    size_t len)
{
	char base[64];
	tree_base(run, owner, base, sizeof base);
	int n = snprintf(buf, len, "%s", root);
	if (n < 0 || (size_t)n >= len)
		return -1;
	if (d == 0)
		return n;
	buf[n++] = '/';
	int sub = mdtest_tree_subpath(&run->tree, base, d, buf + n, len - (size_t)n);
	return sub < 0 ? -1 : n + sub;
}

/* ---- one phase's items -------------------------------------------------------------------- */

/* What one rank works on: the items of `owner` in the tree of `tree_owner`. */
struct work {
	struct mdtest_run *run;
	struct mdtest_pass *pass;
	int owner, tree_owner;
	char root[PATH_MAX];
	struct mdtest_data data; /* the owner's data (-w, -e) */
	char path[PATH_MAX];     /* the current directory's item prefix, then the item's number */
	size_t prefix;
	int64_t dir; /* the directory the prefix names */
	double t;    /* the end of the previous item */
	double deadline;
	struct sonde_progress *live;
};

static int is_dir_op(enum mdtest_op op)
{
	return op <= MDTEST_DIR_REMOVE;
}

/* The rank's first failure: its message, errno value and path, for the phase's verdict. */
static int fail(struct work *w, int err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct work *w, int err, const char *path, const char *fmt, ...)
{
	struct mdtest_pass *pass = w->pass;
	if (!pass->error[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(pass->error, sizeof pass->error, fmt, ap);
		va_end(ap);
		pass->err = err;
		snprintf(pass->err_path, sizeof pass->err_path, "%s", path);
	}
	return -1;
}

/* A backend call that failed with rc (-errno): its own message. */
static int io_fail(struct work *w, int rc, const char *path)
{
	return fail(w, -rc, path, "%s", sonde_io_last_error());
}

/* "…/mdtest_tree.3.0/mdtest_tree.3.4/file.mdtest.5." for the items of directory d. */
static int set_dir(struct work *w, int64_t d)
{
	const struct mdtest_run *run = w->run;
	int n = dir_path(run, w->tree_owner, w->root, d, w->path, sizeof w->path);
	char name[64];
	if (run->p.shared_file)
		snprintf(name, sizeof name, "/%s.mdtest.shared.",
		         is_dir_op(w->pass->op) ? "dir" : "file");
	else
		snprintf(name, sizeof name, "/%s.mdtest.%d.",
		         is_dir_op(w->pass->op) ? "dir" : "file", w->owner);
	if (n < 0 || (size_t)n + strlen(name) + 24 >= sizeof w->path)
		return fail(w, ENAMETOOLONG, w->root, "%s/...: %s", w->root,
		            sonde_strerror(ENAMETOOLONG));
	memcpy(w->path + n, name, strlen(name) + 1);
	w->prefix = (size_t)n + strlen(name);
	w->dir = d;
	return 0;
}

static const char *item_path(struct work *w, int64_t k)
{
	int n = sonde_u64_digits(w->path + w->prefix, (uint64_t)k);
	w->path[w->prefix + (size_t)n] = '\0';
	return w->path;
}

/* ---- what is done to one item ------------------------------------------------------------- */

/* Mismatches are counted over every item; the ones kept for the report are the first bad
 * item's. */
static void check(struct work *w, const void *buf, size_t n, int64_t k, const char *path)
{
	struct sonde_verify *v = &w->pass->verify;
	int64_t before = v->errors;
	int kept = v->kept;
	mdtest_data_check(&w->data, buf, n, (uint64_t)k, v);
	if (v->errors == before)
		return;
	if (!w->pass->bad_item[0])
		snprintf(w->pass->bad_item, sizeof w->pass->bad_item, "%s", path);
	else
		v->kept = kept;
}

static int create_file(struct work *w, const char *path, int64_t k)
{
	const struct mdtest_params *p = &w->run->p;
	const struct sonde_backend *io = w->run->io;
	if (p->mknod) {
		int rc = io->mknod(path, NODE_MODE);
		return rc == 0 ? 0 : io_fail(w, rc, path);
	}
	unsigned flags = (p->verify_write ? SONDE_IO_RDWR : SONDE_IO_WRONLY) | SONDE_IO_CREATE;
	/* the backend's own options (--posix.odirect) act through its parameters */
	struct sonde_io_options opt = {.comm = MPI_COMM_SELF,
	                               .params = sonde_backend_params_of(&p->backends, io)};
	struct sonde_file *f;
	int rc = io->open(path, flags, &opt, &f);
	if (rc != 0)
		return io_fail(w, rc, path);
	if (p->write_bytes > 0) {
		size_t n = (size_t)p->write_bytes;
		mdtest_data_stamp(&w->data, (uint64_t)k);
		ssize_t moved = io->write_at(f, w->data.buf, n, 0);
		rc = moved < 0 ? io_fail(w, (int)moved, path) : 0;
		if (!rc && p->fsync_each && (rc = io->sync(f)) != 0)
			rc = io_fail(w, rc, path);
		if (!rc && p->verify_write) {
			ssize_t got = io->read_at(f, w->run->read_buf, n, 0);
			if (got < 0)
				rc = io_fail(w, (int)got, path);
			else if ((size_t)got != n)
				rc = fail(w, EIO, path, "read back %s: %zd of %zu bytes", path, got,
				          n);
			else
				check(w, w->run->read_buf, n, k, path);
		}
		w->pass->bytes += rc ? 0 : p->write_bytes;
	}
	int closed = io->close(f);
	if (closed != 0 && !rc)
		rc = io_fail(w, closed, path);
	return rc;
}

static int read_file(struct work *w, const char *path, int64_t k)
{
	const struct mdtest_params *p = &w->run->p;
	const struct sonde_backend *io = w->run->io;
	struct sonde_io_options opt = {.comm = MPI_COMM_SELF,
	                               .params = sonde_backend_params_of(&p->backends, io)};
	struct sonde_file *f;
	int rc = io->open(path, SONDE_IO_RDONLY, &opt, &f);
	if (rc != 0)
		return io_fail(w, rc, path);
	if (p->read_bytes > 0) {
		size_t n = (size_t)p->read_bytes;
		ssize_t got = io->read_at(f, w->run->read_buf, n, 0);
		if (got < 0)
			rc = io_fail(w, (int)got, path);
		else if ((size_t)got != n)
			rc = fail(w, EIO, path, "read %s: %zd of the %zu bytes -e asks for", path,
			          got, n);
		else if (p->verify_read)
			check(w, w->run->read_buf, n, k, path);
		w->pass->bytes += got > 0 ? got : 0;
	}
	int closed = io->close(f);
	if (closed != 0 && !rc)
		rc = io_fail(w, closed, path);
	return rc;
}

static int do_item(struct work *w, const char *path, int64_t k)
{
	const struct sonde_backend *io = w->run->io;
	struct stat st;
	int rc;
	switch (w->pass->op) {
	case MDTEST_FILE_CREATE:
		return create_file(w, path, k);
	case MDTEST_FILE_READ:
		return read_file(w, path, k);
	case MDTEST_FILE_STAT:
	case MDTEST_DIR_STAT:
		rc = io->stat(path, &st);
		break;
	case MDTEST_FILE_REMOVE:
		/* Every rank counts the shared files (-S); rank 0 removes them. */
		rc = w->run->p.shared_file && w->run->rank != 0 ? 0 : io->remove(path);
		break;
	case MDTEST_DIR_CREATE:
		rc = io->mkdir(path, DIR_MODE);
		break;
	default: /* MDTEST_DIR_REMOVE */
		rc = io->rmdir(path);
		break;
	}
	return rc == 0 ? 0 : io_fail(w, rc, path);
}

/* The item's latency, and the stonewall. Returns 1 when the rank must stop. */
static int after_item(struct work *w)
{
	double now = sonde_now();
	struct mdtest_run *run = w->run;
	if (w->pass->nlat < run->caplat)
		run->lat[w->pass->nlat++] = now - w->t;
	w->t = now;
	w->pass->items++;
	sonde_progress_update(w->live, w->pass->items);
	return w->deadline > 0 && now > w->deadline;
}

/* Items [from, to) of the owner, item numbers counted from the first directory holding items,
 * in order (or in -R's order, when order is not NULL). Returns the number done. */
static int64_t items_range(struct work *w, int64_t from, int64_t to, const uint64_t *order)
{
	const struct mdtest_tree *t = &w->run->tree;
	int64_t first = t->items_per_dir * t->first_item_dir, done = 0;
	for (int64_t i = from; i < to && !w->pass->error[0]; i++) {
		int64_t k = first + (int64_t)(order ? order[i] : (uint64_t)i);
		int64_t d = k / t->items_per_dir;
		if (d != w->dir && set_dir(w, d) != 0)
			break;
		if (do_item(w, item_path(w, k), k) != 0)
			break;
		done++;
		if (after_item(w))
			break;
	}
	return done;
}

/* mdtest's directory renames: each item takes the name of the one before it, the first item
 * first moving aside to "<name>-XX" and finally taking the name the second-to-last left; the
 * last item keeps its name. As many renames as items. */
static void rename_items(struct work *w, int64_t count)
{
	const struct mdtest_tree *t = &w->run->tree;
	int64_t first = t->items_per_dir * t->first_item_dir;
	char aside[PATH_MAX], last[PATH_MAX];
	if (count < 2)
		return;
	for (int64_t i = 0; i < count && !w->pass->error[0]; i++) {
		int64_t k = first + i;
		if (k / t->items_per_dir != w->dir && set_dir(w, k / t->items_per_dir) != 0)
			return;
		const char *path = item_path(w, k);
		const char *from = path, *to = last;
		if (i == 0) {
			if ((size_t)snprintf(aside, sizeof aside, "%s-XX", path) >= sizeof aside) {
				fail(w, ENAMETOOLONG, path, "%s-XX: %s", path,
				     sonde_strerror(ENAMETOOLONG));
				return;
			}
			to = aside;
		} else if (i == count - 1) {
			from = aside;
		}
		int rc = w->run->io->rename(from, to);
		if (rc != 0) {
			io_fail(w, rc, from);
			return;
		}
		snprintf(last, sizeof last, "%s", path);
		if (after_item(w))
			return;
	}
}

static enum mdtest_step step_of(enum mdtest_op op)
{
	switch (op) {
	case MDTEST_DIR_CREATE:
	case MDTEST_FILE_CREATE:
		return MDTEST_STEP_CREATE;
	case MDTEST_DIR_STAT:
	case MDTEST_DIR_RENAME:
	case MDTEST_FILE_STAT:
		return MDTEST_STEP_STAT;
	case MDTEST_FILE_READ:
		return MDTEST_STEP_READ;
	default:
		return MDTEST_STEP_REMOVE;
	}
}

/* The items of this loop for one rank: the status file's count applies to the file phases. */
static int64_t loop_items(const struct mdtest_run *run, enum mdtest_op op, int loop)
{
	const struct mdtest_tree *t = &run->tree;
	if (is_dir_op(op))
		return t->items;
	if (t->loops == 1)
		return run->file_items;
	return (int64_t)loop < run->file_items / t->items_per_dir ? t->items_per_dir : 0;
}

/* File creation under -W: create until the deadline, then every rank catches up to the
 * largest count any rank reached (mdtest's wear-out), so every rank has made as many items. */
static void create_with_stonewall(struct work *w, int64_t count)
{
	struct mdtest_run *run = w->run;
	struct mdtest_pass *pass = w->pass;
	w->deadline = pass->start + run->p.stonewall;
	int64_t done = items_range(w, 0, count, NULL);
	w->deadline = 0;
	/* Every rank comes here, failed or not: the counts are exchanged whatever happened. */
	int64_t mine[2] = {done, -done}, most[2];
	MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, run->comm);
	int64_t sum = 0;
	MPI_Allreduce(&done, &sum, 1, MPI_INT64_T, MPI_SUM, run->comm);
	pass->stonewall_seconds = sonde_now() - pass->start;
	pass->stonewall_items = sum;
	pass->wearout_items = most[0];
	if (sum != count * run->tasks && run->rank == 0) {
		printf("Continue stonewall hit min: %lld max: %lld avg: %.1f \n\n",
		       (long long)-most[1], (long long)most[0], (double)sum / run->tasks);
		fflush(stdout);
	}
	if (!pass->error[0])
		items_range(w, done, most[0], NULL);
}

static void begin_work(struct mdtest_run *run, struct mdtest_pass *pass, struct work *w, int as,
                       int loop, struct sonde_progress *live)
{
	memset(w, 0, sizeof *w);
	w->run = run;
	w->pass = pass;
	w->live = live;
	w->dir = -1;
	if (run->p.shared_file) {
		w->owner = as;
	} else {
		w->owner = mdtest_item_owner(as, run->tasks, run->stride, pass->step);
	}
	w->tree_owner =
	    run->p.unique_dir ? mdtest_tree_owner(as, run->tasks, run->stride, pass->step) : 0;
	mdtest_tree_root(run, w->tree_owner, pass->iteration, loop, w->root, sizeof w->root);
	size_t bytes = pass->op == MDTEST_FILE_CREATE ? (size_t)run->p.write_bytes
	               : pass->op == MDTEST_FILE_READ ? (size_t)run->p.read_bytes
	                                              : 0;
	if (bytes && mdtest_data_init(&w->data, run->seed, w->owner, bytes) != 0)
		sonde_fatal("out of memory for %zu bytes of data", bytes);
	w->t = sonde_now();
}

void mdtest_items(struct mdtest_run *run, struct mdtest_pass *pass, int loop)
{
	pass->step = step_of(pass->op);
	int64_t count = loop_items(run, pass->op, loop);
	/* -c: rank 0 creates and removes the items of every rank. */
	int collective = run->p.collective &&
	                 (pass->step == MDTEST_STEP_CREATE || pass->step == MDTEST_STEP_REMOVE);
	int first = collective ? 0 : run->rank, last = collective ? run->tasks : run->rank + 1;
	if (collective && run->rank != 0)
		return;
	/* -c: rank 0 alone does the whole job; otherwise each rank its share */
	struct sonde_progress live;
	sonde_progress_begin(&live, run->ctx, mdtest_op_phase(pass->op), SONDE_PROGRESS_ITEMS,
	                     count * (last - first), collective ? 1 : run->tasks,
	                     pass->op == MDTEST_FILE_CREATE ? run->p.stonewall : 0);
	for (int as = first; as < last && !pass->error[0]; as++) {
		struct work w;
		begin_work(run, pass, &w, as, loop, &live);
		if (pass->op == MDTEST_DIR_RENAME)
			rename_items(&w, count);
		else if (pass->op == MDTEST_FILE_CREATE && run->p.stonewall > 0)
			create_with_stonewall(&w, count);
		else
			items_range(&w, 0, count,
			            pass->step == MDTEST_STEP_STAT || pass->step == MDTEST_STEP_READ
			                ? run->order
			                : NULL);
		mdtest_data_free(&w.data);
	}
	sonde_progress_end(&live);
}

/* ---- the tree ----------------------------------------------------------------------------- */

/* A directory that already exists is used only when it is one (not a planted link to one). */
static int make_dir(struct work *w, const char *path)
{
	int rc = w->run->io->mkdir(path, DIR_MODE);
	if (rc == 0)
		return 0;
	if (rc != -EEXIST)
		return io_fail(w, rc, path);
	struct stat st;
	if (lstat(path, &st) != 0)
		return fail(w, errno, path, "%s: %s", path, sonde_strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(w, ENOTDIR, path,
		            "%s: exists and is not a directory (a symbolic link is not followed)",
		            path);
	return 0;
}

void mdtest_tree_dirs(struct mdtest_run *run, struct mdtest_pass *pass, int loop)
{
	int creating = pass->op == MDTEST_TREE_CREATE;
	/* With -u every rank has a tree (rank 0 makes them all with -c); else rank 0 makes the
	 * one shared tree. */
	int first = run->rank, last = run->rank + 1;
	if (!run->p.unique_dir || run->p.collective) {
		if (run->rank != 0)
			return;
		last = run->p.unique_dir ? run->tasks : 1;
		first = 0;
	}
	struct sonde_progress live;
	sonde_progress_begin(&live, run->ctx, mdtest_op_phase(pass->op), SONDE_PROGRESS_ITEMS,
	                     run->tree.dirs * (last - first),
	                     run->p.unique_dir && !run->p.collective ? run->tasks : 1, 0);
	for (int owner = first; owner < last && !pass->error[0]; owner++) {
		struct work w = {.run = run, .pass = pass, .dir = -1, .live = &live};
		mdtest_tree_root(run, owner, pass->iteration, loop, w.root, sizeof w.root);
		w.t = sonde_now();
		/* Parents have lower numbers than their children. */
		for (int64_t i = 0; i < run->tree.dirs && !pass->error[0]; i++) {
			int64_t d = creating ? i : run->tree.dirs - 1 - i;
			if (dir_path(run, owner, w.root, d, w.path, sizeof w.path) < 0) {
				fail(&w, ENAMETOOLONG, w.root, "%s/...: %s", w.root,
				     sonde_strerror(ENAMETOOLONG));
				break;
			}
			int rc = creating ? make_dir(&w, w.path) : run->io->rmdir(w.path);
			if (rc == 0)
				after_item(&w);
			else if (!creating)
				io_fail(&w, rc, w.path);
		}
	}
	sonde_progress_end(&live);
}

int mdtest_tree_check(const struct mdtest_run *run, int iteration, char *msg, size_t msglen,
                      char *path, size_t pathlen)
{
	/* Each rank looks at its own tree (rank 0 at the shared one): together all trees. */
	if (!run->p.unique_dir && run->rank != 0)
		return 0;
	char root[PATH_MAX];
	for (int loop = 0; loop < run->tree.loops; loop++) {
		mdtest_tree_root(run, run->rank, iteration, loop, root, sizeof root);
		for (int64_t d = 0; d < run->tree.dirs; d++) {
			struct stat st;
			if (dir_path(run, run->rank, root, d, path, pathlen) < 0) {
				snprintf(msg, msglen, "%s/...: %s", root,
				         sonde_strerror(ENAMETOOLONG));
				return ENAMETOOLONG;
			}
			if (lstat(path, &st) != 0) {
				int err = errno;
				snprintf(
				    msg, msglen,
				    "%s: %s (without -C the tree must be there from an earlier run "
				    "with the same -d, -n, -I, -z, -b, -L, -u)",
				    path, sonde_strerror(err));
				return err;
			}
			if (!S_ISDIR(st.st_mode)) {
				snprintf(msg, msglen,
				         "%s: not a directory (a symbolic link is not followed)",
				         path);
				return ENOTDIR;
			}
		}
	}
	return 0;
}
