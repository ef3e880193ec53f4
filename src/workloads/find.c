/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde find: a parallel find over a directory tree, after pfind (the IO500 find).
 *
 * Every rank keeps a stack of work: directories to read and files whose name matched and that
 * still need a stat. Rank 0 starts with the tree's root. A rank whose stack runs dry asks
 * another rank for work, which hands over the bottom half of its stack (the directories nearest
 * the root, the largest pieces). The walk is over when a token sent round the ring of ranks
 * comes back to rank 0 with no rank having handed work over since the token last passed it
 * (Dijkstra's termination detection); a non-blocking barrier then lets every request still on
 * its way be answered before the ranks leave. Entries are tested as find(1) tests them, so the
 * matches are those of `find DIR <tests>`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fail.h"
#include "files.h"
#include "json.h"
#include "progress.h"
#include "results.h"
#include "stats.h"
#include "timeseries.h"
#include "workload.h"
#include "workloads/find/find.h"

enum tag { TAG_STEAL = 8101, TAG_WORK, TAG_TOKEN, TAG_DONE, TAG_MATCHES };
enum color { WHITE, BLACK };

enum count {
	FOUND,       /* entries that passed every test */
	SCANNED,     /* entries tested: every entry read, and the start point */
	DIRENTS,     /* every entry read from a directory */
	UNKNOWN,     /* entries whose type readdir did not give */
	ERRORS,      /* entries or directories that could not be examined */
	REQUESTS_IN, /* work sharing: requests answered, items given, requests made, items got */
	ITEMS_SENT,
	REQUESTS_OUT,
	ITEMS_STOLEN,
	TOKENS_SENT,
	STONEWALL_HIT,
	NCOUNTS
};

struct walker {
	struct sonde_context *ctx;
	MPI_Comm comm;
	struct find_params p;
	struct find_tests tests;
	int rank, size;
	struct find_queue queue;
	DIR *dir; /* the directory being read, in chunks of -M entries */
	char path[PATH_MAX];
	size_t path_len;
	int64_t n[NCOUNTS];
	double steal_seconds;
	char first_error[PATH_MAX + 128];
	int first_errno;
	char first_path[PATH_MAX];
	/* termination */
	enum color color;
	int have_token, round_started;
	enum color token_color;
	uint64_t rng;
	double start, deadline;
	double last_scan; /* when the previous entry was scanned (--interval) */
	char *params;     /* the run's parameters as JSON, for the records */
	/* matches */
	int out_fd;
	char out_path[PATH_MAX]; /* -r's file of this rank, or "standard output" */
	char out[65536];
	size_t out_len;
};

/* ---- set-up ------------------------------------------------------------------------------- */

static void check_mpi(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		MPI_Error_string(rc, msg, &len);
		sonde_fatal("%s: %s", what, msg);
	}
}

static void error_at(struct walker *w, const char *what, const char *path, int err)
{
	w->n[ERRORS]++;
	if (!w->first_error[0]) {
		snprintf(w->first_error, sizeof w->first_error, "%s %s: %s", what, path,
		         sonde_strerror(err));
		snprintf(w->first_path, sizeof w->first_path, "%s", path);
		w->first_errno = err;
	}
	if (w->p.verbose >= 2)
		fprintf(stderr, "sonde find: rank %d: %s %s: %s\n", w->rank, what, path,
		        sonde_strerror(err));
}

/* The reference time of -newer: rank 0 looks (without following a link, as find -P), every
 * rank gets its modification time. */
static void reference_time(struct walker *w)
{
	int64_t t[3] = {0, 0, 0};
	char err[PATH_MAX + 64] = "";
	if (w->rank == 0) {
		struct stat st;
		if (lstat(w->p.newer, &st) != 0) {
			snprintf(err, sizeof err, "-newer %s: %s", w->p.newer,
			         sonde_strerror(errno));
			t[2] = 1;
		} else {
			t[0] = st.st_mtim.tv_sec;
			t[1] = st.st_mtim.tv_nsec;
		}
	}
	check_mpi(MPI_Bcast(t, 3, MPI_INT64_T, 0, w->comm), "MPI_Bcast");
	if (!sonde_agree(w->comm, t[2] == 0, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	w->tests.newer = 1;
	w->tests.newer_than.tv_sec = t[0];
	w->tests.newer_than.tv_nsec = t[1];
}

static void open_output(struct walker *w)
{
	w->out_fd = STDOUT_FILENO;
	snprintf(w->out_path, sizeof w->out_path, "standard output");
	if (!w->p.results_dir || w->p.count_only)
		return;
	char *path = w->out_path;
	int ok = 1;
	char err[PATH_MAX + 64] = "";
	if (w->rank == 0 && mkdir(w->p.results_dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, sizeof err, "-r %s: %s", w->p.results_dir, sonde_strerror(errno));
		ok = 0;
	}
	if (!sonde_agree(w->comm, ok, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
	snprintf(path, sizeof w->out_path, "%s/%d.txt", w->p.results_dir, w->rank);
	w->out_fd = sonde_open_nofollow(path, "w");
	if (w->out_fd < 0)
		snprintf(err, sizeof err, "-r: %s: %s", path, sonde_strerror(errno));
	if (!sonde_agree(w->comm, w->out_fd >= 0, "%s", err))
		sonde_exit(SONDE_EXIT_USAGE);
}

/* ---- matches ------------------------------------------------------------------------------ */

static void write_all(int fd, const char *buf, size_t len, const char *path)
{
	size_t at = 0;
	while (at < len) {
		ssize_t n = write(fd, buf + at, len - at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			sonde_fatal("writing the matches to %s: %s", path,
			            sonde_strerror(n < 0 ? errno : EIO));
		at += (size_t)n;
	}
}

/* Matches go to a file of the rank's own (-r) or through rank 0 to standard output: the
 * launcher forwards each rank's output in pieces that can end inside a line, so lines of
 * different ranks written directly would mix. The send is synchronous: it returns once rank 0
 * has taken the message, so none is still on its way when the ranks agree to stop. */
static void flush_matches(struct walker *w)
{
	if (w->out_len == 0)
		return;
	if (w->rank == 0 || w->out_fd != STDOUT_FILENO)
		write_all(w->out_fd, w->out, w->out_len, w->out_path);
	else
		check_mpi(MPI_Ssend(w->out, (int)w->out_len, MPI_CHAR, 0, TAG_MATCHES, w->comm),
		          "MPI_Ssend");
	w->out_len = 0;
}

/* Rank 0: prints the matches other ranks sent. */
static void print_sent_matches(struct walker *w)
{
	for (;;) {
		int flag = 0, len = 0;
		MPI_Status st;
		check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, TAG_MATCHES, w->comm, &flag, &st),
		          "MPI_Iprobe");
		if (!flag)
			return;
		char buf[sizeof w->out];
		check_mpi(MPI_Get_count(&st, MPI_CHAR, &len), "MPI_Get_count");
		check_mpi(MPI_Recv(buf, len, MPI_CHAR, st.MPI_SOURCE, TAG_MATCHES, w->comm,
		                   MPI_STATUS_IGNORE),
		          "MPI_Recv");
		write_all(STDOUT_FILENO, buf, (size_t)len, "standard output");
	}
}

static void matched(struct walker *w, const char *path, size_t len)
{
	w->n[FOUND]++;
	if (w->p.count_only)
		return;
	if (w->out_len + len + 1 > sizeof w->out)
		flush_matches(w);
	if (len + 1 > sizeof w->out) {
		sonde_fatal("a path of %zu bytes", len);
	}
	memcpy(w->out + w->out_len, path, len);
	w->out[w->out_len + len] = '\n';
	w->out_len += len + 1;
}

/* ---- the work ----------------------------------------------------------------------------- */

static int has_work(const struct walker *w)
{
	return w->dir != NULL || w->queue.count > 0;
}

static void drop_work(struct walker *w)
{
	if (w->dir)
		closedir(w->dir);
	w->dir = NULL;
	find_queue_free(&w->queue);
	w->n[STONEWALL_HIT] = 1;
}

static void open_dir(struct walker *w, char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		error_at(w, "cannot read directory", path, errno);
		if (fd >= 0)
			close(fd);
		free(path);
		return;
	}
	w->path_len = strlen(path);
	memcpy(w->path, path, w->path_len + 1);
	free(path);
	w->dir = d;
}

static void stat_item(struct walker *w, char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		error_at(w, "cannot stat", path, errno);
	else if (find_stat_matches(&w->tests, &st))
		matched(w, path, strlen(path));
	free(path);
}

/* One entry of the directory being read: its own tests, and the work it makes. */
/* One entry scanned: the operation find counts. Its time in the series is the time since the
 * previous one (find keeps no latency per entry; the clock is read only with --interval). */
static void scanned(struct walker *w)
{
	w->n[SCANNED]++;
	if (sonde_series_recording()) {
		double now = sonde_now();
		sonde_series_call(now, now - w->last_scan, 0, 1);
		w->last_scan = now;
	}
}

static void entry(struct walker *w, const struct dirent *e)
{
	size_t nlen = strlen(e->d_name);
	if (w->path_len + 1 + nlen >= sizeof w->path) {
		error_at(w, "path too long below", w->path, ENAMETOOLONG);
		return;
	}
	/* w->path holds the directory; the child's path is built after it in place. */
	size_t len = w->path_len + 1 + nlen;
	w->path[w->path_len] = '/';
	memcpy(w->path + w->path_len + 1, e->d_name, nlen + 1);
	unsigned char type = e->d_type;
	struct stat st;
	int have_stat = 0;
	if (type == DT_UNKNOWN) {
		w->n[UNKNOWN]++;
		if (fstatat(dirfd(w->dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			error_at(w, "cannot stat", w->path, errno);
			goto done;
		}
		have_stat = 1;
		type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	if (type == DT_DIR)
		find_queue_push(&w->queue, FIND_DIR, w->path, len);
	scanned(w);
	if (!find_name_matches(&w->tests, e->d_name))
		goto done;
	if (!find_needs_stat(&w->tests)) {
		matched(w, w->path, len);
	} else if (!have_stat && type != DT_DIR && w->queue.count < w->p.queue_length) {
		find_queue_push(&w->queue, FIND_FILE, w->path, len);
	} else if (!have_stat && fstatat(dirfd(w->dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		error_at(w, "cannot stat", w->path, errno);
	} else if (find_stat_matches(&w->tests, &st)) {
		matched(w, w->path, len);
	}
done:
	w->path[w->path_len] = '\0';
}

static void read_chunk(struct walker *w)
{
	for (int k = 0; k < w->p.max_entries; k++) {
		errno = 0;
		struct dirent *e = readdir(w->dir);
		if (!e) {
			if (errno)
				error_at(w, "cannot read directory", w->path, errno);
			closedir(w->dir);
			w->dir = NULL;
			return;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		w->n[DIRENTS]++;
		entry(w, e);
	}
}

static void work_step(struct walker *w)
{
	if (w->p.stonewall && sonde_now() >= w->deadline) {
		drop_work(w);
		return;
	}
	if (w->dir) {
		read_chunk(w);
		return;
	}
	enum find_item_kind kind;
	char *path;
	find_queue_pop(&w->queue, &kind, &path);
	if (kind == FIND_DIR)
		open_dir(w, path);
	else
		stat_item(w, path);
}

/* ---- sharing the work --------------------------------------------------------------------- */

static void send_control(struct walker *w, int to, enum tag tag, const void *buf, int n)
{
	check_mpi(MPI_Bsend(buf, n, MPI_INT, to, tag, w->comm), "MPI_Bsend");
}

/* Answers every request waiting: the bottom half of the stack, or nothing. Rank 0 also prints
 * the matches sent to it. */
static void serve_requests(struct walker *w)
{
	if (w->rank == 0 && !w->p.count_only && w->out_fd == STDOUT_FILENO)
		print_sent_matches(w);
	for (;;) {
		int flag = 0;
		MPI_Status st;
		check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, TAG_STEAL, w->comm, &flag, &st), "MPI_Iprobe");
		if (!flag)
			return;
		check_mpi(MPI_Recv(NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_STEAL, w->comm,
		                   MPI_STATUS_IGNORE),
		          "MPI_Recv");
		w->n[REQUESTS_IN]++;
		/* While reading a directory, the whole stack can go; else keep the next item. */
		int64_t give = w->dir ? (w->queue.count + 1) / 2 : w->queue.count / 2;
		int len = 0;
		char *buf = find_queue_pack(&w->queue, give, &len);
		check_mpi(MPI_Send(buf, len, MPI_CHAR, st.MPI_SOURCE, TAG_WORK, w->comm),
		          "MPI_Send");
		free(buf);
		if (give) {
			w->n[ITEMS_SENT] += give;
			w->color = BLACK;
		}
	}
}

static uint64_t next_random(struct walker *w)
{
	/* xorshift64*: enough to spread requests over the ranks. */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 2685821657736338717ULL;
}

static int pick_victim(struct walker *w)
{
	if (w->p.steal_next && w->rank > 0 && next_random(w) % 2)
		return w->rank - 1;
	return (int)(next_random(w) % (uint64_t)w->size);
}

/* Asks one rank for work and waits for its answer, answering others meanwhile. Returns the
 * number of items received. */
static int64_t steal(struct walker *w)
{
	int victim = pick_victim(w);
	if (victim == w->rank)
		return 0;
	double t0 = sonde_now();
	send_control(w, victim, TAG_STEAL, NULL, 0);
	w->n[REQUESTS_OUT]++;
	int64_t got = 0;
	for (;;) {
		int flag = 0, len = 0;
		MPI_Status st;
		check_mpi(MPI_Iprobe(victim, TAG_WORK, w->comm, &flag, &st), "MPI_Iprobe");
		if (flag) {
			check_mpi(MPI_Get_count(&st, MPI_CHAR, &len), "MPI_Get_count");
			char *buf = malloc(len ? (size_t)len : 1);
			if (!buf)
				sonde_fatal("out of memory for %d bytes of work", len);
			check_mpi(MPI_Recv(buf, len, MPI_CHAR, victim, TAG_WORK, w->comm,
			                   MPI_STATUS_IGNORE),
			          "MPI_Recv");
			got = find_queue_unpack(&w->queue, buf, len);
			free(buf);
			break;
		}
		serve_requests(w);
	}
	w->n[ITEMS_STOLEN] += got;
	w->steal_seconds += sonde_now() - t0;
	return got;
}

/* An idle rank: passes the token on, or (rank 0) decides that the walk is over, then asks for
 * work. Returns 1 when the walk is over. */
static int idle_step(struct walker *w)
{
	int flag = 0;
	if (w->size == 1)
		return 1;
	if (w->rank != 0)
		check_mpi(MPI_Iprobe(0, TAG_DONE, w->comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
	if (flag) {
		check_mpi(MPI_Recv(NULL, 0, MPI_INT, 0, TAG_DONE, w->comm, MPI_STATUS_IGNORE),
		          "MPI_Recv");
		return 1;
	}
	int left = (w->rank + w->size - 1) % w->size;
	check_mpi(MPI_Iprobe(left, TAG_TOKEN, w->comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
	if (flag) {
		int color;
		check_mpi(MPI_Recv(&color, 1, MPI_INT, left, TAG_TOKEN, w->comm, MPI_STATUS_IGNORE),
		          "MPI_Recv");
		w->token_color = (enum color)color;
		w->have_token = 1;
	}
	if (w->have_token) {
		int color;
		if (w->rank == 0) {
			if (w->round_started && w->token_color == WHITE && w->color == WHITE) {
				for (int r = 1; r < w->size; r++)
					send_control(w, r, TAG_DONE, NULL, 0);
				return 1;
			}
			w->round_started = 1;
			color = WHITE;
		} else {
			color = w->color == BLACK ? BLACK : (int)w->token_color;
		}
		w->color = WHITE;
		w->have_token = 0;
		send_control(w, (w->rank + 1) % w->size, TAG_TOKEN, &color, 1);
		w->n[TOKENS_SENT]++;
	}
	if (steal(w) == 0) {
		/* Nothing there: wait a little before asking again, so that idle ranks do not
		 * take the processor from the ones still working. */
		struct timespec pause = {0, 20 * 1000};
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* Every rank has stopped asking; requests already sent are answered until all ranks agree. */
static void drain(struct walker *w)
{
	MPI_Request barrier;
	check_mpi(MPI_Ibarrier(w->comm, &barrier), "MPI_Ibarrier");
	for (;;) {
		int flag = 0;
		check_mpi(MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE), "MPI_Test");
		if (flag)
			return;
		serve_requests(w);
	}
}

/* ---- the walk ----------------------------------------------------------------------------- */

/* The start point is tested like any entry (find(1) does), and read if it is a directory. */
static void start(struct walker *w, const char *root)
{
	struct stat st;
	if (lstat(root, &st) != 0) {
		error_at(w, "cannot stat", root, errno);
		return;
	}
	size_t len = strlen(root);
	const char *base = strrchr(root, '/');
	base = base && base[1] ? base + 1 : root;
	if (S_ISDIR(st.st_mode))
		find_queue_push(&w->queue, FIND_DIR, root, len);
	scanned(w);
	if (find_name_matches(&w->tests, base) &&
	    (!find_needs_stat(&w->tests) || find_stat_matches(&w->tests, &st)))
		matched(w, root, len);
}

static void walk(struct walker *w, const char *root)
{
	void *bsend = NULL;
	int bsize = (w->size + 8) * (MPI_BSEND_OVERHEAD + (int)sizeof(int));
	bsend = malloc((size_t)bsize);
	if (!bsend)
		sonde_fatal("out of memory");
	check_mpi(MPI_Buffer_attach(bsend, bsize), "MPI_Buffer_attach");
	w->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)w->rank + 1) * 0xBF58476D1CE4E5B9ULL;
	w->have_token = w->rank == 0;
	if (w->rank == 0)
		start(w, root);
	/* the ranks share the tree by stealing work, so each scans about as much as rank 0 */
	struct sonde_progress live;
	sonde_progress_begin(&live, w->ctx, "scan", SONDE_PROGRESS_ITEMS, 0, w->size,
	                     w->p.stonewall);
	for (;;) {
		if (has_work(w)) {
			work_step(w);
			sonde_progress_update(&live, w->n[SCANNED]);
		}
		serve_requests(w);
		if (!has_work(w) && idle_step(w))
			break;
	}
	sonde_progress_end(&live);
	flush_matches(w);
	drain(w);
	check_mpi(MPI_Buffer_detach(&bsend, &bsize), "MPI_Buffer_detach");
	free(bsend);
}

/* ---- what the walk found ------------------------------------------------------------------ */

static void result_line(const struct walker *w, const char *who, const int64_t *c,
                        double steal_seconds, double seconds)
{
	printf("[%s]", who);
	if (w->p.debug)
		printf(" rate: %.3f kiops time: %.1fs",
		       seconds > 0 ? (double)c[SCANNED] / seconds / 1000 : 0.0, seconds);
	printf(" found: %lld (scanned %lld files, scanned dirents: %lld, unknown dirents: %lld",
	       (long long)c[FOUND], (long long)c[SCANNED], (long long)c[DIRENTS],
	       (long long)c[UNKNOWN]);
	if (w->p.verbose >= 1)
		printf(", job steal msgs received: %lld, work items send: %lld, job steal msgs "
		       "send: %lld, work items stolen: %lld, time spend in job stealing: %.3fs, "
		       "number of completion tokens send: %lld",
		       (long long)c[REQUESTS_IN], (long long)c[ITEMS_SENT],
		       (long long)c[REQUESTS_OUT], (long long)c[ITEMS_STOLEN], steal_seconds,
		       (long long)c[TOKENS_SENT]);
	printf(")\n");
}

static void json_column(struct sonde_json *j, const char *key, const int64_t *all, int size,
                        enum count which)
{
	sonde_json_array_begin(j, key);
	for (int r = 0; r < size; r++)
		sonde_json_int(j, NULL, all[r * NCOUNTS + which]);
	sonde_json_array_end(j);
}

static void record(const struct walker *w, const int64_t *total, double seconds,
                   const struct sonde_stats *per_rank, const struct sonde_finish *fin,
                   const int64_t *all)
{
	struct sonde_json extra;
	sonde_json_init(&extra);
	sonde_json_object_begin(&extra, NULL);
	sonde_json_int(&extra, "found", total[FOUND]);
	sonde_json_int(&extra, "scanned", total[SCANNED]);
	sonde_json_int(&extra, "dirents", total[DIRENTS]);
	sonde_json_int(&extra, "unknown_dirents", total[UNKNOWN]);
	sonde_json_bool(&extra, "stonewall_hit", total[STONEWALL_HIT] > 0);
	sonde_json_int(&extra, "work_items_sent", total[ITEMS_SENT]);
	sonde_json_int(&extra, "steal_requests", total[REQUESTS_OUT]);
	json_column(&extra, "rank_scanned", all, w->size, SCANNED);
	json_column(&extra, "rank_found", all, w->size, FOUND);
	sonde_json_object_end(&extra);
	struct sonde_measurement m = {
	    .phase = "find",
	    .iteration = -1,
	    .seconds = seconds,
	    .ops = total[SCANNED],
	    .per_rank = per_rank,
	    .finish = fin,
	    .params_json = w->params,
	    .extra_json = extra.buf,
	    /* after the walk's barrier, on this rank's clock; the slowest rank's end */
	    .start = w->start,
	    .end = w->start + seconds,
	};
	sonde_results_measurement(w->ctx->workload, &m);
	sonde_json_free(&extra);
}

/* Errors first: a walk that could not examine everything gets no figures. */
static int conclude(struct walker *w, double mine)
{
	int err = sonde_agree_path(w->comm, w->n[ERRORS] ? w->first_errno : 0, w->first_path,
	                           "%s (%lld errors on this rank)", w->first_error,
	                           (long long)w->n[ERRORS]);
	if (err)
		return sonde_exit_class(err, SONDE_STAGE_RUN);
	int64_t total[NCOUNTS];
	check_mpi(MPI_Allreduce(w->n, total, NCOUNTS, MPI_INT64_T, MPI_SUM, w->comm),
	          "MPI_Allreduce");
	double steal_seconds = 0;
	check_mpi(MPI_Allreduce(&w->steal_seconds, &steal_seconds, 1, MPI_DOUBLE, MPI_SUM, w->comm),
	          "MPI_Allreduce");
	struct sonde_stats per_rank;
	sonde_stats_across(w->comm, mine, &per_rank);
	/* a rank finishes when it leaves the walk: when the termination reached it */
	struct sonde_finish fin;
	const struct sonde_clock *clock = &w->ctx->clock;
	sonde_finish_across(&w->ctx->topo, w->comm, sonde_clock_global(clock, w->start),
	                    sonde_clock_global(clock, w->start + mine), 0, w->n[SCANNED], &fin);
	int64_t *all = w->rank == 0 ? malloc(sizeof *all * NCOUNTS * (size_t)w->size) : NULL;
	double *times = w->rank == 0 ? malloc(sizeof *times * 2 * (size_t)w->size) : NULL;
	if (w->rank == 0 && (!all || !times))
		sonde_fatal("out of memory");
	double mine2[2] = {mine, w->steal_seconds};
	check_mpi(MPI_Gather(w->n, NCOUNTS, MPI_INT64_T, all, NCOUNTS, MPI_INT64_T, 0, w->comm),
	          "MPI_Gather");
	check_mpi(MPI_Gather(mine2, 2, MPI_DOUBLE, times, 2, MPI_DOUBLE, 0, w->comm), "MPI_Gather");
	if (w->rank == 0) {
		/* the record first: a figure on the screen always has one in the results, even
		 * when a stop signal comes in between */
		record(w, total, per_rank.max, &per_rank, &fin, all);
		for (int r = 0; w->p.per_process && r < w->size; r++) {
			char who[16];
			snprintf(who, sizeof who, "%d", r);
			result_line(w, who, all + r * NCOUNTS, times[2 * r + 1], times[2 * r]);
		}
		result_line(w, "DONE", total, steal_seconds, per_rank.max);
		printf("MATCHED %lld/%lld\n", (long long)total[FOUND], (long long)total[SCANNED]);
		fflush(stdout);
	}
	free(all);
	free(times);
	return SONDE_EXIT_OK;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* The run's parameters: the option table's, and the directory searched. */
static char *params_json(const struct find_params *p, const char *root)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_string(&j, "workdir", root);
	sonde_options_json(&find_options, p, &j);
	sonde_json_object_end(&j);
	return j.buf;
}

/* "DIR/" and "DIR" name one start point; find(1) prints paths below it with one slash. */
static char *start_point(const char *given)
{
	char *root = strdup(given);
	if (!root)
		sonde_fatal("out of memory");
	size_t len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		root[--len] = '\0';
	return root;
}

/* The command line, parsed and checked into w's parameters and tests; returns the directory
 * to search. By the run and by sonde --parse-only. */
static char *parse(struct walker *w, struct sonde_context *ctx, int argc, char **argv)
{
	find_params_defaults(&w->p);
	struct sonde_parse_result pos;
	struct sonde_option_set *set =
	    sonde_parse_command_line(ctx, &find_options, &w->p, argc, argv, &pos);
	if (pos.npositional != 1) {
		if (pos.npositional == 0)
			sonde_error("give the directory to search (sonde find DIR [tests])");
		else
			sonde_error("one directory to search, not '%s' and '%s'", pos.positional[0],
			            pos.positional[1]);
		sonde_exit(SONDE_EXIT_USAGE);
	}
	sonde_options_warn_inert(set);
	if (!pos.positional[0][0]) {
		sonde_error("the directory to search is an empty path");
		sonde_exit(SONDE_EXIT_USAGE);
	}
	char *root = start_point(pos.positional[0]);
	sonde_parse_result_free(&pos);
	w->tests.name = w->p.name;
	if (w->p.size_text) {
		char err[128];
		if (find_size_parse(w->p.size_text, &w->tests.size, err, sizeof err) < 0)
			sonde_fatal("%s", err); /* parsed once already by the option table */
	}
	return root;
}

static char *params_only(struct sonde_context *ctx, int argc, char **argv)
{
	struct walker w = {.ctx = ctx};
	char *root = parse(&w, ctx, argc, argv);
	char *params = params_json(&w.p, root);
	free(root);
	return params;
}

static int run(struct sonde_context *ctx, int argc, char **argv)
{
	struct walker w = {.ctx = ctx, .comm = ctx->comm, .rank = ctx->rank, .size = ctx->size};
	char *root = parse(&w, ctx, argc, argv);
	struct stat st;
	int err = lstat(root, &st) == 0 ? 0 : errno;
	err = sonde_agree_path(w.comm, err, root, "%s: %s", root, sonde_strerror(err));
	if (err)
		sonde_exit(sonde_exit_class(err, SONDE_STAGE_INPUT));
	if (w.p.newer)
		reference_time(&w);
	open_output(&w);
	w.params = params_json(&w.p, root);
	sonde_results_header(ctx, w.params, root);

	sonde_series_begin(w.comm, "find", -1);
	MPI_Barrier(w.comm);
	sonde_series_start();
	w.start = w.last_scan = sonde_now();
	w.deadline = w.start + w.p.stonewall;
	walk(&w, root);
	double mine = sonde_now() - w.start;
	sonde_series_stop();
	if (w.out_fd != STDOUT_FILENO)
		close(w.out_fd);
	int code = conclude(&w, mine);
	if (code == SONDE_EXIT_OK)
		sonde_series_report();
	find_queue_free(&w.queue);
	free(w.params);
	free(root);
	return code;
}

const struct sonde_workload sonde_workload_find = {
    .name = "find",
    .summary = "pfind-style parallel find (the IO500 find): -newer, -size, -name over a tree",
    .options = &find_options,
    .run = run,
    .params = params_only,
};
