/* SPDX-License-Identifier: BSD-3-Clause */
#include "pattern.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL

/* splitmix64's output function: every input bit changes about half of the output bits. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

uint64_t sonde_pattern_stream(int64_t rank, int64_t file, int64_t repetition)
{
	uint64_t h = mix64((uint64_t)rank + GOLDEN);
	h = mix64(h ^ ((uint64_t)file + 2 * GOLDEN));
	return mix64(h ^ ((uint64_t)repetition + 3 * GOLDEN));
}

/* Word i is splitmix64's i-th output from a state that depends on seed and stream: one add and
 * one mix per word. */
static inline uint64_t base_of(const struct sonde_pattern *p)
{
	return mix64(p->seed ^ mix64(p->stream + GOLDEN));
}

static inline uint64_t word_at(uint64_t base, uint64_t i)
{
	return mix64(base + (i + 1) * GOLDEN);
}

uint64_t sonde_pattern_word(const struct sonde_pattern *p, uint64_t word_index)
{
	return word_at(base_of(p), word_index);
}

static inline uint64_t to_le(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(w);
#else
	return w;
#endif
}

static inline uint8_t byte_at(uint64_t base, uint64_t offset)
{
	return (uint8_t)(word_at(base, offset / 8) >> (8 * (offset % 8)));
}

void sonde_pattern_fill(const struct sonde_pattern *p, void *buf, size_t len, uint64_t offset)
{
	uint8_t *b = buf;
	uint64_t base = base_of(p);
	size_t i = 0;
	for (; i < len && (offset + i) % 8; i++)
		b[i] = byte_at(base, offset + i);
	uint64_t w = (offset + i) / 8;
	for (; i + 8 <= len; i += 8, w++) {
		uint64_t v = to_le(word_at(base, w));
		memcpy(b + i, &v, 8); /* an unaligned store where the buffer needs one */
	}
	for (; i < len; i++)
		b[i] = byte_at(base, offset + i);
}

static void mismatch(struct sonde_verify *v, uint64_t offset, uint8_t expected, uint8_t found)
{
	v->errors++;
	if (v->kept < SONDE_VERIFY_KEEP)
		v->first[v->kept++] = (struct sonde_mismatch){offset, expected, found};
}

/* Compares n bytes holding file offsets offset.. byte by byte and records those that differ. */
static int64_t check_bytes(uint64_t base, const uint8_t *b, uint64_t offset, size_t n,
                           struct sonde_verify *v)
{
	int64_t bad = 0;
	for (size_t k = 0; k < n; k++) {
		uint8_t e = byte_at(base, offset + k);
		if (b[k] != e) {
			mismatch(v, offset + k, e, b[k]);
			bad++;
		}
	}
	return bad;
}

int64_t sonde_verify_compare(const void *expected, const void *found, size_t len, uint64_t offset,
                             struct sonde_verify *v)
{
	const uint8_t *e = expected, *f = found;
	int64_t bad = 0;
	v->bytes_checked += (int64_t)len;
	if (memcmp(e, f, len) == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (e[i] != f[i]) {
			mismatch(v, offset + i, e[i], f[i]);
			bad++;
		}
	return bad;
}

int64_t sonde_pattern_check(const struct sonde_pattern *p, const void *buf, size_t len,
                            uint64_t offset, struct sonde_verify *v)
{
	const uint8_t *b = buf;
	uint64_t base = base_of(p);
	size_t i = (8 - offset % 8) % 8; /* the bytes before the first whole word */
	if (i > len)
		i = len;
	int64_t bad = check_bytes(base, b, offset, i, v);
	uint64_t w = (offset + i) / 8;
	for (; i + 8 <= len; i += 8, w++) {
		uint64_t want = to_le(word_at(base, w)), got;
		memcpy(&got, b + i, 8);
		if (got != want)
			bad += check_bytes(base, b + i, offset + i, 8, v);
	}
	bad += check_bytes(base, b + i, offset + i, len - i, v);
	v->bytes_checked += (int64_t)len;
	return bad;
}

void sonde_verify_report(const struct sonde_verify *v, int rank, const char *file)
{
	for (int i = 0; i < v->kept; i++)
		fprintf(stderr,
		        "verify: rank %d: %s: offset %" PRIu64 ": expected 0x%02x, found 0x%02x\n",
		        rank, file, v->first[i].offset, v->first[i].expected, v->first[i].found);
	if (v->errors > v->kept)
		fprintf(stderr,
		        "verify: rank %d: %s: %" PRId64
		        " bytes differ in all, the first %d shown\n",
		        rank, file, v->errors, v->kept);
}

void sonde_verify_total(MPI_Comm comm, const struct sonde_verify *local, int64_t *errors,
                        int64_t *bytes_checked)
{
	int64_t in[2] = {local->errors, local->bytes_checked}, out[2] = {in[0], in[1]};
	if (comm != MPI_COMM_NULL)
		MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_SUM, comm);
	*errors = out[0];
	*bytes_checked = out[1];
}
