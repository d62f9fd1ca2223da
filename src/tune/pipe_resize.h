/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resizing a live pipe that other processes hold (pipestat --resize):
 * take a holder's descriptor with pidfd_open() + pidfd_getfd(), check
 * that what came is an open pipe, F_SETPIPE_SZ, then F_GETPIPE_SZ to
 * confirm. Never opens anything through /proc/PID/fd: that open would
 * be this process's, with its credentials, on whatever the descriptor
 * names then. Plain user space: no BPF.
 */
#ifndef PIPE_RESIZE_H
#define PIPE_RESIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "pipetrace.h"

/* F_SETPIPE_SZ takes an unsigned int, and the kernel refuses above 2^31 */
#define PIPE_SIZE_MAX	(1L << 31)

/*
 * Which pipe: a holder's descriptor, or the pipe's device and inode as
 * pipestat reports them (pipe_dev, pipe_ino).
 */
struct pipe_ref {
	pid_t pid;		/* 0: any process holding ino */
	pid_t tid;		/* the task whose table has fd: pid or a thread */
	int fd;
	__u32 dev;		/* its file system, as pt_key's; 0: any (a bare
				 * INO: refused if on more than one) */
	unsigned long long ino;	/* 0: the pipe pid's fd is */
};

/* What a resize did, for the log lines. */
struct pipe_resized {
	struct pipe_ref ref;	/* the holder used and the pipe's dev:ino */
	long before, after;	/* F_GETPIPE_SZ before and after, bytes */
	long uid;		/* the holder's real uid (-1: unknown) */
	int slots_before;	/* a new pipe of uid's, in slots, before and */
	int slots_after;	/* after (0: could not make one; -1: not asked) */
};

/* "4096", "64k", "1M", "1G" (binary units); -1 if not 1..PIPE_SIZE_MAX */
long pipe_size_parse(const char *s);
/* st_dev in the kernel's encoding, as pt_key and pipe_ref keep it */
__u32 pipe_kdev(dev_t dev);
/*
 * "PIPE=SIZE", PIPE being "PID:FD", "MAJ:MIN:INO", "INO" or "pipe:[INO]".
 * False with a one-line reason in err.
 */
bool resize_parse(const char *arg, struct pipe_ref *ref, long *size,
		  char *err, size_t n);
/* The pipe of a -k pipe row's key (its dev in the kernel's encoding) */
struct pipe_ref pipe_ref_of(const struct pt_key *key);
/* "MAJ:MIN:INO", or "INO" when any device will do */
void pipe_ref_name(char *buf, size_t n, const struct pipe_ref *ref);
/*
 * Resizes the pipe to size bytes (the kernel rounds up to a power of two
 * pages) and confirms it; refuses to shrink it below the data it holds.
 * 0, or -1 with a one-line reason in err.
 */
int pipe_resize(const struct pipe_ref *ref, long size, struct pipe_resized *done,
		char *err, size_t n);
/* The log line: "pipe 0:15:123 (pid 45 fd 3, pidfd_getfd): 65536 -> ..." */
void resize_describe(char *buf, size_t n, const struct pipe_resized *done);
/*
 * Whose pipe pages the resize charged, when it grew another user's pipe,
 * and what that does to the user's new pipes; false: nothing to say.
 */
bool resize_charge(char *buf, size_t n, const struct pipe_resized *done);

#endif
