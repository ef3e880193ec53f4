/* SPDX-License-Identifier: BSD-3-Clause */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

#define REDRAW_INTERVAL 0.25 /* seconds between redraws of the bar */
#define BAR_WIDTH       30

static int decile(const struct sonde_progress *p, int64_t done)
{
	if (p->total <= 0)
		return 10;
	if (done >= p->total)
		return 10;
	return done <= 0 ? 0 : (int)(done * 10 / p->total);
}

static int percent(const struct sonde_progress *p)
{
	if (p->total <= 0 || p->done >= p->total)
		return 100;
	return p->done <= 0 ? 0 : (int)(p->done * 100 / p->total);
}

/* A count with an SI prefix: progress counts bytes, files or calls alike. */
static void format_rate(char *s, size_t n, double rate)
{
	const char *prefix = " kMGTP";
	int i = 0;
	while (rate >= 1000 && i < 5) {
		rate /= 1000;
		i++;
	}
	if (i)
		snprintf(s, n, "%.3g%c/s", rate, prefix[i]);
	else
		snprintf(s, n, "%.3g/s", rate);
}

static void format_eta(char *s, size_t n, double seconds)
{
	if (!(seconds >= 0) || seconds > 359999) {
		snprintf(s, n, "--:--");
		return;
	}
	long t = (long)(seconds + 0.5);
	if (t >= 3600)
		snprintf(s, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(s, n, "%ld:%02ld", t / 60, t % 60);
}

/* Rate so far and the time left at that rate. */
static void figures(const struct sonde_progress *p, double now, char *rate, char *eta, size_t n)
{
	double elapsed = now - p->start;
	double r = elapsed > 0 ? (double)p->done / elapsed : 0;
	format_rate(rate, n, r);
	format_eta(eta, n, r > 0 ? (double)(p->total - p->done) / r : -1);
}

static void draw_bar(struct sonde_progress *p, double now)
{
	char bar[BAR_WIDTH + 1], rate[32], eta[32];
	int pct = percent(p), fill = pct * BAR_WIDTH / 100;
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, ' ', (size_t)(BAR_WIDTH - fill));
	bar[BAR_WIDTH] = '\0';
	figures(p, now, rate, eta, sizeof rate);
	fprintf(stderr, "\r%s [%s] %3d%% %s ETA %s\033[K", p->label, bar, pct, rate, eta);
	fflush(stderr);
	p->last_draw = now;
}

static void print_line(struct sonde_progress *p, double now)
{
	char rate[32], eta[32];
	figures(p, now, rate, eta, sizeof rate);
	fprintf(stderr, "%s: %3d%% (%lld/%lld) %s ETA %s\n", p->label, percent(p),
	        (long long)p->done, (long long)p->total, rate, eta);
	fflush(stderr);
	p->last_draw = now;
}

void sonde_progress_begin(struct sonde_progress *p, int rank, const char *label, int64_t total,
                          int force)
{
	memset(p, 0, sizeof *p);
	p->label = label;
	p->total = total;
	if (rank != 0)
		return;
	p->tty = isatty(STDERR_FILENO);
	p->enabled = p->tty || force;
	p->start = sonde_now();
	if (p->enabled && p->tty)
		draw_bar(p, p->start);
}

void sonde_progress_update(struct sonde_progress *p, int64_t done)
{
	if (!p->enabled)
		return;
	int64_t before = p->done;
	p->done = done;
	if (p->tty) {
		double now = sonde_now();
		if (now - p->last_draw >= REDRAW_INTERVAL ||
		    (done >= p->total && before < p->total))
			draw_bar(p, now);
	} else if (decile(p, done) > decile(p, before)) {
		print_line(p, sonde_now());
	}
}

void sonde_progress_end(struct sonde_progress *p)
{
	if (!p->enabled)
		return;
	double now = sonde_now();
	if (p->tty) {
		draw_bar(p, now);
		fputc('\n', stderr);
	} else if (p->done < p->total) {
		/* Stopped early: say where, or the log would end at the last tenth. */
		fprintf(stderr, "%s: stopped at %d%% (%lld/%lld) after %.1f s\n", p->label,
		        percent(p), (long long)p->done, (long long)p->total, now - p->start);
	}
	fflush(stderr);
	p->enabled = 0;
}
