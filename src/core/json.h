/* SPDX-License-Identifier: BSD-3-Clause */
/* A small streaming JSON writer into a growable buffer: objects, arrays, escaped strings,
 * numbers (non-finite doubles become null). Commas are placed automatically. Used for result
 * records and for the originals' JSON outputs (IOR summaryFormat=JSON). */
#ifndef SONDE_JSON_H
#define SONDE_JSON_H

#include <stddef.h>
#include <stdint.h>

#define SONDE_JSON_MAX_DEPTH 32

struct sonde_json {
	char *buf;
	size_t len, cap;
	int depth;
	unsigned char has_items[SONDE_JSON_MAX_DEPTH];
};

void sonde_json_init(struct sonde_json *j);
void sonde_json_free(struct sonde_json *j);
void sonde_json_reset(struct sonde_json *j); /* empty the buffer, keep the memory */

/* key is NULL inside arrays and at the top level. */
void sonde_json_object_begin(struct sonde_json *j, const char *key);
void sonde_json_object_end(struct sonde_json *j);
void sonde_json_array_begin(struct sonde_json *j, const char *key);
void sonde_json_array_end(struct sonde_json *j);
void sonde_json_string(struct sonde_json *j, const char *key, const char *value); /* NULL->null */
void sonde_json_int(struct sonde_json *j, const char *key, int64_t value);
void sonde_json_double(struct sonde_json *j, const char *key, double value);
void sonde_json_bool(struct sonde_json *j, const char *key, int value);
void sonde_json_null(struct sonde_json *j, const char *key);
/* Inserts already-encoded JSON text (an object built by another writer). */
void sonde_json_raw(struct sonde_json *j, const char *key, const char *json);

/* Appends text as it is, outside the member logic (record terminators, spliced bodies). */
void sonde_json_raw_text_append(struct sonde_json *j, const char *text);

#endif
