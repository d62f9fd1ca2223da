// SPDX-License-Identifier: GPL-2.0
/*
 * make vmbench only: where the tracepoint tier's cost goes, as ladder.bpf.c
 * and fladder.bpf.c do for the other tiers. Programs on every event the
 * tier attaches to (the pipe:* events of kernel-patch/, lock:contention_*
 * and sched_process_free), so only the patched kernel loads it. Built once
 * per step (-DSTEP=0..5), each step the one before plus the next piece of
 * the tier's work, made of the tier's own headers (bpf/), so that the steps
 * cost what the tier's programs cost with them:
 *   0  empty programs: the tier's floor (tpladder0.bpf.o);
 *   1  + the call's state (call_slots.bpf.h): opened by the page, wait
 *        and lock events, the page tally and the wait counted in it,
 *        taken and freed at pipe_copy, dropped with its task;
 *   2  + the key (tier_key.bpf.h: the task's part, the pipe's inode from
 *        the typed file) at pipe_copy and pipe_eagain;
 *   3  + a counter per key (agg.bpf.h counts_of(), whatever it is): the
 *        call, its bytes and its page tally added there;
 *   4  + the waits timed (waits.bpf.h): the key and a clock read at
 *        pipe_wait_begin (the wait shown in the sleeps map), the wait's
 *        length at pipe_wait_end, counted at the call's pipe_copy;
 *   5  + the ring at each write (ring_seen.bpf.h).
 * Beside them, -DCLOCK_ONLY (4c): step 4 with the clock reads alone, no
 * key at pipe_wait_begin and no sleeps map entry (what a drain cannot
 * count while the wait lasts); -DCOPY_ONLY (5o): step 5's pipe_copy and
 * pipe_eagain alone, no call state and no page, wait, lock or task
 * events: what the tier would cost if pipe_copy carried its call's page
 * tally and waits (it does not: kernel-patch/).
 * Each step keeps what it computes (in the counters, or before step 3 in
 * globals) so that the verifier cannot drop it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "agg.bpf.h"
#include "ring_seen.bpf.h"
#include "tier_key.bpf.h"
#include "waits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define KPIPE_SIDE_READ		0	/* include/trace/events/pipe.h */

/* as the tier's: the page tally and the waits of the call in progress */
struct call_state {
	__u32 live;
	struct pipe_inode_info *pipe;	/* of the page events */
	__u32 bufs_new;
	__u32 pool_hits;
	__u32 alloc_locked;
	__u32 alloc_unlocked;
	__u32 prefill_dropped;
	struct call_waits w;
	struct pipe_inode_info *wait_pipe;
};

#include "call_slots.bpf.h"

/* the events before a call's pipe_copy, left unloaded by -DCOPY_ONLY */
#ifdef COPY_ONLY
#define PER_CALL 0
#define SEC_CALL(event) SEC("?tp_btf/" event)
#else
#define PER_CALL 1
#define SEC_CALL(event) SEC("tp_btf/" event)
#endif

/*
 * The counters of the current task on file's pipe, key filled in: before
 * step 3 none (the key of step 2 is kept in a global instead).
 */
#if STEP >= 3
#define counts_at file_counts
#else
#if STEP == 2
struct pt_key ladder_key;
#endif

static __always_inline struct pt_counts *counts_at(struct pt_key *key, struct file *file,
						   struct task_struct *task)
{
#if STEP == 2
	if (pt_task_key(key, task)) {
		pipe_id(file, &key->ino, &key->dev);
		ladder_key = *key;
	}
#endif
	return NULL;
}
#endif

static __always_inline struct call_state *pages_of(struct pipe_inode_info *pipe)
{
	struct call_state *st = STEP >= 1 ? call_open(bpf_get_current_task_btf()) : NULL;

	if (st && st->pipe != pipe) {
		st->pipe = pipe;
		st->bufs_new = 0;
	}
	return st;
}

SEC_CALL("pipe_page_get")
int BPF_PROG(tpl_page_get, struct pipe_inode_info *pipe, int src)
{
	struct call_state *st = pages_of(pipe);

	if (st)
		st->bufs_new++;
	return 0;
}

SEC_CALL("pipe_prefill")
int BPF_PROG(tpl_prefill, struct pipe_inode_info *pipe, unsigned int wanted,
	     unsigned int pooled, unsigned int allocated)
{
	struct call_state *st = pages_of(pipe);

	if (st)
		st->alloc_unlocked += allocated;
	return 0;
}

SEC("tp_btf/pipe_copy")
int BPF_PROG(tpl_copy, struct pipe_inode_info *pipe, struct file *file,
	     int side, size_t len, ssize_t ret)
{
	struct task_struct *task;
	struct call_state *st;
	struct pt_key key = {};
	struct pt_counts *c;
	__u32 bufs_new = 0;
	bool waited = false;

	if (STEP < 1)
		return 0;
	task = bpf_get_current_task_btf();
	st = PER_CALL ? call_in_progress(task) : NULL;
	c = counts_at(&key, file, task);
	if (st) {
		if (st->pipe == pipe)
			bufs_new = st->bufs_new;
		if (c && st->wait_pipe == pipe) {
			waited = st->w.waits;
			count_sleeps(c, &st->w, side == KPIPE_SIDE_READ ?
				     PT_OP_READ : PT_OP_WRITE);
		}
		call_end(task, st);
	}
	if (!c)
		return 0;
	if (side == KPIPE_SIDE_READ) {
		count_add(c, reads, 1);
		count_add(c, read_bytes, ret > 0 ? ret : 0);
		return 0;
	}
	count_add(c, writes, 1);
	count_add(c, write_bytes, ret > 0 ? ret : 0);
	if (bufs_new)
		count_add(c, bufs_new, bufs_new);
	if (STEP >= 5) {
		struct ring_seen ring;

		ring_read(&ring, pipe);
		ring.used = pipe->head - pipe->tail;
		count_ring(c, &ring, waited);
	}
	return 0;
}

SEC("tp_btf/pipe_eagain")
int BPF_PROG(tpl_eagain, struct pipe_inode_info *pipe, struct file *file,
	     int side, int cause)
{
	struct task_struct *task;
	struct call_state *st;
	struct pt_key key = {};
	struct pt_counts *c;

	if (STEP < 1)
		return 0;
	task = bpf_get_current_task_btf();
	st = call_in_progress(task);
	c = counts_at(&key, file, task);
	if (!c)
		return 0;
	if (st)
		count_contention(c, &st->w);
	count_eagain(c, side == KPIPE_SIDE_READ ? PT_OP_READ : PT_OP_WRITE, cause == 1);
	return 0;
}

SEC_CALL("pipe_wait_begin")
int BPF_PROG(tpl_wait_begin, struct pipe_inode_info *pipe, struct file *file,
	     int side)
{
#if STEP >= 1
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_open(task);
#if STEP >= 4 && !defined(CLOCK_ONLY)
	struct pt_key key = {};

	if (!st || !pt_task_key(&key, task))
		return 0;
	pipe_id(file, &key.ino, &key.dev);
	waits_sleep_begin(&st->w, task->pid, side == KPIPE_SIDE_READ ? PT_SLEEP_READ :
			  PT_SLEEP_WRITE, &key, bpf_ktime_get_ns());
#elif STEP >= 4
	if (st)
		st->w.off_ts = bpf_ktime_get_ns();
#else
	if (st)
		st->w.off_ts = 1;
#endif
#endif
	return 0;
}

SEC_CALL("pipe_wait_end")
int BPF_PROG(tpl_wait_end, struct pipe_inode_info *pipe, struct file *file,
	     int side)
{
#if STEP >= 1
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);

	if (!st || !st->w.off_ts)
		return 0;
	if (st->wait_pipe != pipe) {
		st->wait_pipe = pipe;
		st->w.waits = 0;
		st->w.wait_ns = 0;
	}
#if STEP >= 4 && !defined(CLOCK_ONLY)
	waits_switch_in(&st->w, task->pid, bpf_ktime_get_ns());
#else
	if (STEP >= 4)
		st->w.wait_ns += bpf_ktime_get_ns() - st->w.off_ts;
	st->w.off_ts = 0;
	st->w.waits++;
#endif
#endif
	return 0;
}

SEC_CALL("contention_begin")
int BPF_PROG(tpl_lock_begin, void *lock, unsigned int flags)
{
#if STEP >= 1
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st;

	if (!(flags & LCB_F_MUTEX))
		return 0;
	st = call_open(task);
	if (!st)
		return 0;
#if STEP >= 4
	waits_lock_begin(&st->w, lock, flags, task->pid, NULL);
#else
	st->w.lock = (__u64)lock;
#endif
#endif
	return 0;
}

SEC_CALL("contention_end")
int BPF_PROG(tpl_lock_end, void *lock, int ret)
{
#if STEP >= 1
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);

	if (!st)
		return 0;
#if STEP >= 4
	waits_lock_end(&st->w, lock, task->pid);
#else
	if (st->w.lock == (__u64)lock)
		st->w.locks++;
#endif
#endif
	return 0;
}

SEC_CALL("sched_process_free")
int BPF_PROG(tpl_task_free, struct task_struct *p)
{
#if STEP >= 1
	call_drop(p);
#endif
	return 0;
}
