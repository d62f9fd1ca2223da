/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads asleep in a pipe read or write, from /proc: a wait that began
 * before pipetrace attached, which no program saw begin. A thread's wchan
 * names the pipe function it sleeps in (pipe_read, anon_pipe_read, ...);
 * its syscall file gives the call's fd (the first argument of every read
 * and write call), its fd link the pipe. The kernel does not say when the
 * sleep began: it is "since before attach". Needs root (wchan, syscall
 * and fd of other users' threads).
 */
#ifndef BLOCKED_H
#define BLOCKED_H

#include <stdbool.h>
#include <stddef.h>
#include "model/load_opts.h"

struct blocked_task {
	struct pt_key key;	/* the key its wait is counted under */
	__u32 tid;
	__u32 kind;		/* PT_SLEEP_READ or PT_SLEEP_WRITE */
	/* voluntary context switches when seen: while unchanged and the
	 * thread asleep, it is the same sleep */
	unsigned long nvcsw;
};

struct blocked_list {
	struct blocked_task *v;
	size_t n, cap;
};

/*
 * Every thread asleep in a pipe read or write now that o's filters (-p,
 * -n, --cgroup; not pipetrace itself) let through, keyed as the programs
 * key it (-k cgroup: its cgroup id), into l (emptied first). -1 on out of
 * memory.
 */
int blocked_scan(struct blocked_list *l, const struct pt_load_opts *o);
/* Whether t is still in the sleep blocked_scan() saw. */
bool blocked_still(const struct blocked_task *t);
void blocked_free(struct blocked_list *l);

/* Who holds a pipe open for writing (or reading), for a human. */
struct pipe_holders {
	struct pt_key pipe;	/* its dev and ino */
	bool writers;
	char *buf;		/* "comm[pid],..." from /proc; "not found" if
			 * none (held in a descriptor table of a thread
			 * of its own, or in flight in a socket) */
	size_t n;
	__u32 last;		/* the process last put in buf */
};

/* Fills each of q[0..nq) with one walk of /proc's descriptors. */
void blocked_ends(struct pipe_holders *q, size_t nq);

#endif
