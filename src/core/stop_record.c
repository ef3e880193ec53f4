/* SPDX-License-Identifier: BSD-3-Clause */
/* The end record and the line a stop signal leaves (stop_record.h): text built by hand, since
 * a signal handler may call neither stdio nor malloc. */
#include "stop_record.h"

#include "fail.h"
#include "units.h"

static size_t append(char *buf, size_t at, size_t cap, const char *s)
{
	while (*s && at + 1 < cap)
		buf[at++] = *s++;
	buf[at] = '\0';
	return at;
}

static size_t append_uint(char *buf, size_t at, size_t cap, unsigned long long v)
{
	char text[24];
	text[sonde_u64_digits(text, v)] = '\0';
	return append(buf, at, cap, text);
}

size_t stop_end_record(const struct stop_record *s, char *line, size_t cap)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long ms =
	    (now.tv_sec - s->start.tv_sec) * 1000LL + (now.tv_nsec - s->start.tv_nsec) / 1000000;
	size_t n = append(line, 0, cap, "{\"type\":\"end\",\"run_id\":\"");
	n = append(line, n, cap, s->run_id);
	n = append(line, n, cap, "\",\"workload\":\"");
	n = append(line, n, cap, s->workload);
	n = append(line, n, cap, "\"");
	if (s->group > 0) {
		n = append(line, n, cap, ",\"group\":");
		n = append_uint(line, n, cap, (unsigned long long)s->group);
	}
	n = append(line, n, cap, ",\"exit_code\":");
	n = append_uint(line, n, cap, (unsigned long long)s->code);
	n = append(line, n, cap, ",\"reason\":\"");
	if (s->peer >= 0) {
		n = append(line, n, cap, sonde_reason_name(SONDE_REASON_PEER_FAILED));
		n = append(line, n, cap, "\",\"rank\":");
		n = append_uint(line, n, cap, (unsigned long long)s->peer);
	} else {
		n = append(line, n, cap, sonde_reason_name(SONDE_REASON_SIGNAL));
		n = append(line, n, cap, "\",\"signal\":\"");
		n = append(line, n, cap, s->signal);
		n = append(line, n, cap, "\"");
	}
	n = append(line, n, cap, ",\"elapsed_seconds\":");
	n = append_uint(line, n, cap, (unsigned long long)(ms / 1000));
	char frac[5] = {'.', (char)('0' + ms % 1000 / 100), (char)('0' + ms % 100 / 10),
	                (char)('0' + ms % 10), '\0'};
	n = append(line, n, cap, frac);
	n = append(line, n, cap, ",\"measurements\":");
	n = append_uint(line, n, cap, s->measurements);
	return append(line, n, cap, "}\n");
}

size_t stop_message(const struct stop_record *s, char *line, size_t cap)
{
	size_t n = append(line, 0, cap, "sonde ");
	n = append(line, n, cap, s->workload);
	if (s->peer >= 0) {
		n = append(line, n, cap, ": error: rank ");
		n = append_uint(line, n, cap, (unsigned long long)s->peer);
		n = append(line, n, cap,
		           " ended (killed or failed) and the launcher stopped the run");
	} else {
		n = append(line, n, cap, ": stopped by ");
		n = append(line, n, cap, s->signal);
	}
	if (!s->counted)
		return append(line, n, cap,
		              s->kept ? "; the records written so far are kept\n" : "\n");
	n = append(line, n, cap, " after ");
	n = append_uint(line, n, cap, s->measurements);
	return append(line, n, cap,
	              s->kept ? " measurements; the results recorded so far are kept\n"
	                      : " measurements (no results file was named: --json FILE keeps "
	                        "them)\n");
}
