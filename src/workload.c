// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "workload.h"

#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

static long count_eagain(int fd, long n, int write_side, int rwf)
{
	char byte = 'x';
	struct iovec iov = { &byte, 1 };
	long seen = 0;

	for (long i = 0; i < n; i++) {
		ssize_t r;

		if (rwf)
			r = write_side ? pwritev2(fd, &iov, 1, -1, rwf)
				       : preadv2(fd, &iov, 1, -1, rwf);
		else
			r = write_side ? write(fd, &byte, 1) : read(fd, &byte, 1);
		if (r < 0 && errno == EAGAIN)
			seen++;
		else if (r < 0)
			return -1;
	}
	return seen;
}

static long on_new_pipe(long n, int flags, int write_side, int rwf)
{
	int p[2];
	long seen;

	if (pipe2(p, flags))
		return -1;
	if (write_side) {
		/* fill it with one write of its whole capacity */
		int size = fcntl(p[1], F_GETPIPE_SZ);
		char *fill = size > 0 ? calloc(1, size) : NULL;
		ssize_t w = fill ? write(p[1], fill, size) : -1;

		free(fill);
		if (w != size) {
			close(p[0]);
			close(p[1]);
			return -1;
		}
	}
	seen = count_eagain(p[write_side], n, write_side, rwf);
	close(p[0]);
	close(p[1]);
	return seen;
}

long wl_eagain_reads(long n)
{
	return on_new_pipe(n, O_NONBLOCK, 0, 0);
}

long wl_nowait_reads(long n)
{
	return on_new_pipe(n, 0, 0, RWF_NOWAIT);
}

long wl_eagain_writes(long n)
{
	return on_new_pipe(n, O_NONBLOCK, 1, 0);
}

static int read_full(int fd, char *buf, size_t size, size_t *got)
{
	ssize_t r = read(fd, buf, size);

	if (r < 0)
		return errno == EINTR ? 0 : -1;
	*got = r;
	return r == 0 ? 1 : 0;
}

/* The reader child: drains rfd until EOF; exit 0 iff it read expect bytes. */
static void drain_child(int rfd, size_t size, long long expect)
{
	char *buf = malloc(size);
	long long total = 0;
	size_t got = 0;
	int r;

	if (!buf)
		_exit(2);
	while ((r = read_full(rfd, buf, size, &got)) == 0)
		total += got;
	_exit(r < 0 || total != expect ? 1 : 0);
}

static int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

long wl_stream_fds(int rfd, int wfd, size_t size, long n)
{
	char *buf = calloc(1, size);
	long long total = 0;
	pid_t pid;

	if (!buf)
		return -1;
	pid = fork();
	if (pid < 0) {
		free(buf);
		return -1;
	}
	if (pid == 0) {
		close(wfd);
		drain_child(rfd, size, (long long)size * n);
	}
	close(rfd);
	for (long i = 0; i < n; i++) {
		size_t off = 0;

		while (off < size) {
			ssize_t w = write(wfd, buf + off, size - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				goto out;
			off += w;
			total += w;
		}
	}
out:
	close(wfd);
	free(buf);
	if (wait_child(pid))
		return -1;
	return total;
}

long wl_stream(size_t size, long n, const char *fifo)
{
	int p[2];

	if (!fifo) {
		if (pipe(p))
			return -1;
		return wl_stream_fds(p[0], p[1], size, n);
	}
	if (mkfifo(fifo, 0600) && errno != EEXIST)
		return -1;
	/* O_RDWR first so neither open blocks; the reader's copy is O_RDONLY */
	p[1] = open(fifo, O_RDWR);
	p[0] = p[1] < 0 ? -1 : open(fifo, O_RDONLY);
	if (p[0] < 0) {
		if (p[1] >= 0)
			close(p[1]);
		return -1;
	}
	return wl_stream_fds(p[0], p[1], size, n);
}

long wl_jobserver(int readers, long tokens)
{
	int p[2], failed = 0;
	pid_t pids[64];

	if (readers < 1 || readers > 64 || pipe(p))
		return -1;
	for (int i = 0; i < readers; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i] == 0) {
			char c;
			long n = 0;

			close(p[1]);
			while (read(p[0], &c, 1) == 1)
				n++;
			/* exit status cannot carry a count: report it through stdout */
			printf("reader pid=%d tokens=%ld\n", getpid(), n);
			fflush(stdout);
			_exit(0);
		}
	}
	close(p[0]);
	for (long i = 0; i < tokens; i++) {
		if (write(p[1], "+", 1) != 1)
			failed = 1;
		if (i % 8 == 0)
			usleep(100);	/* let the readers block again */
	}
	close(p[1]);
	for (int i = 0; i < readers; i++)
		failed |= wait_child(pids[i]);
	return failed ? -1 : tokens;
}

long wl_pingpong(long n)
{
	int ab[2], ba[2];
	char c = 'p';
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			kill(pid, SIGKILL);
			break;
		}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	return wait_child(pid) ? -1 : n;
}
