// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "os/clock.h"
#include "workload.h"

/*
 * A workload process dies with its parent, however the parent dies (a
 * SIGKILL of pipetrace-bench reaches every worker down the chain).
 */
pid_t wl_fork(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);	/* it died before the line above */
	}
	return pid;
}

long wl_eagain_reads(long n)
{
	int p[2];
	long seen = 0;
	char byte;

	if (pipe2(p, O_NONBLOCK))
		return -1;
	for (long i = 0; i < n; i++) {
		ssize_t r = read(p[0], &byte, 1);

		if (r < 0 && errno == EAGAIN)
			seen++;
		else if (r < 0) {
			seen = -1;
			break;
		}
	}
	close(p[0]);
	close(p[1]);
	return seen;
}

int wl_read(int fd, char *buf, size_t size, size_t *got)
{
	ssize_t r = read(fd, buf, size);

	*got = 0;
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	*got = r;
	return r == 0 ? 1 : 0;
}

int wl_write_all(int fd, const char *buf, size_t size)
{
	size_t off = 0;

	while (off < size) {
		ssize_t w = write(fd, buf + off, size - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		off += w;
	}
	return 0;
}

/* The reader child: drains rfd into buf until EOF; exit 0 iff it read
 * expect bytes. */
static void drain_child(int rfd, char *buf, size_t size, long long expect)
{
	long long total = 0;
	size_t got = 0;
	int r;

	while ((r = wl_read(rfd, buf, size, &got)) == 0)
		total += got;
	_exit(r < 0 || total != expect ? 1 : 0);
}

int wl_wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

void (*wl_loop_edge)(int end);

static void loop_edge(int end)
{
	if (wl_loop_edge)
		wl_loop_edge(end);
}

long wl_stream_fds(int rfd, int wfd, struct wl_stream *s)
{
	size_t rsize = s->rsize ? s->rsize : s->size;
	char *buf = malloc(s->size), *rbuf = malloc(rsize);
	long long total = 0;
	pid_t pid = -1;
	double t0;
	int failed;

	/* both buffers before the fork: the reader allocates nothing while
	 * loop_s runs, and the writer's is touched, so it faults no page in */
	if (buf && rbuf) {
		memset(buf, 'w', s->size);
		pid = wl_fork();
	}
	if (pid == 0) {
		close(wfd);
		drain_child(rfd, rbuf, rsize, (long long)s->size * s->n);
	}
	close(rfd);
	if (pid < 0) {
		close(wfd);
		free(buf);
		free(rbuf);
		return -1;
	}
	t0 = pt_now(CLOCK_MONOTONIC);
	loop_edge(0);
	/* a short count makes the reader child fail, and so this call */
	for (long i = 0; i < s->n && !wl_write_all(wfd, buf, s->size); i++)
		total += s->size;
	close(wfd);
	failed = wl_wait_child(pid);
	loop_edge(1);
	s->loop_s = pt_now(CLOCK_MONOTONIC) - t0;
	free(buf);
	free(rbuf);
	return failed ? -1 : total;
}

long wl_stream(size_t size, long n)
{
	struct wl_stream s = { .size = size, .n = n };
	int p[2];

	if (pipe(p))
		return -1;
	return wl_stream_fds(p[0], p[1], &s);
}

long wl_pingpong(long n, double *loop_s)
{
	int ab[2], ba[2];
	char c = 'p';
	double t0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return -1;
	pid = wl_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = pt_now(CLOCK_MONOTONIC);
	loop_edge(0);
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			kill(pid, SIGKILL);
			break;
		}
	loop_edge(1);
	if (loop_s)
		*loop_s = pt_now(CLOCK_MONOTONIC) - t0;
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	return wl_wait_child(pid) ? -1 : n;
}

/* --- timed workloads (pipetrace-bench) --- */

static double wl_now(void)
{
	return pt_now(CLOCK_MONOTONIC);
}

static void wl_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort */
}

/* Counters the child processes fill in, shared across fork. */
struct wl_shared {
	volatile int ready;	/* children that are pinned and waiting */
	volatile int go;
	volatile double start;
	long long read_bytes;	/* added to with __atomic */
	long long write_bytes;
	long long writes;
};

static struct wl_shared *wl_shared_new(void)
{
	void *p = mmap(NULL, sizeof(struct wl_shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void wl_shared_free(struct wl_shared *sh)
{
	munmap(sh, sizeof(*sh));
}

/* Spins (politely) until want children are ready; no pipe I/O, which would count. */
static void wl_wait_ready(struct wl_shared *sh, int want)
{
	while (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < want)
		sched_yield();
}

static void wl_child_ready_wait_go(struct wl_shared *sh)
{
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		usleep(50);
}

/* 1 if there is another op to do, 0 at the deadline or the op limit */
static int wl_more(const struct wl_timed *t, long done, double end)
{
	if (t->max_ops && done >= t->max_ops)
		return 0;
	return !t->seconds || wl_now() < end;
}

/* A reader child: reads of size until EOF, bytes added to sh->read_bytes. */
static void wl_reader(struct wl_shared *sh, int rfd, size_t size, int cpu, int wait_go)
{
	char *buf = malloc(size);
	long long total = 0;

	if (!buf)
		_exit(2);
	wl_pin(cpu);
	if (wait_go)
		wl_child_ready_wait_go(sh);
	else
		__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	for (;;) {
		ssize_t r = read(rfd, buf, size);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			_exit(1);
		if (r == 0)
			break;
		total += r;
	}
	__atomic_add_fetch(&sh->read_bytes, total, __ATOMIC_ACQ_REL);
	_exit(0);
}

/* A writer: writes of size until the deadline or max_ops; counts in sh. */
static int wl_writer(struct wl_shared *sh, const struct wl_timed *t, int wfd,
		     double start)
{
	char *buf = calloc(1, t->size);
	double end = start + t->seconds;
	long n = 0;
	int err = 0;

	if (!buf)
		return -1;
	while (wl_more(t, n, end)) {
		if (wl_write_all(wfd, buf, t->size)) {
			err = -1;
			break;
		}
		n++;
	}
	free(buf);
	__atomic_add_fetch(&sh->writes, n, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&sh->write_bytes, (long long)n * t->size, __ATOMIC_ACQ_REL);
	return err;
}

static int wl_check(const struct wl_timed *t)
{
	if (!t->size || (!t->seconds && !t->max_ops)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int wl_finish(struct wl_shared *sh, struct wl_result *r, double start,
		     int failed)
{
	r->seconds = wl_now() - start;
	r->bytes = sh->read_bytes;
	r->ops = sh->writes;
	if (!failed && sh->read_bytes != sh->write_bytes) {
		errno = EIO;
		failed = 1;
	}
	wl_shared_free(sh);
	return failed ? -1 : 0;
}

int wl_stream_timed(const struct wl_timed *t, struct wl_result *r)
{
	struct wl_shared *sh;
	int p[2], failed;
	double start;
	pid_t pid;

	if (wl_check(t) || !(sh = wl_shared_new()))
		return -1;
	if (pipe(p)) {
		wl_shared_free(sh);
		return -1;
	}
	pid = wl_fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		wl_shared_free(sh);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		wl_reader(sh, p[0], t->size, t->cpu_b, 0);
	}
	close(p[0]);
	wl_pin(t->cpu_a);
	wl_wait_ready(sh, 1);
	start = wl_now();
	failed = wl_writer(sh, t, p[1], start) != 0;
	close(p[1]);
	failed |= wl_wait_child(pid) != 0;
	return wl_finish(sh, r, start, failed);
}

static int read_exact(int fd, char *buf, size_t size)
{
	size_t off = 0;

	while (off < size) {
		ssize_t got = read(fd, buf + off, size - off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got == 0 && off == 0 ? 1 : -1;	/* 1: clean EOF */
		off += got;
	}
	return 0;
}

int wl_pingpong_timed(const struct wl_timed *t, struct wl_result *r)
{
	struct wl_shared *sh;
	int ab[2], ba[2], failed = 0;
	double start, end;
	char *buf;
	long n = 0;
	pid_t pid;

	if (wl_check(t) || !(sh = wl_shared_new()))
		return -1;
	buf = calloc(1, t->size);
	if (!buf || pipe(ab)) {
		free(buf);
		wl_shared_free(sh);
		return -1;
	}
	if (pipe(ba)) {
		close(ab[0]);
		close(ab[1]);
		free(buf);
		wl_shared_free(sh);
		return -1;
	}
	pid = wl_fork();
	if (pid == 0) {
		long long echoed = 0;
		int st;

		close(ab[1]);
		close(ba[0]);
		wl_pin(t->cpu_b);
		__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
		while ((st = read_exact(ab[0], buf, t->size)) == 0) {
			if (wl_write_all(ba[1], buf, t->size))
				_exit(1);
			echoed += t->size;
		}
		__atomic_add_fetch(&sh->read_bytes, echoed, __ATOMIC_ACQ_REL);
		_exit(st < 0);
	}
	close(ab[0]);
	close(ba[1]);
	if (pid > 0) {
		wl_pin(t->cpu_a);
		wl_wait_ready(sh, 1);
	}
	start = wl_now();
	end = start + t->seconds;
	while (pid > 0 && wl_more(t, n, end)) {
		if (wl_write_all(ab[1], buf, t->size) || read_exact(ba[0], buf, t->size)) {
			failed = 1;
			break;
		}
		n++;
	}
	r->seconds = wl_now() - start;
	close(ab[1]);
	close(ba[0]);
	free(buf);
	failed |= pid < 0 || wl_wait_child(pid) != 0;
	/* both directions: the child's echoes are what it read */
	r->ops = n;
	r->bytes = 2 * (long long)n * t->size;
	if (!failed && sh->read_bytes != (long long)(n * t->size)) {
		errno = EIO;
		failed = 1;
	}
	wl_shared_free(sh);
	return failed ? -1 : 0;
}

int wl_mix(const struct wl_timed *t, int writers, int readers, size_t pipe_size,
	   const int *cpus, int ncpus, struct wl_result *r)
{
	int p[2], failed = 0, nkids = 0, k = 0;
	struct wl_shared *sh;
	pid_t *kids;
	double start;

	if (wl_check(t) || writers < 1 || readers < 1) {
		errno = EINVAL;
		return -1;
	}
	if (!(sh = wl_shared_new()))
		return -1;
	kids = calloc(writers + readers, sizeof(*kids));
	if (!kids || pipe(p)) {
		free(kids);
		wl_shared_free(sh);
		return -1;
	}
	if (pipe_size && fcntl(p[1], F_SETPIPE_SZ, (int)pipe_size) < 0)
		failed = 1;
	for (int i = 0; !failed && i < readers + writers; i++, k++) {
		int cpu = ncpus ? cpus[k % ncpus] : -1;
		pid_t pid = wl_fork();

		if (pid < 0) {
			failed = 1;
			break;
		}
		if (pid == 0 && i < readers) {
			close(p[1]);
			wl_reader(sh, p[0], t->size, cpu, 1);
		}
		if (pid == 0) {
			close(p[0]);
			wl_pin(cpu);
			wl_child_ready_wait_go(sh);
			_exit(wl_writer(sh, t, p[1], sh->start) ? 1 : 0);
		}
		kids[nkids++] = pid;
	}
	close(p[0]);
	close(p[1]);
	if (!failed)
		wl_wait_ready(sh, nkids);
	start = wl_now();
	sh->start = start;
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nkids; i++) {
		if (failed)
			kill(kids[i], SIGKILL);
		failed |= wl_wait_child(kids[i]) != 0;
	}
	free(kids);
	return wl_finish(sh, r, start, failed);
}

/* The bursty reader: size at a time, work_us of its own after each read */
static void bursty_reader(struct wl_shared *sh, int rfd, size_t size, long work_us)
{
	struct timespec work = { work_us / 1000000, work_us % 1000000 * 1000 };
	char *buf = malloc(size);
	long long total = 0;
	size_t got;
	int r;

	if (!buf)
		_exit(2);
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	while (!(r = wl_read(rfd, buf, size, &got))) {
		total += got;
		if (got)
			nanosleep(&work, NULL);
	}
	__atomic_add_fetch(&sh->read_bytes, total, __ATOMIC_ACQ_REL);
	_exit(r < 0);
}

int wl_bursty(struct wl_bursty *b)
{
	struct timespec gap = { b->gap_us / 1000000, b->gap_us % 1000000 * 1000 };
	struct wl_shared *sh;
	double start, end, t;
	int p[2], failed = 0;
	char *buf;
	pid_t pid;

	if (!b->size || b->burst < b->size || b->seconds <= 0) {
		errno = EINVAL;
		return -1;
	}
	if (!(sh = wl_shared_new()))
		return -1;
	buf = calloc(1, b->size);
	if (!buf || pipe(p) || (b->ring && fcntl(p[1], F_SETPIPE_SZ, (int)b->ring) < 0)) {
		free(buf);
		wl_shared_free(sh);
		return -1;
	}
	b->ring = fcntl(p[1], F_GETPIPE_SZ);
	pid = wl_fork();
	if (pid == 0) {
		close(p[1]);
		bursty_reader(sh, p[0], b->size, b->work_us);
	}
	close(p[0]);
	b->write_s = 0;
	b->bytes = 0;
	wl_wait_ready(sh, 1);
	start = wl_now();
	end = start + b->seconds;
	while (pid > 0 && !failed && wl_now() < end) {
		for (size_t done = 0; done < b->burst && !failed; done += b->size) {
			t = wl_now();
			failed = wl_write_all(p[1], buf, b->size) != 0;
			b->write_s += wl_now() - t;
			b->bytes += b->size;
		}
		nanosleep(&gap, NULL);
	}
	close(p[1]);
	free(buf);
	failed |= pid < 0 || wl_wait_child(pid) != 0;
	b->loop_s = wl_now() - start;
	if (!failed && sh->read_bytes != b->bytes) {
		errno = EIO;
		failed = 1;
	}
	wl_shared_free(sh);
	return failed ? -1 : 0;
}
