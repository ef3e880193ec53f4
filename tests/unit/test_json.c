/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "check.h"
#include "json.h"

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
	return check_finish("json");
}
