/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resizing a live pipe that other processes hold (pipestat --resize):
 * take a holder's descriptor with pidfd_getfd(), or open the pipe again
 * through /proc/PID/fd/N where that is refused, F_SETPIPE_SZ, then
 * F_GETPIPE_SZ to confirm. Plain user space: no BPF.
 */
#ifndef PIPE_RESIZE_H
#define PIPE_RESIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* F_SETPIPE_SZ takes an unsigned int, and the kernel refuses above 2^31 */
#define PIPE_SIZE_MAX	(1L << 31)

/* Which pipe: a holder's descriptor, or the inode pipestat reports. */
struct pipe_ref {
	pid_t pid;		/* 0: any process holding ino */
	int fd;
	unsigned long long ino;	/* 0: the pipe pid's fd is */
};

/* What a resize did, for the log line. */
struct pipe_resized {
	struct pipe_ref ref;	/* the holder used and the pipe's inode */
	long before, after;	/* F_GETPIPE_SZ before and after, bytes */
	bool via_proc;		/* opened through /proc/PID/fd/N */
	int getfd_errno;	/* why pidfd_getfd() was not used */
};

/* "4096", "64k", "1M", "1G" (binary units); -1 if not 1..PIPE_SIZE_MAX */
long pipe_size_parse(const char *s);
/*
 * "PIPE=SIZE", PIPE being "PID:FD", "INO" or "pipe:[INO]". False with a
 * one-line reason in err.
 */
bool resize_parse(const char *arg, struct pipe_ref *ref, long *size,
		  char *err, size_t n);
/*
 * Resizes the pipe to size bytes (the kernel rounds up to a power of two
 * pages) and confirms it; refuses to shrink it below the data it holds.
 * 0, or -1 with a one-line reason in err.
 */
int pipe_resize(const struct pipe_ref *ref, long size, struct pipe_resized *done,
		char *err, size_t n);
/* The log line: "pipe 123 (pid 45 fd 3, pidfd_getfd): 65536 -> ..." */
void resize_describe(char *buf, size_t n, const struct pipe_resized *done);

#endif
