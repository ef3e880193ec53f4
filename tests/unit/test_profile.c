/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 3
/* Profiles: ranks with different call counts (and more calls than one storage chunk), a clock
 * with a per-rank offset, gathered in chunks smaller than the call count. Rank 0 reads the text
 * file back and checks its shape and every value against what each rank recorded; the same
 * table written in one chunk and alone without MPI must match. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "profile.h"
#include "results.h"

/* Rank r makes 4100 + 7r calls: past one 4096-call chunk, and uneven. */
static int64_t calls_of(int r)
{
	return 4100 + 7 * r;
}

/* Local times of rank r; the clock maps them to global by adding offset(r) - zero. */
static double start_of(int r, int64_t i)
{
	return 1000.0 * r + 0.5 * (double)i + 0.125;
}

static double end_of(int r, int64_t i)
{
	return start_of(r, i) + 0.25;
}

static struct sonde_clock clock_of(int r)
{
	struct sonde_clock c = {.offset = -1000.0 * r + 0.001 * r, .error = 1e-6 * r, .zero = 0.5};
	return c;
}

static double global(int r, double local)
{
	struct sonde_clock c = clock_of(r);
	return sonde_clock_global(&c, local);
}

static void record(struct sonde_profile *p, int r)
{
	sonde_profile_init(p, start_of(r, 0) - 0.0625);
	for (int64_t i = 0; i < calls_of(r); i++)
		CHECK_INT(sonde_profile_add(p, start_of(r, i), end_of(r, i)), 0);
	CHECK_INT(p->calls, calls_of(r));
}

/* Rank 0: the file holds rows + 1 lines of size values, each followed by a tab. */
static void check_text(const char *path, int size, int64_t rows)
{
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	int64_t row = 0;
	int bad = 0;
	while (getline(&line, &cap, f) > 0) {
		char *p = line;
		for (int r = 0; r < size; r++) {
			char *end;
			double v = strtod(p, &end);
			double want;
			if (row == 0)
				want = global(r, start_of(r, 0) - 0.0625);
			else if (row <= calls_of(r))
				want = global(r, end_of(r, row - 1));
			else
				want = 0;
			if (end == p || *end != '\t' || fabs(v - want) > 1e-6) {
				if (bad++ < 5)
					check_fail(__FILE__, __LINE__,
					           "%s row %lld task %d: '%.30s', expected %f",
					           path, (long long)row, r, p, want);
			}
			p = end + 1;
		}
		CHECK(strcmp(p, "\n") == 0);
		row++;
	}
	CHECK_INT(row, rows + 1);
	CHECK_INT(bad, 0);
	free(line);
	fclose(f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	b[fread(b, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return b;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	char dir[512] = "";
	if (rank == 0) {
		const char *base = getenv("TEST_TMPDIR");
		if (!base || !*base)
			base = "/tmp";
		mkdir(base, 0755);
		snprintf(dir, sizeof dir, "%s/profile-XXXXXX", base);
		CHECK(mkdtemp(dir) != NULL);
	}
	MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
	char chunked[600], whole[600], alone[600], json[600], err[512] = "";
	snprintf(chunked, sizeof chunked, "%s/p.chunked", dir);
	snprintf(whole, sizeof whole, "%s/p.whole", dir);
	snprintf(alone, sizeof alone, "%s/p.alone", dir);
	snprintf(json, sizeof json, "%s/r.jsonl", dir);
	if (rank == 0)
		CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "mib", json, NULL, err, sizeof err),
		          0);

	struct sonde_profile p;
	record(&p, rank);
	struct sonde_clock c = clock_of(rank);
	int64_t rows = calls_of(size - 1);

	/* 4100-odd rows in chunks of 1000: the last chunk is partial and every rank runs out of
	 * calls in a different one. */
	struct sonde_profile_output out = {chunked, "mib", "write", 1000};
	CHECK_INT(sonde_profile_write(&p, MPI_COMM_WORLD, &c, &out, err, sizeof err), rows);
	struct sonde_profile_output out2 = {whole, NULL, "write", 0};
	CHECK_INT(sonde_profile_write(&p, MPI_COMM_WORLD, &c, &out2, err, sizeof err), rows);

	/* A file rank 0 cannot create: every rank gets -1 and rank 0's reason. */
	struct sonde_profile_output bad = {"/nonexistent-dir/p", NULL, "read", 10};
	err[0] = '\0';
	CHECK_INT(sonde_profile_write(&p, MPI_COMM_WORLD, &c, &bad, err, sizeof err), -1);
	CHECK(strstr(err, "/nonexistent-dir/p") != NULL);

	if (rank == 0) {
		sonde_results_close(0);
		check_text(chunked, size, rows);
		char *a = slurp(chunked), *b = slurp(whole);
		CHECK(a && b && strcmp(a, b) == 0);
		free(a);
		free(b);
		/* One "tasks" record and ceil(rows / 1000) "calls" records, missing calls null. */
		char *j = slurp(json);
		CHECK(j != NULL);
		if (j) {
			CHECK_INT(count(j, "\"part\":\"tasks\""), 1);
			CHECK_INT(count(j, "\"part\":\"calls\""), (int)((rows + 999) / 1000));
			CHECK(strstr(j, "\"first_call\":4001") != NULL);
			CHECK(strstr(j, "null") != NULL);
			char calls[64];
			snprintf(calls, sizeof calls, "\"calls\":[%lld,%lld,%lld]",
			         (long long)calls_of(0), (long long)calls_of(1),
			         (long long)calls_of(2));
			CHECK(size != 3 || strstr(j, calls) != NULL);
		}
		free(j);

		/* Without MPI: one task, its own table. */
		struct sonde_profile_output out3 = {alone, NULL, "write", 3};
		CHECK_INT(sonde_profile_write(&p, MPI_COMM_NULL, &c, &out3, err, sizeof err),
		          calls_of(0));
		check_text(alone, 1, calls_of(0));
		unlink(chunked);
		unlink(whole);
		unlink(alone);
		unlink(json);
		rmdir(dir);
	}
	sonde_profile_free(&p);
	CHECK_INT(p.calls, 0);

	int failed = check_finish("test_profile"), any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
