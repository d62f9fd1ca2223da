// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "os/clock.h"
#include "workload.h"

bool wl_show_ino;

/* What the kernel did instead of what the test wanted: said, then -1. */
static long wl_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	errno = EPROTO;
	return -1;
}

int wl_pipe(int fds[2], int flags)
{
	static bool shown;
	struct stat st;

	if (pipe2(fds, flags))
		return -1;
	if (wl_show_ino && !shown && !fstat(fds[0], &st)) {
		shown = true;
		printf("ino=%lu\n", (unsigned long)st.st_ino);
		fflush(stdout);
	}
	return 0;
}

int wl_open_fifo(const char *path, int fds[2])
{
	if (mkfifo(path, 0600) && errno != EEXIST)
		return -1;
	/* O_RDWR first so neither open blocks; the reader's copy is O_RDONLY */
	fds[1] = open(path, O_RDWR);
	fds[0] = fds[1] < 0 ? -1 : open(path, O_RDONLY);
	if (fds[0] < 0) {
		if (fds[1] >= 0)
			close(fds[1]);
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* A full pipe (one 64 KiB write: a default pipe), or one without reader. */
static int nobytes_pipe(enum wl_nobytes kind, int fds[2], const char *fill)
{
	bool reads = kind == WL_EAGAIN_READ || kind == WL_NOWAIT_READ;
	bool nonblock = kind == WL_EAGAIN_READ || kind == WL_EAGAIN_WRITE;
	ssize_t r;

	if (wl_pipe(fds, nonblock ? O_NONBLOCK : 0))
		return -1;
	if (reads)
		return 0;
	if (kind == WL_EPIPE_WRITE) {
		signal(SIGPIPE, SIG_IGN);
		close(fds[0]);
		fds[0] = -1;
		return 0;
	}
	r = write(fds[1], fill, 65536);
	return r == 65536 ? 0 : wl_fail("fill write returned %ld, expected 65536", (long)r);
}

long wl_nobytes(enum wl_nobytes kind, long n, size_t size)
{
	static char buf[WL_NOBYTES_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	bool reads = kind == WL_EAGAIN_READ || kind == WL_NOWAIT_READ;
	int want = kind == WL_EPIPE_WRITE ? EPIPE : kind == WL_EINTR_WRITE ? EINTR : EAGAIN;
	struct iovec iov = { buf, reads ? 1 : size };
	long done = 0;
	int fds[2];

	if (size < 1 || size > sizeof(buf))
		return wl_fail("size %zu not in 1..%zu", size, sizeof(buf));
	if (nobytes_pipe(kind, fds, buf))
		return -1;
	if (kind == WL_EINTR_WRITE && sigaction(SIGALRM, &sa, NULL))
		return -1;
	for (; done < n; done++) {
		ssize_t r;

		if (kind == WL_EINTR_WRITE)
			ualarm(20000, 0);
		if (kind == WL_NOWAIT_READ)
			r = preadv2(fds[0], &iov, 1, -1, RWF_NOWAIT);
		else if (kind == WL_NOWAIT_WRITE)
			r = pwritev2(fds[1], &iov, 1, -1, RWF_NOWAIT);
		else if (reads)
			r = read(fds[0], buf, 1);
		else
			r = write(fds[1], buf, size);
		if (r != -1 || errno != want) {
			wl_fail("call %ld did not fail as wanted (returned %ld, %s)", done,
				(long)r, r == -1 ? strerror(errno) : "no error");
			break;
		}
	}
	if (fds[0] >= 0)
		close(fds[0]);
	close(fds[1]);
	return done == n ? n : -1;
}

long wl_jobserver(int readers, long tokens, long gap_us)
{
	int p[2], failed = 0;
	pid_t pids[64];

	if (readers < 1 || readers > 64 || pipe(p))
		return -1;
	for (int i = 0; i < readers; i++) {
		pids[i] = wl_fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i] == 0) {
			char c;
			long n = 0;

			double t0 = pt_now(CLOCK_MONOTONIC), in_read = 0;

			close(p[1]);
			for (;;) {
				double t = pt_now(CLOCK_MONOTONIC);
				ssize_t r = read(p[0], &c, 1);

				in_read += pt_now(CLOCK_MONOTONIC) - t;
				if (r != 1)
					break;
				n++;
			}
			/* exit status cannot carry a count: report it through stdout */
			printf("reader pid=%d tokens=%ld read_ns=%.0f elapsed_ns=%.0f\n",
			       getpid(), n, in_read * 1e9,
			       (pt_now(CLOCK_MONOTONIC) - t0) * 1e9);
			fflush(stdout);
			_exit(0);
		}
	}
	close(p[0]);
	for (long i = 0; i < tokens; i++) {
		if (write(p[1], "+", 1) != 1)
			failed = 1;
		if (gap_us)
			usleep(gap_us);
		else if (i % 8 == 0)
			usleep(100);	/* let the readers block again */
	}
	close(p[1]);
	for (int i = 0; i < readers; i++)
		failed |= wl_wait_child(pids[i]);
	return failed ? -1 : tokens;
}

/* Time spent in write(2) (reader 0) or read(2) (reader 1) calls of size. */
static int timed_io(int fd, int reader, char *buf, size_t size, double *in_io)
{
	double t = pt_now(CLOCK_MONOTONIC);
	size_t got = 0;
	int r = reader ? wl_read(fd, buf, size, &got) : wl_write_all(fd, buf, size);

	*in_io += pt_now(CLOCK_MONOTONIC) - t;
	return r;
}

long wl_slow_side(double seconds, int sleep_ms, int slow_reader)
{
	static char buf[WL_SLOW_CHUNK];
	int p[2];
	pid_t pid;
	long n = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* the reader: until the writer closes */
		double in_read = 0, t0 = pt_now(CLOCK_MONOTONIC);
		long got = 0;

		close(p[1]);
		while (!timed_io(p[0], 1, buf, sizeof(buf), &in_read)) {
			got++;
			if (slow_reader)
				usleep(sleep_ms * 1000);
		}
		printf("reader pid=%d reads=%ld io_ns=%.0f elapsed_ns=%.0f\n",
		       getpid(), got, in_read * 1e9,
		       (pt_now(CLOCK_MONOTONIC) - t0) * 1e9);
		fflush(stdout);
		_exit(0);
	}
	close(p[0]);
	{
		double t0 = pt_now(CLOCK_MONOTONIC), in_write = 0;

		while (pt_now(CLOCK_MONOTONIC) - t0 < seconds) {
			if (timed_io(p[1], 0, buf, sizeof(buf), &in_write))
				break;
			n++;
			if (!slow_reader)
				usleep(sleep_ms * 1000);
		}
		printf("writer pid=%d writes=%ld io_ns=%.0f elapsed_ns=%.0f\n",
		       getpid(), n, in_write * 1e9,
		       (pt_now(CLOCK_MONOTONIC) - t0) * 1e9);
		fflush(stdout);
	}
	close(p[1]);
	return wl_wait_child(pid) ? -1 : n;
}

long wl_lock_writers(int writers, long n)
{
	pid_t pids[64];
	int p[2], go[2], failed = 0;
	char c;
	long got = 0;

	/* all the bytes fit the pipe (1 MiB, the default pipe-max-size):
	 * nobody waits for room, only for the lock */
	if (writers < 1 || writers > 64 || n < 1 || writers * n > WL_LOCK_BYTES ||
	    pipe(p) || pipe(go))
		return -1;
	if (writers * n > 65536 && fcntl(p[1], F_SETPIPE_SZ, WL_LOCK_BYTES) < 0)
		return -1;
	for (int i = 0; i < writers; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i] == 0) {
			close(p[0]);
			close(go[1]);
			/* all start together: EOF on go */
			if (read(go[0], &c, 1) != 0)
				_exit(1);
			for (long j = 0; j < n; j++)
				if (write(p[1], "x", 1) != 1)
					_exit(1);
			_exit(0);
		}
	}
	close(p[1]);
	close(go[0]);
	close(go[1]);
	for (int i = 0; i < writers; i++)
		failed |= wl_wait_child(pids[i]);
	while (read(p[0], &c, 1) == 1)
		got++;
	close(p[0]);
	return failed || got != writers * n ? -1 : got;
}

/* Waits until task pid sleeps in system call nr (/proc/PID/syscall says
 * "running" while it runs): 0, or -1 after some 30 s. */
static int wait_asleep_in(pid_t pid, long nr)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 30000; i++) {
		FILE *f = fopen(path, "r");
		long got = -1;

		if (f) {
			if (fscanf(f, "%ld", &got) != 1)
				got = -1;
			fclose(f);
		}
		if (got == nr)
			return 0;
		usleep(1000);
	}
	return (int)wl_fail("pid %d never slept in system call %ld", (int)pid, nr);
}

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One round of wl_lock_hold() on pipe p and socket pair sv: 0, or -1. */
static int lock_hold_round(int p[2], int sv[2], long hold_ms)
{
	pid_t holder, waiter = -1;
	int failed = 1;
	char got[2];

	fflush(stdout);	/* the waiter prints: nothing buffered twice */
	holder = wl_fork();
	if (holder < 0)
		return -1;
	if (holder == 0)
		_exit(splice(sv[0], NULL, p[1], NULL, 1, 0) != 1);
	if (wait_asleep_in(holder, SYS_splice))
		goto out;
	waiter = wl_fork();
	if (waiter < 0)
		goto out;
	if (waiter == 0) {
		long long from, to;
		ssize_t r;

		prctl(PR_SET_NAME, "pt-lockwait");
		from = realtime_ns();
		r = write(p[1], "x", 1);
		to = realtime_ns();
		printf("contender pid=%d from_ns=%lld to_ns=%lld\n", getpid(), from, to);
		fflush(stdout);
		_exit(r != 1);
	}
	if (wait_asleep_in(waiter, SYS_write))
		goto out;
	usleep(hold_ms * 1000);
	failed = 0;
out:
	/* the holder's byte ends the hold (and a failed round) */
	failed |= write(sv[1], "s", 1) != 1;
	failed |= wl_wait_child(holder);
	if (waiter > 0)
		failed |= wl_wait_child(waiter);
	/* the spliced byte, and the writer's */
	return failed || read(p[0], got, 2) != 2 ? -1 : 0;
}

long wl_lock_hold(const long *hold_ms, int rounds)
{
	int p[2], sv[2], done = 0;

	if (pipe(p))
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	while (done < rounds && !lock_hold_round(p, sv, hold_ms[done]))
		done++;
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
	return done == rounds ? rounds : -1;
}

/* What the splice workloads splice between: a pipe, a file of one page
 * (read from its start), /dev/null */
struct splice_ends {
	int p[2];
	int file;
	int null;
};

/* 0, or -1 (what was opened still to be closed) */
static int splice_ends_open(struct splice_ends *e)
{
	char path[] = "/tmp/pipework-splice.XXXXXX";
	static char page[4096];

	e->p[0] = e->p[1] = -1;
	e->file = mkstemp(path);
	e->null = open("/dev/null", O_WRONLY);
	if (e->file >= 0)
		unlink(path);
	return e->file < 0 || e->null < 0 ||
	       write(e->file, page, sizeof(page)) != sizeof(page) ||
	       lseek(e->file, 0, SEEK_SET) || pipe(e->p) ? -1 : 0;
}

static void splice_ends_close(struct splice_ends *e)
{
	int fds[] = { e->p[0], e->p[1], e->file, e->null };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

long wl_splice(long n)
{
	struct splice_ends e;
	long moved = 0;

	if (splice_ends_open(&e))
		goto out;
	for (long i = 0; i < n; i++) {
		off_t off = 0;
		ssize_t r;

		if (sendfile(e.p[1], e.file, &off, 4096) != 4096)
			goto out;
		r = splice(e.p[0], NULL, e.null, NULL, 4096, 0);
		if (r != 4096)
			goto out;
		moved += r;
	}
out:
	splice_ends_close(&e);
	return moved == 4096L * n ? moved : -1;
}

/*
 * A child splices len bytes between pipe p's end fd and file (from fd:
 * out of the pipe, else into it), printing its own time inside splice(2)
 * as "<who> pid=P splice_ns=T"; this process sleeps ms first, then lets
 * it go with unblock(p). 0, or -1.
 */
static int splice_blocked(const char *who, int p[2], int fd, int file, size_t len,
			  long ms, int (*unblock)(int p[2]))
{
	pid_t pid;
	int failed;

	fflush(stdout);
	pid = wl_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		double t = pt_now(CLOCK_MONOTONIC);
		ssize_t r = fd == p[0] ? splice(fd, NULL, file, NULL, len, 0) :
					 splice(file, NULL, fd, NULL, len, 0);

		printf("%s pid=%d splice_ns=%.0f\n", who, getpid(),
		       (pt_now(CLOCK_MONOTONIC) - t) * 1e9);
		fflush(stdout);
		_exit(r != (ssize_t)len);
	}
	failed = wait_asleep_in(pid, SYS_splice);
	usleep(ms * 1000);
	failed |= unblock(p);
	return wl_wait_child(pid) || failed ? -1 : 0;
}

/* a page for the reader asleep on the empty pipe */
static int give_page(int p[2])
{
	static char page[4096];

	return write(p[1], page, sizeof(page)) != sizeof(page);
}

/* room for the writer asleep on the full pipe: all it holds, and its page */
static int drain(int p[2])
{
	static char buf[65536];
	long want = 65536 + 4096;
	ssize_t r;

	while (want > 0 && (r = read(p[0], buf, sizeof(buf))) > 0)
		want -= r;
	return want != 0;
}

long wl_splice_wait(long ms)
{
	static char fill[65536];
	struct splice_ends e;
	int failed = 1;

	if (splice_ends_open(&e) || fcntl(e.p[1], F_GETPIPE_SZ) != sizeof(fill))
		goto out;
	failed = splice_blocked("reader", e.p, e.p[0], e.null, 4096, ms, give_page) ||
		 write(e.p[1], fill, sizeof(fill)) != sizeof(fill) ||
		 splice_blocked("writer", e.p, e.p[1], e.file, 4096, ms, drain);
out:
	splice_ends_close(&e);
	return failed ? -1 : 2;
}

long wl_put(int fd, size_t size, long n)
{
	char *buf = calloc(1, size);
	long long total = 0;

	if (!buf)
		return -1;
	for (long i = 0; i < n && !wl_write_all(fd, buf, size); i++)
		total += size;
	free(buf);
	return total == (long long)size * n ? total : -1;
}

long wl_get(int fd, size_t size)
{
	char *buf = malloc(size);
	long long total = 0;
	size_t got = 0;
	int r;

	if (!buf)
		return -1;
	while ((r = wl_read(fd, buf, size, &got)) == 0)
		total += got;
	free(buf);
	return r < 0 ? -1 : total;
}

/* One io_uring read of fd of 0 bytes (vec: a READV of no iovec): 0, or -1 */
static int uring_zero(struct io_uring *ring, int fd, bool vec)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	char c;
	int ret;

	if (!sqe)
		return wl_fail("no io_uring sqe");
	if (vec)
		io_uring_prep_readv(sqe, fd, NULL, 0, 0);
	else
		io_uring_prep_read(sqe, fd, &c, 0, 0);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0 || io_uring_peek_cqe(ring, &cqe))
		return wl_fail("io_uring read of 0 bytes: %s", strerror(-ret));
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret ? wl_fail("io_uring read of 0 bytes gave %d", ret) : 0;
}

long wl_zero_reads(long n)
{
	struct iovec empty = { .iov_base = &empty, .iov_len = 0 };
	struct io_uring ring;
	long done = 0;
	int fds[2], ret;
	char c;

	if (wl_pipe(fds, 0))
		return -1;
	if (write(fds[1], "z", 1) != 1)
		return -1;
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	for (; done < 5 * n; done += 5)
		if (read(fds[0], &c, 0) || readv(fds[0], NULL, 0) ||
		    readv(fds[0], &empty, 1) || uring_zero(&ring, fds[0], false) ||
		    uring_zero(&ring, fds[0], true))
			break;
	io_uring_queue_exit(&ring);
	close(fds[1]);
	if (done < 5 * n)
		return wl_fail("a read of 0 bytes did not return 0 (round %ld)", done / 5);
	if (read(fds[0], &c, 1) != 1 || c != 'z' || read(fds[0], &c, 1))
		return wl_fail("not the byte, then end of file");
	for (; done < 6 * n; done++)
		if (read(fds[0], &c, 0))
			return wl_fail("a read of 0 bytes without a writer did not return 0");
	close(fds[0]);
	return done;
}

int wl_vec_kind(const char *name)
{
	static const char *const names[] = {
		[WL_VEC_READV] = "readv", [WL_VEC_PREADV2_NOWAIT] = "preadv2-nowait",
		[WL_VEC_URING_READV] = "uring-readv", [WL_VEC_WRITEV] = "writev",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

long wl_vec_sections(size_t seg, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE), at = 0;
	long pieces = 0;

	/* a piece ends at the next segment or buffer boundary, or the end */
	while (at < len) {
		size_t seg_end = (at / seg + 1) * seg, buf_end = (at / page + 1) * page;
		size_t end = seg_end < buf_end ? seg_end : buf_end;

		at = end < len ? end : len;
		pieces++;
	}
	return pieces;
}

/* One io_uring READV of fd into iov: its result */
static int uring_readv(struct io_uring *ring, int fd, const struct iovec *iov, int nr)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return wl_fail("no io_uring sqe");
	io_uring_prep_readv(sqe, fd, iov, nr, 0);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0 || io_uring_peek_cqe(ring, &cqe))
		return wl_fail("io_uring READV: %s", strerror(-ret));
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* One round of wl_vec(): len bytes in and out, the vectored side in iov */
static int vec_round(enum wl_vec kind, int fds[2], char *buf, struct iovec *iov,
		     int nr, size_t len, struct io_uring *ring)
{
	ssize_t w, r;

	if (kind == WL_VEC_WRITEV)
		w = writev(fds[1], iov, nr);
	else
		w = write(fds[1], buf, len);
	if (w != (ssize_t)len)
		return wl_fail("write of %zu returned %ld", len, (long)w);
	if (kind == WL_VEC_READV)
		r = readv(fds[0], iov, nr);
	else if (kind == WL_VEC_PREADV2_NOWAIT)
		r = preadv2(fds[0], iov, nr, -1, RWF_NOWAIT);
	else if (kind == WL_VEC_URING_READV)
		r = uring_readv(ring, fds[0], iov, nr);
	else
		r = read(fds[0], buf, len);
	if (r != (ssize_t)len)
		return wl_fail("read of %zu returned %ld", len, (long)r);
	return 0;
}

long wl_vec(enum wl_vec kind, size_t seg, size_t len, long n)
{
	static char buf[65536];
	static struct iovec iov[WL_VEC_SEGS];
	struct io_uring ring;
	int fds[2], nr = 0, ret = 0;
	long i;

	if (!seg || !len || len > sizeof(buf) || (len + seg - 1) / seg > WL_VEC_SEGS)
		return wl_fail("segments of %zu for %zu bytes: not 1..%d of 1..%zu",
			       seg, len, WL_VEC_SEGS, sizeof(buf));
	for (size_t at = 0; at < len; at += seg, nr++)
		iov[nr] = (struct iovec){ buf + at, len - at < seg ? len - at : seg };
	if (wl_pipe(fds, 0))
		return -1;
	if (kind == WL_VEC_URING_READV && (ret = io_uring_queue_init(4, &ring, 0)) < 0) {
		close(fds[0]);
		close(fds[1]);
		errno = -ret;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (vec_round(kind, fds, buf, iov, nr, len, &ring))
			break;
	if (kind == WL_VEC_URING_READV)
		io_uring_queue_exit(&ring);
	close(fds[0]);
	close(fds[1]);
	return i == n ? n * wl_vec_sections(seg, len) : -1;
}
