/* SPDX-License-Identifier: BSD-3-Clause */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "files.h"
#include "json.h"
#include "results.h"
#include "units.h"

#define CHUNK_CALLS 4096
/* Rank 0's gather buffer when the caller does not choose: rows x ranks x 2 doubles. */
#define DEFAULT_GATHER_BYTES (4 * SONDE_MIB)

struct sonde_profile_chunk {
	struct sonde_profile_chunk *next;
	double t[CHUNK_CALLS][2];
};

void sonde_profile_init(struct sonde_profile *p, double phase_start)
{
	memset(p, 0, sizeof *p);
	p->phase_start = phase_start;
}

int sonde_profile_add(struct sonde_profile *p, double start, double end)
{
	int64_t at = p->calls % CHUNK_CALLS;
	if (at == 0) {
		struct sonde_profile_chunk *c = malloc(sizeof *c);
		if (!c)
			return -1;
		c->next = NULL;
		if (p->last)
			p->last->next = c;
		else
			p->first = c;
		p->last = c;
	}
	p->last->t[at][0] = start;
	p->last->t[at][1] = end;
	p->calls++;
	return 0;
}

void sonde_profile_free(struct sonde_profile *p)
{
	while (p->first) {
		struct sonde_profile_chunk *next = p->first->next;
		free(p->first);
		p->first = next;
	}
	p->last = NULL;
	p->calls = 0;
}

/* Rank 0's side of the output: the text file and the records. */
struct sink {
	FILE *text;
	const struct sonde_profile_output *out;
	int json;
	int size;
	int failed; /* errno of the first failed write */
	struct sonde_json j;
};

static void put_value(struct sink *s, double v)
{
	/* mib prints a zero for the calls a task did not make. */
	if (fprintf(s->text, "%f\t", isnan(v) ? 0.0 : v) < 0 && !s->failed)
		s->failed = errno ? errno : EIO;
}

static void end_row(struct sink *s)
{
	if (fputc('\n', s->text) == EOF && !s->failed)
		s->failed = errno ? errno : EIO;
}

/* tasks[3 * r + {0,1,2}]: rank r's phase start (global), calls, clock error. */
static void emit_tasks(struct sink *s, const double *tasks)
{
	if (s->text) {
		for (int r = 0; r < s->size; r++)
			put_value(s, tasks[3 * r]);
		end_row(s);
	}
	if (!s->json)
		return;
	struct sonde_json *j = &s->j;
	sonde_json_reset(j);
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "phase", s->out->phase);
	sonde_json_string(j, "part", "tasks");
	sonde_json_int(j, "tasks", s->size);
	static const char *const names[] = {"phase_start", "calls", "clock_error"};
	for (int k = 0; k < 3; k++) {
		sonde_json_array_begin(j, names[k]);
		for (int r = 0; r < s->size; r++) {
			if (k == 1)
				sonde_json_int(j, NULL, (int64_t)tasks[3 * r + k]);
			else
				sonde_json_double(j, NULL, tasks[3 * r + k]);
		}
		sonde_json_array_end(j);
	}
	sonde_json_object_end(j);
	sonde_results_record("profile", s->out->workload, j->buf);
}

/* rows[r * 2 * stride + 2 * i + {0,1}]: rank r's start and end of call first + i. */
static void emit_rows(struct sink *s, const double *rows, int64_t stride, int64_t first, int64_t n)
{
	if (s->text) {
		for (int64_t i = 0; i < n; i++) {
			for (int r = 0; r < s->size; r++)
				put_value(s, rows[r * 2 * stride + 2 * i + 1]);
			end_row(s);
		}
	}
	if (!s->json)
		return;
	struct sonde_json *j = &s->j;
	sonde_json_reset(j);
	sonde_json_object_begin(j, NULL);
	sonde_json_string(j, "phase", s->out->phase);
	sonde_json_string(j, "part", "calls");
	sonde_json_int(j, "first_call", first + 1);
	static const char *const names[] = {"start", "end"};
	for (int k = 0; k < 2; k++) {
		sonde_json_array_begin(j, names[k]);
		for (int64_t i = 0; i < n; i++) {
			sonde_json_array_begin(j, NULL);
			for (int r = 0; r < s->size; r++)
				sonde_json_double(j, NULL, rows[r * 2 * stride + 2 * i + k]);
			sonde_json_array_end(j);
		}
		sonde_json_array_end(j);
	}
	sonde_json_object_end(j);
	sonde_results_record("profile", s->out->workload, j->buf);
}

/* Packs this rank's calls [first, first + n) as global (start, end) pairs, NaN past its last
 * call; *cursor walks the chunk list once over the whole write. */
static void pack(const struct sonde_profile *p, const struct sonde_clock *clock,
                 const struct sonde_profile_chunk **cursor, int64_t first, int64_t n, double *buf)
{
	for (int64_t i = 0; i < n; i++) {
		int64_t call = first + i;
		if (call >= p->calls) {
			buf[2 * i] = buf[2 * i + 1] = NAN;
			continue;
		}
		if (call > 0 && call % CHUNK_CALLS == 0)
			*cursor = (*cursor)->next;
		const double *t = (*cursor)->t[call % CHUNK_CALLS];
		buf[2 * i] = sonde_clock_global(clock, t[0]);
		buf[2 * i + 1] = sonde_clock_global(clock, t[1]);
	}
}

static void gather(MPI_Comm comm, double *send, int count, double *recv)
{
	if (comm == MPI_COMM_NULL)
		memcpy(recv, send, sizeof *send * (size_t)count);
	else
		MPI_Gather(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, 0, comm);
}

/* Rank 0's verdict (0 or an errno) and message, on every rank. */
static int share_verdict(MPI_Comm comm, int rank, int failed, char *err, size_t errlen)
{
	if (comm == MPI_COMM_NULL)
		return failed;
	char msg[512] = "";
	if (rank == 0 && failed)
		snprintf(msg, sizeof msg, "%s", err);
	int buf[1] = {failed};
	MPI_Bcast(buf, 1, MPI_INT, 0, comm);
	MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, comm);
	if (buf[0] && rank != 0)
		snprintf(err, errlen, "%s", msg);
	return buf[0];
}

int64_t sonde_profile_write(const struct sonde_profile *p, MPI_Comm comm,
                            const struct sonde_clock *clock, const struct sonde_profile_output *out,
                            char *err, size_t errlen)
{
	int rank = 0, size = 1;
	if (comm != MPI_COMM_NULL) {
		MPI_Comm_rank(comm, &rank);
		MPI_Comm_size(comm, &size);
	}
	struct sink s = {.out = out, .size = size};
	s.json = rank == 0 && out->workload && sonde_results_active();

	int64_t rows = p->calls;
	if (comm != MPI_COMM_NULL)
		MPI_Allreduce(&p->calls, &rows, 1, MPI_INT64_T, MPI_MAX, comm);

	if (rank == 0 && out->text_path) {
		/* Replaces an older profile of the same name, as mib's does. */
		s.text = sonde_fopen_nofollow(out->text_path, "w");
		if (!s.text) {
			s.failed = errno;
			snprintf(err, errlen, "profile %s: %s", out->text_path,
			         errno == ELOOP ? "a symbolic link is there (not followed)"
			                        : sonde_strerror(errno));
		}
	}
	if (share_verdict(comm, rank, s.failed, err, errlen))
		return -1;

	double mine[3] = {sonde_clock_global(clock, p->phase_start), (double)p->calls,
	                  clock->error};
	double *tasks = rank == 0 ? malloc(sizeof *tasks * 3 * (size_t)size) : NULL;
	int64_t chunk =
	    out->chunk_rows > 0 ? out->chunk_rows : DEFAULT_GATHER_BYTES / (16 * (int64_t)size);
	if (chunk < 1)
		chunk = 1;
	if (chunk > rows)
		chunk = rows > 0 ? rows : 1;
	double *send = malloc(sizeof *send * 2 * (size_t)chunk);
	double *recv = rank == 0 ? malloc(sizeof *recv * 2 * (size_t)chunk * (size_t)size) : NULL;
	if (!send || (rank == 0 && (!tasks || !recv)))
		sonde_fatal("profile: out of memory for %lld rows of %d tasks", (long long)chunk,
		            size);

	gather(comm, mine, 3, tasks);
	if (rank == 0) {
		sonde_json_init(&s.j);
		emit_tasks(&s, tasks);
	}
	const struct sonde_profile_chunk *cursor = p->first;
	for (int64_t first = 0; first < rows; first += chunk) {
		int64_t n = rows - first < chunk ? rows - first : chunk;
		pack(p, clock, &cursor, first, n, send);
		gather(comm, send, (int)(2 * n), recv);
		if (rank == 0)
			emit_rows(&s, recv, n, first, n);
	}

	if (rank == 0) {
		sonde_json_free(&s.j);
		int e = s.text ? sonde_fclose_checked(s.text) : 0;
		if (e && !s.failed)
			s.failed = e;
		if (s.failed)
			snprintf(err, errlen, "profile %s: %s", out->text_path,
			         sonde_strerror(s.failed));
	}
	free(tasks);
	free(send);
	free(recv);
	if (share_verdict(comm, rank, s.failed, err, errlen))
		return -1;
	return rows;
}
