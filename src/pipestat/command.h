/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipestat -- COMMAND: the command and every process it starts run in a
 * cgroup made for them, so counting (--cgroup's filter) starts with the
 * command's first instruction and takes in all of its descendants.
 */
#ifndef COMMAND_H
#define COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command {
	char cgroup[PATH_MAX];	/* "" until made */
	int procs_fd;		/* its cgroup.procs; -1 */
	pid_t pid;		/* -1 until started */
};

/* Makes the command's cgroup; false with a one-line reason in err. */
bool command_prepare(struct command *c, char *err, size_t n);
/*
 * Forks, moves the child into the cgroup and runs argv there (a command
 * that cannot run exits 127 when not found, else 126, as a shell does).
 * Returns the pid, or -1 with errno.
 */
pid_t command_start(struct command *c, char **argv);
/* The exit status a shell would give for wait status ws: N or 128+signal. */
int command_status(int ws);
/* Removes the cgroup; says so if processes the command left still run. */
void command_cleanup(struct command *c);

#endif
