// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "os/cgroup.h"
#include "command.h"

#define PREFIX "pipestat-"
#define NAME_TRIES 8	/* names tried when one is taken */
#define MOVE_ROUNDS 10	/* for leftovers that fork while they are moved */

/* A name pipestat gives its cgroups: pipestat-PID-HEX (pipestat-PID before). */
static bool ours(const char *name)
{
	size_t n;

	if (strncmp(name, PREFIX, strlen(PREFIX)))
		return false;
	name += strlen(PREFIX);
	n = strspn(name, "0123456789");
	if (!n)
		return false;
	name += n;
	if (name[0] == '-' && name[1])
		name += 1 + strspn(name + 1, "0123456789abcdef");
	return !*name;
}

/*
 * Cgroup name in directory dir, opened and flock()ed: a pipestat holds
 * its own so until it ends, however it ends (SIGKILL too). -1 with errno
 * if it is gone (ENOENT) or another holds it (EWOULDBLOCK).
 */
static int take(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Writes s to a control file of cgroup directory dir; 0, or -1 with errno. */
static int write_at(int dir, const char *file, const char *s)
{
	int fd = openat(dir, file, O_WRONLY | O_CLOEXEC), err;
	ssize_t len = strlen(s);

	if (fd < 0)
		return -1;
	err = write(fd, s, len) == len ? 0 : errno;
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

/*
 * Removes from dir the cgroups of pipestats that are gone (killed, or
 * crashed): those nobody holds, and only empty ones (rmdir() takes no
 * other).
 */
static void sweep(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int held;

		if (e->d_type != DT_DIR || !ours(e->d_name))
			continue;
		held = take(dir, e->d_name);
		if (held < 0)
			continue;
		unlinkat(dir, e->d_name, AT_REMOVEDIR);
		close(held);
	}
	closedir(d);
}

/* The next name to try into c->cgroup: pid and boot-time ns, so that
 * pipestats in two pid namespaces or with a reused pid differ. */
static bool name_next(struct command *c, char *err, size_t n)
{
	struct timespec ts;
	int len;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	len = snprintf(c->cgroup, sizeof(c->cgroup), "%s/" PREFIX "%d-%llx",
		       c->parent, (int)getpid(),
		       (unsigned long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
	if (len >= (int)sizeof(c->cgroup)) {
		snprintf(err, n, "cgroup path too long");
		return false;
	}
	c->name = c->cgroup + strlen(c->parent) + 1;
	return true;
}

/*
 * Makes the cgroup c->name in parent and takes it: 1; 0 to try another
 * name; -1 with errno. One left behind by an error is empty and nobody
 * holds it: the next pipestat's sweep removes it.
 */
static int make_one(struct command *c)
{
	if (mkdirat(c->parent_fd, c->name, 0755))
		return errno == EEXIST ? 0 : -1;
	c->dir_fd = take(c->parent_fd, c->name);
	/* another pipestat's sweep took it between mkdir and flock: it is
	 * gone, or going */
	if (c->dir_fd >= 0 && faccessat(c->dir_fd, "cgroup.procs", F_OK, 0)) {
		close(c->dir_fd);
		c->dir_fd = -1;
		return 0;
	}
	if (c->dir_fd >= 0)
		return 1;
	return errno == ENOENT || errno == EWOULDBLOCK ? 0 : -1;
}

/* Makes the command's cgroup in parent and takes it. */
static bool make(struct command *c, char *err, size_t n)
{
	int made = 0;

	for (int i = 0; !made && i < NAME_TRIES; i++) {
		if (!name_next(c, err, n)) {
			c->cgroup[0] = '\0';
			return false;
		}
		made = make_one(c);
	}
	if (made > 0)
		return true;
	snprintf(err, n, "making cgroup %s: %s", c->cgroup,
		 made ? strerror(errno) : "every name tried was taken");
	c->cgroup[0] = '\0';
	return false;
}

/* In a threaded cgroup a new one is "domain invalid", unable to hold a
 * process until it is made threaded too (the threaded controllers of
 * pipestat's cgroup then still apply). */
static bool fit_type(struct command *c, char *err, size_t n)
{
	char type[32] = "";
	int fd = openat(c->dir_fd, "cgroup.type", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, type, sizeof(type) - 1) < 0)
		type[0] = '\0';	/* none: moving the command in will say why */
	if (fd >= 0)
		close(fd);
	if (strcmp(type, "domain invalid\n") ||
	    !write_at(c->dir_fd, "cgroup.type", "threaded"))
		return true;
	snprintf(err, n, "%s is threaded: %s can hold the command only if made "
		 "threaded too, and that failed: %m", c->parent, c->cgroup);
	return false;
}

bool command_prepare(struct command *c, char *err, size_t n)
{
	if (!cgroup_own(c->parent, sizeof(c->parent), err, n))
		return false;
	c->parent_fd = open(c->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->parent_fd < 0) {
		snprintf(err, n, "opening cgroup %s: %m", c->parent);
		return false;
	}
	sweep(c->parent_fd);
	if (make(c, err, n) && fit_type(c, err, n)) {
		c->procs_fd = openat(c->dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (c->procs_fd >= 0)
			return true;
		snprintf(err, n, "opening %s/cgroup.procs: %m", c->cgroup);
	}
	command_cleanup(c);
	return false;
}

/* What the child says through its status pipe when it cannot go on. */
struct start_failure {
	int moving;	/* into the cgroup (pipestat's failure), else the exec */
	int err;	/* errno */
};

/* The child: into the cgroup, then argv; a failure goes up the pipe. */
static void __attribute__((noreturn)) child(struct command *c, char **argv, int status)
{
	struct start_failure f = { .moving = 1 };
	sigset_t none;

	/* the command gets the signal state a shell would give it */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (write(c->procs_fd, "0", 1) == 1) {
		f.moving = 0;
		execvp(argv[0], argv);
	}
	f.err = errno;
	/* the status is the parent's to give; a write that fails leaves it
	 * an incomplete message, which it says */
	_exit(write(status, &f, sizeof(f)) == sizeof(f) ? 127 : 1);
}

int command_start(struct command *c, char **argv, char *err, size_t n)
{
	struct start_failure f;
	int status[2];
	ssize_t got;

	/* closed by a successful exec: EOF; else the child's failure */
	if (pipe2(status, O_CLOEXEC)) {
		snprintf(err, n, "starting %s: %m", argv[0]);
		return 1;
	}
	c->pid = fork();
	if (!c->pid)
		child(c, argv, status[1]);
	close(status[1]);
	if (c->pid < 0) {
		snprintf(err, n, "starting %s: %m", argv[0]);
		close(status[0]);
		return 1;
	}
	do
		got = read(status[0], &f, sizeof(f));
	while (got < 0 && errno == EINTR);
	close(status[0]);
	if (!got)
		return 0;
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
	if (got != sizeof(f)) {
		snprintf(err, n, "starting %s: %s", argv[0],
			 got < 0 ? strerror(errno) : "it failed without saying why");
		return 1;
	}
	if (f.moving) {
		snprintf(err, n, "moving the command into %s: %s", c->cgroup,
			 strerror(f.err));
		return 1;
	}
	snprintf(err, n, "%s: %s", argv[0], strerror(f.err));
	return f.err == ENOENT ? 127 : 126;
}

int command_status(int ws)
{
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return WEXITSTATUS(ws);
}

/*
 * Moves the processes in the command's cgroup to pipestat's own: 1 if
 * there were any, 0 if none, -1 with errno. It reads cgroup.threads:
 * cgroup.procs cannot be read in a threaded cgroup, and a thread's id
 * written to cgroup.procs moves its whole process.
 */
static int move_out(struct command *c)
{
	int fd = openat(c->dir_fd, "cgroup.threads", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char id[16];
	int tid, moved = 0;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (moved >= 0 && fscanf(f, "%d", &tid) == 1) {
		snprintf(id, sizeof(id), "%d", tid);
		if (!write_at(c->parent_fd, "cgroup.procs", id))
			moved = 1;
		else if (errno != ESRCH)	/* ESRCH: it exited meanwhile */
			moved = -1;
	}
	fclose(f);
	return moved;
}

/* Removes the command's cgroup, what runs there moved out first; false
 * with errno if it stays. */
static bool remove_cgroup(struct command *c, bool *moved)
{
	for (int i = 0; i < MOVE_ROUNDS; i++) {
		int m;

		if (!unlinkat(c->parent_fd, c->name, AT_REMOVEDIR) || errno == ENOENT)
			return true;
		m = errno == EBUSY ? move_out(c) : -1;
		if (m < 0)
			return false;
		*moved |= m;
	}
	errno = EBUSY;	/* cgroups the command made in it */
	return false;
}

void command_cleanup(struct command *c)
{
	bool moved = false;

	if (c->procs_fd >= 0)
		close(c->procs_fd);
	if (c->cgroup[0] && !remove_cgroup(c, &moved))
		fprintf(stderr, "pipestat: %s left in place: %s\n", c->cgroup,
			strerror(errno));
	else if (moved)
		fprintf(stderr, "pipestat: what the command left running was moved to "
			"%s, pipestat's own cgroup\n", c->parent);
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	if (c->parent_fd >= 0)
		close(c->parent_fd);
	*c = (struct command)COMMAND_INIT;
}
