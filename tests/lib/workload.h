/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' known-answer pipe workloads, on top of the tools' own
 * (workload/workload.h): one library for the host's pipework and the VM's
 * ptwork (linked statically there). Each returns its own count of what it
 * did, or -1 (with errno, or a "FAIL:" line on stderr saying what the
 * kernel did instead).
 */
#ifndef TESTS_WORKLOAD_H
#define TESTS_WORKLOAD_H

#include <stdbool.h>
#include "workload/workload.h"

/* set: the first pipe made prints "ino=<inode of its read end>" (the VM
 * suites pick their trace events by it) */
extern bool wl_show_ino;
/* pipe2(), and the first pipe's inode as wl_show_ino says: 0, or -1 */
int wl_pipe(int fds[2], int flags);
/* fds of the FIFO at path, made if missing (read end O_RDONLY): 0, or -1 */
int wl_open_fifo(const char *path, int fds[2]);

/* Calls that move no byte, each failing as the kind says. */
enum wl_nobytes {
	WL_EAGAIN_READ,		/* O_NONBLOCK, empty pipe: EAGAIN */
	WL_NOWAIT_READ,		/* RWF_NOWAIT, empty pipe: EAGAIN */
	WL_EAGAIN_WRITE,	/* O_NONBLOCK, full pipe: EAGAIN */
	WL_NOWAIT_WRITE,	/* RWF_NOWAIT, full pipe: EAGAIN */
	WL_EPIPE_WRITE,		/* no reader: EPIPE (SIGPIPE is then ignored) */
	WL_EINTR_WRITE,		/* full pipe, a signal ends each wait: EINTR */
};
#define WL_NOBYTES_MAX	(1 << 20)	/* bytes per call at most */
/* n such calls of size bytes (reads: 1) on a new pipe: returns n */
long wl_nobytes(enum wl_nobytes kind, long n, size_t size);

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
 * pipe->mutex held for known times: a child splices from a unix socket
 * into a pipe, which holds the pipe's mutex while the splice waits for
 * the socket's data (splice_file_to_pipe()). Once it sleeps there, a
 * second child, named "pt-lockwait", writes a byte to the pipe and waits
 * for the mutex; hold_ms[i] after that one sleeps too, this process sends
 * the socket a byte. One round per hold_ms, on the same pipe; the writer
 * prints "contender pid=P from_ns=S to_ns=E" per round: its write(2), in
 * CLOCK_REALTIME ns (to lay over pipestat's intervals). Returns rounds.
 */
#define WL_LOCK_ROUNDS	8
long wl_lock_hold(const long *hold_ms, int rounds);
/*
 * n rounds of sendfile() of 4096 bytes of a temporary file into a pipe,
 * then splice() of them out to /dev/null: returns bytes spliced out
 */
long wl_splice(long n);
/*
 * splice(2) asleep on a pipe for ms: a child splicing 4 KiB out of an
 * empty pipe until this process writes a page, then one splicing 4 KiB of
 * a file into the full pipe until this process drains it. Each child
 * prints "reader|writer pid=P splice_ns=T" (T: its time inside
 * splice(2)). Returns 2 (the splices).
 */
long wl_splice_wait(long ms);
/*
 * Reads of 0 bytes of a pipe holding data, its writer open: n each of
 * read(fd, buf, 0), readv(fd, NULL, 0), readv of one empty iovec, an
 * io_uring READ of 0 bytes and a READV of no iovec; then the writer
 * closed, the byte read, one read that gets 0 (the only end of file) and
 * n read(fd, buf, 0) more. Returns the reads of 0 bytes with the writer
 * open (5n), plus the n after: 6n.
 */
long wl_zero_reads(long n);
/*
 * Vectored copies (issue 28): n rounds on one pipe, each moving len bytes
 * (at most 64 KiB: one default pipe) in and out; the vectored side uses
 * segments of seg bytes (the last one shorter, at most WL_VEC_SEGS), the
 * other side one plain write(2) or read(2). A round starts on an empty
 * pipe, so its buffers are whole pages from the round's first byte.
 */
enum wl_vec {
	WL_VEC_READV,		/* write(2), then readv() */
	WL_VEC_PREADV2_NOWAIT,	/* write(2), then preadv2(RWF_NOWAIT) */
	WL_VEC_URING_READV,	/* write(2), then an io_uring READV */
	WL_VEC_WRITEV,		/* writev(), then read(2) */
};
#define WL_VEC_SEGS	1024	/* IOV_MAX */
/* "readv", "preadv2-nowait", "uring-readv", "writev": the kind, or -1 */
int wl_vec_kind(const char *name);
/*
 * The user-access sections the vectored calls open, from the boundaries:
 * each piece of a segment one pipe buffer's copy touches is its own
 * user copy. Returns them for the n rounds, or -1.
 */
long wl_vec(enum wl_vec kind, size_t seg, size_t len, long n);
/* ... and the same count for len bytes of one round, without running it */
long wl_vec_sections(size_t seg, size_t len);
/* n writes of size bytes to fd (a pipeline's stdout): the bytes written */
long wl_put(int fd, size_t size, long n);
/* Reads of size bytes from fd until end of file: the bytes read */
long wl_get(int fd, size_t size);

#endif
