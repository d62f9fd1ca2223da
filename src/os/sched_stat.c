// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sched_stat.h"

static __u64 boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void sched_init(struct sched_stat *s)
{
	memset(s, 0, sizeof(*s));
	s->last_ns = boot_ns();
}

void sched_free(struct sched_stat *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool sched_available(void)
{
	return access("/proc/self/schedstat", R_OK) == 0;
}

/* A file under dirfd into buf; false if it cannot be read. */
static bool read_at(int dirfd, const char *name, char *buf, size_t n)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return false;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	return true;
}

/* The boot time the process started (field 22 of stat, after the
 * command's closing parenthesis), in ns. */
static bool start_of(int dirfd, __u64 *start)
{
	char buf[1024], *p;
	unsigned long long ticks;

	if (!read_at(dirfd, "stat", buf, sizeof(buf)) || !(p = strrchr(buf, ')')))
		return false;
	/* the space before each field from 3 (the state) to 22 */
	for (int field = 3; field <= 22; field++)
		if (!(p = strchr(p + 1, ' ')))
			return false;
	if (sscanf(p, " %llu", &ticks) != 1)
		return false;
	*start = ticks * (1000000000ULL / sysconf(_SC_CLK_TCK));
	return true;
}

/* p's threads' figures summed into *r, and its start; false if it is gone. */
static bool read_proc(const struct sched_proc *p, __u64 *start, struct sched_read *r)
{
	char path[300], buf[128];
	struct dirent *d;
	DIR *tasks;
	int proc;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%u", p->pid);
	proc = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc < 0)
		return false;
	ok = start_of(proc, start);
	snprintf(path, sizeof(path), "/proc/%u/task", p->pid);
	tasks = ok ? opendir(path) : NULL;
	close(proc);
	if (!tasks)
		return false;
	*r = (struct sched_read){ 0 };
	while ((d = readdir(tasks))) {
		unsigned long long cpu, runq;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/schedstat", d->d_name);
		/* a thread gone since the listing takes its time with it */
		if (!read_at(dirfd(tasks), path, buf, sizeof(buf)) ||
		    sscanf(buf, "%llu %llu", &cpu, &runq) != 2)
			continue;
		r->cpu_ns += cpu;
		r->runq_ns += runq;
	}
	closedir(tasks);
	r->at_ns = boot_ns();
	return true;
}

void sched_delta(struct sched_proc *p)
{
	const struct sched_read *a = &p->base, *b = &p->now;

	p->span_ns = p->d_cpu = p->d_runq = 0;
	if (!a->at_ns || b->at_ns <= a->at_ns || b->cpu_ns < a->cpu_ns ||
	    b->runq_ns < a->runq_ns)
		return;
	p->span_ns = b->at_ns - a->at_ns;
	p->d_cpu = b->cpu_ns - a->cpu_ns;
	p->d_runq = b->runq_ns - a->runq_ns;
}

static int pid_cmp(const void *a, const void *b)
{
	__u32 x = ((const struct sched_proc *)a)->pid, y = ((const struct sched_proc *)b)->pid;

	return (x > y) - (x < y);
}

static struct sched_proc *find(const struct sched_stat *s, size_t n, __u32 pid)
{
	const struct sched_proc key = { .pid = pid };

	return n ? bsearch(&key, s->v, n, sizeof(key), pid_cmp) : NULL;
}

static bool keyed_by_process(const struct pt_rows *rows)
{
	return rows->by == PT_BY_PID || rows->by == PT_BY_PIPE_PID;
}

/* The processes of rows not read before, in order. */
static int add_new(struct sched_stat *s, struct pt_rows *const *rows, size_t n)
{
	size_t known = s->n, k = 0;

	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; keyed_by_process(rows[j]) && i < rows[j]->n; i++) {
			__u32 pid = rows[j]->v[i].key.tgid;

			if (!pid || find(s, known, pid))
				continue;
			if (pt_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v), 16))
				return -1;
			s->v[s->n++] = (struct sched_proc){ .pid = pid, .alive = true };
		}
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), pid_cmp);
	/* a process with several ends is in rows once per end */
	for (size_t i = 0; i < s->n; i++)
		if (!k || s->v[i].pid != s->v[k - 1].pid)
			s->v[k++] = s->v[i];
	s->n = k;
	return 0;
}

/* One read of p, this interval's last so far; a process first read has
 * a base only if it started since the last update. */
static void sample(struct sched_proc *p, __u64 last, __u64 tick)
{
	struct sched_read r;
	__u64 start;

	if (!p->alive)
		return;
	if (!read_proc(p, &start, &r)) {
		p->alive = false;	/* its latest figures stay */
		return;
	}
	if (p->now.at_ns && start != p->start)	/* the pid reused */
		p->base = (struct sched_read){ 0 };
	/* its start is in whole clock ticks, cut down */
	if (!p->base.at_ns && !p->now.at_ns && start + tick > last)
		p->base.at_ns = last;	/* all its time is this interval's */
	p->start = start;
	p->now = r;
}

int sched_sample(struct sched_stat *s, struct pt_rows *const *rows, size_t n)
{
	__u64 tick = 1000000000ULL / sysconf(_SC_CLK_TCK);

	if (add_new(s, rows, n))
		return -1;
	for (size_t i = 0; i < s->n; i++)
		sample(&s->v[i], s->last_ns, tick);
	return 0;
}

int sched_update(struct sched_stat *s, struct pt_rows *const *rows, size_t n)
{
	size_t k = 0;

	if (sched_sample(s, rows, n))
		return -1;
	for (size_t i = 0; i < s->n; i++)
		sched_delta(&s->v[i]);
	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; keyed_by_process(rows[j]) && i < rows[j]->n; i++) {
			struct pt_counts *c = &rows[j]->v[i].c;
			const struct sched_proc *p = find(s, s->n, rows[j]->v[i].key.tgid);

			c->sched_span_ns = p ? p->span_ns : 0;
			c->cpu_ns = p ? p->d_cpu : 0;
			c->runq_ns = p ? p->d_runq : 0;
		}
	}
	/* the next interval: from this read, without the processes gone */
	for (size_t i = 0; i < s->n; i++) {
		struct sched_proc *p = &s->v[i];

		if (!p->alive)
			continue;
		p->base = p->now;
		s->v[k++] = *p;
	}
	s->n = k;
	s->last_ns = boot_ns();
	return 0;
}
