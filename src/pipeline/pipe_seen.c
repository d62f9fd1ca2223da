// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "output/ends.h"
#include "os/proc_args.h"
#include "output/fmt.h"
#include "tune/pipe_resize.h"
#include "pipe_seen.h"

void seen_init(struct pipe_seen *s)
{
	memset(s, 0, sizeof(*s));
}

void seen_free(struct pipe_seen *s)
{
	free(s->v);
	seen_init(s);
}

static int key_cmp(__u32 pid, __u32 dev, __u64 ino, const struct pt_key *k)
{
	if (pid != k->tgid)
		return pid < k->tgid ? -1 : 1;
	if (dev != k->dev)
		return dev < k->dev ? -1 : 1;
	return (ino > k->ino) - (ino < k->ino);
}

static int end_cmp(const void *a, const void *b)
{
	const struct pt_key *k = &((const struct seen_end *)a)->key;

	return key_cmp(k->tgid, k->dev, k->ino, &((const struct seen_end *)b)->key);
}

/* The first end of pid at or after dev:ino. */
static size_t lower_bound(const struct pipe_seen *s, __u32 pid, __u32 dev, __u64 ino)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (key_cmp(pid, dev, ino, &s->v[mid].key) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct seen_end *seen_find(const struct pipe_seen *s, __u32 pid,
				 __u32 dev, __u64 ino)
{
	size_t i = lower_bound(s, pid, dev, ino);

	return i < s->n && !key_cmp(pid, dev, ino, &s->v[i].key) ? &s->v[i] : NULL;
}

const char *seen_cmdline(const struct pipe_seen *s, __u32 pid)
{
	size_t i = lower_bound(s, pid, 0, 0);

	return i < s->n && s->v[i].key.tgid == pid ? s->v[i].cmdline : "";
}

int seen_holds(pid_t pid, __u32 dev, __u64 ino, char *path, size_t n)
{
	char dir[64], fd[64 + NAME_MAX + 2];
	struct dirent *f;
	struct stat st;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	path[0] = '\0';
	while (!found && (f = readdir(d))) {
		ssize_t len;

		if (f->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", dir, f->d_name);
		if (stat(fd, &st) || !S_ISFIFO(st.st_mode) || st.st_ino != ino ||
		    pipe_kdev(st.st_dev) != dev)
			continue;
		found = 1;
		/* a FIFO by its path; a pipe shows as "pipe:[INO]" */
		len = readlink(fd, path, n - 1);
		path[len > 0 && path[0] == '/' ? len : 0] = '\0';
	}
	closedir(d);
	return found;
}

/* The command line of pid, its arguments a space apart, printable. */
static void read_cmdline(__u32 pid, char *buf, size_t n)
{
	char raw[PL_CMDLINE_LEN];
	int len = proc_cmdline(pid, raw, sizeof(raw));

	buf[0] = '\0';
	if (len > 0)
		fmt_printable(buf, n, raw, len);
}

/* A new end of row's process and pipe, appended (sorted later). */
static int add(struct pipe_seen *s, const struct pt_row *row)
{
	struct seen_end *e;
	const char *cmdline;

	if (pt_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v), 64))
		return -1;
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->key.tgid = row->key.tgid;
	e->key.dev = row->key.dev;
	e->key.ino = row->key.ino;
	memcpy(e->key.comm, row->key.comm, PT_COMM_LEN);
	/* one read per process: its other ends have it already */
	cmdline = seen_cmdline(s, row->key.tgid);
	if (*cmdline)
		snprintf(e->cmdline, sizeof(e->cmdline), "%s", cmdline);
	else
		read_cmdline(row->key.tgid, e->cmdline, sizeof(e->cmdline));
	seen_holds(row->key.tgid, row->key.dev, row->key.ino, e->path, sizeof(e->path));
	s->n++;
	return 0;
}

/* After sorting: one end per process and pipe (a process that ran
 * another program has a row under each command name). */
static void dedup(struct pipe_seen *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (kept && !end_cmp(&s->v[kept - 1], &s->v[i]))
			continue;
		s->v[kept++] = s->v[i];
	}
	s->n = kept;
}

int seen_learn(struct pipe_seen *s, const struct pt_rows *ends)
{
	size_t old = s->n;

	for (size_t i = 0; i < ends->n; i++) {
		const struct pt_key *k = &ends->v[i].key;
		struct pipe_seen known = { .v = s->v, .n = old };

		if (!seen_find(&known, k->tgid, k->dev, k->ino) && add(s, &ends->v[i]))
			return -1;
	}
	if (s->n != old) {
		qsort(s->v, s->n, sizeof(*s->v), end_cmp);
		dedup(s);
	}
	for (size_t i = 0; i < ends->n; i++) {
		const struct pt_row *row = &ends->v[i];
		/* there now: learnt above */
		struct seen_end *e = &s->v[lower_bound(s, row->key.tgid, row->key.dev,
						       row->key.ino)];

		e->writer |= pt_is_writer(&row->c);
		e->reader |= pt_is_reader(&row->c);
	}
	return 0;
}

void seen_prune(struct pipe_seen *s, const struct pt_rows *ends)
{
	size_t kept = 0;
	char path[PL_PATH_LEN];

	for (size_t i = 0; i < s->n; i++) {
		struct seen_end *e = &s->v[i];

		if (!rows_has(ends, &e->key) &&
		    seen_holds(e->key.tgid, e->key.dev, e->key.ino, path, sizeof(path)) != 1)
			continue;
		if (kept != i)
			s->v[kept] = *e;
		kept++;
	}
	s->n = kept;
}
