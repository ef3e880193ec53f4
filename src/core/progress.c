/* SPDX-License-Identifier: BSD-3-Clause */
/* The --progress line (progress.h). */
#include "progress.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "workload.h"

#define FIRST_LINE    1.0  /* seconds into a phase before anything is shown */
#define REDRAW_PERIOD 0.25 /* seconds between redraws on a terminal */
#define LOG_PERIOD    10.0 /* seconds between lines elsewhere */
#define READ_GAP      1e-3 /* seconds wanted between two clock reads in the loop */

/* Whether this process may write to the terminal at fd without being stopped: a process outside
 * the terminal's foreground group (Open MPI starts its ranks in groups of their own) gets SIGTTOU
 * for writing when the terminal has TOSTOP set. */
static int may_write(int fd)
{
	struct termios t;
	return tcgetattr(fd, &t) == 0 && (!(t.c_lflag & TOSTOP) || tcgetpgrp(fd) == getpgrp());
}

/* The terminal to redraw on: stderr when it is one, else the controlling terminal; -1 for
 * none. Looked for once per process. */
static int terminal(int *redraw)
{
	static int fd = -2;
	if (fd == -2) {
		fd = isatty(STDERR_FILENO) ? STDERR_FILENO : -1;
		if (fd < 0)
			fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 && !may_write(fd)) {
			if (fd != STDERR_FILENO)
				close(fd);
			fd = -1;
		}
	}
	*redraw = fd >= 0;
	return fd >= 0 ? fd : STDERR_FILENO;
}

void sonde_progress_begin(struct sonde_progress *p, const struct sonde_context *ctx,
                          const char *label, enum sonde_progress_unit unit, int64_t total,
                          int64_t scale, double deadline)
{
	memset(p, 0, sizeof *p);
	p->fd = -1;
	if (!ctx->common.progress || ctx->rank != 0)
		return;
	if (ctx->common.progress_lines) {
		p->fd = STDERR_FILENO;
		p->period = ctx->common.progress_interval;
	} else {
		p->fd = terminal(&p->redraw);
		p->period = p->redraw ? REDRAW_PERIOD : LOG_PERIOD;
	}
	p->workload = ctx->workload;
	p->label = label;
	p->unit = unit;
	p->total = total > 0 ? total : 0;
	p->scale = scale > 0 ? scale : 1;
	p->deadline = deadline > 0 ? deadline : 0;
	p->start = sonde_now();
	p->next = p->start + (p->redraw ? FIRST_LINE : p->period);
	p->last_read = p->start;
	p->stride = p->until_read = 1;
}

void sonde_progress_in_lines(struct sonde_progress *p)
{
	if (p->fd < 0 || !p->redraw)
		return;
	p->fd = STDERR_FILENO;
	p->redraw = 0;
	p->period = LOG_PERIOD;
	p->next = p->start + LOG_PERIOD;
}

/* v with a binary prefix for bytes ("1.23 GiB"), a decimal one for counts ("4.56M"): three
 * digits, never an exponent (1000 to 1023 of a binary unit have four); whole numbers without a
 * prefix ("512 B", "6"). */
static void amount(char *s, size_t n, double v, enum sonde_progress_unit unit)
{
	static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	static const char *const dec[] = {"", "k", "M", "G", "T", "P"};
	int bytes = unit == SONDE_PROGRESS_BYTES, i = 0;
	double step = bytes ? 1024 : 1000;
	while (v >= step && i < 5) {
		v /= step;
		i++;
	}
	int decimals = i == 0 || v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
	snprintf(s, n, "%.*f%s%s", decimals, v, bytes ? " " : "", bytes ? bin[i] : dec[i]);
}

static void clock_time(char *s, size_t n, double seconds)
{
	long t = (long)(seconds + 0.5);
	if (t >= 3600)
		snprintf(s, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(s, n, "%ld:%02ld", t / 60, t % 60);
}

/* "write  45%  5.50 GiB of 12.2 GiB  1.23 GiB/s  0:07 left" (what is not known is left out). */
static void format_line(const struct sonde_progress *p, int64_t done, double now, char *line,
                        size_t len)
{
	double elapsed = now - p->start, job = (double)done * (double)p->scale;
	double rate = elapsed > 0 ? job / elapsed : 0;
	double frac = p->total ? (double)done / (double)p->total : 0;
	double left =
	    p->total && done > 0 ? (double)(p->total - done) * elapsed / (double)done : INFINITY;
	if (p->deadline) {
		frac = fmax(frac, elapsed / p->deadline);
		left = fmin(left, p->deadline - elapsed);
	}
	char a[32], b[32], r[32], t[32];
	amount(a, sizeof a, job, p->unit);
	amount(r, sizeof r, rate, p->unit);
	int at = snprintf(line, len, "%s", p->label);
	if (p->total || p->deadline)
		at += snprintf(line + at, len - (size_t)at, " %3d%%", (int)(fmin(frac, 1) * 100));
	at += snprintf(line + at, len - (size_t)at, "  %s", a);
	if (p->total) {
		amount(b, sizeof b, (double)p->total * (double)p->scale, p->unit);
		at += snprintf(line + at, len - (size_t)at, " of %s", b);
	}
	at += snprintf(line + at, len - (size_t)at, "  %s/s", r);
	if (isfinite(left) && left >= 0) {
		clock_time(t, sizeof t, left);
		snprintf(line + at, len - (size_t)at, "  %s left", t);
	}
}

static void put(int fd, const char *text)
{
	size_t n = strlen(text);
	while (n > 0) {
		ssize_t w = write(fd, text, n);
		if (w <= 0)
			return; /* a progress line is never worth an error */
		text += w;
		n -= (size_t)w;
	}
}

void sonde_progress_show(struct sonde_progress *p, int64_t done)
{
	double now = sonde_now();
	char line[200], out[256];
	format_line(p, done, now, line, sizeof line);
	if (p->redraw)
		snprintf(out, sizeof out, "\r%s\033[K", line);
	else
		snprintf(out, sizeof out, "sonde %s: %s\n", p->workload, line);
	put(p->fd, out);
	p->drawn = p->redraw;
	p->next = now + p->period;
}

void sonde_progress_read_clock(struct sonde_progress *p, int64_t done)
{
	double now = sonde_now(), gap = now - p->last_read;
	/* --progress-interval 0 asks for a line at every update: the stride stays 1 */
	if (p->period > 0 && gap < READ_GAP / 2 && p->stride < SONDE_PROGRESS_MAX_STRIDE)
		p->stride = p->stride * 2 < SONDE_PROGRESS_MAX_STRIDE ? p->stride * 2
		                                                      : SONDE_PROGRESS_MAX_STRIDE;
	else if (gap > READ_GAP * 2 && p->stride > 1) /* slowed down: cut in proportion */
		p->stride = (int64_t)fmax(1, (double)p->stride * READ_GAP / gap);
	p->last_read = now;
	p->until_read = p->stride;
	if (now >= p->next)
		sonde_progress_show(p, done);
}

void sonde_progress_end(struct sonde_progress *p)
{
	if (p->fd >= 0 && p->drawn)
		put(p->fd, "\r\033[K");
	p->fd = -1;
}
