/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "check.h"
#include "json.h"

/* RFC 8259 section 7, applied here independently of the writer: the code point that one
 * escape at s stands for (\" \\ \/ \b \f \n \r \t or \uXXXX in either case), its length in
 * *len; -1 when s is no escape. */
static int rfc_unescape(const char *s, int *len)
{
	static const char shorts[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	if (s[0] != '\\')
		return -1;
	for (int k = 0; shorts[k]; k += 2)
		if (s[1] == shorts[k]) {
			*len = 2;
			return (unsigned char)shorts[k + 1];
		}
	if (s[1] != 'u')
		return -1;
	int cp = 0;
	for (int k = 2; k < 6; k++) {
		char c = s[k];
		int v = c >= '0' && c <= '9'   ? c - '0'
		        : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10
		                               : -1;
		if (v < 0)
			return -1;
		cp = cp * 16 + v;
	}
	*len = 6;
	return cp;
}

/* Every control byte (0x01-0x1f; 0x00 ends a C string, so sonde never has one to write) must
 * be escaped (RFC 8259: no character below U+0020 appears raw in a string) and the escape must
 * stand for that byte; DEL (0x7f) may be raw or escaped, and must read back as itself. */
static void check_control_bytes(void)
{
	struct sonde_json j;
	sonde_json_init(&j);
	for (int b = 0x01; b <= 0x7f; b++) {
		if (b >= 0x20 && b < 0x7f)
			continue;
		char in[4] = {'x', (char)b, 'y', 0};
		sonde_json_reset(&j);
		sonde_json_string(&j, NULL, in);
		const char *o = j.buf;
		size_t n = strlen(o);
		int raw_control = 0;
		for (size_t k = 0; k < n; k++)
			raw_control |= (unsigned char)o[k] < 0x20;
		CHECK(!raw_control);
		CHECK(n >= 5 && strncmp(o, "\"x", 2) == 0 && strcmp(o + n - 2, "y\"") == 0);
		if (n < 5)
			continue;
		int len = 1, cp = (unsigned char)o[2];
		if (o[2] == '\\')
			cp = rfc_unescape(o + 2, &len);
		else
			CHECK_INT(b, 0x7f);
		CHECK_INT(cp, b);
		CHECK_INT(2 + len + 2, n);
	}
	sonde_json_free(&j);
}

int main(void)
{
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_string(&j, "s", "a\"b\\c\n\x01");
	sonde_json_int(&j, "i", -42);
	sonde_json_double(&j, "d", 0.1);
	sonde_json_double(&j, "nan", NAN);
	sonde_json_double(&j, "big", 1e300);
	sonde_json_bool(&j, "t", 1);
	sonde_json_null(&j, "n");
	sonde_json_string(&j, "nulls", NULL);
	sonde_json_array_begin(&j, "a");
	sonde_json_int(&j, NULL, 1);
	sonde_json_object_begin(&j, NULL);
	sonde_json_object_end(&j);
	sonde_json_array_begin(&j, NULL);
	sonde_json_array_end(&j);
	sonde_json_array_end(&j);
	sonde_json_raw(&j, "raw", "{\"x\":1}");
	sonde_json_object_end(&j);
	CHECK_STR(j.buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"i\":-42,\"d\":0.1,\"nan\":null,"
	                 "\"big\":1e+300,\"t\":true,\"n\":null,\"nulls\":null,"
	                 "\"a\":[1,{},[]],\"raw\":{\"x\":1}}");
	CHECK_INT(j.depth, 0);

	/* Round trip of a double that needs 17 digits. */
	sonde_json_reset(&j);
	sonde_json_double(&j, NULL, 0.1 + 0.2);
	CHECK_STR(j.buf, "0.30000000000000004");

	/* Well-formed UTF-8 passes as it is; every other byte of a string becomes \udcXX (Python's
	 * surrogateescape): stray continuation bytes, Latin-1, overlong forms, encoded surrogates,
	 * sequences cut short, beyond U+10FFFF. */
	sonde_json_reset(&j);
	sonde_json_string(&j, NULL,
	                  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\x80|f\xe9"
	                  "e|\xc0\xaf|\xed\xa0\x80|"
	                  "\xe2\x82|\xf4\x90\x80\x80");
	CHECK_STR(j.buf, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\\udc80|f\\udce9e|\\udcc0\\udcaf|"
	                 "\\udced\\udca0\\udc80|\\udce2\\udc82|\\udcf4\\udc90\\udc80\\udc80\"");
	sonde_json_free(&j);
	check_control_bytes();
	return check_finish("json");
}
