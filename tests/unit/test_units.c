/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "units.h"

static int64_t size_ok(const char *text, enum sonde_size_style style)
{
	int64_t v = -1;
	char err[128] = "";
	if (sonde_parse_size(text, style, &v, err, sizeof err) != 0)
		check_fail(__FILE__, __LINE__, "'%s' rejected: %s", text, err);
	return v;
}

static void size_bad(const char *text, enum sonde_size_style style, const char *why)
{
	int64_t v = 12345;
	char err[128] = "";
	check_count++;
	if (sonde_parse_size(text, style, &v, err, sizeof err) == 0)
		check_fail(__FILE__, __LINE__, "'%s' accepted as %lld", text, (long long)v);
	else if (!strstr(err, why) || !strstr(err, text))
		check_fail(__FILE__, __LINE__, "'%s': message '%s' lacks '%s'", text, err, why);
	CHECK_INT(v, 12345); /* output untouched on error */
}

int main(void)
{
	/* decimal digits without printf, for names built in loops */
	char digits[24];
	CHECK_INT(sonde_u64_digits(digits, 0), 1);
	CHECK(digits[0] == '0');
	int n = sonde_u64_digits(digits, UINT64_MAX);
	digits[n] = '\0';
	CHECK_STR(digits, "18446744073709551615");
	n = sonde_u64_digits(digits, 3901);
	digits[n] = '\0';
	CHECK_STR(digits, "3901");

	/* IOR/mib binary suffixes, either case. */
	CHECK_INT(size_ok("0", SONDE_SIZE_BINARY), 0);
	CHECK_INT(size_ok("4096", SONDE_SIZE_BINARY), 4096);
	CHECK_INT(size_ok("4k", SONDE_SIZE_BINARY), 4096);
	CHECK_INT(size_ok("4K", SONDE_SIZE_BINARY), 4096);
	CHECK_INT(size_ok("16m", SONDE_SIZE_BINARY), 16 << 20);
	CHECK_INT(size_ok("2g", SONDE_SIZE_BINARY), 2LL << 30);
	CHECK_INT(size_ok("2G", SONDE_SIZE_BINARY), 2LL << 30);
	CHECK_INT(size_ok("3t", SONDE_SIZE_BINARY), 3LL << 40);
	CHECK_INT(size_ok("8388607t", SONDE_SIZE_BINARY), 8388607LL << 40);
	size_bad("8388608t", SONDE_SIZE_BINARY, "too large");
	size_bad("99999999999999999999", SONDE_SIZE_BINARY, "too large");
	size_bad("-4k", SONDE_SIZE_BINARY, "negative");
	size_bad("4x", SONDE_SIZE_BINARY, "unknown unit");
	size_bad("4kb", SONDE_SIZE_BINARY, "unknown unit");
	size_bad("k", SONDE_SIZE_BINARY, "not a size");
	size_bad(" 4", SONDE_SIZE_BINARY, "not a size");
	size_bad("+4", SONDE_SIZE_BINARY, "not a size");
	size_bad("1.5m", SONDE_SIZE_BINARY, "unknown unit");
	size_bad("", SONDE_SIZE_BINARY, "empty");

	/* LANL dd-like set, exactly as the user's guide defines it. */
	CHECK_INT(size_ok("3w", SONDE_SIZE_LANL), 6);
	CHECK_INT(size_ok("2b", SONDE_SIZE_LANL), 1024);
	CHECK_INT(size_ok("1KB", SONDE_SIZE_LANL), 1000);
	CHECK_INT(size_ok("1K", SONDE_SIZE_LANL), 1024);
	CHECK_INT(size_ok("64K", SONDE_SIZE_LANL), 65536);
	CHECK_INT(size_ok("1MB", SONDE_SIZE_LANL), 1000000);
	CHECK_INT(size_ok("1M", SONDE_SIZE_LANL), 1048576);
	CHECK_INT(size_ok("1GB", SONDE_SIZE_LANL), 1000000000);
	CHECK_INT(size_ok("1G", SONDE_SIZE_LANL), 1073741824);
	CHECK_INT(size_ok("65536", SONDE_SIZE_LANL), 65536);
	size_bad("1k", SONDE_SIZE_LANL, "unknown unit");
	size_bad("1Kb", SONDE_SIZE_LANL, "unknown unit");
	size_bad("1KBB", SONDE_SIZE_LANL, "unknown unit");
	size_bad("-8", SONDE_SIZE_LANL, "negative");

	/* mpiBench byte strings. */
	CHECK_INT(size_ok("32K", SONDE_SIZE_MPIBENCH), 32768);
	CHECK_INT(size_ok("2.5kb", SONDE_SIZE_MPIBENCH), 2560);
	CHECK_INT(size_ok(".5GB", SONDE_SIZE_MPIBENCH), 1LL << 29);
	CHECK_INT(size_ok("1M", SONDE_SIZE_MPIBENCH), 1 << 20);
	CHECK_INT(size_ok("100", SONDE_SIZE_MPIBENCH), 100);
	CHECK_INT(size_ok("8B", SONDE_SIZE_MPIBENCH), 8);
	size_bad("1.5", SONDE_SIZE_MPIBENCH, "whole number");
	size_bad("1q", SONDE_SIZE_MPIBENCH, "unexpected byte string");
	size_bad("1kbx", SONDE_SIZE_MPIBENCH, "unexpected byte string");
	size_bad("-1K", SONDE_SIZE_MPIBENCH, "negative");
	size_bad("K", SONDE_SIZE_MPIBENCH, "not a byte string");
	size_bad("1e30", SONDE_SIZE_MPIBENCH, "too large");

	/* Integers and doubles. */
	int64_t v = 0;
	char err[128];
	CHECK_INT(sonde_parse_int("-12", -100, 100, &v, err, sizeof err), 0);
	CHECK_INT(v, -12);
	CHECK_INT(sonde_parse_int("101", -100, 100, &v, err, sizeof err), -1);
	CHECK_STR(err, "'101': too large (at most 100)");
	CHECK_INT(sonde_parse_int("-101", -100, 100, &v, err, sizeof err), -1);
	CHECK_STR(err, "'-101': must be between -100 and 100");
	CHECK_INT(sonde_parse_int("0", 1, INT64_MAX, &v, err, sizeof err), -1);
	CHECK_STR(err, "'0': must be at least 1");
	CHECK_INT(sonde_parse_int("99999999999999999999", 0, INT64_MAX, &v, err, sizeof err), -2);
	CHECK_STR(err, "'99999999999999999999': too large (at most 9223372036854775807)");
	CHECK_INT(sonde_parse_int("12x", 0, 100, &v, err, sizeof err), -1);
	CHECK_INT(sonde_parse_int("1k", 0, 100, &v, err, sizeof err), -1);
	CHECK_INT(sonde_parse_int("", 0, 100, &v, err, sizeof err), -1);
	double d = 0;
	CHECK_INT(sonde_parse_double("2.5", &d, err, sizeof err), 0);
	CHECK_NEAR(d, 2.5, 0);
	CHECK_INT(sonde_parse_double("2.5s", &d, err, sizeof err), -1);
	CHECK_INT(sonde_parse_double("inf", &d, err, sizeof err), -1);

	char buf[32];
	CHECK_STR(sonde_format_size(16 << 20, buf, sizeof buf), "16 MiB");
	CHECK_STR(sonde_format_size(4096, buf, sizeof buf), "4096 bytes");
	CHECK_STR(sonde_format_size((1 << 20) - 1, buf, sizeof buf), "1048575 bytes");
	CHECK_STR(sonde_format_size(3LL << 40, buf, sizeof buf), "3 TiB");
	CHECK_STR(sonde_format_size(2LL << 30, buf, sizeof buf), "2 GiB");
	CHECK_STR(sonde_format_size(100, buf, sizeof buf), "100 bytes");
	CHECK_STR(sonde_format_size(1536 * 1024, buf, sizeof buf), "1.50 MiB");
	return check_finish("units");
}
