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
 * while this process writes tokens one byte at a time, gap_us apart (0:
 * 100 us after every 8th); each reader prints
 * "reader pid=P tokens=N read_ns=T elapsed_ns=E" (T: its own time inside
 * read(2)). Returns tokens written.
 */
long wl_jobserver(int readers, long tokens, long gap_us);
/*
 * One writer and one reader of 64 KiB (WL_SLOW_CHUNK) chunks for seconds;
 * the reader (slow_reader) or the writer sleeps sleep_ms after each
 * chunk. Each prints "writer|reader pid=P writes|reads=N io_ns=T
 * elapsed_ns=E": T is its own time inside write(2)/read(2). Returns writes.
 */
#define WL_SLOW_CHUNK 65536
long wl_slow_side(double seconds, int sleep_ms, int slow_reader);
/*
 * writers processes, started together, each write n single bytes into one
 * pipe that holds them all (writers * n <= WL_LOCK_BYTES; the pipe is
 * grown to that when 64 KiB is not enough), then this process reads them:
 * returns the bytes read.
 */
#define WL_LOCK_BYTES	(1 << 20)
long wl_lock_writers(int writers, long n);
/*
 * n rounds of sendfile() of 4096 bytes of a temporary file into a pipe,
 * then splice() of them out to /dev/null: returns bytes spliced out
 */
long wl_splice(long n);
/* n 1-byte round trips between this process and a child: returns n */
long wl_pingpong(long n);

/*
 * Timed workloads for pipebench. Each runs until seconds have passed or
 * max_ops operations are done (0: no such limit; at least one is set),
 * pins its processes where a CPU is >= 0, and fills a wl_result with what
 * it did, counted by the workload itself. They return 0, or -1 with errno
 * (EIO: the two ends disagree about the bytes moved).
 */
struct wl_result {
	long long bytes;	/* bytes that went through the pipe(s) */
	long long ops;		/* writes (stream, mix), round trips (pingpong) */
	double seconds;		/* wall time from start to the last byte read */
};

struct wl_timed {
	size_t size;		/* bytes per write and per read */
	double seconds;
	long max_ops;
	int cpu_a, cpu_b;	/* writer/reader, or the two ping-pong ends */
};

/* 1 writer, 1 reader child: writes of size, reads of size. */
int wl_stream_timed(const struct wl_timed *t, struct wl_result *r);
/* size-byte round trips between this process and a child. */
int wl_pingpong_timed(const struct wl_timed *t, struct wl_result *r);
/*
 * writers x readers child processes on one pipe of pipe_size bytes; they
 * go round-robin over cpus[0..ncpus) (ncpus 0: not pinned); max_ops is
 * per writer.
 */
int wl_mix(const struct wl_timed *t, int writers, int readers, size_t pipe_size,
	   const int *cpus, int ncpus, struct wl_result *r);

#endif
