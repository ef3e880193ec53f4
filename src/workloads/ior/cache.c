/* SPDX-License-Identifier: BSD-3-Clause */
/* --drop-cache: before a read, ask the kernel to drop the file's cached pages, and find out
 * whether it did (tmpfs, for one, cannot). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/ior/run.h"

/* --drop-cache: ask the kernel to forget the pages of the file this rank will read, then
 * count with mincore() how many are still resident. Returns resident and total pages. */
void ior_drop_cache(const char *path, int64_t *resident, int64_t *total)
{
	*resident = *total = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	fdatasync(fd); /* dirty pages cannot be dropped */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			size_t npages = (size_t)((st.st_size + page - 1) / page);
			unsigned char *vec = malloc(npages);
			if (vec && mincore(m, (size_t)st.st_size, vec) == 0) {
				*total = (int64_t)npages;
				for (size_t k = 0; k < npages; k++)
					*resident += vec[k] & 1;
			}
			free(vec);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
}
