/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pipeline's picture knows beyond one interval's counts: every
 * (process, pipe) end seen so far, while the process still holds the pipe
 * (so one that moved nothing in an interval is drawn, faded), with the
 * process's command line and a FIFO's path, read from /proc while the
 * process runs (a short command is gone by the report).
 */
#ifndef PIPE_SEEN_H
#define PIPE_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "pipeline.h"
#include "model/rows.h"

struct seen_end {
	struct pt_key key;	/* tgid, comm, dev, ino */
	bool writer, reader;
	char cmdline[PL_CMDLINE_LEN];	/* "" if not read */
	char path[PL_PATH_LEN];		/* a FIFO's; "" for a pipe */
};

struct pipe_seen {
	struct seen_end *v;	/* by pid, pipe */
	size_t n, cap;
};

void seen_init(struct pipe_seen *s);
void seen_free(struct pipe_seen *s);
/* Learns ends' (PT_BY_PIPE_PID rows) new ends and their sides; -1 on OOM. */
int seen_learn(struct pipe_seen *s, const struct pt_rows *ends);
/* Forgets the ends not in the interval's ends whose process no longer
 * holds the pipe. */
void seen_prune(struct pipe_seen *s, const struct pt_rows *ends);
/* The end of pid on pipe dev:ino; NULL if not seen. */
const struct seen_end *seen_find(const struct pipe_seen *s, __u32 pid,
				 __u32 dev, __u64 ino);
/* The command line of pid; "" if not known. */
const char *seen_cmdline(const struct pipe_seen *s, __u32 pid);

/*
 * Whether pid holds pipe dev:ino (the kernel's dev_t), from its
 * descriptors in /proc: 1, with the path it was opened by in path (a
 * FIFO's; "" for a pipe), 0 if not, -1 if the process is gone.
 */
int seen_holds(pid_t pid, __u32 dev, __u64 ino, char *path, size_t n);

#endif
