// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "cli/cli.h"
#include "output/fmt.h"
#include "model/metrics.h"
#include "pipe_resize.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL	/* Linux 6.9: a pidfd on one thread */
#endif

/* Candidates named when a bare INO is on more than one device */
#define HOLDER_DEVS	8

long pipe_size_parse(const char *s)
{
	static const char units[] = "kmg";
	char *end;
	const char *u;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v <= 0)
		return -1;
	if (*end && (u = strchr(units, tolower((unsigned char)*end))) && !end[1]) {
		for (long i = 0; i <= u - units; i++) {
			if (v > PIPE_SIZE_MAX / 1024)
				return -1;
			v *= 1024;
		}
	} else if (*end) {
		return -1;
	}
	return v <= PIPE_SIZE_MAX ? v : -1;
}

/* s, all of it decimal digits, into v */
static bool digits(const char *s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* "PID:FD", "MAJ:MIN:INO" or "INO" (pipe:[...] stripped): the fields */
static bool parse_fields(char *s, bool ino_only, struct pipe_ref *ref)
{
	unsigned long long v[3];
	int nf = 0;

	while (s && nf < 3)
		if (!digits(strsep(&s, ":"), &v[nf++]))
			return false;
	if (s || (ino_only && nf != 1))
		return false;
	switch (nf) {
	case 1:
		ref->ino = v[0];
		return ref->ino;
	case 2:
		ref->pid = ref->tid = v[0] <= 1UL << 22 ? v[0] : 0;
		ref->fd = v[1] <= 1UL << 30 ? (int)v[1] : -1;
		return ref->pid > 0 && ref->fd >= 0;
	}
	/* the kernel's dev_t: 12 bits of major, 20 of minor (fmt_dev) */
	ref->dev = v[0] < 1 << 12 && v[1] < 1 << 20 ? v[0] << 20 | v[1] : 0;
	ref->ino = v[2];
	return ref->dev && ref->ino;
}

bool resize_parse(const char *arg, struct pipe_ref *ref, long *size,
		  char *err, size_t n)
{
	const char *eq = strrchr(arg, '=');
	char pipe[64], *s = pipe;
	size_t len;
	bool bracket;

	memset(ref, 0, sizeof(*ref));
	if (!eq || (size_t)(eq - arg) >= sizeof(pipe) ||
	    (*size = pipe_size_parse(eq + 1)) < 0)
		goto bad;
	snprintf(pipe, sizeof(pipe), "%.*s", (int)(eq - arg), arg);
	/* "pipe:[INO]", as /proc/PID/fd shows it */
	len = strlen(pipe);
	bracket = !strncmp(pipe, "pipe:[", 6) && pipe[len - 1] == ']';
	if (bracket) {
		pipe[len - 1] = '\0';
		s += 6;
	}
	if (parse_fields(s, bracket, ref))
		return true;
bad:
	snprintf(err, n, "invalid --resize '%s': want PIPE=SIZE, PIPE a PID:FD "
		 "or the pipe's DEV:INO (pipe_dev:pipe_ino, e.g. 0:15:812345), "
		 "SIZE bytes up to 2G (k, M, G: KiB, MiB, GiB), e.g. 1234:3=1M", arg);
	return false;
}

struct pipe_ref pipe_ref_of(const struct pt_key *key)
{
	return (struct pipe_ref){ .dev = key->dev, .ino = key->ino };
}

void pipe_ref_name(char *buf, size_t n, const struct pipe_ref *ref)
{
	if (ref->dev)
		fmt_pipe(buf, n, ref->dev, ref->ino);
	else
		snprintf(buf, n, "%llu", ref->ino);
}

/* "pid 45 fd 3", "pid 45 tid 47 fd 3" */
static void holder_name(char *buf, size_t n, const struct pipe_ref *ref)
{
	if (ref->tid != ref->pid)
		snprintf(buf, n, "pid %d tid %d fd %d", ref->pid, ref->tid, ref->fd);
	else
		snprintf(buf, n, "pid %d fd %d", ref->pid, ref->fd);
}

/* "process 45", "thread 47 of process 45" */
static void task_name(char *buf, size_t n, const struct pipe_ref *ref)
{
	if (ref->tid != ref->pid)
		snprintf(buf, n, "thread %d of process %d", ref->tid, ref->pid);
	else
		snprintf(buf, n, "process %d", ref->pid);
}

__u32 pipe_kdev(dev_t dev)
{
	return major(dev) << 20 | minor(dev);
}

/* The first holder found on each device with the pipe's inode. */
struct holders {
	struct pipe_ref on[HOLDER_DEVS];
	int n;
};

/* A device given: its first holder will do; a bare INO: all devices */
static bool enough(const struct pipe_ref *ref, const struct holders *h)
{
	return (ref->dev && h->n) || h->n == HOLDER_DEVS;
}

static bool dev_seen(const struct holders *h, __u32 dev)
{
	for (int i = 0; i < h->n; i++)
		if (h->on[i].dev == dev)
			return true;
	return false;
}

/* An O_PATH descriptor, by the flags in task's fdinfo: it names a FIFO
 * without opening it, so stat shows a FIFO and no pipe is there */
static bool fd_is_path(int task, int fd)
{
	char path[32], info[256];
	const char *flags;
	ssize_t len = -1;
	int f;

	snprintf(path, sizeof(path), "fdinfo/%d", fd);
	if ((f = openat(task, path, O_RDONLY | O_CLOEXEC)) >= 0) {
		len = read(f, info, sizeof(info) - 1);
		close(f);
	}
	if (len <= 0)
		return false;	/* gone: taking it says so */
	info[len] = '\0';
	flags = strstr(info, "flags:");
	return flags && strtoul(flags + 6, NULL, 8) & O_PATH;
}

/* Task's (/proc/PID/task/TID) descriptors on ref's pipe into h */
static void scan_fds(int task, pid_t pid, pid_t tid, const struct pipe_ref *ref,
		     struct holders *h)
{
	int dir = openat(task, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *fds = dir >= 0 ? fdopendir(dir) : NULL;
	struct dirent *f;
	struct stat st;

	if (!fds) {
		if (dir >= 0)
			close(dir);
		return;		/* gone, or not ours to see */
	}
	while (!enough(ref, h) && (f = readdir(fds))) {
		if (f->d_name[0] == '.' || fstatat(dir, f->d_name, &st, 0) ||
		    !S_ISFIFO(st.st_mode) || st.st_ino != ref->ino ||
		    (ref->dev && pipe_kdev(st.st_dev) != ref->dev) ||
		    dev_seen(h, pipe_kdev(st.st_dev)) || fd_is_path(task, atoi(f->d_name)))
			continue;
		h->on[h->n++] = (struct pipe_ref){ .pid = pid, .tid = tid,
			.fd = atoi(f->d_name), .dev = pipe_kdev(st.st_dev), .ino = ref->ino };
	}
	closedir(fds);
}

/* Every thread's table, not only the process's: a thread may hold a
 * pipe its leader does not (the leader exited, or the thread unshared
 * its table) */
static void scan_tasks(pid_t pid, const struct pipe_ref *ref, struct holders *h)
{
	char path[32];
	struct dirent *t;
	DIR *tasks;
	int task;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(tasks = opendir(path)))
		return;
	while (!enough(ref, h) && (t = readdir(tasks))) {
		long tid = cli_long(t->d_name, 1, 1L << 22);

		if (tid < 0 || (task = openat(dirfd(tasks), t->d_name,
					      O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		scan_fds(task, pid, tid, ref, h);
		close(task);
	}
	closedir(tasks);
}

/*
 * The holder to take ref's pipe from: the first process (not this one)
 * found with it; a bare INO held on two devices is refused, listing them.
 */
static bool find_holder(struct pipe_ref *ref, char *err, size_t n)
{
	DIR *proc = opendir("/proc");
	struct holders h = { .n = 0 };
	char name[48], who[48];
	struct dirent *p;
	int len;

	while (proc && !enough(ref, &h) && (p = readdir(proc))) {
		long pid = cli_long(p->d_name, 1, 1L << 22);

		if (pid > 0 && pid != getpid())
			scan_tasks(pid, ref, &h);
	}
	if (proc)
		closedir(proc);
	pipe_ref_name(name, sizeof(name), ref);
	if (h.n == 1) {
		*ref = h.on[0];
		return true;
	}
	if (!h.n) {
		snprintf(err, n, "no process holds pipe %s that this user can see "
			 "(gone?)", name);
		return false;
	}
	len = snprintf(err, n, "pipe %s is ambiguous: that inode is on %d devices,",
		       name, h.n);
	for (int i = 0; i < h.n && len >= 0 && (size_t)len < n; i++) {
		pipe_ref_name(name, sizeof(name), &h.on[i]);
		holder_name(who, sizeof(who), &h.on[i]);
		len += snprintf(err + len, n - len, " %s (%s)%s", name, who,
				i + 1 < h.n ? "," : "; name one as DEV:INO");
	}
	return false;
}

/* A pidfd on task tid: PIDFD_THREAD reaches any thread's table; a kernel
 * without it (before 6.9) reaches only a process's */
static int task_pidfd(pid_t tid)
{
	int pidfd = pidfd_open(tid, PIDFD_THREAD);

	if (pidfd < 0 && errno == EINVAL)
		pidfd = pidfd_open(tid, 0);
	return pidfd;
}

/* call's failure (errno e) to reach ref's task, in one line; alive: the
 * task is there though call said ESRCH */
static void reach_error(const struct pipe_ref *ref, const char *call, int e,
			bool alive, char *err, size_t n)
{
	const char *why = strerror(e), *hint = "";
	char who[48];

	task_name(who, sizeof(who), ref);
	if (e == ESRCH && !alive) {
		snprintf(err, n, "no %s (gone): %s: %s", who, call, why);
		return;
	}
	if (e == EBADF) {
		snprintf(err, n, "%s has no descriptor %d (the pipe is gone%s): %s: %s",
			 who, ref->fd, ref->tid == ref->pid ? ", or a thread of its "
			 "holds it alone: name the pipe as DEV:INO" : "", call, why);
		return;
	}
	if (e == EPERM)
		hint = " (it needs ptrace access: the same user, or CAP_SYS_PTRACE)";
	else if (e == EINVAL)
		hint = " (a thread's pidfd needs PIDFD_THREAD, Linux 6.9)";
	else if (e == ESRCH)
		hint = ", yet it runs (this kernel's pidfd_getfd takes no thread's pidfd)";
	snprintf(err, n, "cannot reach %s: %s: %s%s", who, call, why, hint);
}

/*
 * What pidfd_getfd() gave, checked after the fact (the holder may have
 * changed its descriptor since it was found): an open pipe, not an
 * O_PATH descriptor (stat shows a FIFO through one), and the pipe wanted.
 * Sets ref's dev and ino.
 */
static bool is_open_pipe(int fd, struct pipe_ref *ref, char *err, size_t n)
{
	int flags = fcntl(fd, F_GETFL);
	char who[48], name[48];
	struct stat st;

	task_name(who, sizeof(who), ref);
	pipe_ref_name(name, sizeof(name), ref);
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode))
		snprintf(err, n, "%s fd %d is not a pipe or FIFO", who, ref->fd);
	else if (flags < 0 || flags & O_PATH)
		snprintf(err, n, "%s fd %d is an O_PATH descriptor, not an open "
			 "pipe: refused", who, ref->fd);
	else if (fcntl(fd, F_GETPIPE_SZ) < 0)
		snprintf(err, n, "%s fd %d: F_GETPIPE_SZ: %s: not an open pipe",
			 who, ref->fd, strerror(errno));
	else if (ref->ino && (st.st_ino != ref->ino ||
			      (ref->dev && pipe_kdev(st.st_dev) != ref->dev)))
		snprintf(err, n, "%s fd %d is not pipe %s (any more)", who, ref->fd,
			 name);
	else {
		ref->dev = pipe_kdev(st.st_dev);
		ref->ino = st.st_ino;
		return true;
	}
	return false;
}

/* Our own descriptor on ref's pipe: pidfd_getfd() (PTRACE_MODE_ATTACH on
 * the holder), the only way: no open of /proc/PID/fd/N */
static int take_fd(struct pipe_ref *ref, char *err, size_t n)
{
	int pidfd = task_pidfd(ref->tid), fd, e;

	if (pidfd < 0) {
		reach_error(ref, "pidfd_open", errno, false, err, n);
		return -1;
	}
	fd = pidfd_getfd(pidfd, ref->fd, 0);
	e = errno;
	/* ESRCH from a live thread: a kernel whose pidfd_getfd resolves
	 * only processes' pidfds */
	if (fd < 0)
		reach_error(ref, "pidfd_getfd", e, e == ESRCH &&
			    !pidfd_send_signal(pidfd, 0, NULL, 0), err, n);
	close(pidfd);
	if (fd >= 0 && !is_open_pipe(fd, ref, err, n)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* /proc/sys/fs/NAME, -1 if unreadable */
static long fs_sysctl(const char *name)
{
	char path[64];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "/proc/sys/fs/%s", name);
	if (!(f = fopen(path, "r")))
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* What F_SETPIPE_SZ makes of size: a power of two pages */
static long round_pipe_size(long size)
{
	long r = sysconf(_SC_PAGESIZE);

	while (r < size)
		r <<= 1;
	return r;
}

/* F_SETPIPE_SZ's failure on pipe name, errno as it left it, in one line */
static void setsz_error(const char *name, long size, int queued, char *err,
			size_t n)
{
	long max;

	if (errno == EBUSY) {
		snprintf(err, n, "cannot shrink pipe %s to %ld bytes: the %d bytes "
			 "in its ring take more slots than that (EBUSY)", name,
			 size, queued);
	} else if (errno == EPERM && (max = fs_sysctl("pipe-max-size")) > 0 &&
		   round_pipe_size(size) > max) {
		snprintf(err, n, "cannot grow pipe %s to %ld bytes: above "
			 "fs.pipe-max-size (%ld) without CAP_SYS_RESOURCE (EPERM)",
			 name, size, max);
	} else if (errno == EPERM) {
		snprintf(err, n, "cannot grow pipe %s to %ld bytes: its owner "
			 "holds more pipe pages than fs.pipe-user-pages-soft allows, "
			 "and growing it then needs CAP_SYS_RESOURCE (EPERM)",
			 name, size);
	} else {
		snprintf(err, n, "resizing pipe %s to %ld bytes: %s", name,
			 size, strerror(errno));
	}
}

/* The holder's real uid and gid (/proc/PID/task/TID/status); -1: gone */
static long holder_uid(const struct pipe_ref *ref, gid_t *gid)
{
	char path[64], line[128];
	long uid = -1, g = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", ref->pid, ref->tid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld", &uid) != 1)
			sscanf(line, "Gid: %ld", &g);
	fclose(f);
	*gid = g;
	return g < 0 ? -1 : uid;
}

/*
 * The slots a new pipe of uid's gets now, asked of the kernel by making
 * one as uid (a child that drops to uid and gid): PT_DEFAULT_SLOTS, or
 * PT_QUOTA_SLOTS once uid's pipe pages are over fs.pipe-user-pages-soft;
 * 0 when none can be made (fs.pipe-user-pages-hard); -1 when it could
 * not ask (no CAP_SETUID).
 */
static int new_pipe_slots(uid_t uid, gid_t gid)
{
	int status, p[2];
	pid_t child = fork();

	if (child == 0) {
		if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
		    setresuid(uid, uid, uid))
			_exit(255);
		_exit(pipe(p) ? 0 : fcntl(p[0], F_GETPIPE_SZ) / sysconf(_SC_PAGESIZE));
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

/* fd's pipe to size bytes, what it did in done: 0, or -1 with why in err */
static int set_size(int fd, long size, struct pipe_resized *done, char *err,
		    size_t n)
{
	int queued = 0;
	char name[48];
	gid_t gid = 0;
	bool charge;

	pipe_ref_name(name, sizeof(name), &done->ref);
	done->before = fcntl(fd, F_GETPIPE_SZ);
	if (done->before < 0 || ioctl(fd, FIONREAD, &queued)) {
		snprintf(err, n, "reading pipe %s's size: %s", name, strerror(errno));
		return -1;
	}
	/* the kernel refuses by slots; the bytes are what a user can check */
	if (queued > round_pipe_size(size)) {
		snprintf(err, n, "will not shrink pipe %s to %ld bytes: its ring "
			 "holds %d bytes of data", name, size, queued);
		return -1;
	}
	/* growing another user's pipe charges that user's quota, not ours */
	done->uid = holder_uid(&done->ref, &gid);
	charge = round_pipe_size(size) > done->before && done->uid >= 0 &&
		 done->uid != getuid();
	done->slots_before = charge ? new_pipe_slots(done->uid, gid) : -1;
	done->after = fcntl(fd, F_SETPIPE_SZ, (unsigned int)size);
	if (done->after < 0) {
		setsz_error(name, size, queued, err, n);
		return -1;
	}
	if (fcntl(fd, F_GETPIPE_SZ) != done->after) {
		snprintf(err, n, "pipe %s: F_GETPIPE_SZ does not confirm the %ld "
			 "bytes F_SETPIPE_SZ gave", name, done->after);
		return -1;
	}
	done->slots_after = charge ? new_pipe_slots(done->uid, gid) : -1;
	return 0;
}

int pipe_resize(const struct pipe_ref *ref, long size, struct pipe_resized *done,
		char *err, size_t n)
{
	int fd, rc;

	memset(done, 0, sizeof(*done));
	done->ref = *ref;
	if (!ref->pid && !find_holder(&done->ref, err, n))
		return -1;
	if ((fd = take_fd(&done->ref, err, n)) < 0)
		return -1;
	rc = set_size(fd, size, done, err, n);
	close(fd);
	return rc;
}

void resize_describe(char *buf, size_t n, const struct pipe_resized *done)
{
	long page = sysconf(_SC_PAGESIZE);
	char name[48], who[48];

	pipe_ref_name(name, sizeof(name), &done->ref);
	holder_name(who, sizeof(who), &done->ref);
	snprintf(buf, n, "pipe %s (%s, pidfd_getfd): %ld -> %ld bytes (%ld -> %ld "
		 "slots), confirmed by F_GETPIPE_SZ", name, who, done->before,
		 done->after, done->before / page, done->after / page);
}

bool resize_charge(char *buf, size_t n, const struct pipe_resized *done)
{
	long page = sysconf(_SC_PAGESIZE), uid = done->uid;
	int b = done->slots_before, a = done->slots_after, len;
	const char *limit = a ? "pipe-user-pages-soft" : "pipe-user-pages-hard";
	char fate[32] = "fail";

	if (a == -1 && b == -1)
		return false;	/* not grown, or the user's own pipe */
	len = snprintf(buf, n, "uid %ld is charged %ld more pipe pages", uid,
		       (done->after - done->before) / page);
	if (len < 0 || (size_t)len >= n)
		return true;
	if (a > 0)
		snprintf(fate, sizeof(fate), "get %d slots", a);
	if (a < 0 || b < 0)
		len += snprintf(buf + len, n - len, "; whether that takes it over "
				"fs.pipe-user-pages-soft (%ld) is unknown: a pipe made "
				"as uid %ld would tell, which needs CAP_SETUID",
				fs_sysctl("pipe-user-pages-soft"), uid);
	else if (a >= PT_DEFAULT_SLOTS)
		len += snprintf(buf + len, n - len, ", within "
				"fs.pipe-user-pages-soft (%ld): its new pipes still %s",
				fs_sysctl(limit), fate);
	else
		len += snprintf(buf + len, n - len, ", %s fs.%s (%ld): its new "
				"pipes %s%s", a == b ? "over" : "which takes it over",
				limit, fs_sysctl(limit), fate, a == b ? " already" : "");
	if (len >= 0 && (size_t)len < n)
		snprintf(buf + len, n - len, " (uid %ld is the holder's real uid: "
			 "the kernel charges the pipe's creator, which it does not "
			 "show)", uid);
	return true;
}
