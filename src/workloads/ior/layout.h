/* SPDX-License-Identifier: BSD-3-Clause */
/* Where each transfer goes: IOR's offsets for a shared file and for file-per-process, the
 * shuffled offsets of -z, and test file names (-o a@b, -u, -m). */
#ifndef SONDE_IOR_LAYOUT_H
#define SONDE_IOR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct ior_geometry {
	int64_t block, xfer, segments;
	int ntasks;
	int fpp;
};

/* Offset of transfer j of segment seg for the rank whose data it is (pretend rank):
 * shared file: seg x (N x b) + pretend x b + j x t; file per process: seg x b + j x t. */
int64_t ior_offset(const struct ior_geometry *g, int64_t seg, int64_t j, int pretend);

/* -z: the offsets one segment's transfers use, in IOR's shuffled order, relative to the
 * segment start (file per process: within the rank's block; shared file: transfers of the
 * whole segment dealt to ranks by rand() % N, so counts differ between ranks). The C
 * library's generator is seeded with seed, as IOR does. Returns a malloc'd array. */
int64_t *ior_random_offsets(const struct ior_geometry *g, int pretend, unsigned seed,
                            int64_t *count);

/* The file a rank uses: the name picked round-robin from an a@b@c list (file per process),
 * then "<dir>/<rank>/<name>" with -u, then ".%08d" of the rank with -F, then ".<rep>" with -m
 * (rep < 0: none). Returns -1 if it does not fit. */
int ior_file_name(const char *test_file, int fpp, int unique_dir, int file_rank, int rep, char *buf,
                  size_t len);

/* The directory part of a path ("." if none). */
void ior_dir_of(const char *path, char *buf, size_t len);

#endif
