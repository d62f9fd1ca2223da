// SPDX-License-Identifier: GPL-2.0
/*
 * The host suites' known-answer workloads (tests/lib/workload.h). Each
 * prints what it did as "key=value" words on one line, and exits non-zero
 * if it could not.
 *
 *   pipework eagain-read N       N O_NONBLOCK reads of an empty pipe
 *   pipework nowait-read N       N RWF_NOWAIT reads of an empty pipe
 *   pipework eagain-write N [SIZE]  N O_NONBLOCK writes of SIZE bytes (1)
 *                                to a full pipe
 *   pipework stream SIZE N [FIFO]  N writes of SIZE drained by a child
 *   pipework pingpong N          N one-byte round trips
 *   pipework jobserver R T       R blocked 1-byte readers, T tokens
 *   pipework lock-hold MS...     rounds of pipe->mutex held MS ms while a
 *                                "pt-lockwait" child waits for it
 *                                (wl_lock_hold)
 *   pipework splice N            N sendfile()s of 4 KiB into a pipe, spliced out
 *   pipework splice-wait MS      a splice asleep MS ms on an empty pipe, then
 *                                one on a full pipe (wl_splice_wait)
 *   pipework zero-read N         reads of 0 bytes, writer open or not, and
 *                                one end of file (wl_zero_reads)
 *   pipework hold BYTES [packet|thread]  a pipe holding BYTES bytes
 *                                (packet: O_DIRECT, one slot per byte;
 *                                thread: held by a thread whose leader
 *                                exited); prints "pid=P tid=T rfd=R wfd=W
 *                                dev=MAJ:MIN ino=I size=S" (T the holding
 *                                thread), then "size=S" (F_GETPIPE_SZ) for
 *                                each line on stdin, until its end
 *   pipework ring SIZE N [EXTRA] after EXTRA pipes it keeps open, a pipe
 *                                of SIZE bytes (0: as made) filled with
 *                                4 KiB nonblocking writes, then N more that
 *                                find it full (N write EAGAINs); prints its
 *                                slots
 *   pipework bursty SEC [RING]   pipetrace-bench's bursts for SEC seconds: 256 KiB
 *                                in 64 KiB writes every 20 ms, a reader
 *                                spending 2 ms per 64 KiB; prints bytes
 *   pipework vec KIND SEG LEN N  N rounds of LEN bytes written and read back
 *                                on one pipe, one side vectored in SEG-byte
 *                                segments (KIND readv, preadv2-nowait,
 *                                uring-readv, writev: wl_vec); prints
 *                                "calls=N sections=S" (the sections the
 *                                vectored calls open, from the boundaries)
 *   pipework put SIZE N          N writes of SIZE bytes to stdout
 *   pipework get SIZE            reads of SIZE bytes from stdin until EOF
 *
 * put and get print their line on stderr: stdout and stdin are the pipe.
 *
 * With PIPEWORK_WAIT=1 it prints "ready pid=P" and waits for a line on
 * stdin first, so a test can start tracing with -p P before it runs.
 * PIPEWORK_COMM=NAME runs it under that command name (any bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "lib/workload.h"

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0) {
		fprintf(stderr, "pipework: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* hold's pipe p: its line, then its size for each line on stdin; NULL
 * if it could not */
static void *hold_answer(void *arg)
{
	const int *p = arg;
	char line[16];
	struct stat st;

	if (fstat(p[0], &st))
		return NULL;
	printf("pid=%d tid=%d rfd=%d wfd=%d dev=%u:%u ino=%llu size=%d\n", getpid(),
	       gettid(), p[0], p[1], major(st.st_dev), minor(st.st_dev),
	       (unsigned long long)st.st_ino, fcntl(p[0], F_GETPIPE_SZ));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		printf("size=%d\n", fcntl(p[0], F_GETPIPE_SZ));
		fflush(stdout);
	}
	return arg;
}

/* thread: once the leader's table is gone, only this thread holds p */
static void *hold_thread(void *p)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), ((int *)p)[0]);
	for (int i = 0; i < 1000 && !access(path, F_OK); i++)
		usleep(1000);
	return hold_answer(p);
}

/* A pipe for pipestat --resize to find, reporting its own view of the size */
static int hold(long bytes, const char *how)
{
	static char data[65536];
	static int p[2];
	bool packet = how && !strcmp(how, "packet");
	pthread_t t;

	if (pipe2(p, packet ? O_DIRECT : 0))
		return 1;
	if (bytes > (long)sizeof(data))
		return 2;
	for (long i = 0; i < bytes; i += packet ? 1 : bytes)
		if (write(p[1], data, packet ? 1 : bytes) < 0)
			return 1;
	if (!how || strcmp(how, "thread"))
		return hold_answer(p) ? 0 : 1;
	if (pthread_create(&t, NULL, hold_thread, p))
		return 1;
	pthread_exit(NULL);	/* the leader only: the thread goes on */
}

/* the reader reads what each write wrote: one read per write */
static long stream(size_t size, long n, const char *fifo)
{
	struct wl_stream s = { .size = size, .n = n };
	int fds[2];

	if (fifo ? wl_open_fifo(fifo, fds) : wl_pipe(fds, 0))
		return -1;
	return wl_stream_fds(fds[0], fds[1], &s);
}

/* A ring filled to the last slot, then n writes that find it full */
static int ring(long size, long n, long extra)
{
	static char page[4096];
	long slots = 0, full = 0;
	int p[2];

	for (long i = 0; i < extra; i++)
		if (pipe(p))	/* kept open: pipe pages its user holds */
			return 1;
	if (pipe2(p, O_NONBLOCK) || (size && fcntl(p[1], F_SETPIPE_SZ, size) < 0))
		return 1;
	while (full < n) {
		if (write(p[1], page, sizeof(page)) == sizeof(page))
			slots++;
		else if (errno == EAGAIN)
			full++;
		else
			return 1;
	}
	while (read(p[0], page, sizeof(page)) > 0)
		;
	printf("pid=%d slots=%ld full=%ld\n", getpid(), slots, full);
	return 0;
}

int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	FILE *say = stdout;
	long r;

	if (argc < 3) {
		fprintf(stderr, "usage: pipework WORKLOAD ARGS (see source)\n");
		return 2;
	}
	if (getenv("PIPEWORK_COMM"))
		prctl(PR_SET_NAME, getenv("PIPEWORK_COMM"));
	if (getenv("PIPEWORK_WAIT")) {
		char line[8];

		printf("ready pid=%d\n", getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	if (!strcmp(w, "bursty")) {
		struct wl_bursty b = { .size = 65536, .burst = 262144, .gap_us = 20000,
				       .work_us = 2000, .seconds = atof(argv[2]),
				       .ring = argc > 3 ? atol(argv[3]) : 0 };

		if (wl_bursty(&b))
			return 1;
		printf("pid=%d bursty=%lld ring=%ld\n", getpid(), b.bytes, b.ring);
		return 0;
	}
	if (!strcmp(w, "ring") && argc >= 4)
		return ring(atol(argv[2]), arg(argv[3]), argc > 4 ? atol(argv[4]) : 0);
	if (!strcmp(w, "hold"))
		return hold(argc > 2 ? atol(argv[2]) : 0, argc > 3 ? argv[3] : NULL);
	if (!strcmp(w, "vec") && argc >= 6) {
		int kind = wl_vec_kind(argv[2]);
		long n = arg(argv[5]);

		if (kind < 0) {
			fprintf(stderr, "pipework: unknown vec kind '%s'\n", argv[2]);
			return 2;
		}
		r = wl_vec(kind, arg(argv[3]), arg(argv[4]), n);
		if (r < 0)
			return 1;
		printf("pid=%d calls=%ld sections=%ld\n", getpid(), n, r);
		return 0;
	}
	if (!strcmp(w, "eagain-read"))
		r = wl_nobytes(WL_EAGAIN_READ, arg(argv[2]), 1);
	else if (!strcmp(w, "nowait-read"))
		r = wl_nobytes(WL_NOWAIT_READ, arg(argv[2]), 1);
	else if (!strcmp(w, "eagain-write"))
		r = wl_nobytes(WL_EAGAIN_WRITE, arg(argv[2]), argc > 3 ? arg(argv[3]) : 1);
	else if (!strcmp(w, "stream") && argc >= 4)
		r = stream(arg(argv[2]), arg(argv[3]), argc > 4 ? argv[4] : NULL);
	else if (!strcmp(w, "jobserver") && argc >= 4)
		r = wl_jobserver(arg(argv[2]), arg(argv[3]), argc > 4 ? arg(argv[4]) : 0);
	else if (!strcmp(w, "splice"))
		r = wl_splice(arg(argv[2]));
	else if (!strcmp(w, "splice-wait"))
		r = wl_splice_wait(arg(argv[2]));
	else if (!strcmp(w, "zero-read"))
		r = wl_zero_reads(arg(argv[2]));
	else if (!strcmp(w, "slow-reader") && argc >= 4)
		r = wl_slow_side(arg(argv[2]), arg(argv[3]), 1);
	else if (!strcmp(w, "slow-writer") && argc >= 4)
		r = wl_slow_side(arg(argv[2]), arg(argv[3]), 0);
	else if (!strcmp(w, "lock-writers") && argc >= 4)
		r = wl_lock_writers(arg(argv[2]), arg(argv[3]));
	else if (!strcmp(w, "lock-hold") && argc <= 2 + WL_LOCK_ROUNDS) {
		long ms[WL_LOCK_ROUNDS];

		for (int i = 2; i < argc; i++)
			ms[i - 2] = arg(argv[i]);
		r = wl_lock_hold(ms, argc - 2);
	} else if (!strcmp(w, "put") && argc >= 4) {
		say = stderr;
		r = wl_put(STDOUT_FILENO, arg(argv[2]), arg(argv[3]));
	} else if (!strcmp(w, "get")) {
		say = stderr;
		r = wl_get(STDIN_FILENO, arg(argv[2]));
	} else if (!strcmp(w, "pingpong"))
		r = wl_pingpong(arg(argv[2]), NULL);
	else {
		fprintf(stderr, "pipework: unknown workload '%s'\n", w);
		return 2;
	}
	if (r < 0) {
		perror("pipework");
		return 1;
	}
	fprintf(say, "pid=%d %s=%ld\n", getpid(), w, r);
	return 0;
}
