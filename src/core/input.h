/* SPDX-License-Identifier: BSD-3-Clause */
/* Input files (IOR scripts and status files, mpiio's -setup and -targets, BTIO's input deck)
 * are read by rank 0 alone and shared: a thousand ranks opening one small file at once load a
 * parallel file system's metadata server for nothing, and ranks that read it at different
 * moments could see different contents. */
#ifndef SONDE_INPUT_H
#define SONDE_INPUT_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

/* The largest input file sonde reads: inputs are a few lines; anything bigger is a mistake. */
#define SONDE_INPUT_MAX ((size_t)16 << 20)

/* Collective over comm (MPI_COMM_NULL: this process alone): rank 0's len bytes at text reach
 * every rank as a malloc'd copy with a NUL after them; *out_len is set on every rank. The
 * other ranks' text and len are not read. */
char *sonde_bcast_text(MPI_Comm comm, const char *text, size_t len, size_t *out_len);

/* Collective over comm (MPI_COMM_NULL: this process alone): rank 0 reads the input file at path
 * whole (a regular file only, sonde_fopen_input; at most SONDE_INPUT_MAX bytes) and every rank
 * gets its text, malloc'd and NUL-terminated, with its length in *len. On failure every rank
 * gets NULL, the errno value in *err (ENOENT for a missing file, EFBIG for one too large) and the
 * same reason in why ("No such file or directory", "not a regular file (a FIFO)"). */
char *sonde_input_read(MPI_Comm comm, const char *path, size_t *len, int *err, char *why,
                       size_t whylen);

/* sonde_input_read's text as a stream each rank reads on its own, for parsers that read lines;
 * fclose frees it. NULL with *err and why as sonde_input_read. */
FILE *sonde_input_open(MPI_Comm comm, const char *path, int *err, char *why, size_t whylen);

#endif
