/* SPDX-License-Identifier: BSD-3-Clause */
/* --progress: the line's figures (amounts, rate, percentage, time left, by amount and by
 * deadline), lines every 10 seconds on stderr when there is no terminal, the redrawn line on a
 * terminal (nothing in a phase's first second, then at most four draws a second, erased at the
 * end), and nothing at all without --progress or on ranks other than 0. The cases that need a
 * process without a controlling terminal run in children forked before MPI_Init (setsid). */
#include <fcntl.h>
#include <mpi.h>
#include <pty.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "progress.h"
#include "workload.h"

static struct sonde_context ctx = {.workload = "testload", .common = {.progress = 1}};
/* --progress-interval 0: a line at every update, wherever stderr goes */
static struct sonde_context every = {.workload = "testload",
                                     .common = {.progress = 1, .progress_lines = 1}};

static int matches(const char *text, const char *pattern)
{
	regex_t re;
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	int ok = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	if (!ok)
		fprintf(stderr, "  text: %s\n  pattern: %s\n", text, pattern);
	return ok;
}

/* Sends stderr to fd; returns the saved stderr. */
static int redirect_stderr(int fd)
{
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	return saved;
}

static void read_all(int fd, char *buf, size_t len)
{
	size_t at = 0;
	ssize_t r;
	while (at < len - 1 && (r = read(fd, buf + at, len - 1 - at)) > 0)
		at += (size_t)r;
	buf[at] = '\0';
}

/* A line as if the phase had run `elapsed` seconds (p->start moved back). */
static void line_after(struct sonde_progress *p, double elapsed, int64_t done)
{
	p->start = sonde_now() - elapsed;
	sonde_progress_show(p, done);
}

/* Child, no terminal: the figures, one line each, on stderr. */
static void log_lines(void)
{
	char path[] = "/tmp/sonde-test-progress-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	int saved = redirect_stderr(fd);
	struct sonde_progress p;
	/* 256 MiB of rank 0's 1 GiB in 10 s, 4 ranks alike */
	sonde_progress_begin(&p, &ctx, "write", SONDE_PROGRESS_BYTES, (int64_t)1 << 30, 4, 0);
	int logged = p.fd == 2 && !p.redraw;
	line_after(&p, 10, (int64_t)256 << 20);
	sonde_progress_end(&p);
	/* items, no deadline */
	sonde_progress_begin(&p, &ctx, "create", SONDE_PROGRESS_ITEMS, 10000, 1, 0);
	line_after(&p, 10, 5000);
	/* unknown total: amount and rate only */
	sonde_progress_begin(&p, &ctx, "scan", SONDE_PROGRESS_ITEMS, 0, 2, 0);
	line_after(&p, 4, 615000);
	/* a deadline ends the phase before its amount: the time decides */
	sonde_progress_begin(&p, &ctx, "read", SONDE_PROGRESS_BYTES, (int64_t)1 << 40, 1, 20);
	line_after(&p, 10, 1 << 20);
	/* updates at once are not shown: the first line comes after 10 s */
	sonde_progress_begin(&p, &ctx, "quiet", SONDE_PROGRESS_ITEMS, 100, 1, 0);
	for (int i = 0; i < 100; i++)
		sonde_progress_update(&p, i);
	sonde_progress_end(&p);
	/* amounts: whole bytes and counts without a prefix, never an exponent */
	sonde_progress_begin(&p, &ctx, "small", SONDE_PROGRESS_BYTES, 1000, 1, 0);
	line_after(&p, 1, 512);
	sonde_progress_begin(&p, &ctx, "wide", SONDE_PROGRESS_BYTES, 0, 1, 0);
	line_after(&p, 1, (int64_t)1010 << 20);
	/* --progress-interval 0: every update, in order */
	sonde_progress_begin(&p, &every, "step", SONDE_PROGRESS_ITEMS, 3, 2, 0);
	int every_logged = p.fd == 2 && !p.redraw;
	for (int i = 1; i <= 3; i++)
		sonde_progress_update(&p, i);
	sonde_progress_end(&p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	char out[4096];
	lseek(fd, 0, SEEK_SET);
	read_all(fd, out, sizeof out);
	close(fd);
	CHECK(logged);
	CHECK(every_logged);
	static const char *const expected[] = {
	    "^sonde testload: write  25%  1.00 GiB of 4.00 GiB  10[0-9] MiB/s  0:(29|30) left$",
	    "^sonde testload: create  50%  5.00k of 10.0k  (499|500)/s  0:(09|10) left$",
	    "^sonde testload: scan  1.23M  30[0-9]k/s$",
	    "^sonde testload: read  50%  1.00 MiB of 1.00 TiB  10[0-9] KiB/s  0:(09|10) left$",
	    "^sonde testload: small  51%  512 B of 1000 B  (511|512) B/s  0:01 left$",
	    "^sonde testload: wide  1010 MiB  10[01][0-9] MiB/s$",
	    "^sonde testload: step  33%  2 of 6  [0-9.]+[kMG]?/s  0:00 left$",
	    "^sonde testload: step  66%  4 of 6  [0-9.]+[kMG]?/s  0:00 left$",
	    "^sonde testload: step 100%  6 of 6  [0-9.]+[kMG]?/s  0:00 left$",
	};
	int want = (int)(sizeof expected / sizeof expected[0]), n = 0;
	for (char *s = strtok(out, "\n"); s; s = strtok(NULL, "\n"), n++)
		CHECK(n < want && matches(s, expected[n]));
	CHECK_INT(n, want);
}

/* Child, stderr a terminal: the line redrawn in place, erased at the end. */
static void redrawn(void)
{
	int master, slave;
	if (openpty(&master, &slave, NULL, NULL, NULL) != 0) {
		printf("test_progress: no pseudo-terminal, the redrawn line is not tested\n");
		return;
	}
	int saved = redirect_stderr(slave);
	struct sonde_progress p;
	/* --progress-interval asks for lines even here; so does a workload that prints while its
	 * phase runs (coll), every 10 s */
	sonde_progress_begin(&p, &every, "lines", SONDE_PROGRESS_ITEMS, 10, 1, 0);
	int lines_asked = p.fd == 2 && !p.redraw && p.period == 0;
	sonde_progress_end(&p);
	sonde_progress_begin(&p, &ctx, "coll", SONDE_PROGRESS_ITEMS, 10, 1, 0);
	int redraw_first = p.redraw;
	sonde_progress_in_lines(&p);
	int in_lines = p.fd == 2 && !p.redraw && p.period == 10 && p.next == p.start + 10;
	sonde_progress_end(&p);

	sonde_progress_begin(&p, &ctx, "write", SONDE_PROGRESS_BYTES, 1000000000, 2, 0);
	int on_tty = p.redraw;
	double t0 = sonde_now(), first = -1;
	int64_t done = 0;
	while (sonde_now() - t0 < 1.7) {
		int drawn = p.drawn;
		sonde_progress_update(&p, done += 100);
		if (!drawn && p.drawn)
			first = sonde_now() - t0;
	}
	sonde_progress_end(&p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(slave);
	static char out[65536];
	read_all(master, out, sizeof out);
	close(master);
	CHECK(on_tty);
	CHECK(lines_asked);
	CHECK(redraw_first && in_lines);
	CHECK(first >= 1.0 && first < 1.3);
	int draws = 0;
	for (char *s = out; (s = strstr(s, "\rwrite ")); s++)
		draws++;
	/* at 1.0 s and every quarter second after: 1.0, 1.25, 1.5 (and 1.7 when it falls so) */
	CHECK(draws >= 2 && draws <= 4);
	CHECK(matches(out, "\rwrite +[0-9]+%  [0-9.]+ [KMG]?i?B of 1.86 GiB  [0-9.]+ [KMG]?i?B/s"));
	size_t len = strlen(out);
	CHECK(len >= 4 && strcmp(out + len - 4, "\r\033[K") == 0);
}

/* Child: the clock is read every stride updates, not at every one, while updates come fast (the
 * largest stride is taken: a preempted process sees one long gap and cuts its stride); when they
 * slow down, the line still comes within SONDE_PROGRESS_MAX_STRIDE updates of its time, and a
 * few slow updates later the stride is back to one read per update (the first read after the
 * change cuts it in proportion to a gap partly made of fast updates). */
static void stride_fits_rate(void)
{
	int null = open("/dev/null", O_WRONLY);
	int saved = redirect_stderr(null);
	struct sonde_progress p;
	sonde_progress_begin(&p, &ctx, "fast", SONDE_PROGRESS_ITEMS, 0, 1, 0);
	int64_t done = 0, fast_stride = 0;
	double t0 = sonde_now();
	while (sonde_now() - t0 < 0.2) {
		sonde_progress_update(&p, ++done);
		fast_stride = p.stride > fast_stride ? p.stride : fast_stride;
	}
	/* now each update takes 2 ms; the line is due 10 ms from here */
	p.next = sonde_now() + 0.01;
	double due = p.next;
	int64_t late_updates = 0;
	while (p.next == due && late_updates < 10 * SONDE_PROGRESS_MAX_STRIDE) {
		usleep(2000);
		sonde_progress_update(&p, ++done);
		late_updates++;
	}
	for (int i = 0; i < 2 * SONDE_PROGRESS_MAX_STRIDE / 10; i++) {
		usleep(2000);
		sonde_progress_update(&p, ++done);
	}
	int64_t slow_stride = p.stride;
	sonde_progress_end(&p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	CHECK(fast_stride > 1 && fast_stride <= SONDE_PROGRESS_MAX_STRIDE);
	CHECK(p.next != due && late_updates <= SONDE_PROGRESS_MAX_STRIDE + 5);
	CHECK_INT(slow_stride, 1);
}

/* Runs fn in a child with no controlling terminal; returns its exit status. */
static int in_child(void (*fn)(void))
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		fn();
		_exit(check_finish("test_progress child"));
	}
	int status = 1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void test_off(void)
{
	struct sonde_progress p;
	struct sonde_context off = {.workload = "testload"};
	sonde_progress_begin(&p, &off, "write", SONDE_PROGRESS_BYTES, 100, 1, 0);
	CHECK_INT(p.fd, -1);
	struct sonde_context rank1 = {.workload = "testload", .rank = 1, .common = {.progress = 1}};
	sonde_progress_begin(&p, &rank1, "write", SONDE_PROGRESS_BYTES, 100, 1, 0);
	CHECK_INT(p.fd, -1);
	p.next = 0; /* even when its time has come, a line that is off draws nothing */
	sonde_progress_update(&p, 50);
	sonde_progress_end(&p);
}

int main(int argc, char **argv)
{
	CHECK_INT(in_child(log_lines), 0);
	CHECK_INT(in_child(redrawn), 0);
	CHECK_INT(in_child(stride_fits_rate), 0);
	MPI_Init(&argc, &argv);
	test_off();
	int failed = check_finish("test_progress");
	MPI_Finalize();
	return failed;
}
