// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "advise.h"

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

/* reader-bound, writer-bound, bursty: from the two sides' waits */
static void sides(struct remarks *r, const struct pt_row *row, const struct pt_env *e,
		  struct advice *a)
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
			a->resize = size;
			say(r, "grow it to %ld (%ld slots): pipestat --resize %llu=%ld",
			    size, size / sysconf(_SC_PAGESIZE),
			    (unsigned long long)row->key.ino, size);
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
		say(r, "chatty: %.0f writes/s of %.0f bytes on average: batching "
		    "them into fewer writes saves system calls", rate, avg);
}

int advise_pipe(char *buf, size_t n, const struct pt_row *row,
		const struct pt_env *env, struct advice *a)
{
	struct remarks r = { .buf = buf, .n = n };

	a->resize = 0;
	if (n)
		buf[0] = '\0';
	quota(&r, row, env);
	if (row->c.writes >= ADVISE_MIN_WRITES) {
		if (row->c.write_bytes >= ADVISE_MIN_BYTES)
			sides(&r, row, env, a);
		chatty(&r, row, env);
	}
	return r.count;
}

__u64 advise_cols(void)
{
	return PT_COL_BIT(PT_COL_RING_QUOTA_SHRUNK) | PT_COL_BIT(PT_COL_WAIT_WRITE_PCT) |
	       PT_COL_BIT(PT_COL_WAIT_READ_PCT) | PT_COL_BIT(PT_COL_RING_FULL_WRITES) |
	       PT_COL_BIT(PT_COL_WAITS_READ) | PT_COL_BIT(PT_COL_WRITES) |
	       PT_COL_BIT(PT_COL_WRITE_BYTES) | PT_COL_BIT(PT_COL_RING_SLOTS);
}

const char *advise_threshold(void)
{
	static char s[160];

	snprintf(s, sizeof(s), "a pipe is judged from %d writes in the interval, "
		 "its waits from %d KiB written", ADVISE_MIN_WRITES,
		 ADVISE_MIN_BYTES >> 10);
	return s;
}
