/* SPDX-License-Identifier: BSD-3-Clause */
/* The POSIX backend's open and remove, for the backends that work on a file descriptor too
 * (MMAP): the same flags, the same refusal of a symbolic link at the path, the same messages. */
#ifndef SONDE_IO_POSIX_FD_H
#define SONDE_IO_POSIX_FD_H

/* open(2) with the sonde flags (src/io/backend.h), O_NOFOLLOW and O_CLOEXEC, retried on EINTR.
 * Returns 0 with the descriptor in *fd_out, or -errno with the message set. */
int sonde_posix_open_fd(const char *path, unsigned flags, int *fd_out);
/* unlink(2); 0 or -errno with the message set. */
int sonde_posix_remove(const char *path);

#endif
