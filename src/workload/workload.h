/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pipe workloads the tools run: pipestat --demo's known answers and
 * pipetrace-bench's timed runs (the tests' own are tests/lib/workload.h).
 * Each returns its own count of what it did, or -1 with errno.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stddef.h>
#include <sys/types.h>

/* n nonblocking reads of an empty pipe: returns the EAGAINs seen */
long wl_eagain_reads(long n);

/* Called, when set, where the timed loops of wl_stream_fds() and
 * wl_pingpong() begin (0) and end (1), with their clock reads: the VM
 * budgets' ptwork marks them for the CPU counter (tests/vm/plugin) */
extern void (*wl_loop_edge)(int end);

/* n writes of size bytes, drained by a child reading rsize at a time */
struct wl_stream {
	size_t size;
	size_t rsize;		/* 0: size */
	long n;
	double loop_s;		/* out: from the first write to the reader's end */
};
/* The stream through rfd/wfd (closed on return): bytes written (the child
 * checks it read them), or -1. */
long wl_stream_fds(int rfd, int wfd, struct wl_stream *s);
/* The same through a new anonymous pipe. */
long wl_stream(size_t size, long n);
/* n 1-byte round trips between this process and a child: returns n; the
 * seconds the round trips took into *loop_s unless it is NULL */
long wl_pingpong(long n, double *loop_s);

/* For workloads built on these (tests/lib/workload.c): */
/* fork(), the child killed when this process dies */
pid_t wl_fork(void);
/* 0 if child pid exited with status 0 */
int wl_wait_child(pid_t pid);
/* one read(2): 0 with *got bytes (0 after EINTR), 1 at EOF, -1 on error */
int wl_read(int fd, char *buf, size_t size, size_t *got);
/* all size bytes, through EINTR: 0, or -1 */
int wl_write_all(int fd, const char *buf, size_t size);

/*
 * Timed workloads for pipetrace-bench. Each runs until seconds have passed or
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

/*
 * Bursts (pipetrace-bench bursty): the writer writes burst bytes in writes of
 * size, then rests gap_us; a reader child reads size at a time and spends
 * work_us after each read, so its average rate keeps up while a burst
 * larger than the ring makes the writer wait for room. For seconds, on a
 * pipe of ring bytes (0: as made).
 */
struct wl_bursty {
	size_t size, burst;
	long gap_us, work_us;
	double seconds;
	long ring;		/* in: F_SETPIPE_SZ first (0: none); out: the size */
	long long bytes;	/* out: bytes through the pipe */
	double loop_s;		/* out: from the first write to the reader's end */
	double write_s;		/* out: the writer's time inside write(2) */
};
int wl_bursty(struct wl_bursty *b);

#endif
