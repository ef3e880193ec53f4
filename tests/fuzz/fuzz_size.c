/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde_parse_size in its three styles, sonde_parse_int and sonde_parse_double on any text.
 * Beyond not crashing: a size accepted is never negative, and the decimal text of an accepted
 * value parses back to the same value in every style. */
#include "fuzz_util.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fuzz_string(data + 1, size - 1);
	char err[256], buf[64];
	int64_t v;
	enum sonde_size_style style = (enum sonde_size_style)(data[0] % 3);
	if (sonde_parse_size(text, style, &v, err, sizeof err) == 0) {
		if (v < 0)
			abort();
		sonde_format_size(v, buf, sizeof buf);
		char plain[32];
		snprintf(plain, sizeof plain, "%lld", (long long)v);
		int64_t again = -1;
		if (sonde_parse_size(plain, style, &again, err, sizeof err) != 0 || again != v)
			abort();
	} else if (!memchr(err, '\0', sizeof err) || !err[0]) {
		abort(); /* every refusal says why */
	}
	int64_t n;
	if (sonde_parse_int(text, INT64_MIN, INT64_MAX, &n, err, sizeof err) == 0) {
		char plain[32];
		snprintf(plain, sizeof plain, "%lld", (long long)n);
		int64_t again;
		if (sonde_parse_int(plain, INT64_MIN, INT64_MAX, &again, err, sizeof err) != 0 ||
		    again != n)
			abort();
	}
	double d;
	sonde_parse_double(text, &d, err, sizeof err);
	free(text);
	return 0;
}
