// SPDX-License-Identifier: GPL-2.0
/* The metrics table: per-tier qualities, knob states, the generated help. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "model/hooks.h"
#include "model/metrics.h"
#include "model/rows.h"
#include "unit.h"

/* a kernel with the series' switches (prealloc >= 0: its pool too), or
 * without the series */
static struct pt_env env_of(enum pt_tier t, int prealloc, int batch)
{
	return (struct pt_env){ .tier = t, .knob_prealloc_max = prealloc,
				.knob_prealloc_keep = prealloc < 0 ? -1 : 2,
				.knob_read_batch = batch,
				.lacks = prealloc < 0 ? PT_NA_NO_POOL : 0 };
}

/* Every row is complete: a CSV name, a unit, a meaning, one way to a value. */
static void rows_complete(void)
{
	for (int i = 0; i < PT_NCOLS; i++) {
		const struct pt_metric *m = &pt_metrics[i];

		/* a column not in the CSV is in pipestat's table (a heading
		 * and a name for -o) or in pipetop */
		CHECK(m->csv ? *m->csv != '\0' && !m->name :
		      (m->head && m->name) || (m->top.head && !m->name));
		CHECK(m->unit && *m->unit && m->what && *m->what);
		CHECK((m->sum[0] != 0) + (m->knob != 0) + (m->value != NULL) == 1);
		CHECK(!m->head || m->width > 0);
		for (int j = 0; j < i && m->csv; j++)
			CHECK(!pt_metrics[j].csv || strcmp(m->csv, pt_metrics[j].csv));
	}
}

static void qualities(void)
{
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1);

	CHECK(pt_col_quality(PT_COL_READS, &e) == PT_EXACT);
	CHECK(pt_col_quality(PT_COL_POOL_HITS, &e) == PT_DERIVED);
	CHECK(pt_col_quality(PT_COL_EAGAIN_EMPTY, &e) == PT_NA);
	CHECK(pt_col_quality(PT_COL_SPLICE_IN, &e) == PT_EXACT);
	e = env_of(PT_TIER_SYSCALL, 8, 1);
	/* the prefill's pages: the mutex's owner read at each */
	CHECK(pt_col_quality(PT_COL_ALLOC_LOCKED, &e) == PT_EXACT);
	CHECK(pt_col_quality(PT_COL_ALLOC_WASTED, &e) == PT_EXACT);
	CHECK(pt_col_quality(PT_COL_COPY_SECTIONS, &e) == PT_NA);
	CHECK(pt_col_quality(PT_COL_COPY_BUFFERS, &e) == PT_DERIVED);
	e = env_of(PT_TIER_FUNCTION, -1, 1);
	CHECK(pt_col_quality(PT_COL_COPY_BUFFERS, &e) == PT_NA);
	CHECK(pt_col_quality(PT_COL_EAGAIN_FULL, &e) == PT_DERIVED);
	CHECK(pt_col_quality(PT_COL_SPLICE_IN, &e) == PT_NA);
	e = env_of(PT_TIER_TRACEPOINT, -1, -1);
	CHECK(pt_col_quality(PT_COL_PREFILL_DROPPED, &e) == PT_NA);
	CHECK(pt_col_quality(PT_COL_SECTIONS_PER_READ, &e) == PT_DERIVED);
	e = env_of(PT_TIER_TRACEPOINT, 8, 1);
	CHECK(pt_col_quality(PT_COL_PREFILL_DROPPED, &e) == PT_EXACT);
	CHECK(pt_col_quality(PT_COL_COPY_SECTIONS, &e) == PT_EXACT);
	/* the series as posted: a pool and the batched copy, no switches */
	e = env_of(PT_TIER_FUNCTION, -1, -1);
	e.lacks = PT_NA_BATCH;
	CHECK(pt_col_quality(PT_COL_COPY_SECTIONS, &e) == PT_NA);
	e.tier = PT_TIER_TRACEPOINT;
	CHECK(pt_col_quality(PT_COL_PREFILL_DROPPED, &e) == PT_EXACT);
	CHECK(pt_col_quality(PT_COL_COPY_SECTIONS, &e) == PT_EXACT);
}

/* Raw counts to columns, per tier: the derivations the table documents. */
static void values(void)
{
	struct pt_counts c = { .reads = 10, .writes = 4, .bufs_new = 40,
			       .pool_hits = 30, .alloc_locked = 6, .read_bufs = 20,
			       .read_sections = 5, .eagain_read_nonblock = 2,
			       .eagain_read_nowait = 1, .eagain_write_nowait = 3 };
	struct pt_env e = env_of(PT_TIER_TRACEPOINT, 0, 0);

	CHECK(pt_get(PT_COL_POOL_HITS, &c, &e).u == 30);
	CHECK(pt_get(PT_COL_POOL_MISSES, &c, &e).u == 10);
	CHECK(pt_get(PT_COL_COPY_SECTIONS, &c, &e).u == 5);
	CHECK(pt_get(PT_COL_SECTIONS_PER_READ, &c, &e).d == 0.5);
	c.read_eof = 3;
	CHECK(pt_get(PT_COL_EOF_READS, &c, &e).u == 3);
	e.tier = PT_TIER_FUNCTION;
	CHECK(pt_get(PT_COL_POOL_HITS, &c, &e).u == 34);	/* 40 - 6 */
	CHECK(pt_get(PT_COL_POOL_MISSES, &c, &e).u == 6);
	/* every tier counts them now, per segment piece (issue 28) */
	CHECK(pt_get(PT_COL_COPY_SECTIONS, &c, &e).u == 5);
	/* a read whose pieces a tier could not count: unknown, never short */
	c.read_sections_unknown = 1;
	CHECK(pt_get(PT_COL_COPY_SECTIONS, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_SECTIONS_PER_READ, &c, &e).q == PT_NA);
	e.tier = PT_TIER_TRACEPOINT;
	CHECK(pt_get(PT_COL_COPY_SECTIONS, &c, &e).q == PT_NA);
	c.read_sections_unknown = 0;
	e.tier = PT_TIER_FUNCTION;
	CHECK(pt_get(PT_COL_EAGAIN_EMPTY, &c, &e).u == 3);
	CHECK(pt_get(PT_COL_EAGAIN_FULL, &c, &e).u == 3);
	e.tier = PT_TIER_SYSCALL;
	c.alloc_locked = 12;
	CHECK(pt_get(PT_COL_POOL_HITS, &c, &e).u == 28);	/* 40 - 12 */
	CHECK(pt_get(PT_COL_ALLOC_LOCKED, &c, &e).u == 12);
	CHECK(pt_get(PT_COL_POOL_HIT_PCT, &c, &e).d == 70.0);
	c = (struct pt_counts){};
	CHECK(pt_get(PT_COL_POOL_HIT_PCT, &c, &e).q == PT_NA);	/* 0/0 */
	CHECK(pt_get(PT_COL_KNOB_PREALLOC_MAX, &c, &e).u == 0);
	e.knob_prealloc_max = -1;
	CHECK(pt_get(PT_COL_KNOB_PREALLOC_MAX, &c, &e).q == PT_NA);
}

/*
 * The bytes of every call: reads and splices out, writes and splices in,
 * on the tier that sees splices; the table's stand-ins on the others.
 */
static void every_call_bytes(void)
{
	struct pt_counts c = { .read_bytes = 100, .splice_out_bytes = 20,
			       .write_bytes = 7, .splice_in_bytes = 5000 };
	struct pt_env e = env_of(PT_TIER_SYSCALL, 0, 0);

	CHECK(pt_get(PT_COL_OUT_BYTES, &c, &e).u == 120);
	CHECK(pt_get(PT_COL_IN_BYTES, &c, &e).u == 5007);
	CHECK(pt_bytes_out(&c) == 120 && pt_bytes_in(&c) == 5007);
	CHECK(pt_table_col(PT_COL_OUT_BYTES, &e) == PT_COL_OUT_BYTES);
	CHECK(pt_table_col(PT_COL_IN_BYTES, &e) == PT_COL_IN_BYTES);
	for (int t = PT_TIER_TRACEPOINT; t <= PT_TIER_FUNCTION; t++) {
		e.tier = t;
		CHECK(pt_get(PT_COL_OUT_BYTES, &c, &e).q == PT_NA);
		CHECK(pt_get(PT_COL_IN_BYTES, &c, &e).q == PT_NA);
		CHECK(pt_table_col(PT_COL_OUT_BYTES, &e) == PT_COL_READ_BYTES);
		CHECK(pt_table_col(PT_COL_IN_BYTES, &e) == PT_COL_WRITE_BYTES);
	}
	/* a column without a stand-in is itself, known or not */
	CHECK(pt_table_col(PT_COL_SPLICE_IN_BYTES, &e) == PT_COL_SPLICE_IN_BYTES);
}

/* The ring columns: known only for keys that wrote; quota-shrunk rings */
static void ring(void)
{
	struct pt_counts c = { .reads = 3 };
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1);

	e.user_pages_soft = 100;
	CHECK(pt_get(PT_COL_RING_SLOTS, &c, &e).q == PT_NA);	/* a reader */
	CHECK(pt_get(PT_COL_RING_PEAK, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RING_FULL_WRITES, &c, &e).u == 0);
	c = (struct pt_counts){ .writes = 9, .ring_full_writes = 4, .ring_slots = 16,
				.ring_peak = 16, .ring_owner_uid = 1000,
				.ring_owner_pages = 150 };
	CHECK(pt_get(PT_COL_RING_SLOTS, &c, &e).u == 16);
	CHECK(pt_get(PT_COL_RING_PEAK, &c, &e).u == 16);
	CHECK(pt_get(PT_COL_RING_FULL_WRITES, &c, &e).u == 4);
	CHECK(pt_get(PT_COL_RING_OWNER_UID, &c, &e).u == 1000);
	CHECK(pt_get(PT_COL_RING_OWNER_PAGES, &c, &e).u == 150);
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).u == 0);	/* 16 slots */
	c.ring_slots = 2;
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).u == 1);
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).q == PT_DERIVED);
	c.ring_owner_pages = 84;	/* + 16 not over the limit */
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).u == 0);
	c.ring_owner_pages = 85;
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).u == 1);
	e.user_pages_soft = 0;		/* no limit */
	c.ring_owner_pages = 150;
	CHECK(pt_get(PT_COL_RING_QUOTA_SHRUNK, &c, &e).u == 0);
	/* peak and full writes need the sleeps seen */
	e.hooks_off = PT_HOOK_WAITS;
	CHECK(pt_get(PT_COL_RING_PEAK, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RING_FULL_WRITES, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RING_SLOTS, &c, &e).u == 2);
}

/* A process's CPU figures: shares of the span they were read over, not
 * known without it or without schedstat, never summed into a fold */
static void sched(void)
{
	struct pt_counts c = { .reads = 1, .sched_span_ns = 2000000000ULL,
			       .cpu_ns = 500000000ULL, .runq_ns = 1500000000ULL };
	struct pt_counts sum = c;
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1);
	struct pt_value v = pt_get(PT_COL_CPU_PCT, &c, &e);

	CHECK(v.q == PT_DERIVED && v.type == PT_V_PCT && v.d > 24.99 && v.d < 25.01);
	v = pt_get(PT_COL_RUNQ_PCT, &c, &e);
	CHECK(v.q == PT_DERIVED && v.d > 74.99 && v.d < 75.01);
	counts_add(&sum, &c);
	CHECK(sum.reads == 2 && sum.cpu_ns == c.cpu_ns && sum.sched_span_ns == c.sched_span_ns);
	e.lacks = PT_NA_NO_SCHED;
	CHECK(pt_get(PT_COL_CPU_PCT, &c, &e).q == PT_NA);
	e.lacks = 0;
	c.sched_span_ns = 0;	/* gone before its read, or not one process */
	CHECK(pt_get(PT_COL_CPU_PCT, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RUNQ_PCT, &c, &e).q == PT_NA);
}

/* The help text is the table: each column in its tier's quality line. */
static void help_is_table(void)
{
	static const char *const label[] = {
		[PT_EXACT] = "exact:", [PT_DERIVED] = "derived:", [PT_NA] = "not known:",
	};
	char buf[4096];

	for (int t = 0; t < PT_TIER_COUNT; t++) {
		CHECK(pt_tier_summary(buf, sizeof(buf), t, "") < (int)sizeof(buf));
		for (int i = 0; i < PT_NCOLS; i++) {
			enum pt_quality q = pt_metrics[i].how[t].q;

			if (!pt_metrics[i].csv)
				continue;
			char *line = strstr(buf, label[q]);
			char *end = line ? line : buf;
			char want[64];

			/* a quality's list runs until the next label at a line start */
			while (end && (end = strchr(end + 1, '\n')) && end[1] == ' ')
				;
			snprintf(want, sizeof(want), " %s", pt_metrics[i].csv);
			CHECK(line && memmem(line, (end ? end : buf + strlen(buf)) - line,
					     want, strlen(want)));
		}
	}
	pt_tier_summary(buf, 8, PT_TIER_SYSCALL, "");
	CHECK(strlen(buf) == 7);	/* truncated, terminated */
}

/* The names on list name ("derived", ...) of a -v tier line; 0 if none. */
static int listed(const char *line, const char *name)
{
	const char *p = strstr(line, name);
	int n = 1;

	if (!p)
		return 0;
	p = strstr(p, ": ");
	for (; *p && *p != ';'; p++)
		n += *p == ',';
	return n;
}

/* The brief tier line: what the -v one lists, counted. */
static void brief_counts(const struct pt_env *e)
{
	static const char *const lists[] = { "derived", "not known", "left out" };
	char full[2048], brief[128], want[128] = "";
	size_t len = 0;

	pt_tier_line(full, sizeof(full), e, true);
	pt_tier_line(brief, sizeof(brief), e, false);
	for (int i = 0; i < 3; i++)
		if (listed(full, lists[i]))
			len += snprintf(want + len, sizeof(want) - len, "%s%d %s",
					len ? ", " : "", listed(full, lists[i]), lists[i]);
	snprintf(want + len, sizeof(want) - len, "; -v lists them");
	CHECK(strstr(full, "left out") || !(e->hooks_off & PT_HOOK_PAGES));
	CHECK_STR(brief, want);
}

static void tier_line(void)
{
	struct pt_env e = env_of(PT_TIER_SYSCALL, 8, 0);
	char buf[1024];

	pt_tier_line(buf, sizeof(buf), &e, true);
	CHECK(strstr(buf, "derived: pool_hits, pool_hit_pct, copy_sections") == buf);
	CHECK(strstr(buf, "not known: prefill_dropped, eagain_empty") != NULL);
	/* brief: only the lists there are, counted */
	pt_tier_line(buf, sizeof(buf), &e, false);
	CHECK_STR(buf, "8 derived, 5 not known; -v lists them");
	e.hooks_off = PT_HOOK_PAGES;
	brief_counts(&e);
	e = env_of(PT_TIER_TRACEPOINT, 8, 0);
	pt_tier_line(buf, sizeof(buf), &e, true);
	CHECK(strstr(buf, "derived: sections_per_read, ring_quota_shrunk, cpu_pct, "
		  "runq_pct; not known: eagain_lock, eagain_nopage, splice_in") == buf);
	e.hooks_off = PT_HOOK_WAITS | PT_HOOK_LOCKS;
	brief_counts(&e);
	e = env_of(PT_TIER_FUNCTION, 8, 0);
	brief_counts(&e);
}

/* The raw counters a column reads: its sum's, and what its value uses. */
static __u64 raws_of(const struct pt_metric *m)
{
	__u64 raws = m->uses;

	for (int i = 0; i < 2 && m->sum[i]; i++)
		raws |= 1ULL << ((m->sum[i] - 1) / sizeof(__u64));
	return raws;
}

/*
 * A column's stated raw counters are all it reads: changing any other
 * leaves its value as it was, on every tier. (Its hooks follow from them:
 * a counter it read but did not state would go uncounted, silently.)
 */
static void uses_complete(void)
{
	for (int t = 0; t < PT_TIER_COUNT; t++) {
		struct pt_env e = env_of(t, 0, 0);

		e.interval_s = 1;
		e.user_pages_soft = 10;
		for (int i = 0; i < PT_NCOLS; i++) {
			__u64 raws = raws_of(&pt_metrics[i]);
			struct pt_counts c;
			__u64 *f = (__u64 *)&c;

			for (size_t j = 0; j < PT_NRAW; j++)
				f[j] = 2 + j;	/* ring_slots 2: quota_shrunk */
			struct pt_value a = pt_get(i, &c, &e);

			for (size_t j = 0; j < PT_NRAW; j++) {
				if (raws & 1ULL << j)
					continue;
				f[j] += 1000;
				struct pt_value b = pt_get(i, &c, &e);

				CHECK(a.q == b.q && a.u == b.u && a.d == b.d);
				f[j] -= 1000;
			}
		}
	}
}

/* Which hooks a column needs on each tier: the ones that count its raw
 * counters, several for a counter derived from several hooks. */
static void col_hooks(void)
{
	const __u32 C = PT_HOOK_CALLS;
	const __u64 dflt = PT_COL_BIT(PT_COL_READS) | PT_COL_BIT(PT_COL_WRITES) |
		PT_COL_BIT(PT_COL_READ_BYTES) | PT_COL_BIT(PT_COL_WRITE_BYTES) |
		PT_COL_BIT(PT_COL_EAGAIN) | PT_COL_BIT(PT_COL_WAIT_READ_PCT) |
		PT_COL_BIT(PT_COL_WAIT_WRITE_PCT);

	CHECK(pt_col_hooks(PT_COL_READS, PT_TIER_SYSCALL) == C);
	CHECK(pt_col_hooks(PT_COL_EOF_READS, PT_TIER_FUNCTION) == C);
	/* syscall tier: hits are new buffers (the ring claim) less pages */
	CHECK(pt_col_hooks(PT_COL_POOL_HITS, PT_TIER_SYSCALL) ==
	      (C | PT_HOOK_PAGES | PT_HOOK_BUFS));
	CHECK(pt_col_hooks(PT_COL_ALLOC_LOCKED, PT_TIER_SYSCALL) == (C | PT_HOOK_PAGES));
	CHECK(pt_col_hooks(PT_COL_POOL_HITS, PT_TIER_FUNCTION) == (C | PT_HOOK_PAGES));
	CHECK(pt_col_hooks(PT_COL_POOL_HITS, PT_TIER_TRACEPOINT) == (C | PT_HOOK_PAGES));
	CHECK(pt_col_hooks(PT_COL_COPY_BUFFERS, PT_TIER_SYSCALL) == (C | PT_HOOK_BUFS));
	CHECK(pt_col_hooks(PT_COL_COPY_BUFFERS, PT_TIER_FUNCTION) == (C | PT_HOOK_BUFS));
	CHECK(pt_col_hooks(PT_COL_COPY_SECTIONS, PT_TIER_TRACEPOINT) == C);
	CHECK(pt_col_hooks(PT_COL_WAIT_READ_PCT, PT_TIER_TRACEPOINT) == (C | PT_HOOK_WAITS));
	CHECK(pt_col_hooks(PT_COL_RING_FULL_WRITES, PT_TIER_SYSCALL) ==
	      (C | PT_HOOK_WAITS | PT_HOOK_RING));
	CHECK(pt_col_hooks(PT_COL_RING_FULL_WRITES, PT_TIER_FUNCTION) == (C | PT_HOOK_WAITS));
	/* syscall tier: the ring read at entry and exit, only when asked;
	 * tracepoint: the program set with the call's state */
	CHECK(pt_col_hooks(PT_COL_RING_SLOTS, PT_TIER_SYSCALL) == (C | PT_HOOK_RING));
	CHECK(pt_col_hooks(PT_COL_RING_SLOTS, PT_TIER_TRACEPOINT) == (C | PT_HOOK_RING));
	CHECK(pt_col_hooks(PT_COL_RING_SLOTS, PT_TIER_FUNCTION) == C);
	CHECK(pt_col_hooks(PT_COL_LOCK_WAIT_NS, PT_TIER_FUNCTION) == (C | PT_HOOK_LOCKS));
	CHECK(pt_col_hooks(PT_COL_KNOB_READ_BATCH, PT_TIER_SYSCALL) == C);
	/* the operator's default table: the calls and the sleeps */
	for (int t = 0; t < PT_TIER_COUNT; t++)
		CHECK(pt_cols_hooks(dflt, 0, t) == (C | PT_HOOK_WAITS));
	CHECK(pt_cols_hooks(PT_COLS_ALL, 0, PT_TIER_SYSCALL) == PT_HOOKS_ALL);
	CHECK(pt_cols_hooks(PT_COLS_ALL, 0, PT_TIER_TRACEPOINT) ==
	      (PT_HOOKS_ALL & ~PT_HOOK_BUFS));
	CHECK(pt_tier_hooks(PT_TIER_TRACEPOINT) == (PT_HOOKS_ALL & ~PT_HOOK_BUFS));
	/* histograms: occupancy less the pages a write filled (tracepoint) */
	CHECK(pt_cols_hooks(0, 1u << PT_HIST_OCCUPANCY, PT_TIER_SYSCALL) == C);
	CHECK(pt_cols_hooks(0, 1u << PT_HIST_OCCUPANCY, PT_TIER_TRACEPOINT) ==
	      (C | PT_HOOK_PAGES));
	CHECK(pt_cols_hooks(0, 1u << PT_HIST_WAIT_WRITE, PT_TIER_FUNCTION) ==
	      (C | PT_HOOK_WAITS));
}

/* A column whose hooks were not loaded is unknown, never 0; the tier line
 * says what was left out and why, --help what loads only when asked. */
static void left_out(void)
{
	struct pt_counts c = { .writes = 2, .bufs_new = 32, .alloc_locked = 32 };
	struct pt_env e = env_of(PT_TIER_SYSCALL, -1, -1);
	char buf[2048];

	e.hooks_off = PT_HOOK_PAGES | PT_HOOK_LOCKS;
	CHECK(pt_get(PT_COL_POOL_MISSES, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_POOL_HITS, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_WRITES, &c, &e).u == 2);
	CHECK(pt_get(PT_COL_COPY_BUFFERS, &c, &e).q == PT_DERIVED);
	pt_tier_line(buf, sizeof(buf), &e, true);
	CHECK(strstr(buf, "; left out (no column shown needs kmem:mm_page_alloc, "
		     "lock:contention_begin/end): pool_hits, pool_misses, pool_hit_pct, "
		     "alloc_locked, alloc_unlocked, lock_contended, lock_wait_ns, "
		     "alloc_wasted") != NULL);
	CHECK(strstr(buf, "not known: pool_hits") == NULL);
	CHECK(strstr(buf, "derived: copy_sections") != NULL);
	e.hooks_off = PT_HOOK_BUFS;
	CHECK(pt_get(PT_COL_ALLOC_LOCKED, &c, &e).u == 32);
	CHECK(pt_get(PT_COL_POOL_HITS, &c, &e).q == PT_NA);
	/* a column the tier cannot know stays "not known" */
	e = env_of(PT_TIER_TRACEPOINT, -1, -1);
	e.hooks_off = PT_HOOK_WAITS;
	e.lacks = PT_NA_NO_WAITS;
	pt_tier_line(buf, sizeof(buf), &e, true);
	CHECK(strstr(buf, "waits_read") && !strstr(buf, "left out"));
	pt_tier_summary(buf, sizeof(buf), PT_TIER_SYSCALL, "");
	CHECK(strstr(buf, "\nkmem:mm_page_alloc only when asked for: pool_hits, "
		     "pool_misses, pool_hit_pct,\n  alloc_locked, alloc_unlocked, "
		     "alloc_wasted\n") != NULL);
	CHECK(strstr(buf, "\nsched:sched_switch only when asked for: waits_read, ") != NULL);
}

int main(void)
{
	rows_complete();
	qualities();
	values();
	every_call_bytes();
	help_is_table();
	tier_line();
	ring();
	sched();
	uses_complete();
	col_hooks();
	left_out();
	return unit_summary("test_metrics");
}
