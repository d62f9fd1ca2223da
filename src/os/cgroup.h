/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 for --cgroup and -k cgroup: a cgroup's id (what BPF's
 * bpf_get_current_cgroup_id() gives) is the inode number of its directory
 * on the cgroup2 mount; its name is that directory's path below the mount.
 */
#ifndef CGROUP_H
#define CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/* Whether path is a directory on a cgroup2 file system; else err says why. */
bool cgroup_check(const char *path, char *err, size_t n);
/*
 * The calling process's own cgroup v2 directory (the cgroup2 mount and
 * its "0::" line of /proc/self/cgroup) into path; false (err says why)
 * if there is none.
 */
bool cgroup_own(char *path, size_t n, char *err, size_t en);
/* Process pid's cgroup v2 directory into path; false if not known. */
bool cgroup_of(pid_t pid, char *path, size_t n);
/*
 * The cgroup of id as "/a/b" below the cgroup2 mount ("/" for the root),
 * or "id:N" when no directory has it any more (a removed cgroup).
 */
void cgroup_name(char *buf, size_t n, __u64 id);

#endif
