/* SPDX-License-Identifier: BSD-3-Clause */
/* mib's data: see mib.h. The area holds the 4 KiB base block repeated, so that for a call at
 * offset o the window starting at o % 4096 holds the base bytes of every offset of the call;
 * the stamps (the words at 512-byte boundaries) sit at fixed window positions, multiples of
 * 512, and are rewritten for the offsets of each call. */
#include <stdlib.h>
#include <string.h>

#include "workloads/mib/mib.h"

int mib_data_init(struct mib_data *d, uint64_t seed, int writer, size_t call_size)
{
	d->pattern.seed = seed;
	d->pattern.stream = sonde_pattern_stream(writer, 0, 0);
	d->call_size = call_size;
	size_t len = MIB_DATA_PERIOD + call_size + MIB_DATA_STAMP;
	void *area = NULL;
	if (posix_memalign(&area, MIB_DATA_PERIOD, len) != 0)
		return -1;
	d->area = area;
	sonde_pattern_fill(&d->pattern, d->area, MIB_DATA_PERIOD, 0);
	for (size_t at = MIB_DATA_PERIOD; at < len; at += MIB_DATA_PERIOD) {
		size_t n = len - at < MIB_DATA_PERIOD ? len - at : MIB_DATA_PERIOD;
		memcpy(d->area + at, d->area, n);
	}
	return 0;
}

const void *mib_data_block(struct mib_data *d, uint64_t offset)
{
	uint64_t skip = offset % MIB_DATA_PERIOD;
	uint64_t window_file = offset - skip; /* file offset of area[0] */
	uint64_t first = skip - skip % MIB_DATA_STAMP;
	for (uint64_t i = first; i < skip + d->call_size; i += MIB_DATA_STAMP) {
		uint64_t w = sonde_pattern_word(&d->pattern, (window_file + i) / 8);
		for (int b = 0; b < 8; b++)
			d->area[i + (uint64_t)b] = (unsigned char)(w >> (8 * b));
	}
	return d->area + skip;
}

void mib_data_check(struct mib_data *d, const void *buf, size_t len, uint64_t offset,
                    struct sonde_verify *v)
{
	sonde_verify_compare(mib_data_block(d, offset), buf, len, offset, v);
}

void mib_data_free(struct mib_data *d)
{
	free(d->area);
	d->area = NULL;
}
