// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "blocked.h"
#include "os/cgroup.h"
#include "output/fmt.h"
#include "tune/pipe_resize.h"

/* A small /proc file into buf (NUL-terminated); its length, -1 if none.
 * /proc's own files: no link is followed on the way. */
static ssize_t read_proc(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, n - 1);
	close(fd);
	buf[len > 0 ? len : 0] = '\0';
	return len;
}

/* What a thread asleep in pipe function fn waits for (0: not a pipe wait). */
static __u32 wchan_kind(const char *fn)
{
	if (!strcmp(fn, "pipe_read") || !strcmp(fn, "anon_pipe_read"))
		return PT_SLEEP_READ;
	if (!strcmp(fn, "pipe_write") || !strcmp(fn, "anon_pipe_write"))
		return PT_SLEEP_WRITE;
	return 0;
}

/* The pipe wait thread dir (/proc/P/task/T) sleeps in, 0 if none. */
static __u32 task_kind(const char *dir)
{
	char path[96], fn[64];

	snprintf(path, sizeof(path), "%s/wchan", dir);
	return read_proc(path, fn, sizeof(fn)) > 0 ? wchan_kind(fn) : 0;
}

/* The thread's voluntary context switches (0 if not known). */
static unsigned long task_nvcsw(const char *dir)
{
	char path[96], buf[4096];
	const char *at;

	snprintf(path, sizeof(path), "%s/status", dir);
	if (read_proc(path, buf, sizeof(buf)) <= 0)
		return 0;
	at = strstr(buf, "\nvoluntary_ctxt_switches:");
	return at ? strtoul(at + strlen("\nvoluntary_ctxt_switches:"), NULL, 10) : 0;
}

/* The fd of the call the thread is in (its first argument), -1 if none:
 * the syscall file reads "NR ARG1 ..." ("running" for a running thread). */
static long task_call_fd(const char *dir)
{
	char path[96], buf[256], *end;
	unsigned long fd;
	long nr;

	snprintf(path, sizeof(path), "%s/syscall", dir);
	if (read_proc(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* "-1 SP PC": in no system call (an io_uring worker) */
	nr = strtol(buf, &end, 10);
	if (end == buf || *end != ' ' || nr < 0)
		return -1;
	fd = strtoul(end + 1, &end, 16);
	return end != buf && fd <= INT_MAX ? (long)fd : -1;
}

/* Process pid's descriptor fd, if a pipe or FIFO: its dev (the kernel's
 * dev_t) and inode into key. The fd link is the open file itself: stat()
 * resolves no path anyone could plant. */
static bool fd_pipe(__u32 pid, long fd, struct pt_key *key)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/fd/%ld", pid, fd);
	if (stat(path, &st) || !S_ISFIFO(st.st_mode))
		return false;
	key->dev = pipe_kdev(st.st_dev);
	key->ino = st.st_ino;
	return true;
}

/* Whether pid passes --cgroup (under dir, a cgroup2 directory's real
 * path); its cgroup id into *id for -k cgroup. */
static bool cgroup_passes(__u32 pid, const char *dir, bool want_id, __u64 *id)
{
	char path[PATH_MAX];
	size_t len = dir ? strlen(dir) : 0;
	struct stat st;

	if (!dir && !want_id)
		return true;
	if (!cgroup_of(pid, path, sizeof(path)))
		return false;
	if (dir && (strncmp(path, dir, len) || (path[len] && path[len] != '/')))
		return false;
	if (want_id)
		*id = stat(path, &st) ? 0 : st.st_ino;
	return true;
}

static bool pid_passes(__u32 pid, const struct pt_load_opts *o)
{
	if (pid == (__u32)getpid())
		return false;
	for (int i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return true;
	return !o->npids;
}

static int add(struct blocked_list *l, const struct blocked_task *t)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct blocked_task *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *t;
	return 0;
}

/* Thread tid of process pid, if asleep in a pipe call: into t. */
static bool task_blocked(__u32 pid, __u32 tid, const struct pt_load_opts *o,
			 struct blocked_task *t)
{
	char dir[64], path[96], comm[PT_COMM_LEN + 2];
	ssize_t len;
	long fd;

	snprintf(dir, sizeof(dir), "/proc/%u/task/%u", pid, tid);
	*t = (struct blocked_task){ .tid = tid, .key.tgid = pid };
	t->nvcsw = task_nvcsw(dir);
	t->kind = task_kind(dir);
	if (!t->kind || (fd = task_call_fd(dir)) < 0 || !fd_pipe(pid, fd, &t->key))
		return false;
	snprintf(path, sizeof(path), "%s/comm", dir);
	len = read_proc(path, comm, sizeof(comm));
	if (len <= 0)
		return false;
	comm[strcspn(comm, "\n")] = '\0';
	memcpy(t->key.comm, comm, strnlen(comm, PT_COMM_LEN));
	/* -n compares the thread's command, as the programs do */
	return (!o->comm[0] || !strncmp(o->comm, t->key.comm, PT_COMM_LEN)) &&
	       t->nvcsw == task_nvcsw(dir);
}

/* The threads of process pid asleep in a pipe call, into l. */
static int scan_process(struct blocked_list *l, __u32 pid, const struct pt_load_opts *o,
			const char *cgdir)
{
	char dir[64];
	struct dirent *f;
	__u64 cgid = 0;
	int err = 0;
	DIR *d;

	if (!pid_passes(pid, o) || !cgroup_passes(pid, cgdir, o->key_cgroup, &cgid))
		return 0;
	snprintf(dir, sizeof(dir), "/proc/%u/task", pid);
	d = opendir(dir);
	if (!d)
		return 0;	/* gone */
	while (!err && (f = readdir(d))) {
		struct blocked_task t;
		char *end;
		unsigned long tid = strtoul(f->d_name, &end, 10);

		if (*end || !tid || !task_blocked(pid, tid, o, &t))
			continue;
		t.key.cgroup = cgid;
		err = add(l, &t);
	}
	closedir(d);
	return err;
}

int blocked_scan(struct blocked_list *l, const struct pt_load_opts *o)
{
	char cgdir[PATH_MAX];
	struct dirent *f;
	int err = 0;
	DIR *d;

	l->n = 0;
	if (o->cgroup && !realpath(o->cgroup, cgdir))
		return 0;	/* gone: nothing passes */
	d = opendir("/proc");
	if (!d)
		return 0;
	while (!err && (f = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(f->d_name, &end, 10);

		if (!*end && pid)
			err = scan_process(l, pid, o, o->cgroup ? cgdir : NULL);
	}
	closedir(d);
	return err;
}

bool blocked_still(const struct blocked_task *t)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%u/task/%u", t->key.tgid, t->tid);
	return task_kind(dir) == t->kind && task_nvcsw(dir) == t->nvcsw;
}

void blocked_free(struct blocked_list *l)
{
	free(l->v);
	*l = (struct blocked_list){};
}

/* Whether fd (of /proc/PID/fd) is open for writing (or reading), from
 * its fdinfo's flags (octal). */
static bool fd_opened_for(__u32 pid, const char *fd, bool writing)
{
	char path[64 + NAME_MAX], buf[512];
	const char *at;
	unsigned long acc;

	snprintf(path, sizeof(path), "/proc/%u/fdinfo/%s", pid, fd);
	if (read_proc(path, buf, sizeof(buf)) <= 0 || !(at = strstr(buf, "flags:")))
		return false;
	acc = strtoul(at + strlen("flags:"), NULL, 8) & O_ACCMODE;
	return acc == O_RDWR || acc == (writing ? O_WRONLY : O_RDONLY);
}

/* Process pid's command, shown as in lists, into marked ("?" if gone). */
static void pid_comm(__u32 pid, char *marked)
{
	char path[64], comm[PT_COMM_LEN + 2];

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (read_proc(path, comm, sizeof(comm)) <= 0)
		strcpy(comm, "?");
	comm[strcspn(comm, "\n")] = '\0';
	fmt_comm_marked(marked, comm, PT_COMM_LEN);
}

/* Descriptor fd of process pid, a pipe: into the holders it is one of. */
static void add_holder(struct pipe_holders *q, size_t nq, __u32 pid, const char *fd,
		       const struct pt_key *k, char *marked)
{
	for (size_t i = 0; i < nq; i++) {
		size_t len = strlen(q[i].buf);

		if (q[i].pipe.ino != k->ino || q[i].pipe.dev != k->dev || q[i].last == pid ||
		    !fd_opened_for(pid, fd, q[i].writers))
			continue;
		if (!marked[0])
			pid_comm(pid, marked);
		q[i].last = pid;
		if (len < q[i].n)
			snprintf(q[i].buf + len, q[i].n - len, "%s%s[%u]", len ? "," : "",
				 marked, pid);
	}
}

/* Process pid's pipe descriptors, into the holders they are. */
static void scan_holders(struct pipe_holders *q, size_t nq, __u32 pid)
{
	char dir[64], marked[FMT_MARKED_LEN] = "";
	struct dirent *f;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%u/fd", pid);
	d = opendir(dir);
	while (d && (f = readdir(d))) {
		struct pt_key k = {};
		char *end;
		long fd = strtol(f->d_name, &end, 10);

		if (!*end && f->d_name[0] != '.' && fd_pipe(pid, fd, &k))
			add_holder(q, nq, pid, f->d_name, &k, marked);
	}
	if (d)
		closedir(d);
}

void blocked_ends(struct pipe_holders *q, size_t nq)
{
	struct dirent *f;
	DIR *d = nq ? opendir("/proc") : NULL;

	for (size_t i = 0; i < nq; i++) {
		q[i].buf[0] = '\0';
		q[i].last = 0;
	}
	while (d && (f = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(f->d_name, &end, 10);

		if (!*end && pid)
			scan_holders(q, nq, pid);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < nq; i++)
		if (!q[i].buf[0])
			snprintf(q[i].buf, q[i].n, "not found");
}
