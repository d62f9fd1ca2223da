// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include "trusted_file.h"

int open_nolinks(const char *path, int flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};

	return syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

static bool ours(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* why path (a directory on the way, or the file) is not to be trusted */
static bool check(const char *path, const struct stat *st, const struct stat *child,
		  char *err, size_t n)
{
	if (!ours(st)) {
		snprintf(err, n, "%s belongs to uid %u (neither root nor us)", path,
			 st->st_uid);
		return false;
	}
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	if (child && (st->st_mode & S_ISVTX) && ours(child))
		return true;
	snprintf(err, n, "%s is writable by others (mode %04o): they could "
		 "change or swap the file", path, st->st_mode & 07777);
	return false;
}

/* the file and every directory above it, on the path without links */
static bool path_trusted(const char *real, struct stat *file, char *err, size_t n)
{
	char dir[PATH_MAX];
	struct stat st, child;
	char *slash;

	if (lstat(real, file)) {
		snprintf(err, n, "%s", strerror(errno));
		return false;
	}
	if (!S_ISREG(file->st_mode)) {
		snprintf(err, n, "%s is not a regular file", real);
		return false;
	}
	if (!check(real, file, NULL, err, n))
		return false;
	snprintf(dir, sizeof(dir), "%s", real);
	child = *file;
	while ((slash = strrchr(dir, '/'))) {
		slash[slash == dir] = '\0';	/* "/a" -> "/", "/a/b" -> "/a" */
		if (lstat(dir, &st)) {
			snprintf(err, n, "%s: %s", dir, strerror(errno));
			return false;
		}
		if (!check(dir, &st, &child, err, n))
			return false;
		if (!strcmp(dir, "/"))
			break;
		child = st;
	}
	return true;
}

char *trusted_read(const char *path, size_t max, size_t *len, char *err, size_t n)
{
	struct stat file, st;
	char *real, *buf = NULL;
	ssize_t got = 0;
	int fd = -1;

	/* a link on the way could be planted where others write: none */
	fd = open_nolinks(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, n, "%s", errno == ELOOP ?
			 "goes through a symbolic link: give the path it points to" :
			 strerror(errno));
		return NULL;
	}
	real = realpath(path, NULL);
	if (!real || fstat(fd, &st)) {
		snprintf(err, n, "%s", strerror(errno));
		goto out;
	}
	if (!path_trusted(real, &file, err, n))
		goto out;
	if (st.st_dev != file.st_dev || st.st_ino != file.st_ino) {
		snprintf(err, n, "%s was replaced while it was checked", real);
		goto out;
	}
	if ((size_t)st.st_size > max) {
		snprintf(err, n, "larger than %zu bytes", max);
		goto out;
	}
	buf = malloc(st.st_size + 1);
	if (!buf || (got = read(fd, buf, st.st_size)) != st.st_size) {
		snprintf(err, n, "%s", got < 0 || !buf ? strerror(errno) : "changed while read");
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[got] = '\0';
	*len = got;
out:
	if (fd >= 0)
		close(fd);
	free(real);
	return buf;
}
