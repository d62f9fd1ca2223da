// SPDX-License-Identifier: GPL-2.0
/* What each metric is, and how well each tier knows it. */
#include <stdio.h>
#include <string.h>
#include "metrics.h"

static const char *const tier_names[PT_TIER_COUNT] = {
	[PT_TIER_TRACEPOINT] = "tracepoint",
	[PT_TIER_FUNCTION] = "function",
	[PT_TIER_SYSCALL] = "syscall",
};

const char *tier_name(enum pt_tier t)
{
	return t < PT_TIER_COUNT ? tier_names[t] : "auto";
}

int tier_parse(const char *s)
{
	for (int t = 0; t < PT_TIER_COUNT; t++)
		if (!strcmp(s, tier_names[t]))
			return t;
	return strcmp(s, "auto") ? -1 : PT_TIER_AUTO;
}

static struct pt_value u64v(enum pt_quality q, __u64 u)
{
	return (struct pt_value){ .q = q, .type = PT_V_U64, .u = u };
}

static struct pt_value na(void)
{
	return (struct pt_value){ .q = PT_NA };
}

static bool syscall_tier(const struct pt_env *e)
{
	return e->tier == PT_TIER_SYSCALL;
}

static bool function_tier(const struct pt_env *e)
{
	return e->tier == PT_TIER_FUNCTION;
}

/*
 * The function tier counts buffer copies at copy_page_to_iter(), one
 * section each: the batched read (knob on) copies without it.
 */
static bool copies_unknown(const struct pt_env *e)
{
	return function_tier(e) && e->knob_read_batch > 0;
}

/*
 * The syscall tier counts every pipe page allocation during a write. Where
 * the kernel has no prefill path (no knob, or knob 0) they are all under
 * pipe->mutex; with prefill on it cannot tell which were.
 */
static bool split_unknown(const struct pt_env *e)
{
	return syscall_tier(e) && e->knob_prealloc_max > 0;
}

/* Likewise one user-access section per buffer, unless batching is on. */
static bool sections_unknown(const struct pt_env *e)
{
	return (syscall_tier(e) && e->knob_read_batch > 0) || copies_unknown(e);
}

/*
 * Pool hits and buffers copied: counted by the tracepoints; the syscall
 * tier derives them from ring state, the function tier from byte counts
 * and buffer releases (bpf/function_tier.bpf.c).
 */
static enum pt_quality ring_quality(const struct pt_env *e)
{
	return e->tier == PT_TIER_TRACEPOINT ? PT_EXACT : PT_DERIVED;
}

#define PLAIN(field)							\
static struct pt_value get_##field(const struct pt_counts *c,		\
				   const struct pt_env *e)		\
{									\
	(void)e;							\
	return u64v(PT_EXACT, c->field);				\
}
PLAIN(reads)
PLAIN(writes)
PLAIN(read_bytes)
PLAIN(write_bytes)

/* splice/tee/vmsplice are seen only at the syscalls (syscall tier) */
#define SPLICE(field)							\
static struct pt_value get_##field(const struct pt_counts *c,		\
				   const struct pt_env *e)		\
{									\
	return syscall_tier(e) ? u64v(PT_EXACT, c->field) : na();	\
}
SPLICE(splice_in)
SPLICE(splice_in_bytes)
SPLICE(splice_out)
SPLICE(splice_out_bytes)
SPLICE(eagain_splice)

/*
 * The function tier infers the reason from the side: 6.12's pipe_read()
 * returns -EAGAIN only when empty, pipe_write() only when full.
 */
#define REASON(field)							\
static struct pt_value get_##field(const struct pt_counts *c,		\
				   const struct pt_env *e)		\
{									\
	if (syscall_tier(e))						\
		return na();						\
	return u64v(function_tier(e) ? PT_DERIVED : PT_EXACT, c->field); \
}
REASON(eagain_empty)
REASON(eagain_full)
REASON(eagain_lock)
REASON(eagain_nopage)

static struct pt_value get_eagain_read(const struct pt_counts *c, const struct pt_env *e)
{
	(void)e;
	return u64v(PT_EXACT, c->eagain_read_nonblock + c->eagain_read_nowait);
}

static struct pt_value get_eagain_write(const struct pt_counts *c, const struct pt_env *e)
{
	(void)e;
	return u64v(PT_EXACT, c->eagain_write_nonblock + c->eagain_write_nowait);
}

static struct pt_value get_eagain_nonblock(const struct pt_counts *c, const struct pt_env *e)
{
	(void)e;
	return u64v(PT_EXACT, c->eagain_read_nonblock + c->eagain_write_nonblock);
}

static struct pt_value get_eagain_nowait(const struct pt_counts *c, const struct pt_env *e)
{
	(void)e;
	return u64v(PT_EXACT, c->eagain_read_nowait + c->eagain_write_nowait);
}

static __u64 pages_allocated(const struct pt_counts *c)
{
	return c->alloc_locked + c->alloc_unlocked;
}

/* The syscall tier sees new buffers and allocations; hits are the rest. */
static __u64 pool_hits(const struct pt_counts *c, const struct pt_env *e)
{
	__u64 alloc = pages_allocated(c);

	if (!syscall_tier(e))
		return c->pool_hits;
	return c->bufs_new > alloc ? c->bufs_new - alloc : 0;
}

static struct pt_value get_pool_hits(const struct pt_counts *c, const struct pt_env *e)
{
	/* with prefill, allocations feed the pool: no longer misses */
	return split_unknown(e) ? na() : u64v(ring_quality(e), pool_hits(c, e));
}

/*
 * Misses: pages a new buffer did not get from the pipe's cache. The
 * syscall tier counts the allocations (all under the mutex without
 * prefill), the function tier those under the mutex; the tracepoint tier
 * counts every new buffer and every cache hit (with prefill, a prefilled
 * page served from the pool is a hit, as the kernel's pipe_page_get counts
 * it).
 */
static __u64 pool_misses(const struct pt_counts *c, const struct pt_env *e)
{
	if (syscall_tier(e))
		return pages_allocated(c);
	if (function_tier(e))
		return c->alloc_locked;
	return c->bufs_new > c->pool_hits ? c->bufs_new - c->pool_hits : 0;
}

static struct pt_value get_pool_misses(const struct pt_counts *c, const struct pt_env *e)
{
	return split_unknown(e) ? na() : u64v(PT_EXACT, pool_misses(c, e));
}

static struct pt_value get_pool_hit_pct(const struct pt_counts *c, const struct pt_env *e)
{
	__u64 hits = pool_hits(c, e), total = hits + pool_misses(c, e);

	if (!total || split_unknown(e))
		return na();
	return (struct pt_value){ .q = ring_quality(e), .type = PT_V_PCT,
				  .d = 100.0 * hits / total };
}

static struct pt_value get_alloc_locked(const struct pt_counts *c, const struct pt_env *e)
{
	return split_unknown(e) ? na() : u64v(PT_EXACT, c->alloc_locked);
}

static struct pt_value get_alloc_unlocked(const struct pt_counts *c, const struct pt_env *e)
{
	return split_unknown(e) ? na() : u64v(PT_EXACT, c->alloc_unlocked);
}

static struct pt_value get_copy_sections(const struct pt_counts *c, const struct pt_env *e)
{
	return sections_unknown(e) ? na() : u64v(ring_quality(e), c->read_sections);
}

static struct pt_value get_copy_buffers(const struct pt_counts *c, const struct pt_env *e)
{
	return copies_unknown(e) ? na() : u64v(ring_quality(e), c->read_bufs);
}

/* Only the pipe_prefill tracepoint (kernel-patch/ 0002) tells. */
static struct pt_value get_prefill_dropped(const struct pt_counts *c, const struct pt_env *e)
{
	if (e->tier != PT_TIER_TRACEPOINT || e->knob_prealloc_max < 0)
		return na();
	return u64v(PT_EXACT, c->prefill_dropped);
}

static struct pt_value get_sections_per_read(const struct pt_counts *c, const struct pt_env *e)
{
	struct pt_value v = get_copy_sections(c, e);
	/* io_uring reads have no copy figures in the syscall tier */
	__u64 reads = c->reads - c->uring_reads;

	if (v.q == PT_NA || !reads)
		return na();
	return (struct pt_value){ .q = PT_DERIVED, .type = PT_V_RATIO,
				  .d = (double)v.u / reads };
}

static struct pt_value knob(int value)
{
	return value < 0 ? na() : u64v(PT_EXACT, value);
}

static struct pt_value get_knob_prealloc_max(const struct pt_counts *c, const struct pt_env *e)
{
	(void)c;
	return knob(e->knob_prealloc_max);
}

static struct pt_value get_knob_prealloc_keep(const struct pt_counts *c, const struct pt_env *e)
{
	(void)c;
	return knob(e->knob_prealloc_keep);
}

static struct pt_value get_knob_read_batch(const struct pt_counts *c, const struct pt_env *e)
{
	(void)c;
	return knob(e->knob_read_batch);
}

static struct pt_value get_untracked(const struct pt_counts *c, const struct pt_env *e)
{
	(void)c;
	return u64v(PT_EXACT, e->untracked);
}

const struct pt_metric pt_metrics[] = {
	{ "reads",		"READS",	8, get_reads },
	{ "writes",		"WRITES",	8, get_writes },
	{ "read_bytes",		"R_BYTES",	8, get_read_bytes },
	{ "write_bytes",	"W_BYTES",	8, get_write_bytes },
	{ "eagain_read",	"EAGAIN_R",	8, get_eagain_read },
	{ "eagain_write",	"EAGAIN_W",	8, get_eagain_write },
	{ "pool_hits",		"HITS",		7, get_pool_hits },
	{ "pool_misses",	"MISSES",	7, get_pool_misses },
	{ "pool_hit_pct",	"HIT%",		6, get_pool_hit_pct },
	{ "alloc_locked",	"ALLOC_LK",	8, get_alloc_locked },
	{ "alloc_unlocked",	"ALLOC_UL",	8, get_alloc_unlocked },
	{ "copy_sections",	"SECTIONS",	8, get_copy_sections },
	{ "copy_buffers",	"",		0, get_copy_buffers },
	{ "prefill_dropped",	"",		0, get_prefill_dropped },
	{ "sections_per_read",	"SEC/RD",	7, get_sections_per_read },
	{ "eagain_nonblock",	"",		0, get_eagain_nonblock },
	{ "eagain_nowait",	"",		0, get_eagain_nowait },
	{ "eagain_empty",	"",		0, get_eagain_empty },
	{ "eagain_full",	"",		0, get_eagain_full },
	{ "eagain_lock",	"",		0, get_eagain_lock },
	{ "eagain_nopage",	"",		0, get_eagain_nopage },
	{ "knob_prealloc_max",	"",		0, get_knob_prealloc_max },
	{ "knob_prealloc_keep",	"",		0, get_knob_prealloc_keep },
	{ "knob_read_batch",	"",		0, get_knob_read_batch },
	{ "splice_in",		"",		0, get_splice_in },
	{ "splice_in_bytes",	"",		0, get_splice_in_bytes },
	{ "splice_out",		"",		0, get_splice_out },
	{ "splice_out_bytes",	"",		0, get_splice_out_bytes },
	{ "eagain_splice",	"",		0, get_eagain_splice },
	{ "untracked",		"",		0, get_untracked },
};
const int pt_nmetrics = sizeof(pt_metrics) / sizeof(pt_metrics[0]);

void counts_every_signal(struct pt_counts *c)
{
	__u64 *u = (__u64 *)c;

	for (size_t j = 0; j < sizeof(*c) / sizeof(*u); j++)
		u[j] = 1;
	c->uring_reads = c->uring_writes = 0;
}

static int read_knob(const char *name)
{
	char path[96];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), "/proc/sys/fs/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
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
}
