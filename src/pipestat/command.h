/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipestat -- COMMAND: the command and every process it starts run in a
 * cgroup made for them, so counting (--cgroup's filter) starts with the
 * command's first instruction and takes in all of its descendants. That
 * cgroup is a child of pipestat's own, so the limits of the cgroup it was
 * started from (memory.max, pids.max) still apply to the command.
 */
#ifndef COMMAND_H
#define COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command {
	char parent[PATH_MAX];	/* pipestat's own cgroup */
	char cgroup[PATH_MAX];	/* the command's, made in parent; "" until made */
	const char *name;	/* its last part, in cgroup */
	int parent_fd;		/* parent's directory; -1 */
	int dir_fd;		/* cgroup's, flock()ed while pipestat runs; -1 */
	int procs_fd;		/* its cgroup.procs; -1 */
	pid_t pid;		/* -1 until started */
};

#define COMMAND_INIT { .parent_fd = -1, .dir_fd = -1, .procs_fd = -1, .pid = -1 }

/*
 * Removes the empty cgroups pipestats that are gone (SIGKILL) left in
 * pipestat's own, then makes the command's there; false with a one-line
 * reason in err.
 */
bool command_prepare(struct command *c, char *err, size_t n);
/*
 * Forks, moves the child into the cgroup and runs argv there; returns once
 * it runs (0, its pid in c->pid). When it cannot start, the child is reaped
 * and err has one line ("CMD: No such file or directory"); the return is
 * pipestat's exit status: 127 when the command was not found, 126 when it
 * could not run, as a shell's, or 1 when pipestat failed (fork, the cgroup).
 */
int command_start(struct command *c, char **argv, char *err, size_t n);
/* The exit status a shell would give for wait status ws: N or 128+signal. */
int command_status(int ws);
/*
 * Removes the cgroup. Processes the command left running (a daemon, or
 * the command after a second signal) are moved to pipestat's own cgroup
 * first, where they would have run without pipestat; it says so.
 */
void command_cleanup(struct command *c);

#endif
