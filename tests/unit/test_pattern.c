/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 2
/* Data pattern: any offset and length gives the same bytes as one aligned fill; streams and seeds
 * give different data; the check finds exactly the corrupted bytes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pattern.h"

#define N 4096

static void test_fill(void)
{
	struct sonde_pattern p = {.seed = 42, .stream = sonde_pattern_stream(3, 1, 0)};
	static uint8_t ref[N], buf[N + 16];
	sonde_pattern_fill(&p, ref, N, 0);
	for (uint64_t i = 0; i < N / 8; i++) {
		uint64_t w = sonde_pattern_word(&p, i);
		for (int k = 0; k < 8; k++)
			CHECK_INT(ref[8 * i + k], (uint8_t)(w >> (8 * k))); /* little-endian */
	}
	/* Every offset modulo 8, short and long lengths, buffers at every alignment. */
	int bad = 0;
	for (uint64_t off = 0; off < 24; off++)
		for (size_t len = 0; len < 70; len++)
			for (int a = 0; a < 8; a++) {
				memset(buf, 0xA5, sizeof buf);
				sonde_pattern_fill(&p, buf + a, len, off);
				bad += memcmp(buf + a, ref + off, len) != 0;
				bad += a > 0 && buf[a - 1] != 0xA5; /* nothing outside */
				bad += buf[a + len] != 0xA5;
			}
	CHECK_INT(bad, 0);
	sonde_pattern_fill(&p, buf + 3, N - 1001, 1001);
	CHECK(memcmp(buf + 3, ref + 1001, N - 1001) == 0);

	/* Another stream, seed, rank, file or repetition: different data nearly everywhere. */
	struct sonde_pattern others[] = {
	    {.seed = 43, .stream = p.stream},
	    {.seed = 42, .stream = sonde_pattern_stream(4, 1, 0)},
	    {.seed = 42, .stream = sonde_pattern_stream(3, 2, 0)},
	    {.seed = 42, .stream = sonde_pattern_stream(3, 1, 1)},
	};
	for (size_t o = 0; o < sizeof others / sizeof *others; o++) {
		sonde_pattern_fill(&others[o], buf, N, 0);
		int same_words = 0;
		for (int i = 0; i < N; i += 8)
			same_words += memcmp(buf + i, ref + i, 8) == 0;
		CHECK_INT(same_words, 0);
	}
	/* Word i of the file is not word j: data shifted by a word is caught. */
	CHECK(memcmp(ref, ref + 8, N - 8) != 0);

	/* Streams of distinct (rank, file, repetition) are distinct. */
	enum { R = 64, F = 8, P = 4 };
	static uint64_t s[R * F * P];
	int n = 0;
	for (int r = 0; r < R; r++)
		for (int f = 0; f < F; f++)
			for (int q = 0; q < P; q++)
				s[n++] = sonde_pattern_stream(r, f, q);
	int dup = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			dup += s[i] == s[j];
	CHECK_INT(dup, 0);
}

/* The pattern is a file format: files written by one sonde are checked by another. These values
 * come from the definition in docs/core-runtime.md, computed independently (Python). */
static void test_definition(void)
{
	struct sonde_pattern p = {.seed = 42, .stream = sonde_pattern_stream(3, 1, 2)};
	CHECK(p.stream == 0x05743b95ce03884cULL);
	CHECK(sonde_pattern_word(&p, 7) == 0x8dc32dc50a74db56ULL);
	const uint8_t want[16] = {0xfa, 0x7a, 0xf5, 0x8b, 0xdd, 0x63, 0xec, 0x06,
	                          0x64, 0xea, 0xed, 0x10, 0x2a, 0x4e, 0x8a, 0x9f};
	uint8_t got[16];
	sonde_pattern_fill(&p, got, 16, 5);
	CHECK(memcmp(got, want, 16) == 0);
}

static void test_check(void)
{
	struct sonde_pattern p = {.seed = 7, .stream = sonde_pattern_stream(0, 0, 0)};
	enum { LEN = 1000, OFF = 13 };
	uint8_t buf[LEN], want[LEN];
	sonde_pattern_fill(&p, want, LEN, OFF);
	memcpy(buf, want, LEN);
	struct sonde_verify v;
	memset(&v, 0, sizeof v);
	CHECK_INT(sonde_pattern_check(&p, buf, LEN, OFF, &v), 0);
	CHECK_INT(v.errors, 0);
	CHECK_INT(v.bytes_checked, LEN);
	CHECK_INT(v.kept, 0);

	/* Head, inside words, tail. */
	const size_t at[] = {0, 2, 3, 500, 998, 999};
	for (size_t i = 0; i < 6; i++)
		buf[at[i]] ^= (uint8_t)(i == 3 ? 0x01 : 0xFF);
	memset(&v, 0, sizeof v);
	CHECK_INT(sonde_pattern_check(&p, buf, LEN, OFF, &v), 6);
	CHECK_INT(v.errors, 6);
	CHECK_INT(v.kept, 6);
	for (size_t i = 0; i < 6; i++) {
		CHECK_INT(v.first[i].offset, OFF + at[i]);
		CHECK_INT(v.first[i].expected, want[at[i]]);
		CHECK_INT(v.first[i].found, buf[at[i]]);
	}
	/* The same buffer checked at another alignment of the same data. */
	memset(&v, 0, sizeof v);
	CHECK_INT(sonde_pattern_check(&p, buf + 3, LEN - 3, OFF + 3, &v), 4);
	CHECK_INT(v.first[0].offset, OFF + 3);
	CHECK_INT(v.first[1].offset, OFF + 500);

	/* More mismatches than are kept: all counted, the first ones kept, calls accumulate. */
	memcpy(buf, want, LEN);
	for (int i = 0; i < 20; i++)
		buf[100 + 7 * i] = (uint8_t)~want[100 + 7 * i];
	memset(&v, 0, sizeof v);
	CHECK_INT(sonde_pattern_check(&p, buf, LEN, OFF, &v), 20);
	CHECK_INT(sonde_pattern_check(&p, buf, LEN, OFF, &v), 20);
	CHECK_INT(v.errors, 40);
	CHECK_INT(v.kept, SONDE_VERIFY_KEEP);
	CHECK_INT(v.bytes_checked, 2 * LEN);
	for (int i = 0; i < SONDE_VERIFY_KEEP; i++)
		CHECK_INT(v.first[i].offset, OFF + 100 + 7 * i);

	/* Stale data (the previous repetition) fails nearly everywhere. */
	struct sonde_pattern old = {.seed = 7, .stream = sonde_pattern_stream(0, 0, 1)};
	sonde_pattern_fill(&old, buf, LEN, OFF);
	struct sonde_verify s;
	memset(&s, 0, sizeof s);
	CHECK(sonde_pattern_check(&p, buf, LEN, OFF, &s) > LEN * 9 / 10);

	/* The report: one line per kept mismatch, then the count. */
	char path[] = "/tmp/sonde-test-pattern-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	sonde_verify_report(&v, 5, "/x/file.0");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fdopen(fd, "r");
	rewind(f);
	char line[256];
	int lines = 0;
	while (fgets(line, sizeof line, f)) {
		if (lines < SONDE_VERIFY_KEEP) {
			char want_line[256];
			snprintf(
			    want_line, sizeof want_line,
			    "verify: rank 5: /x/file.0: offset %d: expected 0x%02x, found 0x%02x\n",
			    OFF + 100 + 7 * lines, want[100 + 7 * lines],
			    (uint8_t)~want[100 + 7 * lines]);
			CHECK_STR(line, want_line);
		} else {
			CHECK_STR(line,
			          "verify: rank 5: /x/file.0: 40 bytes differ in all, the first 8 "
			          "shown\n");
		}
		lines++;
	}
	CHECK_INT(lines, SONDE_VERIFY_KEEP + 1);
	fclose(f);
	unlink(path);
}

/* Data that is no sonde_pattern (mib's): the same bookkeeping as the pattern's check. */
static void test_compare(void)
{
	uint8_t want[300], got[300];
	for (int i = 0; i < 300; i++)
		want[i] = got[i] = (uint8_t)(i * 7 + 3);
	struct sonde_verify v;
	memset(&v, 0, sizeof v);
	CHECK_INT(sonde_verify_compare(want, got, 300, 4096, &v), 0);
	CHECK_INT(v.bytes_checked, 300);
	CHECK_INT(v.errors, 0);
	CHECK_INT(v.kept, 0);
	for (int i = 0; i < 12; i++)
		got[10 + 20 * i] ^= 0x40;
	CHECK_INT(sonde_verify_compare(want, got, 300, 4096, &v), 12);
	CHECK_INT(v.bytes_checked, 600);
	CHECK_INT(v.errors, 12);
	CHECK_INT(v.kept, SONDE_VERIFY_KEEP);
	for (int i = 0; i < SONDE_VERIFY_KEEP; i++) {
		CHECK_INT(v.first[i].offset, 4096 + 10 + 20 * i);
		CHECK_INT(v.first[i].expected, want[10 + 20 * i]);
		CHECK_INT(v.first[i].found, got[10 + 20 * i]);
	}
	/* without MPI: the totals are this process's own */
	int64_t errors = -1, bytes = -1;
	sonde_verify_total(MPI_COMM_NULL, &v, &errors, &bytes);
	CHECK_INT(errors, 12);
	CHECK_INT(bytes, 600);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	test_fill();
	test_definition();
	test_check();
	test_compare();

	struct sonde_verify v = {.errors = rank + 1, .bytes_checked = 100 * (rank + 1)};
	int64_t errors, bytes;
	sonde_verify_total(MPI_COMM_WORLD, &v, &errors, &bytes);
	CHECK_INT(errors, size * (size + 1) / 2);
	CHECK_INT(bytes, 100 * size * (size + 1) / 2);

	int failed = check_finish("test_pattern"), any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
