// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc_args.h"

int proc_cmdline(__u32 pid, char *buf, size_t n)
{
	char path[64];
	ssize_t len;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, n - 1);
	close(fd);
	while (len > 0 && !buf[len - 1])
		len--;
	if (len <= 0) {
		buf[0] = '\0';
		return -1;
	}
	for (ssize_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[len] = '\0';
	return len;
}

const char *args_after_command(const char *args)
{
	const char *sp = strchr(args, ' ');

	return sp ? sp + 1 : "";
}

void args_init(struct proc_args *a)
{
	memset(a, 0, sizeof(*a));
}

void args_free(struct proc_args *a)
{
	free(a->v);
	args_init(a);
}

static int arg_cmp(const void *x, const void *y)
{
	const struct proc_arg *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return memcmp(a->comm, b->comm, PT_COMM_LEN);
}

static struct proc_arg *find(const struct proc_args *a, size_t n, __u32 pid,
			     const char *comm)
{
	struct proc_arg key = { .pid = pid };

	memcpy(key.comm, comm, PT_COMM_LEN);
	return n ? bsearch(&key, a->v, n, sizeof(key), arg_cmp) : NULL;
}

/* After sorting: one entry per process (one read for each of its pipes
 * met in the same call: cheaper than a search per row). */
static void dedup(struct proc_args *a)
{
	size_t kept = 0;

	for (size_t i = 0; i < a->n; i++)
		if (!kept || arg_cmp(&a->v[kept - 1], &a->v[i]))
			a->v[kept++] = a->v[i];
	a->n = kept;
}

int args_learn(struct proc_args *a, const struct pt_rows *rows)
{
	size_t old = a->n;

	if (!by_has_pid(rows->by))
		return 0;
	for (size_t i = 0; i < rows->n; i++) {
		const struct pt_key *k = &rows->v[i].key;
		struct proc_arg *p = find(a, old, k->tgid, k->comm);

		if (!p) {
			if (pt_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v), 64))
				return -1;
			p = &a->v[a->n++];
			p->pid = k->tgid;
			memcpy(p->comm, k->comm, PT_COMM_LEN);
			p->known = proc_cmdline(k->tgid, p->args, sizeof(p->args)) >= 0;
		}
		p->used = true;
	}
	if (a->n != old) {
		qsort(a->v, a->n, sizeof(*a->v), arg_cmp);
		dedup(a);
	}
	return 0;
}

const char *args_of(const struct proc_args *a, __u32 pid, const char *comm)
{
	const struct proc_arg *p = a ? find(a, a->n, pid, comm) : NULL;

	return p && p->known ? p->args : NULL;
}

void args_prune(struct proc_args *a)
{
	size_t kept = 0;

	for (size_t i = 0; i < a->n; i++) {
		if (!a->v[i].used)
			continue;
		a->v[kept] = a->v[i];
		a->v[kept++].used = false;
	}
	a->n = kept;
}
