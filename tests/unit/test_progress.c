/* SPDX-License-Identifier: BSD-3-Clause */
/* Progress: the forced (non-terminal) lines every tenth, nothing when not asked or not rank 0, and
 * the redrawn bar on a terminal. */
#include <mpi.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "progress.h"

static int saved_stderr = -1;

/* Sends stderr to fd until restore_stderr(). */
static void capture_stderr(int fd)
{
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
}

static void restore_stderr(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
}

static FILE *temp_file(void)
{
	char path[] = "/tmp/sonde-test-progress-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	return fdopen(fd, "w+");
}

static int count_lines(FILE *f)
{
	rewind(f);
	int n = 0, c;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	return n;
}

static void test_forced_lines(void)
{
	FILE *f = temp_file();
	capture_stderr(fileno(f));
	struct sonde_progress p;
	sonde_progress_begin(&p, 0, "write", 1000, 1);
	for (int64_t d = 0; d <= 1000; d += 8)
		sonde_progress_update(&p, d);
	sonde_progress_update(&p, 1000);
	sonde_progress_end(&p);
	restore_stderr();

	rewind(f);
	char line[256];
	int n = 0;
	long long last_done = -1;
	while (fgets(line, sizeof line, f)) {
		char label[32], rate[32], eta[32];
		int pct;
		long long done, total;
		int got = sscanf(line, "%31[^:]: %d%% (%lld/%lld) %31s ETA %31s", label, &pct,
		                 &done, &total, rate, eta);
		CHECK_INT(got, 6);
		CHECK_STR(label, "write");
		CHECK_INT(total, 1000);
		n++;
		/* The first update past each tenth prints, with its own figures. */
		CHECK_INT(pct, done * 100 / 1000);
		CHECK(pct >= 10 * n && pct < 10 * n + 1);
		CHECK(done > last_done);
		CHECK(strstr(rate, "/s") != NULL);
		last_done = done;
	}
	CHECK_INT(n, 10);
	CHECK_INT(last_done, 1000);
	fclose(f);
}

static void test_jumps_and_early_end(void)
{
	FILE *f = temp_file();
	capture_stderr(fileno(f));
	struct sonde_progress p;
	/* A jump over several tenths prints once. */
	sonde_progress_begin(&p, 0, "read", 100, 1);
	sonde_progress_update(&p, 0);
	sonde_progress_update(&p, 55);
	sonde_progress_end(&p);
	sonde_progress_update(&p, 100); /* after the end: silent */
	restore_stderr();

	rewind(f);
	char line[256];
	CHECK(fgets(line, sizeof line, f) != NULL);
	CHECK(strncmp(line, "read:  55% (55/100) ", 20) == 0);
	CHECK(fgets(line, sizeof line, f) != NULL);
	CHECK(strncmp(line, "read: stopped at 55% (55/100) after ", 36) == 0);
	CHECK(fgets(line, sizeof line, f) == NULL);
	fclose(f);
}

static void test_silent(void)
{
	FILE *f = temp_file();
	capture_stderr(fileno(f));
	struct sonde_progress p;
	sonde_progress_begin(&p, 0, "not forced", 10, 0); /* stderr is a file */
	CHECK_INT(p.enabled, 0);
	for (int i = 0; i <= 10; i++)
		sonde_progress_update(&p, i);
	sonde_progress_end(&p);
	sonde_progress_begin(&p, 1, "rank 1", 10, 1);
	CHECK_INT(p.enabled, 0);
	for (int i = 0; i <= 10; i++)
		sonde_progress_update(&p, i);
	sonde_progress_end(&p);
	restore_stderr();
	CHECK_INT(count_lines(f), 0);
	CHECK_INT(ftell(f), 0);
	fclose(f);
}

static void test_tty_bar(void)
{
	int master, slave;
	if (openpty(&master, &slave, NULL, NULL, NULL) != 0) {
		printf("test_progress: no pseudo-terminal, bar not tested\n");
		return;
	}
	capture_stderr(slave);
	struct sonde_progress p;
	double t0 = sonde_now();
	sonde_progress_begin(&p, 0, "bar", 1000000, 0);
	int tty = p.tty;
	for (int64_t d = 0; d <= 1000000; d++)
		sonde_progress_update(&p, d);
	sonde_progress_end(&p);
	double elapsed = sonde_now() - t0;
	restore_stderr();
	close(slave);
	CHECK_INT(tty, 1);

	static char out[65536];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof out - 1 && (r = read(master, out + len, sizeof out - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(master);
	int draws = 0;
	for (size_t i = 0; i < len; i++)
		draws += out[i] == '\r' && out[i + 1] != '\n'; /* the terminal turns \n into \r\n */
	/* The first draw, one per quarter second at most, the 100% draw and the final one. */
	CHECK(draws >= 2);
	CHECK(draws <= 3 + (int)(elapsed * 4) + 1);
	CHECK(strstr(out, "\rbar [") != NULL);
	CHECK(strstr(out, "[##############################] 100% ") != NULL);
	CHECK(strstr(out, "ETA ") != NULL);
	CHECK(len > 0 && (out[len - 1] == '\n'));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	test_forced_lines();
	test_jumps_and_early_end();
	test_silent();
	test_tty_bar();
	int failed = check_finish("test_progress");
	MPI_Finalize();
	return failed;
}
