// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "advise.h"
#include "output/ends.h"
#include "output/fmt.h"
#include "model/verdict.h"

struct remarks {
	char *buf;
	size_t n;
	int len, count;
};

static void say(struct remarks *r, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (r->count++ && r->len < (int)r->n)
		r->len += snprintf(r->buf + r->len, r->n - r->len, "; ");
	va_start(ap, fmt);
	w = vsnprintf(r->len < (int)r->n ? r->buf + r->len : NULL,
		      r->len < (int)r->n ? r->n - r->len : 0, fmt, ap);
	va_end(ap);
	r->len += w;
}

/* A column's value; false if this tier cannot know it here. */
static bool get(enum pt_col col, const struct pt_row *row, const struct pt_env *e,
		struct pt_value *v)
{
	*v = pt_get(col, &row->c, e);
	return v->q != PT_NA;
}

static void quota(struct remarks *r, const struct pt_row *row, const struct pt_env *e)
{
	struct pt_value v;

	if (!get(PT_COL_RING_QUOTA_SHRUNK, row, e, &v) || !v.u)
		return;
	say(r, "quota-shrunk: %llu slots, uid %llu holds %llu pipe pages "
	    "(+ %d for a new pipe > fs.pipe-user-pages-soft %ld): its new pipes get "
	    "%d slots; raise fs.pipe-user-pages-soft or close that user's pipes",
	    (unsigned long long)row->c.ring_slots,
	    (unsigned long long)row->c.ring_owner_uid,
	    (unsigned long long)row->c.ring_owner_pages, PT_DEFAULT_SLOTS,
	    e->user_pages_soft, PT_QUOTA_SLOTS);
}

/* The ring a burst of bytes needs: a power of two pages, within max. */
static long ring_for(__u64 bytes, long max)
{
	long size = sysconf(_SC_PAGESIZE);

	while ((__u64)size < bytes && size < max)
		size <<= 1;
	return size < max ? size : max;
}

/* Of the pipe's writers (or readers) up to ENDS_LISTED, the one that
 * sets the pace on a CPU (busy or starved) with the most time on one and
 * waiting for one, if more than best's: into *best, its shares into *s. */
static void cpu_bound(const struct pt_rows *ends, const struct pt_row *row, bool writers,
		      const struct pt_env *e, const struct pt_row **best,
		      struct pl_shares *s)
{
	const struct pt_row *v[ENDS_LISTED];
	size_t n = ends_list(ends, &row->key, writers, v, ENDS_LISTED);
	struct pl_shares t;

	for (size_t i = 0; i < n && i < ENDS_LISTED; i++) {
		enum pl_state state;

		if (!pl_shares_of(&v[i]->c, e, &t) || !t.sched)
			continue;
		state = pl_verdict(&t);
		if ((state == PL_BUSY || state == PL_STARVED) &&
		    100 * (t.cpu + t.runq) >= ADVISE_BOUND_PCT &&
		    (!*best || t.cpu + t.runq > s->cpu + s->runq)) {
			*best = v[i];
			*s = t;
		}
	}
}

/* "cpu-bound": true if a side of the pipe is (the stage most on a CPU
 * or waiting for one named) */
static bool said_cpu_bound(struct remarks *r, const struct pt_row *row,
			   const struct pt_rows *ends, const struct pt_env *e)
{
	const struct pt_row *end = NULL;
	struct pl_shares s;
	char comm[FMT_MARKED_LEN];

	if (!ends)
		return false;
	cpu_bound(ends, row, true, e, &end, &s);
	cpu_bound(ends, row, false, e, &end, &s);
	if (!end)
		return false;
	say(r, "cpu-bound: %s[%u] was on a CPU %.0f%% of the interval and waited "
	    "for one %.0f%% (%s): it sets the pace, a bigger ring will not help",
	    fmt_comm_marked(comm, end->key.comm, PT_COMM_LEN), end->key.tgid,
	    100 * s.cpu, 100 * s.runq, pl_state_name(pl_verdict(&s)));
	return true;
}

/* reader-bound, writer-bound, cpu-bound, bursty: from the two sides' waits */
static void sides(struct remarks *r, const struct pt_row *row, const struct pt_rows *ends,
		  const struct pt_env *e, struct advice *a)
{
	struct pt_value w, rd, full;
	__u64 slots = row->c.ring_slots, ring = slots * sysconf(_SC_PAGESIZE);

	if (!get(PT_COL_WAIT_WRITE_PCT, row, e, &w) ||
	    !get(PT_COL_WAIT_READ_PCT, row, e, &rd) ||
	    !get(PT_COL_RING_FULL_WRITES, row, e, &full))
		return;
	if (w.d >= ADVISE_BOUND_PCT && rd.d < ADVISE_IDLE_PCT) {
		say(r, "reader-bound: writers waited %.0f%% of the interval for room, "
		    "readers %.0f%% for data: the reader is the bottleneck, a bigger "
		    "ring will not help", w.d, rd.d);
	} else if (rd.d >= ADVISE_BOUND_PCT && w.d < ADVISE_IDLE_PCT) {
		say(r, "writer-bound: readers waited %.0f%% of the interval for data, "
		    "writers %.0f%% for room: the writer is the bottleneck, a bigger "
		    "ring will not help", rd.d, w.d);
	} else if (w.d >= ADVISE_IDLE_PCT && rd.d >= ADVISE_IDLE_PCT &&
		   said_cpu_bound(r, row, ends, e)) {
		return;
	} else if (w.d >= ADVISE_IDLE_PCT && rd.d >= ADVISE_IDLE_PCT && full.u &&
		   row->c.waits_read && slots) {
		/* a reader waits once the pipe is empty: once per burst */
		__u64 burst = row->c.write_bytes / row->c.waits_read;
		long size = ring_for(burst, e->pipe_max_size);

		say(r, "bursty: writers waited %.0f%% for room (the ring full in %llu "
		    "of %llu writes), readers %.0f%% for data; %llu bytes written per "
		    "reader wait (a burst) against a ring of %llu (%llu slots)", w.d,
		    (unsigned long long)full.u, (unsigned long long)row->c.writes,
		    rd.d, (unsigned long long)burst, (unsigned long long)ring,
		    (unsigned long long)slots);
		if ((__u64)size > ring) {
			char pipe[48];

			a->resize = size;
			fmt_pipe(pipe, sizeof(pipe), row->key.dev, row->key.ino);
			say(r, "grow it to %ld (%ld slots): pipestat --resize %s=%ld",
			    size, size / sysconf(_SC_PAGESIZE), pipe, size);
		} else {
			say(r, "it is at fs.pipe-max-size (%ld) already", e->pipe_max_size);
		}
	}
}

static void chatty(struct remarks *r, const struct pt_row *row, const struct pt_env *e)
{
	double rate = e->interval_s > 0 ? row->c.writes / e->interval_s : 0;
	double avg = row->c.writes ? (double)row->c.write_bytes / row->c.writes : 0;

	if (rate >= ADVISE_CHATTY_RATE && avg < ADVISE_CHATTY_BYTES)
		say(r, "chatty: %.0f writes/s of %.0f byte%s on average: batching "
		    "them into fewer writes saves system calls", rate, avg,
		    avg >= 0.5 && avg < 1.5 ? "" : "s");
}

/* Whole pages per write on average, at most a pool's worth: what the
 * writes' prefill could take (it takes whole pages only). */
static int pool_pages(const struct pt_row *row)
{
	__u64 pages = row->c.write_bytes / row->c.writes / sysconf(_SC_PAGESIZE);

	return pages < ADVISE_POOL_MAX ? (int)pages : ADVISE_POOL_MAX;
}

/* fs.pipe-prealloc-max: pages a write allocates holding pipe->mutex */
static void prealloc_max(struct remarks *r, const struct pt_row *row,
			 const struct pt_env *e)
{
	int want = pool_pages(row), max = e->knob_prealloc_max;
	struct pt_value miss;
	double per;

	if (max < 0 || want < 2 || max >= want ||
	    !get(PT_COL_POOL_MISSES, row, e, &miss))
		return;
	per = (double)miss.u / row->c.writes;
	if (per < ADVISE_KNOB_PAGES)
		return;
	say(r, "pool misses: %.1f pages per write allocated holding pipe->mutex "
	    "(%llu in %llu writes of %.0f bytes on average) with "
	    "fs.pipe-prealloc-max %d: raise it to %d (sysctl -w "
	    "fs.pipe-prealloc-max=%d), a write then allocates up to %d of its "
	    "pages before taking the mutex", per, (unsigned long long)miss.u,
	    (unsigned long long)row->c.writes,
	    (double)row->c.write_bytes / row->c.writes, max, want, want, want);
}

/* fs.pipe-prealloc-keep: page churn, pages allocated (and freed once
 * read, beyond those kept) per write */
static void prealloc_keep(struct remarks *r, const struct pt_row *row,
			  const struct pt_env *e)
{
	int want = pool_pages(row), keep = e->knob_prealloc_keep;
	struct pt_value lk, ul, hits;
	double per;

	/* pages the prefill lacks are prealloc-max's rule: that one first */
	if (keep < 0 || want < 2 || keep >= want || e->knob_prealloc_max < want ||
	    !get(PT_COL_ALLOC_LOCKED, row, e, &lk) ||
	    !get(PT_COL_ALLOC_UNLOCKED, row, e, &ul) ||
	    !get(PT_COL_POOL_HITS, row, e, &hits))
		return;
	per = (double)(lk.u + ul.u) / row->c.writes;
	if (per < ADVISE_KNOB_PAGES)
		return;
	say(r, "page churn: %.1f pages allocated per write (%llu holding "
	    "pipe->mutex + %llu prefilled in %llu writes of %.0f bytes on "
	    "average; %llu new buffers from the pool), each freed once read "
	    "beyond the %d a pipe keeps (fs.pipe-prealloc-keep): raise it to %d "
	    "(sysctl -w fs.pipe-prealloc-keep=%d), a pipe then keeps up to %d "
	    "pages (%ld KiB) between calls", per, (unsigned long long)lk.u,
	    (unsigned long long)ul.u, (unsigned long long)row->c.writes,
	    (double)row->c.write_bytes / row->c.writes,
	    (unsigned long long)hits.u, keep, want, want, want,
	    want * sysconf(_SC_PAGESIZE) / 1024);
}

/* fs.pipe-read-batch: user-access sections per read */
static void read_batch(struct remarks *r, const struct pt_row *row,
		       const struct pt_env *e)
{
	__u64 reads = row->c.reads - row->c.uring_reads;
	struct pt_value sec, bufs;
	double per;

	if (e->knob_read_batch != 0 || reads < ADVISE_MIN_WRITES ||
	    !get(PT_COL_COPY_SECTIONS, row, e, &sec) ||
	    !get(PT_COL_COPY_BUFFERS, row, e, &bufs))
		return;
	per = (double)sec.u / reads;
	if (per < ADVISE_KNOB_SECTIONS)
		return;
	say(r, "read copies: %.1f user-access sections per read (%llu for %llu "
	    "buffers in %llu reads) with fs.pipe-read-batch 0: set it to 1 "
	    "(sysctl -w fs.pipe-read-batch=1), a read then copies a run of whole "
	    "buffers in one section", per, (unsigned long long)sec.u,
	    (unsigned long long)bufs.u, (unsigned long long)reads);
}

int advise_pipe(char *buf, size_t n, const struct pt_row *row,
		const struct pt_rows *ends, const struct pt_env *env,
		struct advice *a)
{
	struct remarks r = { .buf = buf, .n = n };

	a->resize = 0;
	if (n)
		buf[0] = '\0';
	quota(&r, row, env);
	if (row->c.writes >= ADVISE_MIN_WRITES) {
		if (row->c.write_bytes >= ADVISE_MIN_BYTES) {
			sides(&r, row, ends, env, a);
			prealloc_max(&r, row, env);
			prealloc_keep(&r, row, env);
			read_batch(&r, row, env);
		}
		chatty(&r, row, env);
	}
	return r.count;
}

__u64 advise_cols(const struct pt_env *env)
{
	__u64 cols = PT_COL_BIT(PT_COL_RING_QUOTA_SHRUNK) | PT_COL_BIT(PT_COL_WAIT_WRITE_PCT) |
		     PT_COL_BIT(PT_COL_WAIT_READ_PCT) | PT_COL_BIT(PT_COL_RING_FULL_WRITES) |
		     PT_COL_BIT(PT_COL_WAITS_READ) | PT_COL_BIT(PT_COL_WRITES) |
		     PT_COL_BIT(PT_COL_WRITE_BYTES) | PT_COL_BIT(PT_COL_RING_SLOTS) |
		     PT_COL_BIT(PT_COL_CPU_PCT) | PT_COL_BIT(PT_COL_RUNQ_PCT);

	/* the knobs' rules, only where there are knobs: elsewhere their
	 * programs (a page allocation hook) would cost for nothing */
	if (env->knob_prealloc_max >= 0)
		cols |= PT_COL_BIT(PT_COL_POOL_MISSES) | PT_COL_BIT(PT_COL_POOL_HITS) |
			PT_COL_BIT(PT_COL_ALLOC_LOCKED) | PT_COL_BIT(PT_COL_ALLOC_UNLOCKED);
	if (env->knob_read_batch >= 0)
		cols |= PT_COL_BIT(PT_COL_READS) | PT_COL_BIT(PT_COL_COPY_SECTIONS) |
			PT_COL_BIT(PT_COL_COPY_BUFFERS) | PT_COL_BIT(PT_COL_SECTIONS_PER_READ);
	return cols;
}

const char *advise_threshold(void)
{
	static char s[160];

	snprintf(s, sizeof(s), "a pipe is judged from %d writes in the interval, "
		 "its waits, pages and copies from %d KiB written", ADVISE_MIN_WRITES,
		 ADVISE_MIN_BYTES >> 10);
	return s;
}
