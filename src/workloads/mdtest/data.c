/* SPDX-License-Identifier: BSD-3-Clause */
/* The bytes of mdtest's -w files and their check (-X, --verify-write). */
#include <stdlib.h>
#include <string.h>

#include "workloads/mdtest/mdtest.h"

/* The 8 bytes stamped at every MDTEST_DATA_STAMP boundary: the item number, mixed so that
 * item 0 is not a run of zero bytes. */
static void stamp_bytes(uint64_t item, unsigned char out[8])
{
	uint64_t v = item ^ 0x6d64746573740000ULL; /* "mdtest" */
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(v >> (8 * i));
}

int mdtest_data_init(struct mdtest_data *d, uint64_t seed, int creator, size_t size)
{
	memset(d, 0, sizeof *d);
	d->pattern.seed = seed;
	d->pattern.stream = sonde_pattern_stream(creator, 0, 0);
	d->size = size;
	if (size == 0)
		return 0;
	size_t alloc = (size + 4095) / 4096 * 4096;
	if (posix_memalign((void **)&d->buf, 4096, alloc) != 0) {
		d->buf = NULL;
		return -1;
	}
	sonde_pattern_fill(&d->pattern, d->buf, size, 0);
	return 0;
}

void mdtest_data_stamp(struct mdtest_data *d, uint64_t item)
{
	unsigned char s[8];
	stamp_bytes(item, s);
	for (size_t at = 0; at < d->size; at += MDTEST_DATA_STAMP) {
		size_t n = d->size - at < 8 ? d->size - at : 8;
		memcpy(d->buf + at, s, n);
	}
}

/* The stamps against the item's number, the bytes between them against the creator's
 * pattern. */
void mdtest_data_check(const struct mdtest_data *d, const void *buf, size_t len, uint64_t item,
                       struct sonde_verify *v)
{
	const unsigned char *got = buf;
	unsigned char s[8];
	stamp_bytes(item, s);
	for (size_t at = 0; at < len; at += MDTEST_DATA_STAMP) {
		size_t end = at + MDTEST_DATA_STAMP < len ? at + MDTEST_DATA_STAMP : len;
		size_t n = end - at < 8 ? end - at : 8;
		sonde_verify_compare(s, got + at, n, at, v);
		sonde_verify_compare(d->buf + at + n, got + at + n, end - at - n, at + n, v);
	}
}

void mdtest_data_free(struct mdtest_data *d)
{
	free(d->buf);
	d->buf = NULL;
}
