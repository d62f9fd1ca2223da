// SPDX-License-Identifier: GPL-2.0
/* The metrics table: per-tier qualities, knob states, the generated help. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "core/metrics.h"
#include "unit.h"

static struct pt_env env_of(enum pt_tier t, int prealloc, int batch)
{
	return (struct pt_env){ .tier = t, .knob_prealloc_max = prealloc,
				.knob_prealloc_keep = prealloc < 0 ? -1 : 1,
				.knob_read_batch = batch };
}

/* Every row is complete: a CSV name, a unit, a meaning, one way to a value. */
static void rows_complete(void)
{
	for (int i = 0; i < PT_NCOLS; i++) {
		const struct pt_metric *m = &pt_metrics[i];

		/* a table-only column has a heading and a name for -o */
		CHECK(m->csv ? *m->csv != '\0' && !m->name : m->head && m->name);
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
	CHECK(pt_col_quality(PT_COL_ALLOC_LOCKED, &e) == PT_NA);
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
}

/* Raw counts to columns, per tier: the derivations the table documents. */
static void values(void)
{
	struct pt_counts c = { .reads = 10, .writes = 4, .bufs_new = 40,
			       .pool_hits = 30, .alloc_locked = 6,
			       .alloc_pages = 12, .read_bufs = 20,
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
	CHECK(pt_get(PT_COL_COPY_SECTIONS, &c, &e).u == 20);	/* one per buffer */
	CHECK(pt_get(PT_COL_EAGAIN_EMPTY, &c, &e).u == 3);
	CHECK(pt_get(PT_COL_EAGAIN_FULL, &c, &e).u == 3);
	e.tier = PT_TIER_SYSCALL;
	CHECK(pt_get(PT_COL_POOL_HITS, &c, &e).u == 28);	/* 40 - 12 */
	CHECK(pt_get(PT_COL_ALLOC_LOCKED, &c, &e).u == 12);
	CHECK(pt_get(PT_COL_POOL_HIT_PCT, &c, &e).d == 70.0);
	c = (struct pt_counts){};
	CHECK(pt_get(PT_COL_POOL_HIT_PCT, &c, &e).q == PT_NA);	/* 0/0 */
	CHECK(pt_get(PT_COL_KNOB_PREALLOC_MAX, &c, &e).u == 0);
	e.knob_prealloc_max = -1;
	CHECK(pt_get(PT_COL_KNOB_PREALLOC_MAX, &c, &e).q == PT_NA);
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
	e.lacks = PT_NA_NO_WAITS;
	CHECK(pt_get(PT_COL_RING_PEAK, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RING_FULL_WRITES, &c, &e).q == PT_NA);
	CHECK(pt_get(PT_COL_RING_SLOTS, &c, &e).u == 2);
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

static void tier_line(void)
{
	struct pt_env e = env_of(PT_TIER_SYSCALL, 8, 0);
	char buf[1024];

	pt_tier_line(buf, sizeof(buf), &e);
	CHECK(strstr(buf, "derived: copy_sections") != NULL);
	CHECK(strstr(buf, "not known: pool_hits") != NULL);
	e = env_of(PT_TIER_TRACEPOINT, 8, 0);
	pt_tier_line(buf, sizeof(buf), &e);
	CHECK(strstr(buf, "derived: sections_per_read, ring_quota_shrunk; not known: "
		  "eagain_lock, eagain_nopage, splice_in") == buf);
}

int main(void)
{
	rows_complete();
	qualities();
	values();
	help_is_table();
	tier_line();
	ring();
	return unit_summary("test_metrics");
}
