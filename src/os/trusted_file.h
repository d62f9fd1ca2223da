/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a file root can trust: one that no user but root and the one
 * we run as could have put in place or changed. The file and each
 * directory on its real path must belong to root or to us and must not
 * be writable by group or others; a sticky directory that others write
 * (/tmp) is fine where the entry in it is root's or ours, since then
 * nobody else can rename or remove it. No symbolic link is followed on
 * the way: one in a directory another user writes could be swapped.
 */
#ifndef TRUSTED_FILE_H
#define TRUSTED_FILE_H

#include <stddef.h>

/*
 * The whole regular file at path (at most max bytes, NUL-terminated, free
 * it); its length in *len. NULL with a one-line reason in err.
 */
/* open(2) of path through no symbolic link (openat2 RESOLVE_NO_SYMLINKS) */
int open_nolinks(const char *path, int flags);

char *trusted_read(const char *path, size_t max, size_t *len, char *err, size_t n);

#endif
