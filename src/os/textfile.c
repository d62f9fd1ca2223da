// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "textfile.h"
#include "trusted_file.h"

/*
 * The directory, through no symbolic link: one in a directory another user
 * can write (or rename, as the owner of a parent can) could be pointed at
 * a directory of root's before we start. The kernel checks each step.
 */
static int open_dir(const char *dir)
{
	return open_nolinks(dir, O_RDONLY | O_DIRECTORY);
}

/* Kernel interfaces, not storage: a file there is a knob, never a copy. */
static bool interface_fs(int dirfd)
{
	static const __fsword_t magic[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC,
		CGROUP2_SUPER_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		SECURITYFS_MAGIC, SELINUX_MAGIC, BPF_FS_MAGIC, DEVPTS_SUPER_MAGIC,
		PSTOREFS_MAGIC, EFIVARFS_MAGIC, BINFMTFS_MAGIC,
	};
	struct statfs sfs;

	if (fstatfs(dirfd, &sfs))
		return false;
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (sfs.f_type == magic[i])
			return true;
	return false;
}

/* Why the directory is no place for the file, or NULL. */
static const char *dir_unfit(const struct textfile *t)
{
	if (interface_fs(t->dirfd))
		return "a kernel interface (procfs, sysfs and the like), "
		       "not storage";
	if (faccessat(t->dirfd, ".", W_OK | X_OK, AT_EACCESS))
		return strerror(errno);
	return NULL;
}

/* 0, or the errno that makes the target unsafe to replace */
static int target_check(const struct textfile *t)
{
	struct stat st;

	if (fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : errno;
	return S_ISREG(st.st_mode) ? 0 : EINVAL;
}

int textfile_open(struct textfile *t, const char *path, char *err, size_t n)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	const char *why;
	int e;

	t->dirfd = -1;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") ||
	    strlen(base) >= sizeof(t->name)) {
		snprintf(err, n, "--textfile '%s': want a file name", path);
		return -1;
	}
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else if ((size_t)(slash - path) >= sizeof(dir)) {
		snprintf(err, n, "--textfile '%s': %s", path, strerror(ENAMETOOLONG));
		return -1;
	} else {
		memcpy(dir, path, slash - path);
		dir[slash - path] = '\0';
	}
	strcpy(t->name, base);
	strcpy(t->dir, dir);
	t->dirfd = open_dir(dir);
	if (t->dirfd < 0 || fstat(t->dirfd, &t->st)) {
		snprintf(err, n, "--textfile %s: directory %s: %s", path, dir,
			 errno == ELOOP ? "a symbolic link on the way, which whoever "
			 "can write where it lies could point elsewhere: give the "
			 "real path" : strerror(errno));
		textfile_close(t);
		return -1;
	}
	why = dir_unfit(t);
	if (why) {
		snprintf(err, n, "--textfile %s: directory %s: %s", path, dir, why);
		textfile_close(t);
		return -1;
	}
	e = target_check(t);
	if (e) {
		snprintf(err, n, "--textfile %s: %s", path, e == EINVAL ?
			 "exists and is not a regular file (a link, FIFO or device "
			 "is never replaced)" : strerror(e));
		textfile_close(t);
		return -1;
	}
	return 0;
}

/* A new file in the directory that nobody else can have named first. */
static int create_temp(const struct textfile *t, char *name, size_t n)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned long long r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return -1;
		/* hidden and not *.prom: the collector never reads it */
		snprintf(name, n, ".%.200s.%016llx", t->name, r);
		fd = openat(t->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/*
 * Does the path still name the directory held? Renamed, removed or
 * swapped for a link, what we write there is no longer where it is
 * looked for. 0, -1 with errno, or TEXTFILE_STOP.
 */
static int dir_moved(struct textfile *t)
{
	int fd = open_dir(t->dir);
	struct stat st;
	int err;

	if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
		return -1;
	err = fd < 0 || fstat(fd, &st) || st.st_dev != t->st.st_dev ||
	      st.st_ino != t->st.st_ino;
	if (fd >= 0)
		close(fd);
	if (!err)
		return 0;
	snprintf(t->why, sizeof(t->why), "directory %s is no longer the one "
		 "opened at start (renamed, removed or replaced): stopping", t->dir);
	return TEXTFILE_STOP;
}

int textfile_replace(struct textfile *t, int (*fill)(FILE *f, const void *arg),
		     const void *arg)
{
	char tmp[NAME_MAX + 1];
	int e, fd, err;
	FILE *f;

	err = dir_moved(t);
	if (err)
		return err;
	e = target_check(t);
	if (e) {
		errno = e;
		return -1;
	}
	fd = create_temp(t, tmp, sizeof(tmp));
	if (fd < 0)
		return -1;
	/* readable by the collector whatever our umask */
	err = fchmod(fd, 0644);
	f = err ? NULL : fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		goto fail;
	}
	err = fill(f, arg) || fflush(f) || fsync(fd);
	e = errno;
	if (fclose(f) || err) {
		e = err ? e : errno;
		goto fail;
	}
	if (renameat(t->dirfd, tmp, t->dirfd, t->name)) {
		e = errno;
		goto fail;
	}
	fsync(t->dirfd);	/* the rename itself durable; best effort */
	return 0;
fail:
	if (unlinkat(t->dirfd, tmp, 0) && errno != ENOENT) {
		/* else one more left each interval (an append-only directory) */
		snprintf(t->why, sizeof(t->why), "writing failed (%s) and "
			 "%s/%s cannot be removed (%s: an append-only directory?): "
			 "stopping", strerror(e), t->dir, tmp, strerror(errno));
		return TEXTFILE_STOP;
	}
	errno = e;
	return -1;
}

void textfile_close(struct textfile *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}
