// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "clock.h"
#include "sigout.h"

/* poll()'s timeout: -1 without a deadline, else what is left of it */
static int wait_ms(const struct sigout *s)
{
	double left;

	if (!s->deadline)
		return -1;
	left = s->deadline - pt_now(CLOCK_MONOTONIC);
	return left > 0 ? (int)ceil(left * 1e3) : 0;
}

static ssize_t sigout_write(void *cookie, const char *buf, size_t size)
{
	struct sigout *s = cookie;
	size_t done = 0;

	while (done < size && !s->err) {
		struct pollfd p[2] = {
			{ .fd = s->fd, .events = POLLOUT },
			{ .fd = s->sigfd, .events = POLLIN },
		};
		/* a socket cannot be reopened: each send is non-blocking */
		ssize_t w = s->sock ? send(s->fd, buf + done, size - done,
					   MSG_DONTWAIT | MSG_NOSIGNAL)
				    : write(s->fd, buf + done, size - done);
		int ms;

		if (w > 0) {
			done += w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			s->err = errno;
			break;
		}
		ms = wait_ms(s);
		if (ms && poll(p, 2, ms) < 0 && errno != EINTR) {
			s->err = errno;
			break;
		}
		/* a signal, or the time given to the last report is up */
		if ((p[1].revents & POLLIN) || !ms) {
			s->stopped = true;
			s->err = EINTR;
		}
	}
	if (s->err) {
		errno = s->err;
		return -1;
	}
	return done;
}

FILE *sigout_open(struct sigout *s, int fd, int sigfd)
{
	static const cookie_io_functions_t io = { .write = sigout_write };
	struct stat st;
	bool known = !fstat(fd, &st);
	FILE *f;

	s->fd = fd;
	s->own_fd = -1;
	s->sigfd = sigfd;
	s->err = 0;
	s->stopped = false;
	s->deadline = 0;
	s->sock = known && S_ISSOCK(st.st_mode);
	/*
	 * A pipe or terminal can block for ever. A file description of its
	 * own, non-blocking, leaves the one shared with the shell as it is.
	 */
	if (known && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		s->own_fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (s->own_fd >= 0)
			s->fd = s->own_fd;
	}
	f = fopencookie(s, "w", io);
	if (!f) {
		if (s->own_fd >= 0)
			close(s->own_fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

void sigout_close(struct sigout *s, FILE *f)
{
	if (f)
		fclose(f);
	if (s->own_fd >= 0)
		close(s->own_fd);
	s->own_fd = -1;
}
