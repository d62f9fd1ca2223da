/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known-answer pipe workloads, shared by pipestat --demo, the tests and
 * pipebench. Each returns its own count of what it did, or -1 with errno.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stddef.h>

/* n nonblocking reads of an empty pipe: returns the EAGAINs seen */
long wl_eagain_reads(long n);
/* n RWF_NOWAIT reads (no O_NONBLOCK) of an empty pipe: EAGAINs seen */
long wl_nowait_reads(long n);
/* n nonblocking writes to a full pipe: returns the EAGAINs seen */
long wl_eagain_writes(long n);
/*
 * n writes of size bytes into wfd, drained by a child process reading rfd
 * in chunks of size; returns bytes written (the child checks it read them).
 */
long wl_stream_fds(int rfd, int wfd, size_t size, long n);
/* The same through a new anonymous pipe, or a FIFO at path if not NULL. */
long wl_stream(size_t size, long n, const char *fifo);
/*
 * make's jobserver: readers children block in 1-byte reads of one pipe
 * while this process writes tokens one byte at a time; each reader prints
 * "reader pid=P tokens=N". Returns tokens written.
 */
long wl_jobserver(int readers, long tokens);
/* n 1-byte round trips between this process and a child: returns n */
long wl_pingpong(long n);

#endif
