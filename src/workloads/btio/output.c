/* SPDX-License-Identifier: BSD-3-Clause */
/* The original's output block, line for line: labels padded as it pads them, integers in 9
 * columns and reals in 12 with 2 decimals (Fortran I9 and F12.2 after one blank). */
#include <stdio.h>

#include "units.h"
#include "workloads/btio/btio.h"

void btio_print_block(const struct btio_setup *s, int writing, int nprocs,
                      const struct btio_times *t, int64_t dumps, const char *banner,
                      int striping_factor, int striping_unit)
{
	double mib = (double)s->grid[0] * (double)s->grid[1] * (double)s->grid[2] * BTIO_FIVE *
	             sizeof(double) * (double)dumps / (double)SONDE_MIB;
	printf("-- BT-IO Benchmark (%s operation only) --\n", writing ? "write" : "read ");
	printf("Number of MPI processes     : %9d\n", nprocs);
	printf("Global array size X         : %9lld\n", (long long)s->grid[0]);
	printf("Global array size Y         : %9lld\n", (long long)s->grid[1]);
	printf("Global array size Z         : %9lld\n", (long long)s->grid[2]);
	printf("Number of I/O iterations    : %9lld\n", (long long)dumps);
	printf("Total I/O amount            : %12.2f MiB\n", mib);
	printf("Total I/O time in sec       : %12.2f\n", t->total);
	printf("%s: %12.2f\n",
	       writing ? "Max file create time in sec " : "Max file open   time in sec ", t->open);
	printf("%s: %12.2f\n",
	       writing ? "Max write post  time in sec " : "Max read post   time in sec ", t->post);
	printf("%s: %12.2f\n",
	       writing ? "Max write wait  time in sec " : "Max read wait   time in sec ", t->wait);
	printf("I/O bandwidth            : %12.2f MiB/s\n", t->total > 0 ? mib / t->total : 0.0);
	printf("------------------------------------------\n");
	printf("%s\n", banner);
	printf("output file path         : %s\n", s->dir);
	printf("file striping count      : %9d\n", striping_factor);
	printf("file striping size       : %9d bytes\n", striping_unit);
	fflush(stdout);
}
