/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reported metrics: one table of columns (src/model/metrics.c) says, for
 * each column, its CSV name, table heading, unit, meaning, how each tier
 * knows it (exact, derived, or not at all, per knob state) and how its
 * value follows from the raw counts. Every output and front end reads it;
 * columns are addressed by enum pt_col.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "pipetrace.h"
#include "tier.h"

enum pt_quality {
	PT_NA,		/* this kernel/tier cannot know it: '-' / empty */
	PT_EXACT,
	PT_DERIVED,	/* computed from other signals, marked as such */
};

/* Per-interval facts that are not per key. */
struct pt_env {
	enum pt_tier tier;
	int knob_prealloc_max;	/* -1: the kernel has no such knob */
	int knob_prealloc_keep;
	int knob_read_batch;
	__u64 untracked;	/* events dropped: counter map full */
	__u64 skipped;		/* runs of the programs the kernel skipped */
	double interval_s;	/* the interval's length, for shares of it */
	unsigned int lacks;	/* PT_NA_NO_*: events this kernel lacks */
	long user_pages_soft;	/* fs.pipe-user-pages-soft; -1: unknown */
	long pipe_max_size;	/* fs.pipe-max-size; -1: unknown */
	unsigned int hooks_off;	/* enum pt_hook: not loaded, no column asked
				 * for them (0: every hook loaded) */
};

/* A pipe's slots when its owner was over fs.pipe-user-pages-soft as it
 * was made (PIPE_MIN_DEF_BUFFERS), and otherwise (PIPE_DEF_BUFFERS) */
#define PT_QUOTA_SLOTS		2
#define PT_DEFAULT_SLOTS	16

/* PT_V_TIME: epoch seconds (the table shows ">HH:MM:SS", local time) */
enum pt_vtype { PT_V_U64, PT_V_RATIO, PT_V_PCT, PT_V_TIME };

struct pt_value {
	enum pt_quality q;
	enum pt_vtype type;
	__u64 u;
	double d;
};

/* Columns in CSV order: a contract with scripts, only ever appended to. */
enum pt_col {
	PT_COL_READS,
	PT_COL_WRITES,
	PT_COL_READ_BYTES,
	PT_COL_WRITE_BYTES,
	PT_COL_EAGAIN_READ,
	PT_COL_EAGAIN_WRITE,
	PT_COL_POOL_HITS,
	PT_COL_POOL_MISSES,
	PT_COL_POOL_HIT_PCT,
	PT_COL_ALLOC_LOCKED,
	PT_COL_ALLOC_UNLOCKED,
	PT_COL_COPY_SECTIONS,
	PT_COL_COPY_BUFFERS,
	PT_COL_PREFILL_DROPPED,
	PT_COL_SECTIONS_PER_READ,
	PT_COL_EAGAIN_NONBLOCK,
	PT_COL_EAGAIN_NOWAIT,
	PT_COL_EAGAIN_EMPTY,
	PT_COL_EAGAIN_FULL,
	PT_COL_EAGAIN_LOCK,
	PT_COL_EAGAIN_NOPAGE,
	PT_COL_KNOB_PREALLOC_MAX,
	PT_COL_KNOB_PREALLOC_KEEP,
	PT_COL_KNOB_READ_BATCH,
	PT_COL_SPLICE_IN,
	PT_COL_SPLICE_IN_BYTES,
	PT_COL_SPLICE_OUT,
	PT_COL_SPLICE_OUT_BYTES,
	PT_COL_EAGAIN_SPLICE,
	PT_COL_UNTRACKED,
	PT_COL_WAITS_READ,
	PT_COL_WAIT_READ_NS,
	PT_COL_WAITS_WRITE,
	PT_COL_WAIT_WRITE_NS,
	PT_COL_LOCK_CONTENDED,
	PT_COL_LOCK_WAIT_NS,
	PT_COL_EOF_READS,
	PT_COL_RING_SLOTS,
	PT_COL_RING_PEAK,
	PT_COL_RING_FULL_WRITES,
	PT_COL_RING_OWNER_UID,
	PT_COL_RING_OWNER_PAGES,
	PT_COL_RING_QUOTA_SHRUNK,
	PT_COL_ALLOC_WASTED,
	PT_COL_BLOCKED_SINCE,
	PT_COL_CPU_PCT,
	PT_COL_RUNQ_PCT,
	PT_COL_OUT_BYTES,
	PT_COL_IN_BYTES,
	/* table only (no CSV name) */
	PT_COL_WAIT_READ_PCT,
	PT_COL_WAIT_WRITE_PCT,
	PT_COL_EAGAIN,
	/* pipetop only */
	PT_COL_MOVED_BYTES,
	PT_COL_AVG_WRITE,
#ifdef PT_TEST_COLUMN
	PT_COL_TEST,	/* tests/unit/test_column.c: a column added in one row */
#endif
	PT_NCOLS,
};

/* pipetop's value columns, left to right (also its sort keys): a row's
 * .top.at places it there. */
enum tm_col {
	TM_RPS,		/* reads/s */
	TM_WPS,		/* writes/s */
	TM_MBPS,	/* bytes/s through the pipe (or the process), IEC */
	TM_WAITR,	/* share of the interval readers slept waiting for data */
	TM_WAITW,	/* ... writers for room: the blocked side */
	TM_AVGWR,	/* average write size, bytes */
	TM_HIT,		/* pool hit % */
	TM_ALLOCLK,	/* pages allocated under pipe->mutex, per second */
	TM_SECRD,	/* user-access sections per read */
	TM_EAGR,	/* read EAGAINs/s */
	TM_EAGW,	/* write EAGAINs/s */
	TM_LOCK,	/* contended pipe->mutex acquisitions per second */
#ifdef PT_TEST_COLUMN
	TM_TEST,
#endif
	TM_NCOLS,
};

/* Kernel states in which a tier cannot know a column it otherwise knows. */
enum pt_na_when {
	/* the batched read copy on: fs.pipe-read-batch > 0, or set by the
	 * session in pt_env.lacks for a kernel that has it with no switch */
	PT_NA_BATCH = 1 << 0,
	/* set by the session in pt_env.lacks */
	PT_NA_NO_POOL = 1 << 1,	/* no pipe_prefill event: no pool */
	PT_NA_NO_WAITS = 1 << 2,	/* no pipe_wait_* events */
	PT_NA_NO_LOCKS = 1 << 3,	/* no lock:contention_* events */
	PT_NA_NO_SCHED = 1 << 4,	/* no /proc/PID/schedstat */
};

/* How one tier knows one column. */
struct pt_how {
	enum pt_quality q;
	unsigned int na_when;	/* PT_NA_*: '-' in these knob states */
};

/* One Prometheus series of a column (output/prom.c). */
struct pt_series {
	const char *labels;	/* its own labels, e.g. side="read"; "" none;
				 * NULL: no such series */
	/* a raw counter of the column (offsetof(struct pt_counts, f) + 1) as
	 * a series of its own; 0: the column's value */
	size_t raw;
};
#define PT_PROM_SERIES 2	/* a column's series at most */

/* A column in pipetop (src/pipetop/model.c). */
struct pt_top {
	const char *head;	/* NULL: not shown */
	const char *name;	/* in "sort: NAME" */
	int width;
	enum tm_col at;
	bool rate;		/* per second */
};

struct pt_metric {
	const char *csv;	/* CSV column, never renamed; NULL: table only */
	const char *head;	/* table heading; NULL: its CSV name in capitals */
	int width;		/* table width at least (the heading may widen it) */
	const char *unit;
	const char *what;	/* its meaning, one line */
	enum pt_vtype type;
	struct pt_how how[PT_TIER_COUNT];
	/* the sum of raw counters: offsetof(struct pt_counts, field) + 1 */
	size_t sum[2];
	/* a knob of env: offsetof(struct pt_env, knob) + 1 */
	size_t knob;
	/* a state seen in the interval, not a count: no per-second rate,
	 * no Prometheus counter */
	bool state;
	/* otherwise its value from the raw counts; false: no value (0/0) */
	bool (*value)(const struct pt_counts *c, const struct pt_env *e,
		      struct pt_value *v);
	/* the raw counters value reads (PT_RAW(f) | ...; sum's are known) */
	__u64 uses;
	const char *rate_head;	/* heading with --rate; NULL: head and "/s" */
	/* the table shows this column instead where the tier cannot know
	 * this one (PT_STAND_IN(col); 0: none) */
	int stand_in;
	const char *name;	/* -o's name of a table-only column */
	bool bench;		/* in pipetrace-bench's rows */
	struct pt_top top;	/* in pipetop */
	/*
	 * Prometheus: the family of the column's series (without pipetrace_;
	 * a counter's ends in _total; NULL: none) and the series, a counter
	 * each, in seconds for a column in ns; a knob's is a gauge. Columns
	 * of one family are one wherever they are in the table; help is its
	 * # HELP, on the family's first column.
	 */
	const char *prom;
	struct pt_series series[PT_PROM_SERIES];
	const char *help;
	/* docs/METRICS.md: the PromQL that gives the column back where its
	 * series do not say it (NULL: they do), and how the two differ */
	const char *promql;
	const char *prom_note;
};

extern const struct pt_metric pt_metrics[PT_NCOLS];

/* Sets of columns: bit c is column c. */
#define PT_COL_BIT(c)	(1ULL << (c))
#define PT_COLS_ALL	(~0ULL >> (64 - PT_NCOLS))
_Static_assert(PT_NCOLS <= 64, "a column set is a __u64");

/* The hooks (enum pt_hook) tier t needs for column col. */
__u32 pt_col_hooks(enum pt_col col, enum pt_tier t);
/* The hooks tier t needs for the columns cols and histograms hists. */
__u32 pt_cols_hooks(__u64 cols, __u32 hists, enum pt_tier t);

/* A column's quality on env's tier and knob state (same for every row). */
enum pt_quality pt_col_quality(enum pt_col col, const struct pt_env *env);
/* One column of one row; .q PT_NA when it cannot be known. */
struct pt_value pt_get(enum pt_col col, const struct pt_counts *c,
		       const struct pt_env *env);
/*
 * What tier t knows, one line per quality ("exact: reads, ..."), generated
 * from the table, each line prefixed by indent; for --help and the tier
 * line on stderr. Returns the length it needed (like snprintf).
 */
int pt_tier_summary(char *buf, size_t n, enum pt_tier t, const char *indent);

/* --help's tier section: each tier's line and summary. */
void pt_print_tiers(FILE *f);
/*
 * For the tier line on stderr, the columns env's tier derives, cannot know
 * in env's knob state, or knows but were left out (env->hooks_off): with
 * lists, each list ("derived: a, b; not known: c; left out (no column
 * shown needs H): d"); else how many each ("2 derived, 1 not known, 1 left
 * out; -v lists them"). Returns the length it needed (like snprintf).
 */
int pt_tier_line(char *buf, size_t n, const struct pt_env *env, bool lists);

#define PT_STAND_IN(col)	((col) + 1)
/* The column the table shows for col on env's tier: its stand-in where
 * the tier cannot know col and knows that, else col. */
enum pt_col pt_table_col(enum pt_col col, const struct pt_env *env);

/* Bytes into a pipe (written or spliced in) and out of it (read or
 * spliced out), every call that moves them. */
__u64 pt_bytes_in(const struct pt_counts *c);
__u64 pt_bytes_out(const struct pt_counts *c);
/* Bytes through a pipe: written or spliced in, read or spliced out,
 * whichever side moved more (a pipe's writers may be traced without its
 * readers). */
__u64 pt_bytes_moved(const struct pt_counts *c);

/* Reads the pipe knobs and fs.pipe-user-pages-soft under /proc/sys/fs into
 * env (-1 where absent). */
void env_read_knobs(struct pt_env *env);

#endif
