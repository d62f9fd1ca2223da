// SPDX-License-Identifier: GPL-2.0
/* pipestat --advise's rules (src/tune/advise.h) on rows of known counts. */
#define _GNU_SOURCE
#include <unistd.h>
#include "output/ends.h"
#include "tune/advise.h"
#include "unit.h"

#define SEC 1000000000ULL

static struct pt_env env_of(enum pt_tier t, int max, int keep, int batch)
{
	return (struct pt_env){ .tier = t, .knob_prealloc_max = max,
				.knob_prealloc_keep = keep, .knob_read_batch = batch,
				.interval_s = 1.0, .user_pages_soft = 16384,
				.pipe_max_size = 1048576 };
}

/* n writes of size bytes to pipe 42 (16 slots), read in n + 1 reads */
static struct pt_row stream(__u64 n, __u64 size)
{
	struct pt_row r = { .key = { .dev = 15, .ino = 42 } };	/* 0:15:42 */

	r.c.writes = n;
	r.c.write_bytes = n * size;
	r.c.reads = n + 1;
	r.c.read_bytes = n * size;
	r.c.ring_slots = 16;
	return r;
}

/* The remarks, and their count in *n */
static const char *advise(const struct pt_row *row, const struct pt_env *e, int *n)
{
	static char buf[4096];
	struct advice a;

	*n = advise_pipe(buf, sizeof(buf), row, NULL, e, &a);
	return buf;
}

static bool has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* want remarks on row, part among them */
static bool says(const struct pt_row *row, const struct pt_env *e, int want,
		 const char *part)
{
	int n;
	const char *s = advise(row, e, &n);

	return n == want && has(s, part);
}

static void t_threshold(void)
{
	struct pt_env e = env_of(PT_TIER_TRACEPOINT, 0, 1, 0);
	struct pt_row r = stream(15, 65536);
	int n;

	/* what the knob rules would remark on, with one write too few */
	r.c.wait_write_ns = SEC * 6 / 10;
	r.c.bufs_new = r.c.alloc_locked = r.c.read_bufs = r.c.read_sections = 15 * 16;
	CHECK_STR(advise(&r, &e, &n), "");
	CHECK(n == 0);
	/* 16 writes but under 1 MiB: nothing of the waits or the pages */
	r = stream(16, 65535);
	r.c.wait_write_ns = SEC * 6 / 10;
	r.c.bufs_new = r.c.alloc_locked = r.c.read_bufs = r.c.read_sections = 16 * 16;
	advise(&r, &e, &n);
	CHECK(n == 0);
	CHECK(has(advise_threshold(), "judged from 16 writes in the interval, its "
		  "waits, pages and copies from 1024 KiB written"));
}

static void t_sides(void)
{
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1, -1);
	struct pt_row r = stream(64, 65536);
	long page = sysconf(_SC_PAGESIZE);
	struct advice a;
	char buf[1024];
	int n;

	r.c.wait_write_ns = SEC * 3 / 4;
	r.c.wait_read_ns = SEC / 100;
	CHECK_STR(advise(&r, &e, &n), "reader-bound: writers waited 75% of the "
		  "interval for room, readers 1% for data: the reader is the "
		  "bottleneck, a bigger ring will not help");
	CHECK(n == 1);
	r.c.wait_write_ns = 0;
	r.c.wait_read_ns = SEC / 2;
	CHECK_STR(advise(&r, &e, &n), "writer-bound: readers waited 50% of the "
		  "interval for data, writers 0% for room: the writer is the "
		  "bottleneck, a bigger ring will not help");
	/* bursty: 4 MiB in 16 reader waits, bursts of 256 KiB */
	r.c.wait_write_ns = SEC / 5;
	r.c.wait_read_ns = SEC / 10;
	r.c.waits_read = 16;
	r.c.ring_full_writes = 40;
	CHECK(advise_pipe(buf, sizeof(buf), &r, NULL, &e, &a) == 2);
	CHECK(has(buf, "bursty: writers waited 20% for room (the ring full in 40 of "
		  "64 writes), readers 10% for data; 262144 bytes written per reader "
		  "wait (a burst) against a ring of"));
	CHECK(a.resize == 262144);
	snprintf(buf + 512, 512, "grow it to 262144 (%ld slots): pipestat --resize "
		 "0:15:42=262144", 262144 / page);
	CHECK(has(buf, buf + 512));
	/* the same bursts within a fs.pipe-max-size of 128 KiB */
	e.pipe_max_size = 131072;
	advise_pipe(buf, sizeof(buf), &r, NULL, &e, &a);
	CHECK(a.resize == 131072);
	/* the ring never full: not bursty */
	r.c.ring_full_writes = 0;
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* no waits known: nothing said (--no-waits, the sleeps' hook left out) */
	r.c.ring_full_writes = 40;
	e.hooks_off = PT_HOOK_WAITS;
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* (a tracepoint-tier kernel without pipe_wait_*) */
	e = env_of(PT_TIER_TRACEPOINT, -1, -1, -1);
	e.lacks = PT_NA_NO_WAITS;
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* the pages' figures left out (their hooks not loaded): no pool
	 * remark; the copies come with the calls on this tier */
	e = env_of(PT_TIER_TRACEPOINT, 0, 1, 0);
	r = stream(64, 65536);
	r.c.bufs_new = r.c.alloc_locked = r.c.read_bufs = r.c.read_sections = 1024;
	e.hooks_off = PT_HOOK_PAGES;
	CHECK(!strncmp(advise(&r, &e, &n), "read copies: ", 13));
	CHECK(n == 1);
	e.hooks_off = 0;
	advise(&r, &e, &n);
	CHECK(n == 2);
}

/* tar | gzip: bursty waits, but gzip on a CPU (or waiting for one) most
 * of the interval: no ring to grow */
static void t_cpu_bound(void)
{
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1, -1);
	struct pt_row r = stream(64, 65536);
	struct pt_key tar = { .tgid = 10, .comm = "tar", .dev = 15, .ino = 42 };
	struct pt_key gzip = { .tgid = 20, .comm = "gzip", .dev = 15, .ino = 42 };
	struct pt_counts w = { .writes = 64, .write_bytes = 64 * 65536,
			       .wait_write_ns = SEC / 5 };
	struct pt_counts rd = { .reads = 65, .read_bytes = 64 * 65536,
				.wait_read_ns = SEC / 10, .sched_span_ns = SEC,
				.cpu_ns = SEC * 85 / 100, .runq_ns = SEC / 20 };
	struct pt_rows ends;
	struct pt_counts *c, *t;
	struct advice a;
	char buf[1024];

	rows_init(&ends, PT_BY_PIPE_PID);
	r.c.wait_write_ns = SEC / 5;
	r.c.wait_read_ns = SEC / 10;
	r.c.waits_read = 16;
	r.c.ring_full_writes = 40;
	CHECK(!rows_add(&ends, &tar, &w) && !rows_add(&ends, &gzip, &rd));
	/* rows_add() folds the CPU figures out: one process's, set per row */
	ends.v[1].c.sched_span_ns = rd.sched_span_ns;
	ends.v[1].c.cpu_ns = rd.cpu_ns;
	ends.v[1].c.runq_ns = rd.runq_ns;
	ends_sort(&ends);
	c = &ends.v[ends.v[0].key.tgid == 20 ? 0 : 1].c;	/* gzip's */
	t = &ends.v[ends.v[0].key.tgid == 10 ? 0 : 1].c;	/* tar's */
	/* tar on a CPU too, less: the one most on a CPU is named */
	t->sched_span_ns = SEC;
	t->cpu_ns = SEC * 45 / 100;
	t->runq_ns = SEC / 10;
	CHECK(advise_pipe(buf, sizeof(buf), &r, &ends, &e, &a) == 1);
	CHECK_STR(buf, "cpu-bound: gzip[20] was on a CPU 85% of the interval and "
		  "waited for one 5% (busy): it sets the pace, a bigger ring will "
		  "not help");
	CHECK(a.resize == 0);
	/* starved: on one CPU with another stage */
	c->cpu_ns = SEC * 3 / 10;
	c->runq_ns = SEC * 55 / 100;
	advise_pipe(buf, sizeof(buf), &r, &ends, &e, &a);
	CHECK(has(buf, "on a CPU 30% of the interval and waited for one 55% (starved)"));
	CHECK(a.resize == 0);
	/* then tar, on a CPU and waiting for one more than gzip */
	c->cpu_ns = SEC * 3 / 10;
	c->runq_ns = SEC / 10;
	advise_pipe(buf, sizeof(buf), &r, &ends, &e, &a);
	CHECK(has(buf, "cpu-bound: tar[10] was on a CPU 45% of the interval and "
		  "waited for one 10% (busy)"));
	t->sched_span_ns = 0;
	/* a reader mostly asleep elsewhere (a slow consumer's own sleeps):
	 * the ring's bursts are the story again */
	c->cpu_ns = SEC / 10;
	c->runq_ns = SEC / 100;
	CHECK(advise_pipe(buf, sizeof(buf), &r, &ends, &e, &a) == 2);
	CHECK(has(buf, "bursty: ") && a.resize == 262144);
	/* schedstat missing: not known, the ring advice as before */
	e.lacks = PT_NA_NO_SCHED;
	c->cpu_ns = SEC * 85 / 100;
	advise_pipe(buf, sizeof(buf), &r, &ends, &e, &a);
	CHECK(has(buf, "bursty: ") && a.resize == 262144);
	rows_free(&ends);
}

static void t_chatty_quota(void)
{
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1, -1);
	struct pt_row r = stream(20000, 100);
	int n;

	e.interval_s = 2.0;
	CHECK_STR(advise(&r, &e, &n), "chatty: 10000 writes/s of 100 bytes on "
		  "average: batching them into fewer writes saves system calls");
	r = stream(20000, 1);
	CHECK_STR(advise(&r, &e, &n), "chatty: 10000 writes/s of 1 byte on "
		  "average: batching them into fewer writes saves system calls");
	r = stream(20000, 100);
	e.interval_s = 2.1;
	advise(&r, &e, &n);
	CHECK(n == 0);
	r = stream(1, 1);
	r.c.ring_slots = 2;
	r.c.ring_owner_uid = 1000;
	r.c.ring_owner_pages = 16385;
	CHECK(has(advise(&r, &e, &n), "quota-shrunk: 2 slots, uid 1000 holds 16385 "
		  "pipe pages (+ 16 for a new pipe > fs.pipe-user-pages-soft 16384)"));
	CHECK(n == 1);
}

/* 64 writes of 64 KiB with the 6.12 behaviour (knobs 0 1 0): the first
 * write allocates its 16 pages, each later one 15 (one from tmp_page);
 * 65 reads opened a section per buffer */
static struct pt_row knobs_off_stream(void)
{
	struct pt_row r = stream(64, 65536);

	r.c.bufs_new = 1024;
	r.c.pool_hits = 63;
	r.c.alloc_locked = 961;
	r.c.read_bufs = r.c.read_sections = 1024;
	return r;
}

static void t_knobs_off(void)
{
	struct pt_env e = env_of(PT_TIER_TRACEPOINT, 0, 1, 0);
	struct pt_row r = knobs_off_stream();
	const char *s;
	int n;

	CHECK(says(&r, &e, 2, "pool misses: 15.0 pages per write allocated "
		   "holding pipe->mutex (961 in 64 writes of 65536 bytes on average) "
		   "with fs.pipe-prealloc-max 0: raise it to 8 (sysctl -w "
		   "fs.pipe-prealloc-max=8), a write then allocates up to 8 of its "
		   "pages before taking the mutex"));
	s = advise(&r, &e, &n);
	CHECK(has(s, "read copies: 15.8 user-access sections per read (1024 for "
		  "1024 buffers in 65 reads) with fs.pipe-read-batch 0: set it to 1 "
		  "(sysctl -w fs.pipe-read-batch=1)"));
	/* keep is clamped to prealloc-max: its rule waits for that one */
	CHECK(!has(s, "prealloc-keep"));
	/* a stock kernel: the same figures, no knob to advise */
	e = env_of(PT_TIER_TRACEPOINT, -1, -1, -1);
	advise(&r, &e, &n);
	CHECK(n == 0);
	e = env_of(PT_TIER_FUNCTION, -1, -1, -1);
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* prealloc-max 4 of 8 possible; batch on: only the first rule */
	e = env_of(PT_TIER_TRACEPOINT, 4, 1, 1);
	r.c.pool_hits = 4 * 64;
	r.c.alloc_locked = 12 * 64;
	r.c.alloc_unlocked = 3 * 64;
	r.c.read_sections = 65;
	s = advise(&r, &e, &n);
	CHECK(n == 1);
	CHECK(has(s, "pool misses: 12.0 pages per write allocated holding "
		  "pipe->mutex (768 in 64 writes of 65536 bytes on average) with "
		  "fs.pipe-prealloc-max 4: raise it to 8"));
}

static void t_knobs_churn(void)
{
	struct pt_env e = env_of(PT_TIER_TRACEPOINT, 8, 1, 1);
	struct pt_row r = stream(64, 32768);
	const char *s;
	int n;

	/* 32 KiB writes, prefill on, keep 1: 7 prefilled + 1 kept per write,
	 * nothing allocated under the mutex, every page allocated again */
	r.c.bufs_new = r.c.pool_hits = 512;
	r.c.alloc_unlocked = 448;
	r.c.read_bufs = 512;
	r.c.read_sections = 65;
	CHECK(says(&r, &e, 1, "page churn: 7.0 pages allocated per write (0 "
		   "holding pipe->mutex + 448 prefilled in 64 writes of 32768 bytes "
		   "on average; 512 new buffers from the pool), each freed once read "
		   "beyond the 1 a pipe keeps (fs.pipe-prealloc-keep): raise it to 8 "
		   "(sysctl -w fs.pipe-prealloc-keep=8), a pipe then keeps up to 8 "
		   "pages"));
	/* keep 8: the pool serves them, nothing allocated: nothing to say */
	e.knob_prealloc_keep = 8;
	r.c.alloc_unlocked = 8;
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* keep 4 while churn stays below a page per write: no advice */
	e.knob_prealloc_keep = 4;
	r.c.alloc_unlocked = 63;
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* one-page writes: no prefill to feed, no knob advice */
	e.knob_prealloc_keep = 1;
	r = stream(512, 4096);
	r.c.bufs_new = r.c.alloc_locked = 512;
	advise(&r, &e, &n);
	CHECK(n == 0);
	/* the syscall tier tells locked pages with prefill on (the mutex's
	 * owner at each page) ... */
	e = env_of(PT_TIER_SYSCALL, 4, 1, 0);
	r = knobs_off_stream();
	r.c.alloc_locked = 961;
	s = advise(&r, &e, &n);
	CHECK(has(s, "with fs.pipe-prealloc-max 4: raise it to 8"));
	/* ... and with prefill off */
	e = env_of(PT_TIER_SYSCALL, 0, 1, 1);
	s = advise(&r, &e, &n);
	CHECK(n == 1);
	CHECK(has(s, "pool misses: 15.0 pages per write allocated holding "
		  "pipe->mutex (961 in 64 writes"));
}

/* The columns asked for: the knobs' only where there are knobs */
static void t_cols(void)
{
	__u64 pool = PT_COL_BIT(PT_COL_POOL_MISSES) | PT_COL_BIT(PT_COL_POOL_HITS) |
		     PT_COL_BIT(PT_COL_ALLOC_LOCKED) | PT_COL_BIT(PT_COL_ALLOC_UNLOCKED);
	__u64 copies = PT_COL_BIT(PT_COL_COPY_SECTIONS) | PT_COL_BIT(PT_COL_COPY_BUFFERS);
	struct pt_env e = env_of(PT_TIER_TRACEPOINT, 8, 1, 1);
	__u64 waits = PT_COL_BIT(PT_COL_WAIT_WRITE_PCT) | PT_COL_BIT(PT_COL_WAIT_READ_PCT) |
		      PT_COL_BIT(PT_COL_RING_FULL_WRITES);

	CHECK((advise_cols(&e) & (pool | copies | waits)) == (pool | copies | waits));
	e = env_of(PT_TIER_SYSCALL, -1, -1, -1);
	CHECK((advise_cols(&e) & waits) == waits);
	CHECK(!(advise_cols(&e) & (pool | copies)));
}

int main(void)
{
	t_threshold();
	t_sides();
	t_cpu_bound();
	t_chatty_quota();
	t_knobs_off();
	t_knobs_churn();
	t_cols();
	return unit_summary("test_advise");
}
