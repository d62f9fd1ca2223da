// SPDX-License-Identifier: GPL-2.0
/*
 * test_resize.sh's hostile holders, and its witness of what pipestat
 * --resize must never do: open what another process's descriptor names
 * with its own credentials.
 *
 *   resizework opath PATH     an O_PATH descriptor of PATH; prints "pid=P
 *                             tid=T fd=F" (T a second thread, sharing the
 *                             table), until stdin's end
 *   resizework flip PATH      the same, fd F (50) being a pipe's read end
 *                             and the O_PATH descriptor in turn: thread T
 *                             dup2()s them onto it without a pause
 *   resizework opens PATH     counts the opens of PATH (inotify IN_OPEN):
 *                             prints "ready", and at stdin's end "opens=N"
 *   resizework fifo DIR INO   makes the FIFO DIR/fifo with inode number INO
 *                             (a tmpfs numbers its inodes in turn: FIFOs
 *                             are made and removed until INO comes); prints
 *                             "dev=MAJ:MIN ino=INO"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define FLIP_FD	50

struct held {
	int fd;		/* the descriptor to name */
	int pipe, path;	/* flip: what goes onto fd in turn; -1: no flip */
};

static void *hold(void *arg)
{
	const struct held *h = arg;

	printf("pid=%d tid=%d fd=%d\n", getpid(), gettid(), h->fd);
	fflush(stdout);
	for (unsigned long i = 0; h->pipe >= 0; i++)
		dup2(i & 1 ? h->path : h->pipe, h->fd);
	pause();
	return NULL;
}

/* stdin to its end: the suite's "stop" */
static void wait_stdin(void)
{
	char buf[64];

	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
}

static int holder(const char *path, bool flip)
{
	static struct held h = { .pipe = -1 };
	pthread_t t;
	int p[2];

	h.path = open(path, O_PATH | O_CLOEXEC);
	if (h.path < 0 || (flip && pipe(p)))
		return 1;
	h.fd = flip ? FLIP_FD : h.path;
	if (flip)
		h.pipe = p[0];
	if (pthread_create(&t, NULL, hold, &h))
		return 1;
	wait_stdin();
	return 0;
}

/* The IN_OPEN events queued on in */
static int count_opens(int in)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	ssize_t len;
	int n = 0;

	while ((len = read(in, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len; p += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)p;
			n += !!(e->mask & IN_OPEN);
		}
	return n;
}

/* Read as they come, so that opens in a row are not merged into one */
static int opens(const char *path)
{
	struct pollfd pf[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
				{ .events = POLLIN } };
	char buf[64];
	int n = 0;

	pf[1].fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pf[1].fd < 0 || inotify_add_watch(pf[1].fd, path, IN_OPEN) < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (poll(pf, 2, -1) > 0) {
		n += count_opens(pf[1].fd);
		if (pf[0].revents && read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
			break;
	}
	printf("opens=%d\n", n + count_opens(pf[1].fd));
	return 0;
}

static int fifo(const char *dir, unsigned long long ino)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	do {
		if (mkfifo(path, 0600) || stat(path, &st))
			return 1;
	} while (st.st_ino < ino && !unlink(path));
	if (st.st_ino != ino)
		return 1;
	printf("dev=%u:%u ino=%llu\n", major(st.st_dev), minor(st.st_dev), ino);
	return 0;
}

int main(int argc, char **argv)
{
	const char *w = argc > 2 ? argv[1] : "";

	if (!strcmp(w, "opath") || !strcmp(w, "flip"))
		return holder(argv[2], !strcmp(w, "flip"));
	if (!strcmp(w, "opens"))
		return opens(argv[2]);
	if (!strcmp(w, "fifo") && argc > 3)
		return fifo(argv[2], strtoull(argv[3], NULL, 10));
	fprintf(stderr, "usage: resizework opath|flip|opens PATH | fifo DIR INO\n");
	return 2;
}
