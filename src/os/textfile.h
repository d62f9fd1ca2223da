/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file replaced whole, safely as root in a directory others may write
 * (node_exporter's textfile collector): the directory is opened once,
 * through no symbolic link, and held (once its path names another, it
 * stops), each version is written to a new file created there exclusively
 * (O_CREAT|O_EXCL|O_NOFOLLOW, a random hidden name), synced, then renamed
 * over the target. A planted symlink, FIFO or device is never opened; a
 * target that exists and is not a regular file is refused, not replaced.
 */
#ifndef TEXTFILE_H
#define TEXTFILE_H

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

struct textfile {
	int dirfd;
	struct stat st;			/* dirfd's, to see it moved */
	char dir[PATH_MAX];		/* its path, as given */
	char name[NAME_MAX + 1];	/* the target, in dirfd */
	char why[PATH_MAX + NAME_MAX + 256];	/* after TEXTFILE_STOP */
};

/* textfile_replace() cannot go on: the file would be written nowhere
 * anyone reads, or leave litter each time; t->why says which. */
#define TEXTFILE_STOP (-2)

/*
 * Opens path's directory and checks it (writable storage, not procfs or
 * sysfs) and the target; -1 with a one-line reason in err (naming path)
 * if it cannot be written that way.
 */
int textfile_open(struct textfile *t, const char *path, char *err, size_t n);
/*
 * A new version of the file: fill(f, arg) writes it; 0, or -1 with errno
 * (EINVAL if the target is no longer a regular file) and the target as it
 * was, or TEXTFILE_STOP.
 */
int textfile_replace(struct textfile *t, int (*fill)(FILE *f, const void *arg),
		     const void *arg);
void textfile_close(struct textfile *t);

#endif
