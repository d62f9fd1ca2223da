// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ftw.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "cgroup.h"
#include "rows.h"

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

/* Walks the cgroup2 mount again (at most once a second). */
static void walk(void)
{
	struct mntent *m;
	FILE *f;

	if (walked == time(NULL))
		return;
	walked = time(NULL);
	for (size_t i = 0; i < ncgs; i++)
		free(cgs[i].path);
	ncgs = 0;
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			mount_len = strlen(m->mnt_dir);
			nftw(m->mnt_dir, seen, 16, FTW_PHYS | FTW_MOUNT);
			break;
		}
	endmntent(f);
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
