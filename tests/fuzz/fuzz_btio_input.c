/* SPDX-License-Identifier: BSD-3-Clause */
/* BTIO's inputbt.data reader and its --grid parser on any bytes. */
#include "fuzz_util.h"
#include "workloads/btio/btio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512] = "";
	int fd = fuzz_file(data, size, path, sizeof path);
	struct btio_setup s;
	memset(&s, 0, sizeof s);
	int read_err;
	if (btio_read_input(MPI_COMM_NULL, path, &s, &read_err, err, sizeof err) != 0 && !err[0])
		abort();
	close(fd);
	char *text = fuzz_string(data, size);
	int64_t grid[3];
	err[0] = '\0';
	if (btio_parse_grid(text, grid, err, sizeof err) == 0) {
		if (grid[0] < 1 || grid[1] < 1 || grid[2] < 1)
			abort();
	} else if (!err[0]) {
		abort();
	}
	free(text);
	return 0;
}
