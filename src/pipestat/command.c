// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "core/cgroup.h"
#include "command.h"

bool command_prepare(struct command *c, char *err, size_t n)
{
	char name[64], procs[PATH_MAX + 16];

	c->pid = -1;
	c->procs_fd = -1;
	snprintf(name, sizeof(name), "pipestat-%d", (int)getpid());
	if (!cgroup_make(c->cgroup, sizeof(c->cgroup), name, err, n)) {
		c->cgroup[0] = '\0';
		return false;
	}
	/* in the directory just made: nothing there to follow */
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", c->cgroup);
	c->procs_fd = open(procs, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (c->procs_fd < 0) {
		snprintf(err, n, "opening %s: %s", procs, strerror(errno));
		command_cleanup(c);
		return false;
	}
	return true;
}

pid_t command_start(struct command *c, char **argv)
{
	sigset_t none;

	c->pid = fork();
	if (c->pid)
		return c->pid;
	/* the command gets the signal state a shell would give it */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (write(c->procs_fd, "0", 1) != 1) {
		fprintf(stderr, "pipestat: moving the command into %s: %s\n",
			c->cgroup, strerror(errno));
		_exit(126);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "pipestat: %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int command_status(int ws)
{
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return WEXITSTATUS(ws);
}

void command_cleanup(struct command *c)
{
	if (c->procs_fd >= 0)
		close(c->procs_fd);
	c->procs_fd = -1;
	if (!c->cgroup[0])
		return;
	if (rmdir(c->cgroup))
		fprintf(stderr, "pipestat: %s left in place: %s (processes the "
			"command started still run there)\n", c->cgroup, strerror(errno));
	c->cgroup[0] = '\0';
}
