// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include "cli.h"
#include "pipe_resize.h"

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

bool resize_parse(const char *arg, struct pipe_ref *ref, long *size,
		  char *err, size_t n)
{
	const char *eq = strrchr(arg, '=');
	char pipe[64], *colon, *end;
	int len = 0;

	memset(ref, 0, sizeof(*ref));
	if (!eq || (size_t)(eq - arg) >= sizeof(pipe) ||
	    (*size = pipe_size_parse(eq + 1)) < 0)
		goto bad;
	snprintf(pipe, sizeof(pipe), "%.*s", (int)(eq - arg), arg);
	if ((colon = strchr(pipe, ':')) && !strncmp(pipe, "pipe:[", 6)) {
		/* as /proc/PID/fd shows it */
		if (sscanf(pipe, "pipe:[%llu]%n", &ref->ino, &len) == 1 && !pipe[len] &&
		    ref->ino)
			return true;
	} else if (colon) {
		*colon = '\0';
		ref->pid = cli_long(pipe, 1, 1L << 22);
		ref->fd = cli_long(colon + 1, 0, 1L << 30);
		if (ref->pid > 0 && ref->fd >= 0)
			return true;
	} else if (isdigit((unsigned char)pipe[0])) {
		errno = 0;
		ref->ino = strtoull(pipe, &end, 10);
		if (!errno && !*end && ref->ino)
			return true;
	}
bad:
	snprintf(err, n, "invalid --resize '%s': want PIPE=SIZE, PIPE a PID:FD "
		 "or the pipe's inode (pipe_ino), SIZE bytes up to 2G (k, M, G: "
		 "KiB, MiB, GiB), e.g. 1234:3=1M", arg);
	return false;
}

/* The first process (not this one) with a descriptor on pipe ino. */
static bool find_holder(struct pipe_ref *ref)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *f;
	char path[64];
	struct stat st;

	while (proc && (p = readdir(proc))) {
		long pid = cli_long(p->d_name, 1, 1L << 22);

		if (pid < 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
		if (!(fds = opendir(path)))
			continue;	/* gone, or not ours to see */
		while ((f = readdir(fds))) {
			if (f->d_name[0] == '.' ||
			    fstatat(dirfd(fds), f->d_name, &st, 0) ||
			    !S_ISFIFO(st.st_mode) || st.st_ino != ref->ino)
				continue;
			ref->pid = pid;
			ref->fd = atoi(f->d_name);
			break;
		}
		closedir(fds);
		if (ref->pid)
			break;
	}
	if (proc)
		closedir(proc);
	return ref->pid;
}

/*
 * Our own descriptor on ref's pipe: pidfd_getfd() (PTRACE_MODE_ATTACH on
 * the holder), else an open of /proc/PID/fd/N (PTRACE_MODE_READ, and the
 * pipe's own permissions; it counts as one more reader while open).
 */
static int take_fd(struct pipe_ref *ref, struct pipe_resized *done, char *err,
		   size_t n)
{
	int pidfd = pidfd_open(ref->pid, 0), fd = -1;
	char path[64];
	struct stat st;

	if (pidfd >= 0) {
		fd = pidfd_getfd(pidfd, ref->fd, 0);
		done->getfd_errno = errno;
		close(pidfd);
	} else {
		done->getfd_errno = errno;
	}
	if (fd < 0 && done->getfd_errno == ESRCH) {
		snprintf(err, n, "no process %d (gone)", ref->pid);
		return -1;
	}
	if (fd < 0 && done->getfd_errno == EBADF) {
		snprintf(err, n, "process %d has no descriptor %d (the pipe is gone)",
			 ref->pid, ref->fd);
		return -1;
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", ref->pid, ref->fd);
		done->via_proc = true;
		if (stat(path, &st) || !S_ISFIFO(st.st_mode) ||
		    (fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			if (errno == ENOENT)
				snprintf(err, n, "process %d has no descriptor %d (the "
					 "pipe is gone)", ref->pid, ref->fd);
			else if (errno == EACCES || errno == EPERM)
				snprintf(err, n, "cannot reach process %d: pidfd_getfd: "
					 "%s; %s: %s", ref->pid,
					 strerror(done->getfd_errno), path, strerror(errno));
			else
				snprintf(err, n, "process %d fd %d is not a pipe or FIFO",
					 ref->pid, ref->fd);
			return -1;
		}
	}
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) ||
	    (ref->ino && st.st_ino != ref->ino)) {
		snprintf(err, n, "process %d fd %d is not %s", ref->pid, ref->fd,
			 ref->ino ? "that pipe (any more)" : "a pipe or FIFO");
		close(fd);
		return -1;
	}
	ref->ino = st.st_ino;
	return fd;
}

static long pipe_max_size(void)
{
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");
	long v = -1;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
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

/* F_SETPIPE_SZ's failure, errno as it left it, in one line */
static void setsz_error(const struct pipe_ref *ref, long size, int queued,
			char *err, size_t n)
{
	long max;

	if (errno == EBUSY) {
		snprintf(err, n, "cannot shrink pipe %llu to %ld bytes: the %d bytes "
			 "in its ring take more slots than that (EBUSY)", ref->ino,
			 size, queued);
	} else if (errno == EPERM && (max = pipe_max_size()) > 0 &&
		   round_pipe_size(size) > max) {
		snprintf(err, n, "cannot grow pipe %llu to %ld bytes: above "
			 "fs.pipe-max-size (%ld) without CAP_SYS_RESOURCE (EPERM)",
			 ref->ino, size, max);
	} else if (errno == EPERM) {
		snprintf(err, n, "cannot grow pipe %llu to %ld bytes: its owner "
			 "holds more pipe pages than fs.pipe-user-pages-soft allows, "
			 "and growing it then needs CAP_SYS_RESOURCE (EPERM)",
			 ref->ino, size);
	} else {
		snprintf(err, n, "resizing pipe %llu to %ld bytes: %s", ref->ino,
			 size, strerror(errno));
	}
}

int pipe_resize(const struct pipe_ref *ref, long size, struct pipe_resized *done,
		char *err, size_t n)
{
	int fd, queued = 0;

	memset(done, 0, sizeof(*done));
	done->ref = *ref;
	if (!ref->pid && !find_holder(&done->ref)) {
		snprintf(err, n, "no process holds pipe %llu that this user can see "
			 "(gone?)", ref->ino);
		return -1;
	}
	if ((fd = take_fd(&done->ref, done, err, n)) < 0)
		return -1;
	done->before = fcntl(fd, F_GETPIPE_SZ);
	if (done->before < 0 || ioctl(fd, FIONREAD, &queued)) {
		snprintf(err, n, "reading pipe %llu's size: %s", done->ref.ino,
			 strerror(errno));
		goto fail;
	}
	/* the kernel refuses by slots; the bytes are what a user can check */
	if (queued > round_pipe_size(size)) {
		snprintf(err, n, "will not shrink pipe %llu to %ld bytes: its ring "
			 "holds %d bytes of data", done->ref.ino, size, queued);
		goto fail;
	}
	done->after = fcntl(fd, F_SETPIPE_SZ, (unsigned int)size);
	if (done->after < 0) {
		setsz_error(&done->ref, size, queued, err, n);
		goto fail;
	}
	if (fcntl(fd, F_GETPIPE_SZ) != done->after) {
		snprintf(err, n, "pipe %llu: F_GETPIPE_SZ does not confirm the %ld "
			 "bytes F_SETPIPE_SZ gave", done->ref.ino, done->after);
		goto fail;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

void resize_describe(char *buf, size_t n, const struct pipe_resized *done)
{
	long page = sysconf(_SC_PAGESIZE);
	int len;

	len = snprintf(buf, n, "pipe %llu (pid %d fd %d, ", done->ref.ino,
		       done->ref.pid, done->ref.fd);
	if (len >= 0 && (size_t)len < n && done->via_proc)
		len += snprintf(buf + len, n - len, "through /proc/%d/fd/%d: "
				"pidfd_getfd: %s", done->ref.pid, done->ref.fd,
				strerror(done->getfd_errno));
	else if (len >= 0 && (size_t)len < n)
		len += snprintf(buf + len, n - len, "pidfd_getfd");
	if (len >= 0 && (size_t)len < n)
		snprintf(buf + len, n - len, "): %ld -> %ld bytes (%ld -> %ld slots), "
			 "confirmed by F_GETPIPE_SZ", done->before, done->after,
			 done->before / page, done->after / page);
}
