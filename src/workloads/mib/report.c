/* SPDX-License-Identifier: BSD-3-Clause */
/* mib's human output, byte for byte where parsers read it: the result line and its -H header,
 * -S, -V, -E and -P. Printed by the caller's rank 0 only. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "units.h"
#include "workloads/mib/mib.h"

static const char *arch(void)
{
	static struct utsname u;
	if (!u.machine[0] && uname(&u) != 0)
		snprintf(u.machine, sizeof u.machine, "unknown");
	return u.machine;
}

/* ctime() without its newline. */
static void now_text(char *buf, size_t len)
{
	time_t t = time(NULL);
	char tmp[64];
	snprintf(buf, len, "%s", ctime_r(&t, tmp) ? tmp : "");
	buf[strcspn(buf, "\n")] = '\0';
}

void mib_print_signon(FILE *out)
{
	char when[64];
	now_text(when, sizeof when);
	fprintf(out, "\n\nmib-%s-%s  %s\n\n", MIB_COMPAT_VERSION, arch(), when);
	fflush(out);
}

void mib_print_version(FILE *out)
{
	fprintf(out, "mib-%s-%s\nsonde %s (%s)\n", MIB_COMPAT_VERSION, arch(), sonde_version,
	        sonde_git_describe);
}

static const char *yes(int v)
{
	return v ? "true" : "false";
}

void mib_print_environment(FILE *out, const struct mib_params *p, int tasks)
{
	fprintf(out, "new                      = %s\n", yes(p->new_files));
	fprintf(out, "remove                   = %s\n", yes(p->remove));
	fprintf(out, "testdir                  = %s\n", p->test_dir);
	fprintf(out, "call_limit               = %d\n", p->call_limit);
	fprintf(out, "call_size                = %lld\n", (long long)p->call_size);
	fprintf(out, "time_limit               = %d\n", p->time_limit);
	fprintf(out, "tasks                    = %d\n", tasks);
	fprintf(out, "write_only               = %s\n", yes(p->write_only));
	fprintf(out, "read_only                = %s\n", yes(p->read_only));
	fprintf(out, "profiles                 = %s\n", p->profiles ? p->profiles : "no");
	if (p->random)
		fprintf(out, "random_reads             = %lld\n", (long long)p->granularity);
	fprintf(out, "show_signon              = %s\n", yes(p->show_signon));
	fprintf(out, "show_headers             = %s\n", yes(p->show_headers));
	fprintf(out, "show_environment         = %s\n", yes(p->show_env));
	fprintf(out, "show_progress            = %s\n", yes(p->show_progress));
	fprintf(out, "show_intermediate_values = %s\n", yes(p->show_intermediate));
	fflush(out);
}

/* task_column: mib 1.9.8 without MPI put each process's task number in front of its line. */
void mib_print_result(FILE *out, const struct mib_params *p, int tasks, int task_column, int task,
                      double write_rate, double read_rate)
{
	char when[64];
	now_text(when, sizeof when);
	int64_t range = 1024;
	char unit = 'k';
	if (p->call_size > SONDE_MIB) {
		range = SONDE_MIB;
		unit = 'M';
	}
	if (p->show_headers) {
		const char *col[3] = {"task", "", "------"};
		static const char *const fmt = "%24s %6s %5s %5s %5s %10s %10s\n";
		if (task_column)
			fprintf(out, "%6s ", col[0]);
		fprintf(out, "%14s           %6s %5s %5s %5s %10s %10s\n", "date", "tasks", "xfer",
		        "call", "time", "write", "read");
		if (task_column)
			fprintf(out, "%6s ", col[1]);
		fprintf(out, fmt, " ", " ", " ", "limit", "limit", "MB/s", "MB/s");
		if (task_column)
			fprintf(out, "%6s ", col[2]);
		fprintf(out, fmt, "------------------------", "------", "-----", "-----", "-----",
		        "----------", "----------");
	}
	if (task_column)
		fprintf(out, "%6d ", task);
	fprintf(out, "%s %6d %4d%c %5d %5d %10.2f %10.2f\n", when, tasks,
	        (int)(p->call_size / range), unit, p->call_limit, p->time_limit, write_rate,
	        read_rate);
	fflush(out);
}

#define BAR_EXPECTATION 50

void mib_bar_begin(struct mib_bar *b, int enabled, const struct mib_params *p, const char *phase)
{
	b->enabled = enabled;
	b->shown = 0;
	b->params = p;
	if (enabled) {
		printf("\n%s phase\nshould last about this long---------------------->\n", phase);
		fflush(stdout);
	}
}

/* mib's measure: the larger of the time and the call fractions, in fiftieths; at most 48 stars
 * in all. */
void mib_bar_update(struct mib_bar *b, int calls, double elapsed)
{
	if (!b->enabled)
		return;
	/* -L 0 allows one call: its time is used up at once */
	double used = b->params->time_limit > 0 ? elapsed / b->params->time_limit : 1;
	int by_time = used >= 1 ? BAR_EXPECTATION : (int)(BAR_EXPECTATION * used);
	int by_calls = (int)((int64_t)BAR_EXPECTATION * calls / b->params->call_limit);
	int current = by_time > by_calls ? by_time : by_calls;
	if (current > b->shown && current < BAR_EXPECTATION - 1) {
		for (int i = b->shown; i < current; i++)
			putchar('*');
		fflush(stdout);
		b->shown = current;
	}
}

void mib_bar_end(struct mib_bar *b)
{
	if (b->enabled) {
		putchar('\n');
		fflush(stdout);
	}
}
