// SPDX-License-Identifier: GPL-2.0
/*
 * ptwork: known-answer pipe workloads for the pipetrace VM tests: those
 * the host suites run too come from tests/lib/workload.h, the others are
 * the VM's own.
 *
 *   ptwork writes N SIZE [RSIZE] N writes of SIZE bytes, drained by a reader
 *                               reading RSIZE (default 64 KiB) at a time;
 *                               prints ns_per_op= (first write
 *                               to the reader's end)
 *   ptwork pingpong N           N 1-byte round trips between two processes
 *                               over two pipes; prints ns_per_op=
 *   ptwork eagain-write N [SIZE] fill a pipe, then N O_NONBLOCK writes of
 *                               SIZE (default 1) bytes
 *   ptwork nowait-write N SIZE  fill a pipe, then N RWF_NOWAIT writes
 *   ptwork epipe N SIZE         N writes of SIZE to a pipe without reader
 *   ptwork sigwrite N SIZE      N writes of SIZE to a full pipe, each ended
 *                               by a signal (EINTR)
 *   ptwork splicedrain          fill a pipe (64 KiB), splice it all to
 *                               /dev/null, close
 *   ptwork spliceop KIND N      N rounds of one splice-family call on a
 *                               4 KiB buffer, the pipes empty after each
 *                               round; prints ns_per_op= (see
 *                               mode_spliceop() for the rounds)
 *   ptwork eagain-read N        N O_NONBLOCK reads of an empty pipe
 *   ptwork uring N              N io_uring reads on N empty pipes, then data
 *   ptwork zero-read N          reads of 0 bytes of a pipe holding data, its
 *                               writer open: N each of read(fd, buf, 0),
 *                               readv(fd, NULL, 0), readv of one empty
 *                               iovec, io_uring READ of 0 bytes and READV of
 *                               no iovec; then the writer closed, the byte
 *                               read, one read that gets 0 (the only end of
 *                               file) and N read(fd, buf, 0) more
 *   ptwork uring-stream N       N io_uring 4 KiB reads of a pipe a blocking
 *                               writer thread streams 4 KiB writes into
 *   ptwork uring-busy N         N rounds of 4 KiB reads and writes (io_uring,
 *                               then RWF_NOWAIT) while another thread holds
 *                               pipe->mutex (a splice from an empty socket)
 *                               and the pipe has data and room; prints
 *                               nowait_eagain= (RWF_NOWAIT calls that got
 *                               EAGAIN: 6.12 gives none, it waits for the lock)
 *   ptwork idle N               N pipes each written 100 B then 8292 B (the
 *                               merge path) and read empty; then a trace
 *                               marker "ptwork idle" and the pipes closed
 *   ptwork fault-write N        N 64 KiB writes whose source faults after
 *                               16 KiB, each read back
 *   ptwork fullread [N]         N times: fill a pipe (64 KiB), one 64 KiB read
 *   ptwork stress W R RECS BIG  integrity stress (see stress() below)
 *   ptwork faultread            64 KiB read of a full pipe into a buffer
 *                               whose 10th page is unmapped; then the rest
 *   ptwork vec KIND SEG LEN N   N rounds of LEN bytes written and read back,
 *                               one side vectored in SEG-byte segments (KIND
 *                               readv, preadv2-nowait, uring-readv, writev);
 *                               prints "calls=N sections=S" (the sections the
 *                               vectored calls open, from the boundaries)
 *   ptwork wr FILE VALUE        write VALUE to FILE; print OK or the errno
 *                               name (EINVAL, ...); exit 0
 *
 * With PTWORK_FIFO=1 in the environment ptwork and its children run
 * SCHED_FIFO (one priority): on one CPU they then switch only when one
 * blocks, so event counts per operation repeat exactly from run to run
 * and from kernel to kernel (tests/vm/guest-budget.sh).
 *
 * Every mode but pingpong and wr prints "ino=<pipe inode>" (the first
 * pipe it makes) on stdout, so a test can pick its own events out of the
 * trace buffer, and exits non-zero on any unexpected result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "os/clock.h"
#include "lib/workload.h"

#define KIB 1024

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void fail(const char *fmt, unsigned long a, unsigned long b)
{
	fprintf(stderr, "ptwork: FAIL: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

static void xpipe(int fds[2], int flags)
{
	if (wl_pipe(fds, flags))
		die("pipe2");
}

/*
 * With PTWORK_MARK=1, the measured loops are bracketed by the marks the
 * CPU counter of the cost budgets counts between (tests/vm/plugin/
 * ptcount.c): multi-byte NOPs, nothing to any CPU.
 */
static bool mark_on;

static void mark(int end)
{
#ifdef __x86_64__
	if (!mark_on)
		return;
	if (end)
		asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00; .long 0x50540002" ::: "memory");
	else
		asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00; .long 0x50540001" ::: "memory");
#else
	(void)end;
#endif
}

static long long ns(double seconds)
{
	return (long long)(seconds * 1e9 + 0.5);
}

/* N writes of SIZE bytes; a child drains the pipe in reads of RSIZE. */
static int mode_writes(long n, long size, long rsize)
{
	struct wl_stream st = { .size = size, .n = n, .rsize = 64 * KIB };
	int fds[2];

	if (rsize > 0 && rsize < 64 * KIB)
		st.rsize = rsize;
	xpipe(fds, 0);
	if (wl_stream_fds(fds[0], fds[1], &st) != n * size)
		die("writes");
	printf("ns_per_op=%lld\n", ns(st.loop_s) / n);
	return 0;
}

/* N 1-byte round trips between this process and a child. */
static int mode_pingpong(long n)
{
	double loop_s;

	if (wl_pingpong(n, &loop_s) != n)
		die("ping-pong");
	printf("ns_per_op=%lld\n", ns(loop_s) / n);
	return 0;
}

/*
 * N times: fill a default (16 slot) pipe with one 64 KiB write, then one
 * 64 KiB read.
 */
static int mode_fullread(long n)
{
	static char buf[64 * KIB];
	int fds[2];
	ssize_t r;

	xpipe(fds, O_NONBLOCK);
	memset(buf, 'f', sizeof(buf));
	mark(0);
	for (long i = 0; i < n; i++) {
		r = write(fds[1], buf, sizeof(buf));
		if (r != (ssize_t)sizeof(buf))
			fail("fill write returned %ld, expected %lu", r, sizeof(buf));
		r = read(fds[0], buf, sizeof(buf));
		if (r != (ssize_t)sizeof(buf))
			fail("read returned %ld, expected %lu", r, sizeof(buf));
	}
	mark(1);
	return 0;
}

static int mode_nobytes(enum wl_nobytes kind, long n, long size)
{
	if (wl_nobytes(kind, n, size) != n)
		exit(1);
	return 0;
}

/* Fill a pipe (64 KiB), splice it all to /dev/null, close it. */
static int mode_splicedrain(void)
{
	static char buf[64 * KIB];
	int fds[2], null = open("/dev/null", O_WRONLY);
	ssize_t r;

	if (null < 0)
		die("/dev/null");
	xpipe(fds, O_NONBLOCK);
	r = write(fds[1], buf, sizeof(buf));
	if (r != (ssize_t)sizeof(buf))
		fail("fill write returned %ld, expected %lu", r, sizeof(buf));
	r = splice(fds[0], NULL, null, NULL, sizeof(buf), 0);
	if (r != (ssize_t)sizeof(buf))
		fail("splice returned %ld, expected %lu", r, sizeof(buf));
	close(fds[0]);
	close(fds[1]);
	return 0;
}

/*
 * N rounds of a splice-family call on 4 KiB, every round the same work
 * (the pipes are empty again after it):
 *   splice:   write 4 KiB into A, splice A -> B (moves the anonymous
 *             buffer), splice B -> /dev/null (releases its page);
 *   tee:      A holds 4 KiB throughout; tee A -> B (a second reference to
 *             the page), splice B -> /dev/null (releases it: not the last);
 *   vmsplice: vmsplice 4 KiB of user memory into A, vmsplice A back into
 *             user memory.
 * Prints ns_per_op= (under qemu -icount: instructions per round).
 */
static int mode_spliceop(const char *kind, long n)
{
	static char page[4096] __attribute__((aligned(4096))), back[4096];
	struct iovec in = { page, sizeof(page) }, out = { back, sizeof(back) };
	int a[2], b[2], null = open("/dev/null", O_WRONLY);
	int k = !strcmp(kind, "splice") ? 0 : !strcmp(kind, "tee") ? 1 :
		!strcmp(kind, "vmsplice") ? 2 : -1;
	ssize_t r1 = sizeof(page), r2, r3;
	double t0;
	long i;

	if (k < 0) {
		fprintf(stderr, "ptwork: spliceop: unknown kind '%s' (splice, tee, vmsplice)\n", kind);
		exit(2);
	}
	if (null < 0)
		die("/dev/null");
	xpipe(a, 0);
	xpipe(b, 0);
	memset(page, 's', sizeof(page));
	if (k == 1 && write(a[1], page, sizeof(page)) != sizeof(page))
		die("tee fill write");
	t0 = pt_now(CLOCK_MONOTONIC);
	mark(0);
	for (i = 0; i < n; i++) {
		if (k == 0) {
			r1 = write(a[1], page, sizeof(page));
			r2 = splice(a[0], NULL, b[1], NULL, sizeof(page), 0);
			r3 = splice(b[0], NULL, null, NULL, sizeof(page), 0);
		} else if (k == 1) {
			r2 = tee(a[0], b[1], sizeof(page), 0);
			r3 = splice(b[0], NULL, null, NULL, sizeof(page), 0);
		} else {
			r2 = vmsplice(a[1], &in, 1, 0);
			r3 = vmsplice(a[0], &out, 1, 0);
		}
		if (r1 != sizeof(page) || r2 != sizeof(page) || r3 != sizeof(page))
			fail("spliceop: a call moved %ld of 4096 bytes (round %lu)",
			     r1 != sizeof(page) ? r1 : r2 != sizeof(page) ? r2 : r3, i);
	}
	mark(1);
	printf("ns_per_op=%lld\n", ns(pt_now(CLOCK_MONOTONIC) - t0) / n);
	if (k == 2 && memcmp(page, back, sizeof(back)))
		fail("spliceop: vmsplice read back %lu of %lu bytes unequal", 1, sizeof(back));
	return 0;
}

/* N io_uring reads, one per empty (blocking) pipe, then one byte into each. */
static int mode_uring(long n)
{
	struct io_uring ring;
	int (*fds)[2] = calloc(n, sizeof(*fds));
	char *bufs = calloc(n, 16);
	long done = 0;
	int ret;

	if (!fds || !bufs)
		die("calloc");
	ret = io_uring_queue_init(n < 4096 ? (n < 8 ? 8 : n) : 4096, &ring, 0);
	if (ret < 0) {
		errno = -ret;
		die("io_uring_queue_init");
	}
	for (long i = 0; i < n; i++) {
		struct io_uring_sqe *sqe;

		xpipe(fds[i], 0);
		sqe = io_uring_get_sqe(&ring);
		if (!sqe)
			fail("no sqe for %lu (n=%lu)", i, n);
		io_uring_prep_read(sqe, fds[i][0], bufs + 16 * i, 16, 0);
		sqe->user_data = i;
	}
	ret = io_uring_submit(&ring);
	if (ret != n)
		fail("submitted %lu of %lu", ret, n);
	usleep(100 * 1000);
	for (long i = 0; i < n; i++)
		if (write(fds[i][1], "u", 1) != 1)
			die("write");
	while (done < n) {
		struct io_uring_cqe *cqe;

		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0) {
			errno = -ret;
			die("io_uring_wait_cqe");
		}
		if (cqe->res != 1)
			fail("read %lu completed with %ld", cqe->user_data,
			     (long)cqe->res);
		if (bufs[16 * cqe->user_data] != 'u')
			fail("read %lu got wrong data (%lu)", cqe->user_data,
			     (unsigned char)bufs[16 * cqe->user_data]);
		io_uring_cqe_seen(&ring, cqe);
		done++;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

/*
 * Integrity stress.
 *
 * Phase 1: one shared pipe, W writer processes, R reader processes.  Each
 * record is at most PIPE_BUF bytes (so a write is atomic) and of an odd
 * size; readers take a process-shared lock around reading one whole
 * record (header, then body), so every record can be checked.  Each
 * writer's records must arrive complete, uncorrupted, exactly once and in
 * order.
 *
 * Phase 2: W pipes, each with one writer doing large writes of odd sizes
 * (up to BIG bytes, many pages per write) and one reader doing reads of
 * odd sizes; the byte stream must be exactly what was written.
 */
struct rec_hdr {
	uint32_t magic;
	uint32_t writer;
	uint32_t seq;
	uint32_t len;		/* payload bytes after the header */
};

#define REC_MAGIC 0x50495045u
#define MAX_REC 4096

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void fill_payload(unsigned char *p, size_t len, uint64_t seed)
{
	uint64_t s = mix(seed + 1);

	for (size_t i = 0; i < len; i++) {
		if ((i & 7) == 0)
			s = mix(s + i);
		p[i] = (unsigned char)(s >> ((i & 7) * 8));
	}
}

static size_t rec_len(uint32_t w, uint32_t seq)
{
	/* odd total sizes between 17 and MAX_REC - 1 */
	size_t total = (mix(((uint64_t)w << 32) | seq) % (MAX_REC - 32)) + 17;

	total |= 1;
	return total - sizeof(struct rec_hdr);
}

struct shared {
	pthread_mutex_t lock;
	long received;
	long bad;
	uint32_t next_seq[64];
};

static ssize_t read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, p + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static int stress_phase1(int w, int r, long recs)
{
	struct shared *sh;
	pthread_mutexattr_t ma;
	int fds[2], rc = 0;
	pid_t pids[128];
	int np = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	xpipe(fds, 0);

	for (int i = 0; i < r; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			unsigned char body[MAX_REC], want[MAX_REC];
			struct rec_hdr h;

			close(fds[1]);
			for (;;) {
				ssize_t n;

				pthread_mutex_lock(&sh->lock);
				n = read_full(fds[0], &h, sizeof(h));
				if (n == 0) {
					pthread_mutex_unlock(&sh->lock);
					_exit(0);
				}
				if (n != sizeof(h) || h.magic != REC_MAGIC ||
				    h.writer >= (uint32_t)w ||
				    h.len != rec_len(h.writer, h.seq)) {
					sh->bad++;
					pthread_mutex_unlock(&sh->lock);
					fail("bad header (n=%ld magic=%lx)", n,
					     h.magic);
				}
				n = read_full(fds[0], body, h.len);
				if (n != (ssize_t)h.len) {
					sh->bad++;
					pthread_mutex_unlock(&sh->lock);
					fail("short body %ld of %lu", n, h.len);
				}
				if (h.seq != sh->next_seq[h.writer]) {
					sh->bad++;
					pthread_mutex_unlock(&sh->lock);
					fail("out of order: seq %lu, expected %lu",
					     h.seq, sh->next_seq[h.writer]);
				}
				sh->next_seq[h.writer]++;
				sh->received++;
				pthread_mutex_unlock(&sh->lock);
				fill_payload(want, h.len,
					     ((uint64_t)h.writer << 32) | h.seq);
				if (memcmp(want, body, h.len)) {
					sh->bad++;
					fail("corrupt record %lu of writer %lu",
					     h.seq, h.writer);
				}
			}
		}
		pids[np++] = pid;
	}
	close(fds[0]);
	for (int i = 0; i < w; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			unsigned char rec[MAX_REC];
			struct rec_hdr *h = (struct rec_hdr *)rec;

			for (long s = 0; s < recs; s++) {
				h->magic = REC_MAGIC;
				h->writer = i;
				h->seq = s;
				h->len = rec_len(i, s);
				fill_payload(rec + sizeof(*h), h->len,
					     ((uint64_t)i << 32) | s);
				if (wl_write_all(fds[1], (char *)rec, sizeof(*h) + h->len))
					die("write");
			}
			_exit(0);
		}
		pids[np++] = pid;
	}
	close(fds[1]);
	for (int i = 0; i < np; i++)
		if (wl_wait_child(pids[i]))
			rc = 1;
	if (sh->received != (long)w * recs || sh->bad)
		fail("phase 1: received %lu records, expected %lu",
		     sh->received, (long)w * recs);
	for (int i = 0; i < w; i++)
		if (sh->next_seq[i] != recs)
			fail("phase 1: writer %lu delivered %lu records", i,
			     sh->next_seq[i]);
	printf("phase1 records=%ld ok\n", sh->received);
	return rc;
}

/* byte k of the stream of pipe p */
static void stream_fill(unsigned char *buf, size_t len, uint64_t off, int p)
{
	uint64_t word = 0;

	for (size_t i = 0; i < len; i++) {
		uint64_t k = off + i;

		if (i == 0 || (k & 7) == 0)
			word = mix(((uint64_t)p << 48) ^ (k >> 3));
		buf[i] = (unsigned char)(word >> ((k & 7) * 8));
	}
}

static int stress_phase2(int w, long recs, long big)
{
	pid_t pids[128];
	int np = 0, rc = 0;
	uint64_t total = 0;
	long *sizes = calloc(recs, sizeof(long));

	if (!sizes)
		die("calloc");
	for (long s = 0; s < recs; s++) {
		sizes[s] = (mix(s * 7919 + 13) % (big - 1)) | 1;
		total += sizes[s];
	}
	for (int p = 0; p < w; p++) {
		int fds[2];
		pid_t pid;

		xpipe(fds, 0);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			unsigned char *buf = malloc(big), *want = malloc(big);
			uint64_t off = 0;
			unsigned long k = 0;

			if (!buf || !want)
				die("malloc");
			close(fds[1]);
			for (;;) {
				size_t want_len = (mix(k++ + 0x1234 * p) %
						   (big - 1)) | 1;
				ssize_t n = read(fds[0], buf, want_len);

				if (n < 0) {
					if (errno == EINTR)
						continue;
					die("read");
				}
				if (n == 0)
					break;
				stream_fill(want, n, off, p);
				if (memcmp(want, buf, n))
					fail("phase 2: pipe %lu corrupt at %lu",
					     p, off);
				off += n;
			}
			if (off != total)
				fail("phase 2: got %lu bytes, expected %lu",
				     off, total);
			_exit(0);
		}
		pids[np++] = pid;
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			unsigned char *buf = malloc(big);
			uint64_t off = 0;

			if (!buf)
				die("malloc");
			close(fds[0]);
			for (long s = 0; s < recs; s++) {
				stream_fill(buf, sizes[s], off, p);
				if (wl_write_all(fds[1], (char *)buf, sizes[s]))
					die("write");
				off += sizes[s];
			}
			_exit(0);
		}
		pids[np++] = pid;
		close(fds[0]);
		close(fds[1]);
	}
	for (int i = 0; i < np; i++)
		if (wl_wait_child(pids[i]))
			rc = 1;
	if (!rc)
		printf("phase2 pipes=%d bytes=%llu ok\n", w,
		       (unsigned long long)total * w);
	return rc;
}

static void uring_init(struct io_uring *ring)
{
	int ret = io_uring_queue_init(8, ring, 0);

	if (ret < 0) {
		errno = -ret;
		die("io_uring_queue_init");
	}
}

/* One io_uring read (@write 0) or write of @len at @buf; its result. */
static long uring_rw(struct io_uring *ring, int fd, char *buf, size_t len,
		     int write)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	long res;
	int ret;

	if (!sqe)
		fail("no sqe (%lu %lu)", 0, 0);
	if (write)
		io_uring_prep_write(sqe, fd, buf, len, 0);
	else
		io_uring_prep_read(sqe, fd, buf, len, 0);
	ret = io_uring_submit(ring);
	if (ret != 1)
		fail("submitted %lu of %lu", ret, 1);
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0) {
		errno = -ret;
		die("io_uring_wait_cqe");
	}
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

struct stream_arg {
	int fd;
	long n;
};

static void *stream_writer(void *p)
{
	struct stream_arg *a = p;
	static char buf[4 * KIB];

	memset(buf, 's', sizeof(buf));
	for (long i = 0; i < a->n; i++)
		if (wl_write_all(a->fd, buf, sizeof(buf)))
			die("stream write");
	return NULL;
}

/* N io_uring 4 KiB reads of a pipe a blocking writer thread streams into. */
static int mode_uring_stream(long n)
{
	static char buf[4 * KIB];
	struct stream_arg a;
	struct io_uring ring;
	pthread_t t;
	int fds[2];

	xpipe(fds, 0);
	uring_init(&ring);
	a = (struct stream_arg){ fds[1], n };
	if (pthread_create(&t, NULL, stream_writer, &a))
		die("pthread_create");
	for (long i = 0; i < n; i++) {
		long got = 0;

		while (got < (long)sizeof(buf)) {
			long r = uring_rw(&ring, fds[0], buf, sizeof(buf) - got, 0);

			if (r <= 0)
				fail("io_uring read %lu returned %ld", i, r);
			got += r;
		}
	}
	pthread_join(t, NULL);
	io_uring_queue_exit(&ring);
	return 0;
}

/*
 * uring-busy: the lock holder splices from an empty socket into the pipe,
 * which holds pipe->mutex (splice_file_to_pipe()) until the releaser
 * sends it a byte, a millisecond after it is told to.  It splices into a
 * file of its own for the pipe (/proc/self/fd), as splice clears
 * FMODE_NOWAIT on the file it writes to.
 */
struct busy {
	int pipe_w, sock_rd, sock_wr;
	int go_hold[2], go_release[2];
};

static void *busy_holder(void *p)
{
	struct busy *b = p;
	char c;

	while (read(b->go_hold[0], &c, 1) == 1 && c == 'h')
		if (splice(b->sock_rd, NULL, b->pipe_w, NULL, 1, 0) != 1)
			die("holder splice");
	return NULL;
}

static void *busy_releaser(void *p)
{
	struct busy *b = p;
	char c;

	while (read(b->go_release[0], &c, 1) == 1 && c == 'r') {
		usleep(1000);
		if (write(b->sock_wr, "x", 1) != 1)
			die("releaser write");
	}
	return NULL;
}

/* Let the holder take pipe->mutex, then arm the releaser. */
static void busy_lock(struct busy *b)
{
	if (write(b->go_hold[1], "h", 1) != 1)
		die("go holder");
	usleep(1000);
	if (write(b->go_release[1], "r", 1) != 1)
		die("go releaser");
}

/*
 * One 4 KiB RWF_NOWAIT read (@write 0) or write with pipe->mutex held
 * elsewhere; on -EAGAIN (counted in @eagain) the same call blocking.
 */
static void busy_nowait_rw(struct busy *b, int fd, char *buf, int write,
			   long *eagain)
{
	struct iovec iov = { buf, 4 * KIB };
	ssize_t r;

	busy_lock(b);
	r = write ? pwritev2(fd, &iov, 1, -1, RWF_NOWAIT) :
		    preadv2(fd, &iov, 1, -1, RWF_NOWAIT);
	if (r < 0 && errno == EAGAIN) {
		(*eagain)++;
		r = write ? pwritev2(fd, &iov, 1, -1, 0) :
			    preadv2(fd, &iov, 1, -1, 0);
	}
	if (r != 4 * KIB)
		fail(write ? "RWF_NOWAIT write returned %ld (%lu)" :
			     "RWF_NOWAIT read returned %ld (%lu)",
		     r < 0 ? -errno : r, 0);
}

static int mode_uring_busy(long n)
{
	static char buf[8 * KIB + 64], out[4 * KIB];
	struct io_uring ring;
	pthread_t th, tr;
	long eagain = 0;
	char path[64];
	struct busy b;
	int fds[2], sv[2];
	ssize_t r;

	xpipe(fds, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	b = (struct busy){ .sock_rd = sv[0], .sock_wr = sv[1] };
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
	b.pipe_w = open(path, O_WRONLY);
	if (b.pipe_w < 0)
		die(path);
	xpipe(b.go_hold, 0);
	xpipe(b.go_release, 0);
	uring_init(&ring);
	if (pthread_create(&th, NULL, busy_holder, &b) ||
	    pthread_create(&tr, NULL, busy_releaser, &b))
		die("pthread_create");
	memset(out, 'b', sizeof(out));
	for (long i = 0; i < n; i++) {
		if (wl_write_all(fds[1], out, sizeof(out)) ||
		    wl_write_all(fds[1], out, sizeof(out)))
			die("write");
		busy_lock(&b);
		r = uring_rw(&ring, fds[0], buf, 4 * KIB, 0);
		if (r != 4 * KIB)
			fail("io_uring read %lu returned %ld", i, r);
		busy_nowait_rw(&b, fds[0], buf, 0, &eagain);
		busy_lock(&b);
		r = uring_rw(&ring, fds[1], out, sizeof(out), 1);
		if (r != 4 * KIB)
			fail("io_uring write %lu returned %ld", i, r);
		busy_nowait_rw(&b, fds[1], out, 1, &eagain);
		/* 8 KiB in, 8 KiB out, 8 KiB in again, and the holder's 4 bytes */
		r = read(fds[0], buf, sizeof(buf));
		if (r != 8 * KIB + 4)
			fail("round %lu: drained %ld bytes", i, r);
	}
	if (write(b.go_hold[1], "q", 1) != 1 || write(b.go_release[1], "q", 1) != 1)
		die("stop threads");
	pthread_join(th, NULL);
	pthread_join(tr, NULL);
	io_uring_queue_exit(&ring);
	printf("nowait_eagain=%ld\n", eagain);
	return 0;
}

/*
 * N pipes, each written 100 B then 8292 B (100 B merge into the first
 * buffer, two pages) and read empty: what an idle pipe holds after a
 * burst.  A "ptwork idle" trace marker (if tracefs is there) marks the
 * point where all N are idle, before they are closed.
 */
static int mode_idle(long n)
{
	static char buf[16 * KIB];
	int (*fds)[2] = calloc(n, sizeof(*fds));
	int mark = open("/sys/kernel/tracing/trace_marker", O_WRONLY);

	if (!fds)
		die("calloc");
	memset(buf, 'i', sizeof(buf));
	for (long i = 0; i < n; i++) {
		ssize_t r;

		xpipe(fds[i], 0);
		if (wl_write_all(fds[i][1], buf, 100) ||
		    wl_write_all(fds[i][1], buf, 8292))
			die("write");
		r = read(fds[i][0], buf, sizeof(buf));
		if (r != 8392)
			fail("pipe %lu: read %ld bytes, expected 8392", i, r);
	}
	if (mark >= 0 && write(mark, "ptwork idle", 11) != 11)
		die("trace_marker");
	for (long i = 0; i < n; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	return 0;
}

/*
 * N 64 KiB writes from a buffer whose pages after the first 16 KiB are
 * not mapped: each write moves 16 KiB and stops at the fault (6.12 uses
 * five pages: four full, one left empty); each is read back.
 */
static int mode_fault_write(long n)
{
	static char rbuf[64 * KIB];
	long pg = sysconf(_SC_PAGESIZE);
	char *src;
	int fds[2];

	if (pg != 4096)
		fail("page size %lu, expected %lu", pg, 4096);
	src = mmap(NULL, 64 * KIB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		die("mmap");
	memset(src, 'F', 16 * KIB);
	if (munmap(src + 16 * KIB, 48 * KIB))
		die("munmap");
	xpipe(fds, 0);
	for (long i = 0; i < n; i++) {
		ssize_t r = write(fds[1], src, 64 * KIB);

		if (r != 16 * KIB)
			fail("write %lu returned %ld, expected 16384", i, r);
		r = read(fds[0], rbuf, sizeof(rbuf));
		if (r != 16 * KIB)
			fail("read %lu returned %ld, expected 16384", i, r);
	}
	return 0;
}

static int mode_stress(int w, int r, long recs, long big)
{
	if (w < 1 || w > 60 || r < 1 || r > 60 || recs < 1 || big < 3)
		fail("bad stress arguments (w=%lu r=%lu)", w, r);
	if (stress_phase1(w, r, recs))
		return 1;
	return stress_phase2(w, recs / 8 + 1, big);
}

/*
 * Fill a default pipe with 16 pages of a known pattern, read 64 KiB into
 * a buffer whose 10th page is unmapped (the read must stop at the fault
 * and return 9 pages), then read the rest into a good buffer: every byte
 * must arrive exactly once, in order.
 */
static int mode_faultread(void)
{
	static unsigned char data[64 * KIB], rest[64 * KIB];
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *dst;
	int fds[2];
	ssize_t r, r2;

	if (pg != 4096)
		fail("page size %lu, expected %lu", pg, 4096);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 4096);
	xpipe(fds, O_NONBLOCK);
	r = write(fds[1], data, sizeof(data));
	if (r != (ssize_t)sizeof(data))
		fail("fill write returned %ld, expected %lu", r, sizeof(data));
	dst = mmap(NULL, sizeof(data), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dst == MAP_FAILED)
		die("mmap");
	if (munmap(dst + 9 * pg, pg))
		die("munmap");
	r = read(fds[0], dst, sizeof(data));
	printf("first=%ld\n", (long)r);
	if (r != 9 * pg)
		fail("faulting read returned %ld, expected %lu", r, 9 * pg);
	if (memcmp(dst, data, r))
		fail("faulting read: wrong data (%lu bytes, %lu)", r, 0);
	r2 = read(fds[0], rest, sizeof(rest));
	printf("rest=%ld\n", (long)r2);
	if (r2 != (ssize_t)sizeof(data) - r)
		fail("second read returned %ld, expected %lu", r2,
		     sizeof(data) - r);
	if (memcmp(rest, data + r, r2))
		fail("second read: wrong data (%lu bytes at %lu)", r2, r);
	return 0;
}

static int mode_wr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		die(path);
	r = write(fd, val, strlen(val));
	printf("%s\n", r < 0 ? strerrorname_np(errno) : "OK");
	close(fd);
	return 0;
}

static long arg(char **argv, int i, int argc)
{
	if (i >= argc) {
		fprintf(stderr, "ptwork: missing argument\n");
		exit(2);
	}
	return strtol(argv[i], NULL, 0);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	wl_show_ino = true;
	if (getenv("PTWORK_MARK")) {
		mark_on = true;
		wl_loop_edge = mark;
	}
	if (getenv("PTWORK_FIFO")) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die("sched_setscheduler");
	}
	if (!strcmp(m, "writes"))
		return mode_writes(arg(argv, 2, argc), arg(argv, 3, argc),
				   argc > 4 ? arg(argv, 4, argc) : 0);
	if (!strcmp(m, "pingpong"))
		return mode_pingpong(arg(argv, 2, argc));
	if (!strcmp(m, "nowait-write"))
		return mode_nobytes(WL_NOWAIT_WRITE, arg(argv, 2, argc), arg(argv, 3, argc));
	if (!strcmp(m, "epipe"))
		return mode_nobytes(WL_EPIPE_WRITE, arg(argv, 2, argc), arg(argv, 3, argc));
	if (!strcmp(m, "sigwrite"))
		return mode_nobytes(WL_EINTR_WRITE, arg(argv, 2, argc), arg(argv, 3, argc));
	if (!strcmp(m, "splicedrain"))
		return mode_splicedrain();
	if (!strcmp(m, "spliceop") && argc == 4)
		return mode_spliceop(argv[2], arg(argv, 3, argc));
	if (!strcmp(m, "fullread"))
		return mode_fullread(argc > 2 ? arg(argv, 2, argc) : 1);
	if (!strcmp(m, "eagain-read"))
		return mode_nobytes(WL_EAGAIN_READ, arg(argv, 2, argc), 1);
	if (!strcmp(m, "eagain-write"))
		return mode_nobytes(WL_EAGAIN_WRITE, arg(argv, 2, argc),
				    argc > 3 ? arg(argv, 3, argc) : 1);
	if (!strcmp(m, "uring"))
		return mode_uring(arg(argv, 2, argc));
	if (!strcmp(m, "zero-read")) {
		long n = arg(argv, 2, argc);

		if (wl_zero_reads(n) != 6 * n)
			exit(1);
		printf("zero-reads=%ld eof=1\n", 6 * n);
		return 0;
	}
	if (!strcmp(m, "uring-stream"))
		return mode_uring_stream(arg(argv, 2, argc));
	if (!strcmp(m, "uring-busy"))
		return mode_uring_busy(arg(argv, 2, argc));
	if (!strcmp(m, "idle"))
		return mode_idle(arg(argv, 2, argc));
	if (!strcmp(m, "fault-write"))
		return mode_fault_write(arg(argv, 2, argc));
	if (!strcmp(m, "faultread"))
		return mode_faultread();
	if (!strcmp(m, "vec") && argc == 6) {
		int kind = wl_vec_kind(argv[2]);
		long n = arg(argv, 5, argc), r;

		if (kind < 0)
			die("vec kind");
		r = wl_vec(kind, arg(argv, 3, argc), arg(argv, 4, argc), n);
		if (r < 0)
			exit(1);
		printf("calls=%ld sections=%ld\n", n, r);
		return 0;
	}
	if (!strcmp(m, "wr") && argc == 4)
		return mode_wr(argv[2], argv[3]);
	if (!strcmp(m, "stress"))
		return mode_stress(arg(argv, 2, argc), arg(argv, 3, argc),
				   arg(argv, 4, argc), arg(argv, 5, argc));
	fprintf(stderr,
		"usage: ptwork writes N SIZE [RSIZE] | pingpong N | fullread [N] |\n"
		"       eagain-read N | eagain-write N [SIZE] | nowait-write N SIZE |\n"
		"       epipe N SIZE | sigwrite N SIZE | splicedrain | uring N |\n"
		"       spliceop splice|tee|vmsplice N |\n"
		"       zero-read N | uring-stream N | uring-busy N | idle N |\n"
		"       fault-write N | vec KIND SEG LEN N |\n"
		"       stress W R RECS BIG | faultread | wr FILE VALUE\n");
	return 2;
}
