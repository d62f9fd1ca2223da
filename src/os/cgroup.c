// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ftw.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "cgroup.h"
#include "model/rows.h"

bool cgroup_check(const char *path, char *err, size_t n)
{
	struct statfs fs;
	struct stat st;

	if (statfs(path, &fs) || stat(path, &st)) {
		snprintf(err, n, "--cgroup '%s': %m", path);
		return false;
	}
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		snprintf(err, n, "--cgroup '%s': not a cgroup v2 directory", path);
		return false;
	}
	return true;
}

/* Every cgroup directory seen in the last walk: id and path. */
static struct cg {
	__u64 id;
	char *path;
} *cgs;
static size_t ncgs, capcgs;
static size_t mount_len;
static time_t walked;

static int seen(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type != FTW_D)
		return 0;
	if (pt_grow((void **)&cgs, &capcgs, ncgs + 1, sizeof(*cgs), 64))
		return 1;
	cgs[ncgs].id = st->st_ino;
	cgs[ncgs].path = strdup(path[mount_len] ? path + mount_len : "/");
	if (!cgs[ncgs].path)
		return 1;
	ncgs++;
	return 0;
}

/* The first cgroup2 mount's directory into buf; false if there is none. */
static bool cgroup_mount(char *buf, size_t n)
{
	struct mntent *m;
	bool found = false;
	FILE *f = setmntent("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (!found && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2"))
			found = snprintf(buf, n, "%s", m->mnt_dir) < (int)n;
	endmntent(f);
	return found;
}

/* Walks the cgroup2 mount again (at most once a second). */
static void walk(void)
{
	char mnt[PATH_MAX];

	if (walked == time(NULL))
		return;
	walked = time(NULL);
	for (size_t i = 0; i < ncgs; i++)
		free(cgs[i].path);
	ncgs = 0;
	if (!cgroup_mount(mnt, sizeof(mnt)))
		return;
	mount_len = strlen(mnt);
	nftw(mnt, seen, 16, FTW_PHYS | FTW_MOUNT);
}

/* The cgroup v2 line's path ("0::PATH") of /proc/PID/cgroup (pid 0:
 * self) into buf. */
static bool proc_path(pid_t pid, char *buf, size_t n)
{
	char *line = NULL, name[64];
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (pid)
		snprintf(name, sizeof(name), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(name, sizeof(name), "/proc/self/cgroup");
	f = fopen(name, "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0)
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			found = snprintf(buf, n, "%s", line + 3) < (int)n;
		}
	free(line);
	fclose(f);
	return found;
}

bool cgroup_own(char *path, size_t n, char *err, size_t en)
{
	char mnt[PATH_MAX], own[PATH_MAX];
	struct statfs fs;

	if (!cgroup_mount(mnt, sizeof(mnt))) {
		snprintf(err, en, "no cgroup v2 file system mounted");
		return false;
	}
	if (!proc_path(0, own, sizeof(own))) {
		snprintf(err, en, "no cgroup v2 line in /proc/self/cgroup");
		return false;
	}
	/* the path is below the cgroup namespace's root, where it is mounted */
	if (snprintf(path, n, "%s%s", mnt, strcmp(own, "/") ? own : "") >= (int)n) {
		snprintf(err, en, "cgroup path too long");
		return false;
	}
	if (statfs(path, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, en, "own cgroup %s not found below the cgroup2 mount %s",
			 own, mnt);
		return false;
	}
	return true;
}

bool cgroup_of(pid_t pid, char *path, size_t n)
{
	char mnt[PATH_MAX], rel[PATH_MAX];

	return cgroup_mount(mnt, sizeof(mnt)) && proc_path(pid, rel, sizeof(rel)) &&
	       snprintf(path, n, "%s%s", mnt, strcmp(rel, "/") ? rel : "") < (int)n;
}

static const char *find(__u64 id)
{
	for (size_t i = 0; i < ncgs; i++)
		if (cgs[i].id == id)
			return cgs[i].path;
	return NULL;
}

void cgroup_name(char *buf, size_t n, __u64 id)
{
	const char *p = find(id);

	if (!p) {
		walk();
		p = find(id);
	}
	if (p)
		snprintf(buf, n, "%s", p);
	else
		snprintf(buf, n, "id:%llu", (unsigned long long)id);
}
