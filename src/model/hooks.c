// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks table: per raw counter and tier, the hooks that count it.
 * A counter a tier does not count has no row for that tier (0): columns
 * that read it take their value from other counters there.
 */
#include "hooks.h"

#define TP PT_TIER_TRACEPOINT
#define FN PT_TIER_FUNCTION
#define SC PT_TIER_SYSCALL
#define CALLS PT_HOOK_CALLS
#define PAGES PT_HOOK_PAGES
#define BUFS PT_HOOK_BUFS
#define WAITS PT_HOOK_WAITS
#define LOCKS PT_HOOK_LOCKS
#define RING PT_HOOK_RING

static const struct {
	__u64 raws;
	__u32 hooks[PT_TIER_COUNT];
} raw_hooks[] = {
	{ PT_RAW(reads) | PT_RAW(writes) | PT_RAW(read_bytes) | PT_RAW(write_bytes) |
	  PT_RAW(eagain_read_nonblock) | PT_RAW(eagain_read_nowait) |
	  PT_RAW(eagain_write_nonblock) | PT_RAW(eagain_write_nowait) |
	  PT_RAW(read_eof), { [TP] = CALLS, [FN] = CALLS, [SC] = CALLS } },
	/* syscall: the ring read again at sys_exit (pipe->user: another
	 * object) and at sys_enter, for every write: dear per call;
	 * tracepoint: the full program set (tracepoint_tier.bpf.c) */
	{ PT_RAW(ring_slots) | PT_RAW(ring_owner_uid) | PT_RAW(ring_owner_pages),
	  { [TP] = CALLS | RING, [FN] = CALLS, [SC] = CALLS | RING } },
	/* pipe_eagain's reason; the others infer it or cannot */
	{ PT_RAW(eagain_empty) | PT_RAW(eagain_full), { [TP] = CALLS } },
	/* tracepoint: pipe_page_get; function: from the byte count; syscall:
	 * the ring claim at sys_exit (a per-pipe look-up each call) */
	{ PT_RAW(bufs_new), { [TP] = PAGES, [FN] = CALLS, [SC] = CALLS | BUFS } },
	{ PT_RAW(pool_hits) | PT_RAW(prefill_dropped), { [TP] = PAGES } },
	{ PT_RAW(alloc_locked) | PT_RAW(alloc_unlocked), { [TP] = PAGES, [FN] = PAGES, [SC] = PAGES } },
	{ PT_RAW(alloc_wasted), { [TP] = PAGES, [SC] = PAGES } },
	/* tracepoint: pipe_copy's bufs; function and syscall: the ring claim
	 * at the read's exit (a per-pipe look-up) */
	{ PT_RAW(read_bufs), { [TP] = CALLS, [FN] = CALLS | BUFS, [SC] = CALLS | BUFS } },
	/* tracepoint: pipe_copy's copy calls (unknown for an iovec read);
	 * function, syscall: the buffers' boundaries (iov_pieces.bpf.h) */
	{ PT_RAW(read_sections) | PT_RAW(read_sections_unknown),
	  { [TP] = CALLS, [FN] = CALLS | BUFS, [SC] = CALLS | BUFS } },
	{ PT_RAW(splice_in) | PT_RAW(splice_in_bytes) | PT_RAW(splice_out) |
	  PT_RAW(splice_out_bytes) | PT_RAW(eagain_splice) | PT_RAW(uring_reads) |
	  PT_RAW(uring_writes), { [SC] = CALLS } },
	{ PT_RAW(waits_read) | PT_RAW(wait_read_ns) | PT_RAW(waits_write) |
	  PT_RAW(wait_write_ns) | PT_RAW(blocked_since), { [TP] = WAITS, [FN] = WAITS, [SC] = WAITS } },
	{ PT_RAW(lock_contended) | PT_RAW(lock_wait_ns),
	  { [TP] = LOCKS, [FN] = LOCKS, [SC] = LOCKS } },
	/* a write that slept found the ring full: the sleeps must be seen */
	{ PT_RAW(ring_peak) | PT_RAW(ring_full_writes),
	  { [TP] = CALLS | WAITS | RING, [FN] = CALLS | WAITS, [SC] = CALLS | WAITS | RING } },
};

/* indexed by the hook's bit: CALLS, PAGES, BUFS, WAITS, LOCKS, RING */
static const char *const hook_names[][PT_TIER_COUNT] = {
	[0] = { [TP] = "pipe:pipe_copy, pipe:pipe_eagain",
		[FN] = "pipe_read/pipe_write entry and exit",
		[SC] = "sys_enter/sys_exit, io_uring_complete/io_uring_poll_arm" },
	[1] = { [TP] = "pipe:pipe_page_get, pipe:pipe_prefill",
		[FN] = "kmem:mm_page_alloc (and pipe:pipe_prefill)",
		[SC] = "kmem:mm_page_alloc" },
	[2] = { [FN] = "the ring claim at pipe_read's exit",
		[SC] = "the ring claim at sys_exit" },
	[3] = { [TP] = "pipe:pipe_wait_begin/end", [FN] = "sched:sched_switch",
		[SC] = "sched:sched_switch" },
	[4] = { [TP] = "lock:contention_begin/end", [FN] = "lock:contention_begin/end",
		[SC] = "lock:contention_begin/end" },
	[5] = { [TP] = "the ring's state at pipe:pipe_copy",
		[SC] = "the ring's state at sys_enter/sys_exit" },
};

__u32 pt_raw_hooks(__u64 raws, enum pt_tier t)
{
	__u32 hooks = CALLS;

	if (t >= PT_TIER_COUNT)
		return hooks;
	for (size_t i = 0; i < sizeof(raw_hooks) / sizeof(raw_hooks[0]); i++)
		if (raws & raw_hooks[i].raws)
			hooks |= raw_hooks[i].hooks[t];
	return hooks;
}

__u32 pt_hist_hooks(__u32 hists, enum pt_tier t)
{
	__u32 hooks = CALLS;

	/* the tracepoint tier: slots in use at a write's end less those
	 * its pages filled */
	if (hists & 1u << PT_HIST_OCCUPANCY && t == TP)
		hooks |= PAGES;
	if (hists & (1u << PT_HIST_WAIT_READ | 1u << PT_HIST_WAIT_WRITE))
		hooks |= WAITS;
	return hooks;
}

const char *pt_hook_name(enum pt_hook h, enum pt_tier t)
{
	int i = __builtin_ctz(h);

	if (t >= PT_TIER_COUNT || i >= (int)(sizeof(hook_names) / sizeof(hook_names[0])))
		return NULL;
	return hook_names[i][t];
}

__u32 pt_tier_hooks(enum pt_tier t)
{
	__u32 hooks = 0;

	for (__u32 h = 1; h & PT_HOOKS_ALL; h <<= 1)
		if (pt_hook_name(h, t))
			hooks |= h;
	return hooks;
}
