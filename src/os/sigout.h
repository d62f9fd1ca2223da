/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output stream that never outlives a termination signal: a write that
 * cannot go on (a stalled reader, a stopped terminal, a socket nobody
 * reads) waits in poll() with the signalfd, and a pending signal ends it.
 * The signal stays pending for the caller to take. After the caller took
 * one, a deadline bounds what its last report may wait.
 */
#ifndef SIGOUT_H
#define SIGOUT_H

#include <stdbool.h>
#include <stdio.h>

struct sigout {
	int fd;		/* what is written to: fd, or a non-blocking reopen */
	int own_fd;	/* that reopen, to close; -1 if none */
	int sigfd;	/* signalfd of the termination signals; -1: none */
	int err;	/* errno of the first failed write; 0 */
	bool stopped;	/* a signal (or the deadline) ended a blocked write */
	bool sock;	/* fd is a socket: written with send(MSG_DONTWAIT) */
	double deadline;	/* CLOCK_MONOTONIC: no waiting after it; 0: none */
};

/* A fully buffered FILE onto fd; NULL with errno set. */
FILE *sigout_open(struct sigout *s, int fd, int sigfd);
/* fclose()s f and releases s; the first write error (or 0) stays in s->err. */
void sigout_close(struct sigout *s, FILE *f);

#endif
