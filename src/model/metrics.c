// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics table: what each column means, how well each tier knows it,
 * and how its value follows from the raw counts of include/pipetrace.h.
 * Adding a column: one enum pt_col entry (at the end), one row here, and
 * the BPF program that counts its raw events.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include "hooks.h"
#include "metrics.h"

#define TP PT_TIER_TRACEPOINT
#define FN PT_TIER_FUNCTION
#define SC PT_TIER_SYSCALL
#define RAW(f) .sum = { offsetof(struct pt_counts, f) + 1 }
#define SUM(f, g) .sum = { offsetof(struct pt_counts, f) + 1, offsetof(struct pt_counts, g) + 1 }
#define KNOB(k) .knob = offsetof(struct pt_env, k) + 1
#define USES(r) .uses = (r)
/* pipetop: its column at, heading, name, width, per second or not */
#define TOP(at_, head_, name_, width_, rate_)				\
	.top = { head_, name_, width_, at_, rate_ }
/* Prometheus: a series of the column's value, or two of its raw counters */
#define PROM(n, l) .prom = n, .series = { { l } }
#define PROM_RAWS(n, l1, f1, l2, f2) .prom = n,				\
	.series = { { l1, offsetof(struct pt_counts, f1) + 1 },		\
		    { l2, offsetof(struct pt_counts, f2) + 1 } }
/* what the pool's columns read on one tier or another */
#define POOL_RAWS (PT_RAW(bufs_new) | PT_RAW(pool_hits) | PT_RAW(alloc_locked))
#define EAGAIN_R (PT_RAW(eagain_read_nonblock) | PT_RAW(eagain_read_nowait))
#define EAGAIN_W (PT_RAW(eagain_write_nonblock) | PT_RAW(eagain_write_nowait))

/* How each tier knows a column: the common shapes. */
#define ALL_EXACT { [TP] = { PT_EXACT }, [FN] = { PT_EXACT }, [SC] = { PT_EXACT } }
#define SYSCALL_ONLY { [TP] = { PT_NA }, [FN] = { PT_NA }, [SC] = { PT_EXACT } }
/* counted by the tracepoint tier, from other counts by the others */
#define TP_COUNTS { [TP] = { PT_EXACT }, [FN] = { PT_DERIVED }, [SC] = { PT_DERIVED } }
/*
 * Sections: one per user copy. The tracepoint tier's pipe_copy counts
 * them (kernel-patch 0005: per segment piece of an iovec); the function
 * tier derives them from the iterator and the buffers it saw released,
 * the syscall tier from the iovec and the ring's offsets (per buffer for
 * a plain buffer, per segment piece for an iovec). Neither sees the
 * batched read path; a read either cannot count makes the row's '-'.
 */
#define COPIES(q_tp)							\
	{ [TP] = { q_tp }, [FN] = { PT_DERIVED, PT_NA_BATCH },		\
	  [SC] = { PT_DERIVED, PT_NA_BATCH } }
/* sleeps: the pipe_wait events, or sched_switch inside a call */
#define WAITS(q)							\
	{ [TP] = { q, PT_NA_NO_WAITS }, [FN] = { q }, [SC] = { q } }
#define LOCKS								\
	{ [TP] = { PT_EXACT, PT_NA_NO_LOCKS },			\
	  [FN] = { PT_EXACT, PT_NA_NO_LOCKS },			\
	  [SC] = { PT_EXACT, PT_NA_NO_LOCKS } }
/* the function tier infers the reason from the side (6.12 returns
 * -EAGAIN only on an empty read or a full write) */
#define REASON { [TP] = { PT_EXACT }, [FN] = { PT_DERIVED }, [SC] = { PT_NA } }
/* no kernel gives it: v4 of the series has no nowait trylock, so nothing
 * returns -EAGAIN for a busy mutex or a page; the column stays, empty */
#define NO_TIER { [TP] = { PT_NA }, [FN] = { PT_NA }, [SC] = { PT_NA } }
/* the scheduler's accounting per process (os/sched_stat.c), read from
 * /proc at each interval's end whatever the tier */
#define SCHED								\
	{ [TP] = { PT_DERIVED, PT_NA_NO_SCHED },			\
	  [FN] = { PT_DERIVED, PT_NA_NO_SCHED },			\
	  [SC] = { PT_DERIVED, PT_NA_NO_SCHED } },			\
	USES(PT_RAW(sched_span_ns) | PT_RAW(cpu_ns) | PT_RAW(runq_ns))
#define SCHED_NOTE .promql = "none",					\
	.prom_note = "a process's share of the interval: CSV and JSON only"
#define NO_KERNEL .promql = "none",					\
	.prom_note = "always empty: v4 of the series removed the nowait trylock"

static bool v_none(const struct pt_counts *c, const struct pt_env *e,
		   struct pt_value *v)
{
	(void)c, (void)e, (void)v;
	return false;
}

static __u64 sub0(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

static bool set_u(struct pt_value *v, __u64 u)
{
	v->u = u;
	return true;
}

static bool set_d(struct pt_value *v, __u64 num, __u64 den, double scale)
{
	if (!den)
		return false;
	v->d = scale * num / den;
	return true;
}

/* The function tier: every read EAGAIN is an empty pipe ... */
static bool v_eagain_empty(const struct pt_counts *c, const struct pt_env *e,
			   struct pt_value *v)
{
	if (e->tier == PT_TIER_FUNCTION)
		return set_u(v, c->eagain_read_nonblock + c->eagain_read_nowait);
	return set_u(v, c->eagain_empty);
}

/* ... and every write EAGAIN a full one. */
static bool v_eagain_full(const struct pt_counts *c, const struct pt_env *e,
			  struct pt_value *v)
{
	if (e->tier == PT_TIER_FUNCTION)
		return set_u(v, c->eagain_write_nonblock + c->eagain_write_nowait);
	return set_u(v, c->eagain_full);
}

/*
 * Misses: new buffers whose page was allocated under pipe->mutex; hits:
 * the others, a page the write did not wait for the allocator for while
 * holding the lock. By kernel family (docs/METRICS.md):
 *  - up to 7.1 (no prefill path): the page cached in tmp_page (tmp_page[]
 *    from 6.15) is a hit, every allocation a miss;
 *  - 7.2 and later: a page of the write's prealloc (allocated before the
 *    mutex) or from tmp_page[] is a hit, one allocated under it a miss;
 *  - kernel-patch/: a page from the pipe's pool (prefilled before the
 *    mutex, or kept) is a hit.
 * The tracepoint tier counts hits (pipe_page_get); the other tiers count
 * the pages allocated under the mutex.
 */
static __u64 pool_misses(const struct pt_counts *c, const struct pt_env *e)
{
	if (e->tier == PT_TIER_TRACEPOINT)
		return sub0(c->bufs_new, c->pool_hits);
	return c->alloc_locked;
}

static __u64 pool_hits(const struct pt_counts *c, const struct pt_env *e)
{
	if (e->tier == PT_TIER_TRACEPOINT)
		return c->pool_hits;
	return sub0(c->bufs_new, pool_misses(c, e));
}

static bool v_pool_hits(const struct pt_counts *c, const struct pt_env *e,
			struct pt_value *v)
{
	return set_u(v, pool_hits(c, e));
}

static bool v_pool_misses(const struct pt_counts *c, const struct pt_env *e,
			  struct pt_value *v)
{
	return set_u(v, pool_misses(c, e));
}

static bool v_pool_hit_pct(const struct pt_counts *c, const struct pt_env *e,
			   struct pt_value *v)
{
	__u64 hits = pool_hits(c, e);

	return set_d(v, hits, hits + pool_misses(c, e), 100.0);
}

/*
 * Sections: one per user copy, so one per segment piece of a vectored
 * read (the function and syscall tiers count them from the iovec; the
 * tracepoint tier has pipe_copy's copy calls, one section each into a
 * plain buffer). A read whose pieces a tier could not count makes the
 * figure unknown, never short.
 */
static bool v_copy_sections(const struct pt_counts *c, const struct pt_env *e,
			    struct pt_value *v)
{
	(void)e;
	return !c->read_sections_unknown && set_u(v, c->read_sections);
}

/* io_uring reads have no copy figures in the syscall tier */
static bool v_sections_per_read(const struct pt_counts *c, const struct pt_env *e,
				struct pt_value *v)
{
	(void)e;
	return !c->read_sections_unknown &&
	       set_d(v, c->read_sections, c->reads - c->uring_reads, 1.0);
}

/* task-time asleep / interval: 100 = one task asleep all the interval */
/* task-time in ns as a % of the interval: 100 = one task all of it */
static bool interval_share(__u64 ns, const struct pt_env *e, struct pt_value *v)
{
	if (e->interval_s <= 0)
		return false;
	v->d = ns / (e->interval_s * 1e7);
	return true;
}

/* a process's scheduler time as a % of the span it was read over */
static bool sched_share(__u64 ns, const struct pt_counts *c, struct pt_value *v)
{
	return set_d(v, ns, c->sched_span_ns, 100.0);
}

static bool v_cpu_pct(const struct pt_counts *c, const struct pt_env *e,
		      struct pt_value *v)
{
	(void)e;
	return sched_share(c->cpu_ns, c, v);
}

static bool v_runq_pct(const struct pt_counts *c, const struct pt_env *e,
		       struct pt_value *v)
{
	(void)e;
	return sched_share(c->runq_ns, c, v);
}

static bool v_wait_read_pct(const struct pt_counts *c, const struct pt_env *e,
			    struct pt_value *v)
{
	return interval_share(c->wait_read_ns, e, v);
}

static bool v_wait_write_pct(const struct pt_counts *c, const struct pt_env *e,
			     struct pt_value *v)
{
	return interval_share(c->wait_write_ns, e, v);
}

static bool v_eagain(const struct pt_counts *c, const struct pt_env *e,
		     struct pt_value *v)
{
	(void)e;
	return set_u(v, c->eagain_read_nonblock + c->eagain_read_nowait +
			c->eagain_write_nonblock + c->eagain_write_nowait);
}

/* The ring columns: only for keys that wrote (ring_seen.bpf.h). */
static bool v_ring_slots(const struct pt_counts *c, const struct pt_env *e,
			 struct pt_value *v)
{
	(void)e;
	return c->ring_slots && set_u(v, c->ring_slots);
}

static bool v_ring_peak(const struct pt_counts *c, const struct pt_env *e,
			struct pt_value *v)
{
	(void)e;
	return c->ring_slots && set_u(v, c->ring_peak);
}

static bool v_ring_owner_uid(const struct pt_counts *c, const struct pt_env *e,
			     struct pt_value *v)
{
	(void)e;
	return c->ring_slots && set_u(v, c->ring_owner_uid);
}

static bool v_blocked_since(const struct pt_counts *c, const struct pt_env *e,
			    struct pt_value *v)
{
	(void)e;
	return c->blocked_since && set_u(v, c->blocked_since);
}

static bool v_ring_owner_pages(const struct pt_counts *c, const struct pt_env *e,
			       struct pt_value *v)
{
	(void)e;
	return c->ring_slots && set_u(v, c->ring_owner_pages);
}

/*
 * A new pipe gets PT_QUOTA_SLOTS instead of PT_DEFAULT_SLOTS when its
 * default ring would take its owner over the soft limit (alloc_pipe_info()):
 * a ring of that size whose owner would still be shrunk so is flagged.
 */
static bool v_ring_quota_shrunk(const struct pt_counts *c, const struct pt_env *e,
				struct pt_value *v)
{
	if (!c->ring_slots || e->user_pages_soft < 0)
		return false;
	return set_u(v, c->ring_slots == PT_QUOTA_SLOTS && e->user_pages_soft &&
		     c->ring_owner_pages + PT_DEFAULT_SLOTS > (__u64)e->user_pages_soft);
}

__u64 pt_bytes_in(const struct pt_counts *c)
{
	return c->write_bytes + c->splice_in_bytes;
}

__u64 pt_bytes_out(const struct pt_counts *c)
{
	return c->read_bytes + c->splice_out_bytes;
}

__u64 pt_bytes_moved(const struct pt_counts *c)
{
	__u64 in = pt_bytes_in(c), out = pt_bytes_out(c);

	return in > out ? in : out;
}

static bool v_moved_bytes(const struct pt_counts *c, const struct pt_env *e,
			  struct pt_value *v)
{
	(void)e;
	return set_u(v, pt_bytes_moved(c));
}

static bool v_avg_write(const struct pt_counts *c, const struct pt_env *e,
			struct pt_value *v)
{
	(void)e;
	return set_d(v, c->write_bytes, c->writes, 1.0);
}

static bool v_untracked(const struct pt_counts *c, const struct pt_env *e,
			struct pt_value *v)
{
	(void)c;
	return set_u(v, e->untracked);
}

/* The bytes of every call on one side (the CSV name, heading, into or
 * out of, the call's and the splice's counters, the heading with --rate,
 * the table's stand-in, the Prometheus side) */
#define EVERY_CALL_BYTES(csv_, head_, dir_, call_, splice_, rate_, stand_in_, side_) \
	{ csv_, head_, 6, "bytes", "bytes " dir_ " pipes: " #call_ " + " #splice_,	\
	  PT_V_U64, SYSCALL_ONLY, SUM(call_, splice_), .rate_head = rate_,	\
	  .stand_in = PT_STAND_IN(stand_in_),					\
	  .promql = "pipetrace_bytes_total{side=\"" side_ "\"} + "			\
	  "pipetrace_splice_bytes_total{side=\"" side_ "\"}" }

const struct pt_metric pt_metrics[PT_NCOLS] = {
	[PT_COL_READS] = { "reads", "READS", 6, "calls",
		"read calls on pipes (read, readv, preadv2, io_uring)",
		PT_V_U64, ALL_EXACT, RAW(reads),
		.rate_head = "r/s", .bench = true,
		PROM("calls_total", "side=\"read\""), .help =
		"Read and write calls on pipes (read, readv, preadv2, write, writev, "
		"pwritev2, io_uring).",
		TOP(TM_RPS, "RD/s", "reads/s", 8, true) },
	[PT_COL_WRITES] = { "writes", "WRITES", 6, "calls",
		"write calls on pipes (write, writev, pwritev2, io_uring)",
		PT_V_U64, ALL_EXACT, RAW(writes),
		.rate_head = "w/s", .bench = true,
		PROM("calls_total", "side=\"write\""),
		TOP(TM_WPS, "WR/s", "writes/s", 8, true) },
	[PT_COL_READ_BYTES] = { "read_bytes", "RD_BYTES", 8, "bytes",
		"bytes read", PT_V_U64, ALL_EXACT, RAW(read_bytes),
		.rate_head = "rdB/s", .bench = true,
		PROM("bytes_total", "side=\"read\""),
		.help = "Bytes those calls read and wrote." },
	[PT_COL_WRITE_BYTES] = { "write_bytes", "WR_BYTES", 8, "bytes",
		"bytes written", PT_V_U64, ALL_EXACT, RAW(write_bytes),
		.rate_head = "wrB/s", .bench = true,
		PROM("bytes_total", "side=\"write\"") },
	[PT_COL_EAGAIN_READ] = { "eagain_read", "EAGAIN_R", 8, "calls",
		"reads that returned -EAGAIN", PT_V_U64, ALL_EXACT,
		SUM(eagain_read_nonblock, eagain_read_nowait), .bench = true,
		PROM_RAWS("eagain_total", "side=\"read\",cause=\"nonblock\"",
			  eagain_read_nonblock, "side=\"read\",cause=\"nowait\"",
			  eagain_read_nowait), .help =
		"Calls that returned -EAGAIN, by side and cause (nonblock: an "
		"O_NONBLOCK file; nowait: RWF_NOWAIT or IOCB_NOWAIT).",
		.promql = "sum without (cause) (pipetrace_eagain_total{side=\"read\"})",
		TOP(TM_EAGR, "EAG_RD/s", "EAGAIN read/s", 9, true) },
	[PT_COL_EAGAIN_WRITE] = { "eagain_write", "EAGAIN_W", 8, "calls",
		"writes that returned -EAGAIN", PT_V_U64, ALL_EXACT,
		SUM(eagain_write_nonblock, eagain_write_nowait), .bench = true,
		PROM_RAWS("eagain_total", "side=\"write\",cause=\"nonblock\"",
			  eagain_write_nonblock, "side=\"write\",cause=\"nowait\"",
			  eagain_write_nowait),
		.promql = "sum without (cause) (pipetrace_eagain_total{side=\"write\"})",
		TOP(TM_EAGW, "EAG_WR/s", "EAGAIN write/s", 9, true) },
	[PT_COL_POOL_HITS] = { "pool_hits", "HITS", 7, "pages",
		"new buffers whose page came from the pipe's cache or pool",
		PT_V_U64, TP_COUNTS, .value = v_pool_hits,
		USES(POOL_RAWS),
		PROM("pool_hits_total", ""), .help =
		"New pipe buffers whose page came from the pipe's cache or pool." },
	[PT_COL_POOL_MISSES] = { "pool_misses", "MISSES", 7, "pages",
		"new buffers that needed a page allocated under pipe->mutex",
		PT_V_U64, ALL_EXACT, .value = v_pool_misses,
		USES(POOL_RAWS),
		PROM("pool_misses_total", ""), .help =
		"New pipe buffers that needed a page allocated under pipe->mutex." },
	[PT_COL_POOL_HIT_PCT] = { "pool_hit_pct", "HIT%", 6, "%",
		"pool_hits / (pool_hits + pool_misses)",
		PT_V_PCT, TP_COUNTS, .value = v_pool_hit_pct,
		USES(POOL_RAWS), .bench = true,
		.promql = "100 * rate(pipetrace_pool_hits_total[5m]) / "
		"(rate(pipetrace_pool_hits_total[5m]) + rate(pipetrace_pool_misses_total[5m]))",
		TOP(TM_HIT, "HIT%", "pool hit %", 6, false) },
	[PT_COL_ALLOC_LOCKED] = { "alloc_locked", "ALLOC_LK", 8, "pages",
		"pipe pages allocated with pipe->mutex held",
		PT_V_U64, ALL_EXACT, RAW(alloc_locked), .bench = true,
		PROM("pages_allocated_total", "mutex=\"held\""), .help =
		"Pipe pages allocated with pipe->mutex held, or before taking it "
		"(prefill).",
		TOP(TM_ALLOCLK, "ALLOC_LK/s", "alloc locked/s", 10, true) },
	[PT_COL_ALLOC_UNLOCKED] = { "alloc_unlocked", "ALLOC_UL", 8, "pages",
		"pipe pages allocated before taking pipe->mutex (prefill)",
		PT_V_U64, ALL_EXACT, RAW(alloc_unlocked),
		PROM("pages_allocated_total", "mutex=\"not_held\"") },
	[PT_COL_COPY_SECTIONS] = { "copy_sections", "SECTIONS", 8, "sections",
		"user-access (STAC/CLAC) sections reads opened: one per user copy, "
		"a pipe buffer's piece of one iovec segment",
		PT_V_U64, COPIES(PT_EXACT), .value = v_copy_sections,
		USES(PT_RAW(read_sections) | PT_RAW(read_sections_unknown)), .bench = true,
		PROM("copy_sections_total", ""), .help =
		"User-access (STAC/CLAC) sections reads opened.",
		.prom_note = "one per user copy: a pipe buffer's piece of one iovec "
		"segment (readv etc.), one per buffer into a plain buffer; exact on "
		"the tracepoint tier, derived on the others; an interval with a read "
		"whose pieces the tier could not count adds nothing" },
	[PT_COL_COPY_BUFFERS] = { "copy_buffers", NULL, 0, "buffers",
		"pipe buffers reads copied from", PT_V_U64,
		{ [TP] = { PT_EXACT }, [FN] = { PT_DERIVED, PT_NA_BATCH },
		  [SC] = { PT_DERIVED } }, RAW(read_bufs), .bench = true,
		PROM("copy_buffers_total", ""), .help =
		"Pipe buffers reads copied from." },
	[PT_COL_PREFILL_DROPPED] = { "prefill_dropped", NULL, 0, "pages",
		"prefilled pages freed because the pool was full",
		PT_V_U64, { [TP] = { PT_EXACT, PT_NA_NO_POOL } },
		RAW(prefill_dropped), PROM("prefill_dropped_total", ""), .help =
		"Prefilled pages freed because the pool was full." },
	[PT_COL_SECTIONS_PER_READ] = { "sections_per_read", "SEC/RD", 7,
		"sections/read", "copy_sections per read (io_uring reads left out)",
		PT_V_RATIO, COPIES(PT_DERIVED), .value = v_sections_per_read,
		USES(PT_RAW(read_sections) | PT_RAW(read_sections_unknown) | PT_RAW(reads) |
		     PT_RAW(uring_reads)), .bench = true,
		.promql = "rate(pipetrace_copy_sections_total[5m]) / "
		"rate(pipetrace_calls_total{side=\"read\"}[5m])",
		.prom_note = "the CSV leaves io_uring reads out of the divisor",
		TOP(TM_SECRD, "SEC/RD", "sections/read", 7, false) },
	[PT_COL_EAGAIN_NONBLOCK] = { "eagain_nonblock", NULL, 0, "calls",
		"-EAGAIN returns of O_NONBLOCK files",
		PT_V_U64, ALL_EXACT,
		SUM(eagain_read_nonblock, eagain_write_nonblock),
		.promql = "sum without (side) (pipetrace_eagain_total{cause=\"nonblock\"})" },
	[PT_COL_EAGAIN_NOWAIT] = { "eagain_nowait", NULL, 0, "calls",
		"-EAGAIN returns of RWF_NOWAIT/IOCB_NOWAIT calls",
		PT_V_U64, ALL_EXACT, SUM(eagain_read_nowait, eagain_write_nowait),
		.promql = "sum without (side) (pipetrace_eagain_total{cause=\"nowait\"})" },
	[PT_COL_EAGAIN_EMPTY] = { "eagain_empty", NULL, 0, "calls",
		"-EAGAIN because the pipe was empty", PT_V_U64, REASON,
		.value = v_eagain_empty, USES(PT_RAW(eagain_empty) | EAGAIN_R),
		PROM("eagain_reason_total", "reason=\"empty\""), .help =
		"The same -EAGAIN returns by reason: the pipe empty or full." },
	[PT_COL_EAGAIN_FULL] = { "eagain_full", NULL, 0, "calls",
		"-EAGAIN because the pipe was full", PT_V_U64, REASON,
		.value = v_eagain_full, USES(PT_RAW(eagain_full) | EAGAIN_W),
		PROM("eagain_reason_total", "reason=\"full\"") },
	[PT_COL_EAGAIN_LOCK] = { "eagain_lock", NULL, 0, "calls",
		"-EAGAIN because pipe->mutex was contended (nowait; no kernel since "
		"v4 of the series: always unknown)", PT_V_U64, NO_TIER, .value = v_none,
		NO_KERNEL },
	[PT_COL_EAGAIN_NOPAGE] = { "eagain_nopage", NULL, 0, "calls",
		"-EAGAIN because no page could be had without sleeping (nowait; no "
		"kernel since v4 of the series: always unknown)", PT_V_U64, NO_TIER,
		.value = v_none,
		NO_KERNEL },
	[PT_COL_KNOB_PREALLOC_MAX] = { "knob_prealloc_max", NULL, 0, "pages",
		"fs.pipe-prealloc-max at the end of the interval",
		PT_V_U64, ALL_EXACT, KNOB(knob_prealloc_max), .bench = true,
		PROM("knob_prealloc_max_pages", ""),
		.help = "fs.pipe-prealloc-max at the end of the last interval." },
	[PT_COL_KNOB_PREALLOC_KEEP] = { "knob_prealloc_keep", NULL, 0, "pages",
		"fs.pipe-prealloc-keep at the end of the interval",
		PT_V_U64, ALL_EXACT, KNOB(knob_prealloc_keep), .bench = true,
		PROM("knob_prealloc_keep_pages", ""),
		.help = "fs.pipe-prealloc-keep at the end of the last interval." },
	[PT_COL_KNOB_READ_BATCH] = { "knob_read_batch", NULL, 0, "mode",
		"fs.pipe-read-batch at the end of the interval",
		PT_V_U64, ALL_EXACT, KNOB(knob_read_batch), .bench = true,
		PROM("knob_read_batch", ""),
		.help = "fs.pipe-read-batch at the end of the last interval." },
	[PT_COL_SPLICE_IN] = { "splice_in", NULL, 0, "calls",
		"splice/tee/vmsplice/sendfile calls into a pipe",
		PT_V_U64, SYSCALL_ONLY, RAW(splice_in),
		PROM("splice_calls_total", "side=\"write\""), .help =
		"splice, tee, vmsplice and sendfile calls on pipes, by the pipe's "
		"side (write: into the pipe)." },
	[PT_COL_SPLICE_IN_BYTES] = { "splice_in_bytes", "SPL_IN_B", 8, "bytes",
		"bytes they moved", PT_V_U64, SYSCALL_ONLY, RAW(splice_in_bytes),
		PROM("splice_bytes_total", "side=\"write\""),
		.help = "Bytes those calls moved." },
	[PT_COL_SPLICE_OUT] = { "splice_out", NULL, 0, "calls",
		"splice/tee/vmsplice calls out of a pipe",
		PT_V_U64, SYSCALL_ONLY, RAW(splice_out),
		PROM("splice_calls_total", "side=\"read\"") },
	[PT_COL_SPLICE_OUT_BYTES] = { "splice_out_bytes", "SPL_OUT_B", 9, "bytes",
		"bytes they moved", PT_V_U64, SYSCALL_ONLY, RAW(splice_out_bytes),
		PROM("splice_bytes_total", "side=\"read\"") },
	[PT_COL_EAGAIN_SPLICE] = { "eagain_splice", NULL, 0, "calls",
		"splice-family calls that returned -EAGAIN",
		PT_V_U64, SYSCALL_ONLY, RAW(eagain_splice),
		PROM("splice_eagain_total", ""), .help =
		"splice-family calls that returned -EAGAIN." },
	[PT_COL_UNTRACKED] = { "untracked", NULL, 0, "events",
		"events not counted: the in-kernel counter map was full",
		PT_V_U64, ALL_EXACT, .value = v_untracked,
		.promql = "pipetrace_untracked_events_total",
		.prom_note = "tier label only: the counter map is one for every key" },
	[PT_COL_WAITS_READ] = { "waits_read", NULL, 0, "sleeps",
		"times readers slept waiting for data",
		PT_V_U64, WAITS(PT_EXACT), RAW(waits_read),
		PROM("waits_total", "side=\"read\""), .help =
		"Sleeps of readers waiting for data and of writers waiting for "
		"room." },
	[PT_COL_WAIT_READ_NS] = { "wait_read_ns", NULL, 0, "ns",
		"time readers slept waiting for data",
		PT_V_U64, WAITS(PT_EXACT), RAW(wait_read_ns),
		PROM("wait_seconds_total", "side=\"read\""),
		.help = "Time those sleeps took." },
	[PT_COL_WAITS_WRITE] = { "waits_write", NULL, 0, "sleeps",
		"times writers slept waiting for room",
		PT_V_U64, WAITS(PT_EXACT), RAW(waits_write),
		PROM("waits_total", "side=\"write\"") },
	[PT_COL_WAIT_WRITE_NS] = { "wait_write_ns", NULL, 0, "ns",
		"time writers slept waiting for room",
		PT_V_U64, WAITS(PT_EXACT), RAW(wait_write_ns),
		PROM("wait_seconds_total", "side=\"write\"") },
	[PT_COL_LOCK_CONTENDED] = { "lock_contended", "LOCK_CT", 8, "acquisitions",
		"pipe->mutex acquisitions that had to spin or sleep",
		PT_V_U64, LOCKS, RAW(lock_contended),
		PROM("lock_contentions_total", ""), .help =
		"pipe->mutex acquisitions that had to spin or sleep.",
		TOP(TM_LOCK, "LOCK/s", "mutex contended/s", 8, true) },
	[PT_COL_LOCK_WAIT_NS] = { "lock_wait_ns", NULL, 0, "ns",
		"time spent waiting for pipe->mutex",
		PT_V_U64, LOCKS, RAW(lock_wait_ns),
		PROM("lock_wait_seconds_total", ""),
		.help = "Time spent waiting for pipe->mutex." },
	[PT_COL_EOF_READS] = { "eof_reads", NULL, 0, "calls",
		"reads that asked for bytes and got 0: no writer left",
		PT_V_U64, ALL_EXACT, RAW(read_eof),
		PROM("eof_reads_total", ""), .help =
		"Reads that asked for bytes and got 0: no writer left." },
	[PT_COL_RING_SLOTS] = { "ring_slots", NULL, 0, "slots",
		"usable slots of the pipe's ring as its last write saw them "
		"(pipe->max_usage); of several pipes, the smallest",
		PT_V_U64, ALL_EXACT, .state = true, .value = v_ring_slots,
		USES(PT_RAW(ring_slots)) },
	[PT_COL_RING_PEAK] = { "ring_peak", NULL, 0, "slots",
		"most ring slots in use a write saw (at its start and end, all "
		"of them if it waited for room); of several pipes, the highest",
		PT_V_U64, WAITS(PT_EXACT), .state = true, .value = v_ring_peak,
		USES(PT_RAW(ring_slots) | PT_RAW(ring_peak)) },
	[PT_COL_RING_FULL_WRITES] = { "ring_full_writes", NULL, 0, "calls",
		"writes that found the ring full (waited for room, or -EAGAIN)",
		PT_V_U64, WAITS(PT_EXACT), RAW(ring_full_writes),
		PROM("ring_full_writes_total", ""), .help =
		"Writes that found the pipe's ring full (waited for room, or "
		"-EAGAIN)." },
	[PT_COL_RING_OWNER_UID] = { "ring_owner_uid", NULL, 0, "uid",
		"the user the ring's pages count to (pipe->user, its creator)",
		PT_V_U64, ALL_EXACT, .state = true, .value = v_ring_owner_uid,
		USES(PT_RAW(ring_slots) | PT_RAW(ring_owner_uid)) },
	[PT_COL_RING_OWNER_PAGES] = { "ring_owner_pages", NULL, 0, "pages",
		"pipe pages that user holds in all its pipes (user->pipe_bufs)",
		PT_V_U64, ALL_EXACT, .state = true, .value = v_ring_owner_pages,
		USES(PT_RAW(ring_slots) | PT_RAW(ring_owner_pages)) },
	[PT_COL_RING_QUOTA_SHRUNK] = { "ring_quota_shrunk", NULL, 0, "flag",
		"1: a ring of 2 slots whose owner's new pipes get 2 slots: its "
		"pipe pages + 16 are over fs.pipe-user-pages-soft",
		PT_V_U64, { [TP] = { PT_DERIVED }, [FN] = { PT_DERIVED },
			    [SC] = { PT_DERIVED } },
		.state = true, .value = v_ring_quota_shrunk,
		USES(PT_RAW(ring_slots) | PT_RAW(ring_owner_pages)) },
	[PT_COL_ALLOC_WASTED] = { "alloc_wasted", NULL, 0, "pages",
		"pipe pages allocated by writes that moved no byte (-EAGAIN, "
		"-EPIPE): freed again or cached",
		PT_V_U64, { [TP] = { PT_EXACT }, [FN] = { PT_NA }, [SC] = { PT_EXACT } },
		RAW(alloc_wasted), PROM("pages_wasted_total", ""), .help =
		"Pipe pages allocated by writes that moved no byte (-EAGAIN, -EPIPE): "
		"freed again or cached." },
	[PT_COL_BLOCKED_SINCE] = { "blocked_since", "BLOCKED", 9, "s",
		"a wait begun before pipetrace attached, in progress at the "
		"interval's end: when it attached (epoch s; the wait began before)",
		PT_V_TIME, WAITS(PT_EXACT), .state = true, .value = v_blocked_since,
		USES(PT_RAW(blocked_since)) },
	[PT_COL_CPU_PCT] = { "cpu_pct", "CPU%", 5, "%",
		"the process's time on a CPU as a share of the interval (100: one "
		"thread all of it; -k pid and a pipe's ends only)",
		PT_V_PCT, SCHED, .value = v_cpu_pct, SCHED_NOTE },
	[PT_COL_RUNQ_PCT] = { "runq_pct", "RUNQ%", 5, "%",
		"the process's time runnable but waiting for a CPU, as a share of "
		"the interval: starved, not busy (-k pid and a pipe's ends only)",
		PT_V_PCT, SCHED, .value = v_runq_pct, SCHED_NOTE },
	/*
	 * Every byte in or out, splices too: the other tiers see no splice,
	 * so the table shows what they see, the read(2)/write(2) bytes, under
	 * those columns' own headings.
	 */
	[PT_COL_OUT_BYTES] = EVERY_CALL_BYTES("out_bytes", "R_BYTES", "out of",
		read_bytes, splice_out_bytes, "rB/s", PT_COL_READ_BYTES, "read"),
	[PT_COL_IN_BYTES] = EVERY_CALL_BYTES("in_bytes", "W_BYTES", "into",
		write_bytes, splice_in_bytes, "wB/s", PT_COL_WRITE_BYTES, "write"),
	[PT_COL_WAIT_READ_PCT] = { NULL, "WAIT_R%", 7, "%",
		"wait_read_ns as a share of the interval (100: one task all of it)",
		PT_V_PCT, WAITS(PT_DERIVED), .value = v_wait_read_pct,
		USES(PT_RAW(wait_read_ns)), .name = "wait_read_pct",
		TOP(TM_WAITR, "WAIT_R%", "readers waiting %", 7, false) },
	[PT_COL_WAIT_WRITE_PCT] = { NULL, "WAIT_W%", 7, "%",
		"wait_write_ns as a share of the interval (100: one task all of it)",
		PT_V_PCT, WAITS(PT_DERIVED), .value = v_wait_write_pct,
		USES(PT_RAW(wait_write_ns)), .name = "wait_write_pct",
		TOP(TM_WAITW, "WAIT_W%", "writers waiting %", 7, false) },
	[PT_COL_EAGAIN] = { NULL, "EAGAIN", 6, "calls",
		"reads and writes that returned -EAGAIN (eagain_read + eagain_write)",
		PT_V_U64, ALL_EXACT, .value = v_eagain, USES(EAGAIN_R | EAGAIN_W),
		.name = "eagain" },
	/* the other tiers see no splice: what went through is not known */
	[PT_COL_MOVED_BYTES] = { NULL, NULL, 0, "bytes",
		"bytes through the pipe: written or spliced in, read or spliced out, "
		"whichever side moved more", PT_V_U64, SYSCALL_ONLY,
		.value = v_moved_bytes,
		USES(PT_RAW(write_bytes) | PT_RAW(splice_in_bytes) | PT_RAW(read_bytes) |
		     PT_RAW(splice_out_bytes)),
		TOP(TM_MBPS, "B/s", "B/s", 8, true) },
	[PT_COL_AVG_WRITE] = { NULL, NULL, 0, "bytes",
		"bytes per write call (write_bytes / writes)", PT_V_RATIO, ALL_EXACT,
		.value = v_avg_write, USES(PT_RAW(writes) | PT_RAW(write_bytes)),
		TOP(TM_AVGWR, "AVG_WR", "avg write", 7, false) },
#ifdef PT_TEST_COLUMN
	/* tests/unit/test_column.c: one row puts a column in every output */
	[PT_COL_TEST] = { "test_eof_reads", "TEST_EOF", 8, "calls",
		"a throwaway copy of eof_reads", PT_V_U64, ALL_EXACT, RAW(read_eof),
		PROM("test_eof_reads_total", ""), .help = "A throwaway column.",
		.bench = true, TOP(TM_TEST, "TEST/s", "test/s", 8, true) },
#endif
};

/* The switch states and missing events env is in (PT_NA_*). */
static unsigned int na_state(const struct pt_env *e)
{
	return e->lacks | (e->knob_read_batch > 0 ? PT_NA_BATCH : 0);
}

/* The raw counters a column's value reads. */
static __u64 col_raws(const struct pt_metric *m)
{
	__u64 raws = m->uses;

	for (int i = 0; i < 2 && m->sum[i]; i++)
		raws |= 1ULL << ((m->sum[i] - 1) / sizeof(__u64));
	return raws;
}

__u32 pt_col_hooks(enum pt_col col, enum pt_tier t)
{
	return pt_raw_hooks(col_raws(&pt_metrics[col]), t);
}

__u32 pt_cols_hooks(__u64 cols, __u32 hists, enum pt_tier t)
{
	__u32 hooks = pt_hist_hooks(hists, t);

	for (int i = 0; i < PT_NCOLS; i++)
		if (cols & PT_COL_BIT(i))
			hooks |= pt_col_hooks(i, t);
	return hooks;
}

/* Known on env's tier in its knob state, its hooks loaded or not. */
static enum pt_quality tier_quality(enum pt_col col, const struct pt_env *env)
{
	const struct pt_how *h;

	if (env->tier >= PT_TIER_COUNT)
		return PT_NA;
	h = &pt_metrics[col].how[env->tier];
	return h->na_when & na_state(env) ? PT_NA : h->q;
}

/* A column the tier knows whose hooks were left out: no column asked. */
static bool left_out(enum pt_col col, const struct pt_env *env)
{
	return tier_quality(col, env) != PT_NA &&
	       (pt_col_hooks(col, env->tier) & env->hooks_off);
}

enum pt_quality pt_col_quality(enum pt_col col, const struct pt_env *env)
{
	return left_out(col, env) ? PT_NA : tier_quality(col, env);
}

struct pt_value pt_get(enum pt_col col, const struct pt_counts *c,
		       const struct pt_env *env)
{
	const struct pt_metric *m = &pt_metrics[col];
	struct pt_value v = { .q = pt_col_quality(col, env), .type = m->type };

	if (v.q == PT_NA)
		return v;
	if (m->knob) {
		int k = *(const int *)((const char *)env + m->knob - 1);

		if (k < 0)	/* the kernel has no such knob */
			return (struct pt_value){ .q = PT_NA, .type = m->type };
		v.u = k;
	} else if (m->sum[0]) {
		for (int i = 0; i < 2 && m->sum[i]; i++)
			v.u += *(const __u64 *)((const char *)c + m->sum[i] - 1);
	} else if (!m->value(c, env, &v)) {
		return (struct pt_value){ .q = PT_NA, .type = m->type };
	}
	return v;
}

enum pt_col pt_table_col(enum pt_col col, const struct pt_env *env)
{
	int in = pt_metrics[col].stand_in;

	if (in && pt_col_quality(col, env) == PT_NA &&
	    pt_col_quality(in - 1, env) != PT_NA)
		return in - 1;
	return col;
}

/* Appends to buf at *len (snprintf-style: *len may pass n). */
static void append(char *buf, size_t n, int *len, const char *s)
{
	int w = snprintf(*len < (int)n ? buf + *len : NULL,
			 *len < (int)n ? n - *len : 0, "%s", s);

	*len += w;
}

static const char *const quality_names[] = {
	[PT_EXACT] = "exact", [PT_DERIVED] = "derived", [PT_NA] = "not known",
};

static const struct {
	unsigned int flag;
	const char *when;
} na_states[] = {
	{ PT_NA_BATCH, "not known with the batched read copy on" },
	{ PT_NA_NO_POOL, "not known without the pool (kernel-patch/ 0003)" },
	{ PT_NA_NO_WAITS, "not known without pipe:pipe_wait_* events" },
	{ PT_NA_NO_LOCKS, "not known without lock:contention_* events" },
	{ PT_NA_NO_SCHED, "not known without /proc/PID/schedstat" },
};

/* "<indent><label>: col, ..." wrapped at 78, the columns cols */
static void cols_line(char *buf, size_t n, int *len, const char *indent,
		      const char *label, __u64 cols)
{
	const char *sep = ": ";
	int col;

	if (!cols)
		return;
	append(buf, n, len, indent);
	append(buf, n, len, label);
	col = strlen(indent) + strlen(label);
	for (int i = 0; i < PT_NCOLS; i++) {
		if (!(cols & PT_COL_BIT(i)))
			continue;
		if (col + 2 + strlen(pt_metrics[i].csv) > 78) {
			append(buf, n, len, ",\n");
			append(buf, n, len, indent);
			append(buf, n, len, "  ");
			col = strlen(indent) + 2;
			sep = "";
		}
		append(buf, n, len, sep);
		append(buf, n, len, pt_metrics[i].csv);
		col += strlen(sep) + strlen(pt_metrics[i].csv);
		sep = ", ";
	}
	append(buf, n, len, "\n");
}

/* One line for the CSV columns of quality q on tier t, or (flag) those
 * it knows except in knob state flag. */
static void summary_line(char *buf, size_t n, int *len, const char *indent,
			 const char *label, enum pt_tier t, enum pt_quality q,
			 unsigned int flag)
{
	__u64 cols = 0;

	for (int i = 0; i < PT_NCOLS; i++) {
		const struct pt_how *h = &pt_metrics[i].how[t];

		if (pt_metrics[i].csv &&
		    (flag ? (h->q != PT_NA && (h->na_when & flag)) : h->q == q))
			cols |= PT_COL_BIT(i);
	}
	cols_line(buf, n, len, indent, label, cols);
}

/* The CSV columns tier t knows and would count with hook h. */
static __u64 hook_cols(enum pt_hook h, enum pt_tier t)
{
	__u64 cols = 0;

	for (int i = 0; i < PT_NCOLS; i++)
		if (pt_metrics[i].csv && pt_metrics[i].how[t].q != PT_NA &&
		    (pt_col_hooks(i, t) & h))
			cols |= PT_COL_BIT(i);
	return cols;
}

int pt_tier_summary(char *buf, size_t n, enum pt_tier t, const char *indent)
{
	static const enum pt_quality order[] = { PT_EXACT, PT_DERIVED, PT_NA };
	char label[160];
	int len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		summary_line(buf, n, &len, indent, quality_names[order[i]], t,
			     order[i], 0);
	for (size_t i = 0; i < sizeof(na_states) / sizeof(na_states[0]); i++)
		summary_line(buf, n, &len, indent, na_states[i].when, t, PT_NA,
			     na_states[i].flag);
	/* the hooks that load only for the columns that need them */
	for (__u32 h = PT_HOOK_CALLS << 1; h & PT_HOOKS_ALL; h <<= 1) {
		if (!(pt_tier_hooks(t) & h))
			continue;
		snprintf(label, sizeof(label), "%s only when asked for", pt_hook_name(h, t));
		cols_line(buf, n, &len, indent, label, hook_cols(h, t));
	}
	return len;
}

void pt_print_tiers(FILE *f)
{
	char buf[2048];

	fputs("Tiers (best first; auto picks the best this kernel allows), and\n"
	      "what each knows of the CSV columns:\n", f);
	for (int t = 0; t < PT_TIER_COUNT; t++) {
		pt_tier_summary(buf, sizeof(buf), t, "    ");
		fprintf(f, "  %-10s  %s\n%s", tier_name(t), tier_about(t), buf);
	}
	fputs("Derived values are marked * in tables and listed in the CSV\n"
	      "'derived' column; values a tier cannot know are '-' in tables,\n"
	      "empty in CSV. A hook 'only when asked for' is loaded when a column\n"
	      "the output shows needs it; its columns are '-' and empty otherwise.\n", f);
}

/* The tier line's lists, in its order: a CSV column is on one at most. */
enum line_list { LINE_DERIVED, LINE_NOT_KNOWN, LINE_LEFT_OUT, LINE_LISTS };

/* Which list col is on (derived as shown; not known by the tier; known but
 * its hooks not loaded), or LINE_LISTS: none, exact. */
static enum line_list line_list(enum pt_col col, const struct pt_env *env)
{
	if (!pt_metrics[col].csv)
		return LINE_LISTS;
	if (tier_quality(col, env) == PT_NA)
		return LINE_NOT_KNOWN;
	if (left_out(col, env))
		return LINE_LEFT_OUT;
	return tier_quality(col, env) == PT_DERIVED ? LINE_DERIVED : LINE_LISTS;
}

/* "(no column shown needs H, ...)": the hooks not loaded that the columns
 * left out need */
static void left_out_hooks(char *buf, size_t n, int *len, const struct pt_env *env)
{
	const char *sep = " (no column shown needs ";
	__u32 hooks = 0;

	for (int i = 0; i < PT_NCOLS; i++)
		if (line_list(i, env) == LINE_LEFT_OUT)
			hooks |= pt_col_hooks(i, env->tier) & env->hooks_off;
	for (__u32 h = 1; h & PT_HOOKS_ALL; h <<= 1) {
		if (!(hooks & h))
			continue;
		append(buf, n, len, sep);
		append(buf, n, len, pt_hook_name(h, env->tier));
		sep = ", ";
	}
	append(buf, n, len, ")");
}

int pt_tier_line(char *buf, size_t n, const struct pt_env *env, bool lists)
{
	static const char *const names[] = {
		[LINE_DERIVED] = "derived", [LINE_NOT_KNOWN] = "not known",
		[LINE_LEFT_OUT] = "left out",
	};
	const char *part = "";
	int len = 0, count[LINE_LISTS] = {};
	char num[16];

	if (n)
		buf[0] = '\0';
	for (int i = 0; i < PT_NCOLS; i++) {
		enum line_list l = line_list(i, env);

		if (l != LINE_LISTS)
			count[l]++;
	}
	for (enum line_list l = 0; l < LINE_LISTS; l++) {
		const char *sep = ": ";

		if (!count[l])
			continue;
		append(buf, n, &len, part);
		part = lists ? "; " : ", ";
		if (!lists) {
			snprintf(num, sizeof(num), "%d ", count[l]);
			append(buf, n, &len, num);
		}
		append(buf, n, &len, names[l]);
		if (!lists)
			continue;
		if (l == LINE_LEFT_OUT)
			left_out_hooks(buf, n, &len, env);
		for (int i = 0; i < PT_NCOLS; i++) {
			if (line_list(i, env) != l)
				continue;
			append(buf, n, &len, sep);
			append(buf, n, &len, pt_metrics[i].csv);
			sep = ", ";
		}
	}
	if (!len)
		append(buf, n, &len, "every column exact");
	else if (!lists)
		append(buf, n, &len, "; -v lists them");
	return len;
}

/* A knob of the running kernel: only a procfs file is one (anything else
 * mounted over /proc/sys/fs was planted there, and a kernel without the
 * knob has no file). */
static int read_knob(const char *name)
{
	char path[96];
	struct statfs fs;
	FILE *f;
	int fd, v;

	snprintf(path, sizeof(path), "/proc/sys/fs/%s", name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstatfs(fd, &fs) || fs.f_type != PROC_SUPER_MAGIC || !(f = fdopen(fd, "r"))) {
		close(fd);
		return -1;
	}
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void env_read_knobs(struct pt_env *env)
{
	env->knob_prealloc_max = read_knob("pipe-prealloc-max");
	env->knob_prealloc_keep = read_knob("pipe-prealloc-keep");
	env->knob_read_batch = read_knob("pipe-read-batch");
	env->user_pages_soft = read_knob("pipe-user-pages-soft");
	env->pipe_max_size = read_knob("pipe-max-size");
}
