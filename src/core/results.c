/* SPDX-License-Identifier: BSD-3-Clause */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
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
#include "results_file.h"
#include "results_format.h"
#include "stop.h"
#include "stop_record.h"
#include "workload.h"

/* The cause of the failure that ends the run, for its end record. */
struct results_failure {
	int noted, rank;
	char path[4096];
	char message[1536];
};

static struct {
	struct results_file json, csv_out, live;
	/* as given, on every rank (collision checks) */
	const char *json_path, *csv_path, *live_path;
	FILE *csv; /* a memory stream: each CSV row is built here, then written whole */
	char *row;
	size_t row_len;
	int header_written; /* no end record without a header: the run did not start */
	int write_errno;    /* the first error writing a results file: the run fails (exit 1) */
	int open;
	char run_id[64];
	double start;
	int64_t measurements;
	int rank0;
	struct timespec start_mono; /* for the signal handler, which cannot call MPI_Wtime */
	const char *workload;
	/* The run's shape, repeated on every CSV row so that a row read alone says what ran. */
	int ranks, nodes, tasks_per_node;
	struct sonde_json rec;
	struct results_failure failure;
	/* sonde mix: the group this run is (in_mix), its stage, the mix's clock, the spans */
	struct {
		int in_mix, group;
		const char *stage;
		double offset, zero;
		struct sonde_mix_span *spans;
		int nspans, cap;
	} mix;
} R;

static int is_rank0(MPI_Comm comm)
{
	int init = 0, fin = 0, rank = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (init && !fin && comm != MPI_COMM_NULL)
		MPI_Comm_rank(comm, &rank);
	return rank == 0;
}

static void make_run_id(void)
{
	if (R.run_id[0])
		return;
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	char stamp[32];
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(R.run_id, sizeof R.run_id, "%s-%ld", stamp, (long)getpid());
}

const char *sonde_results_run_id(void)
{
	make_run_id();
	return R.run_id;
}

void sonde_results_join_mix(int group, const char *run_id, const char *stage, double offset,
                            double zero)
{
	snprintf(R.run_id, sizeof R.run_id, "%s", run_id);
	R.mix.in_mix = group > 0;
	R.mix.group = group;
	R.mix.stage = stage;
	R.mix.offset = offset;
	R.mix.zero = zero;
	R.mix.nspans = 0;
}

int sonde_results_failed_rank(void)
{
	return R.failure.noted ? R.failure.rank : -1;
}

const struct sonde_mix_span *sonde_results_mix_spans(int *count)
{
	*count = R.mix.nspans;
	return R.mix.spans;
}

/* A local time on the mix's clock; NaN when the workload gave none. */
static double mix_time(double local)
{
	return local > 0 ? local + R.mix.offset - R.mix.zero : NAN;
}

static void keep_span(const struct sonde_measurement *m)
{
	if (R.mix.nspans == R.mix.cap) {
		int cap = R.mix.cap ? 2 * R.mix.cap : 16;
		struct sonde_mix_span *more = realloc(R.mix.spans, sizeof *more * (size_t)cap);
		if (!more)
			sonde_fatal("no memory for the spans of %d measurements", cap);
		R.mix.spans = more;
		R.mix.cap = cap;
	}
	struct sonde_mix_span *sp = &R.mix.spans[R.mix.nspans++];
	snprintf(sp->phase, sizeof sp->phase, "%s", m->phase);
	sp->iteration = m->iteration;
	sp->bytes = m->bytes;
	sp->ops = m->ops;
	sp->seconds = m->seconds;
	sp->start = mix_time(m->start);
	sp->end = mix_time(m->end);
}

int sonde_results_active(void)
{
	return R.json.fd1 != 0;
}

/* sonde mix, world rank 0: the mix's own run, set aside (sonde_results_hold) while the groups'
 * runs have R: its file and what its end record needs, for sonde_results_resume and for a stop
 * signal, which ends it too. */
static struct {
	volatile sig_atomic_t held;
	struct results_file json;
	char run_id[64];
	double start;
	struct timespec start_mono;
	int write_errno;
	struct results_failure failure;
} H;

/* SIGTERM (Slurm's time limit, the launcher) or SIGINT: every finished measurement is already
 * on disk; rank 0 closes the file with an "end" record and leaves at once. The record names the
 * signal, or, when a rank on this node had already ended (killed, crashed, failed) and the
 * launcher is ending the job because of it, that rank (reason "peer-failed", exit code 1). The
 * other ranks linger a moment first (sonde_stop_linger). In sonde mix, world rank 0 also ends
 * the mix's run set aside, with the same reason: a reader sees that the mix ended early. */
/* A results file whose end record is written takes nothing more: its descriptor becomes
 * /dev/null (open, dup2 and close are async-signal-safe). */
static void silence(const struct results_file *f)
{
	if (!f->fd1)
		return;
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, f->fd1 - 1);
		close(null);
	}
}

static void end_runs_on_signal(int sig)
{
	struct stop_record s = {
	    .signal = sig == SIGTERM ? "SIGTERM" : "SIGINT",
	    .peer = sonde_stop_failed_peer(),
	};
	s.code = s.peer >= 0 ? SONDE_EXIT_RUNTIME : SONDE_EXIT_SIGNAL;
	char line[512];
	size_t n;
	if (R.open && R.json.fd1 && R.header_written) {
		s.run_id = R.run_id;
		s.workload = R.workload ? R.workload : "";
		s.group = R.mix.in_mix ? R.mix.group : 0;
		s.start = R.start_mono;
		s.measurements = (unsigned long long)R.measurements;
		n = stop_end_record(&s, line, sizeof line);
		if (write(R.json.fd1 - 1, line, n) < 0)
			n = 0;
	}
	if (H.held && H.json.fd1) {
		struct stop_record mix = s;
		mix.run_id = H.run_id;
		mix.workload = "mix";
		mix.group = 0;
		mix.start = H.start_mono;
		mix.measurements = 0;
		n = stop_end_record(&mix, line, sizeof line);
		if (write(H.json.fd1 - 1, line, n) < 0)
			n = 0;
	}
	if (R.open) { /* the run stopped: its line */
		s.workload = R.workload ? R.workload : "";
		s.measurements = (unsigned long long)R.measurements;
		s.counted = 1;
		s.kept = R.json.fd1 || R.csv_out.fd1;
	} else { /* between the groups' runs, only the mix was under way */
		s.workload = "mix";
		s.kept = H.json.fd1 != 0;
	}
	n = stop_message(&s, line, sizeof line);
	if (write(STDERR_FILENO, line, n) < 0)
		n = 0;
	/* sonde mix: several ranks write end records; each lingers after its own, as the
	 * launch's other ranks do, so that a launcher seeing one leave does not kill another
	 * before it has written */
	if (R.mix.in_mix || H.held) {
		/* the signal may have come to one of MPI's threads, and the thread running the
		 * benchmark goes on while this one lingers: nothing it writes may follow the end
		 * records (a group's interval record did, 1 launch in 6) */
		silence(&R.json);
		silence(&R.csv_out);
		silence(&R.live);
		silence(&H.json);
		sonde_stop_linger();
	}
	_exit(s.code);
}

static void on_stop_signal(int sig)
{
	if (!R.rank0) {
		sonde_stop_linger();
		_exit(SONDE_EXIT_SIGNAL);
	}
	end_runs_on_signal(sig);
}

/* After the end record: a stop signal (the launcher ending a job whose MPI_Finalize waits for
 * a rank that died) leaves with the code the end record gave (4 for ok), writing nothing more;
 * unless a mix's run is still set aside (a group's run ended, the mix had not). */
static volatile sig_atomic_t final_code;

static void on_signal_after_end(int sig)
{
	if (H.held)
		end_runs_on_signal(sig);
	/* as every rank does on a stop signal: a moment before leaving, so that world rank 0,
	 * looking for a rank that ended before the signal came (sonde_stop_failed_peer), does not
	 * take this one, whose run ended well (a mix group done before the others), for it */
	sonde_stop_linger();
	/* a run that ended well, stopped before its process could finish: the launcher counts a
	 * process that leaves with 0 before MPI_Finalize as failed (Open MPI's mpirun then exits
	 * 1), so it leaves as every rank a stop signal ends */
	_exit(final_code == SONDE_EXIT_OK ? SONDE_EXIT_SIGNAL : final_code);
}

static void install(void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* SIGTERM and SIGINT wait while the records' state changes hands (restore with *before). */
static void block_stops(sigset_t *before)
{
	sigset_t stops;
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	sigprocmask(SIG_BLOCK, &stops, before);
}

/* Moves what the mix's run's records need from R into H (to_held), or back; the side it
 * leaves has no file. */
static void hand_over(int to_held)
{
	struct results_file *json[2] = {&R.json, &H.json};
	char *run_id[2] = {R.run_id, H.run_id};
	double *start[2] = {&R.start, &H.start};
	struct timespec *start_mono[2] = {&R.start_mono, &H.start_mono};
	int *write_errno[2] = {&R.write_errno, &H.write_errno};
	struct results_failure *failure[2] = {&R.failure, &H.failure};
	int from = !to_held, to = !!to_held;
	*json[to] = *json[from];
	*json[from] = (struct results_file){0};
	snprintf(run_id[to], sizeof R.run_id, "%s", run_id[from]);
	*start[to] = *start[from];
	*start_mono[to] = *start_mono[from];
	*write_errno[to] = *write_errno[from];
	*failure[to] = *failure[from];
}

void sonde_results_hold(void)
{
	sigset_t before;
	block_stops(&before);
	hand_over(1);
	H.held = 1;
	R.open = 0;
	sigprocmask(SIG_SETMASK, &before, NULL);
}

void sonde_results_resume(void)
{
	sigset_t before;
	block_stops(&before);
	hand_over(0);
	H.held = 0;
	R.workload = "mix";
	R.mix.in_mix = 0;
	R.measurements = 0;
	R.header_written = 1;
	R.rank0 = 1;
	R.open = 1;
	install(on_stop_signal);
	sigprocmask(SIG_SETMASK, &before, NULL);
}

/* sonde_fatal: the mix's run set aside ends with the process, its end record naming the cause
 * the group's run noted. */
static void end_held_run(int exit_code)
{
	if (!H.held)
		return;
	struct results_failure cause = R.failure;
	sonde_results_resume();
	if (cause.noted)
		R.failure = cause;
	sonde_results_close(exit_code);
}

/* A fatal error or sonde_exit notes the cause and writes the end record (fail.h). */
static const struct sonde_fail_hook at_failure = {
    .failure = sonde_results_note_failure,
    .end = sonde_results_close,
    .abort = end_held_run,
};

int sonde_results_open(MPI_Comm comm, const char *workload, const char *json_path,
                       const char *csv_path, char *err, size_t errlen)
{
	sonde_fail_register(&at_failure);
	R.workload = workload;
	R.start = sonde_now();
	clock_gettime(CLOCK_MONOTONIC, &R.start_mono);
	make_run_id();
	R.open = 1;
	R.rank0 = is_rank0(comm);
	R.failure.noted = 0;
	R.json_path = json_path;
	R.csv_path = csv_path;
	R.header_written = 0;
	R.write_errno = 0;
	R.measurements = 0;
	install(on_stop_signal);
	if (!R.rank0)
		return 0;
	if ((json_path && (results_file_open(&R.json, "json", json_path, err, errlen) < 0 ||
	                   results_file_check_format(&R.json, 1, err, errlen) < 0)) ||
	    (csv_path && (results_file_open(&R.csv_out, "csv", csv_path, err, errlen) < 0 ||
	                  results_file_check_format(&R.csv_out, 0, err, errlen) < 0)))
		goto fail;
	struct stat a, b;
	if (R.json.fd1 && R.csv_out.fd1 && fstat(R.json.fd1 - 1, &a) == 0 &&
	    fstat(R.csv_out.fd1 - 1, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		snprintf(err, errlen, "--json %s and --csv %s are the same file", json_path,
		         csv_path);
		goto fail;
	}
	if (R.csv_out.fd1 && !(R.csv = open_memstream(&R.row, &R.row_len))) {
		snprintf(err, errlen, "results: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	results_file_close(&R.json);
	results_file_close(&R.csv_out);
	return -1;
}

int sonde_results_collision(const char *path, const char *what, char *err, size_t errlen)
{
	const char *const option[3] = {"--json", "--csv", "--live"};
	const char *const mine[3] = {R.json_path, R.csv_path, R.live_path};
	for (int k = 0; k < 3; k++)
		if (path && mine[k] && sonde_same_file(path, mine[k])) {
			snprintf(err, errlen,
			         "the %s %s is the results file %s %s: sonde would overwrite its "
			         "results; give one of them another name",
			         what, path, option[k], mine[k]);
			return -1;
		}
	return 0;
}

/* Appends one whole line or nothing (results_file_append). A file's failure is reported once,
 * naming it; that file gets nothing more, and the run ends with exit code 1
 * (sonde_results_close). */
static void write_line(struct results_file *out, const char *buf, size_t len)
{
	size_t torn;
	int e = out->fd1 ? results_file_append(out, buf, len, &torn) : 0;
	if (!e)
		return;
	/* Each file that fails is named (once: it gets nothing more); the end record names the
	 * first. */
	if (!R.write_errno)
		R.write_errno = e;
	char msg[1536], part[160] = "";
	if (torn)
		snprintf(part, sizeof part, " (its last line is torn: %zu of %zu bytes)", torn,
		         len);
	snprintf(msg, sizeof msg, "results file %s: %s%s; its records from here on are lost",
	         out->path, strerror(e), part);
	sonde_error("%s", msg); /* names the group in a mix */
	sonde_results_note_failure(0, out->path, msg);
	results_file_close(out);
}

static void write_record(void)
{
	sonde_json_raw_text_append(&R.rec, "\n");
	write_line(&R.json, R.rec.buf, R.rec.len);
}

static void begin_record(const char *type, const char *workload)
{
	sonde_json_reset(&R.rec);
	sonde_json_object_begin(&R.rec, NULL);
	sonde_json_string(&R.rec, "type", type);
	sonde_json_string(&R.rec, "run_id", R.run_id);
	sonde_json_string(&R.rec, "workload", workload);
	if (R.mix.in_mix)
		sonde_json_int(&R.rec, "group", R.mix.group);
}

static void iso_time(time_t when, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&when, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void mpi_identity(const struct sonde_context *ctx)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "none";
	char ver[16] = "none";
	if (ctx->mpi) {
		int len, major, minor;
		MPI_Get_library_version(lib, &len);
		char *nl = strchr(lib, '\n');
		if (nl)
			*nl = '\0';
		MPI_Get_version(&major, &minor);
		snprintf(ver, sizeof ver, "%d.%d", major, minor);
	}
	sonde_json_string(&R.rec, "mpi_library", lib);
	sonde_json_string(&R.rec, "mpi_version", ver);
}

static void filesystem(const char *target)
{
	struct sonde_fsinfo fs;
	if (!target || sonde_fsinfo_get(target, &fs) < 0) {
		sonde_json_null(&R.rec, "filesystem");
		return;
	}
	sonde_json_object_begin(&R.rec, "filesystem");
	sonde_json_string(&R.rec, "path", target);
	sonde_json_string(&R.rec, "type", fs.type);
	sonde_json_string(&R.rec, "mount", fs.mount);
	sonde_json_int(&R.rec, "total_bytes", fs.total_bytes);
	sonde_json_int(&R.rec, "free_bytes", fs.free_bytes);
	sonde_json_bool(&R.rec, "parallel", fs.parallel);
	sonde_json_object_end(&R.rec);
}

void sonde_results_header(const struct sonde_context *ctx, const char *params_json,
                          const char *target)
{
	const struct sonde_topology *t = &ctx->topo;
	R.header_written = 1;
	R.ranks = ctx->size;
	R.nodes = t->nnodes;
	R.tasks_per_node = t->tasks_per_node;
	if (!R.json.fd1)
		return;
	char start[40];
	iso_time(time(NULL), start, sizeof start);
	begin_record("header", ctx->workload);
	sonde_json_int(&R.rec, "schema_version", SONDE_SCHEMA_VERSION);
	sonde_json_string(&R.rec, "sonde_version", sonde_version);
	sonde_json_string(&R.rec, "git_describe", sonde_git_describe);
	sonde_json_array_begin(&R.rec, "command_line");
	for (int i = 0; i < ctx->argc; i++)
		sonde_json_string(&R.rec, NULL, ctx->argv[i]);
	sonde_json_array_end(&R.rec);
	mpi_identity(ctx);
	sonde_json_int(&R.rec, "ranks", ctx->size);
	sonde_json_int(&R.rec, "nodes", t->nnodes);
	sonde_json_int(&R.rec, "tasks_per_node", t->tasks_per_node);
	sonde_json_array_begin(&R.rec, "hostnames");
	for (int i = 0; i < t->nnodes; i++)
		sonde_json_string(&R.rec, NULL, t->node_names[i]);
	sonde_json_array_end(&R.rec);
	/* where every rank ran: a placement with unequal nodes is visible to the rules, which
	 * tasks_per_node (node 0's count) alone would hide */
	sonde_json_array_begin(&R.rec, "tasks_on_node");
	for (int i = 0; i < t->nnodes; i++)
		sonde_json_int(&R.rec, NULL, t->tasks_on_node[i]);
	sonde_json_array_end(&R.rec);
	sonde_json_array_begin(&R.rec, "node_of_rank");
	for (int i = 0; i < t->size; i++)
		sonde_json_int(&R.rec, NULL, t->node_of_rank[i]);
	sonde_json_array_end(&R.rec);
	sonde_json_double(&R.rec, "clock_error_s", ctx->clock.error_max);
	if (t->slurm_job_id) {
		sonde_json_object_begin(&R.rec, "slurm");
		sonde_json_string(&R.rec, "job_id", t->slurm_job_id);
		sonde_json_string(&R.rec, "nodelist", t->slurm_nodelist);
		sonde_json_object_end(&R.rec);
	} else {
		sonde_json_null(&R.rec, "slurm");
	}
	sonde_json_string(&R.rec, "start_time", start);
	if (R.mix.in_mix)
		sonde_json_string(&R.rec, "mix_stage", R.mix.stage);
	sonde_json_raw(&R.rec, "params", params_json ? params_json : "{}");
	filesystem(target);
	sonde_json_object_end(&R.rec);
	write_record();
}

/* The row built in the memory stream goes out whole (with the header row before the first
 * row of a new file), and the stream starts over. */
static void csv_write_row(void)
{
	if (fflush(R.csv) == 0)
		write_line(&R.csv_out, R.row, R.row_len);
	rewind(R.csv);
}

static void csv_row(const char *workload, const struct sonde_measurement *m)
{
	if (R.csv_out.was_empty && !R.csv_out.wrote)
		results_csv_header(R.csv);
	const struct results_csv_run run = {R.run_id, workload, R.ranks, R.nodes, R.tasks_per_node};
	results_csv_row(R.csv, &run, m);
	csv_write_row();
}

static void json_measurement(const char *workload, const struct sonde_measurement *m)
{
	begin_record("measurement", workload);
	results_json_measurement(&R.rec, m);
	if (R.mix.in_mix) {
		sonde_json_double(&R.rec, "start", mix_time(m->start));
		sonde_json_double(&R.rec, "end", mix_time(m->end));
	}
	sonde_json_object_end(&R.rec);
	write_record();
}

void sonde_results_measurement(const char *workload, const struct sonde_measurement *m)
{
	/* The files' lines and the count change together, a stop signal meanwhile waiting: the
	 * end record its handler writes (stop_record.c) counts the measurements the files hold.
	 * Counted before the line, a SIGTERM in between left an end record of 1 measurement over
	 * none (fault matrix, mpiio type 3 collective). */
	sigset_t before;
	sonde_stop_defer(&before);
	if (R.mix.in_mix)
		keep_span(m);
	if (R.csv)
		csv_row(workload, m);
	if (R.json.fd1)
		json_measurement(workload, m);
	R.measurements++;
	sonde_stop_allow(&before);
}

/* Members of body (a JSON object) are spliced after the common ones. */
static void build_record(const char *type, const char *workload, const char *body_json)
{
	begin_record(type, workload);
	const char *body = body_json ? body_json : "{}";
	while (*body == ' ' || *body == '\n')
		body++;
	/* The record is still open ({"type":..,"workload":..), so the body's members follow a
	 * comma, and the body's own closing brace closes the record. */
	if (*body == '{' && body[1] != '}') {
		sonde_json_raw_text_append(&R.rec, ",");
		sonde_json_raw_text_append(&R.rec, body + 1);
	} else {
		sonde_json_raw_text_append(&R.rec, "}");
	}
}

void sonde_results_record(const char *type, const char *workload, const char *body_json)
{
	if (!R.json.fd1)
		return;
	build_record(type, workload, body_json);
	write_record();
}

int sonde_results_open_live(const char *path, char *err, size_t errlen)
{
	R.live_path = path;
	if (!R.rank0 || !path)
		return 0;
	/* A live file is JSON Lines too: the same format check as --json. */
	if (results_file_open(&R.live, "live", path, err, errlen) < 0 ||
	    results_file_check_format(&R.live, 1, err, errlen) < 0) {
		results_file_close(&R.live);
		return -1;
	}
	const char *const option[2] = {"--json", "--csv"};
	const struct results_file *other[2] = {&R.json, &R.csv_out};
	struct stat a, b;
	for (int k = 0; k < 2; k++)
		if (other[k]->fd1 && fstat(R.live.fd1 - 1, &a) == 0 &&
		    fstat(other[k]->fd1 - 1, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			snprintf(err, errlen, "--live %s and %s %s are the same file", path,
			         option[k], other[k]->path);
			results_file_close(&R.live);
			return -1;
		}
	return 0;
}

void sonde_results_live(const char *type, const char *workload, const char *body_json)
{
	if (!R.live.fd1)
		return;
	build_record(type, workload, body_json);
	sonde_json_raw_text_append(&R.rec, "\n");
	write_line(&R.live, R.rec.buf, R.rec.len);
}

void sonde_results_note_failure(int rank, const char *path, const char *message)
{
	if (R.failure.noted)
		return;
	R.failure.noted = 1;
	R.failure.rank = rank;
	snprintf(R.failure.path, sizeof R.failure.path, "%s", path ? path : "");
	snprintf(R.failure.message, sizeof R.failure.message, "%s", message ? message : "");
}

int sonde_results_close(int exit_code)
{
	if (!R.open)
		return exit_code;
	R.open = 0;
	/* From here on the run is over: a stop signal while the end record is written waits for
	 * it, and one after it must not claim to have stopped the run. */
	sigset_t before;
	block_stops(&before);
	/* Results that could not be written fail a run that would otherwise succeed. */
	if (exit_code == SONDE_EXIT_OK && R.write_errno)
		exit_code = SONDE_EXIT_RUNTIME;
	/* An MPI or MPI-IO call that fails because another rank died is that rank's failure, not
	 * an I/O error: judged on what happened, as the stop handler judges the launcher's SIGTERM.
	 * A collective whose peer was killed fails so; and Open MPI's mpirun removes the job's
	 * session directory the moment a rank dies, so an MPI_File_open on the node meanwhile fails
	 * with EIO (OMPIO's sharedfp component maps a file there), an error that names a data file
	 * and says nothing of the rank. Rank 0 says which rank it was, as its end record does. */
	enum sonde_reason reason = sonde_reason_of_exit(exit_code);
	int peer = R.rank0 && reason == SONDE_REASON_IO_ERROR ? sonde_stop_failed_peer() : -1;
	if (peer >= 0) {
		reason = SONDE_REASON_PEER_FAILED;
		sonde_error("rank %d ended (killed or failed) before the run failed; the error "
		            "reported follows from it",
		            peer);
	}
	if (R.json.fd1 && R.header_written) {
		begin_record("end", R.workload ? R.workload : "");
		sonde_json_int(&R.rec, "exit_code", exit_code);
		sonde_json_string(&R.rec, "reason", sonde_reason_name(reason));
		if (peer >= 0)
			sonde_json_int(&R.rec, "rank", peer);
		else if (exit_code != SONDE_EXIT_OK && R.failure.noted && R.failure.rank >= 0)
			sonde_json_int(&R.rec, "rank", R.failure.rank);
		if (exit_code != SONDE_EXIT_OK && R.failure.noted) {
			if (R.failure.path[0])
				sonde_json_string(&R.rec, "path", R.failure.path);
			if (R.failure.message[0])
				sonde_json_string(&R.rec, "error", R.failure.message);
		}
		sonde_json_double(&R.rec, "elapsed_seconds", sonde_now() - R.start);
		sonde_json_int(&R.rec, "measurements", R.measurements);
		sonde_json_object_end(&R.rec);
		write_record();
		if (exit_code == SONDE_EXIT_OK && R.write_errno)
			exit_code = SONDE_EXIT_RUNTIME;
	}
	results_file_close(&R.json);
	results_file_close(&R.csv_out);
	results_file_close(&R.live);
	if (R.csv) {
		fclose(R.csv);
		R.csv = NULL;
	}
	free(R.row);
	R.row = NULL;
	sonde_json_free(&R.rec);
	final_code = exit_code;
	install(on_signal_after_end);
	sigprocmask(SIG_SETMASK, &before, NULL);
	return exit_code;
}
