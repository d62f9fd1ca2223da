/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleeps and pipe->mutex contention of one pipe call, for the tiers that
 * bracket a call themselves (syscall, function). A call's state holds a
 * struct call_waits; sched_switch and lock:contention_* update it, the
 * call's exit adds it to the key's counters.
 *
 * A reader waiting for data or a writer waiting for room sleeps in
 * wait_event_interruptible*() (TASK_INTERRUPTIBLE); a mutex or page-fault
 * sleep is uninterruptible and is not a wait. pipe->mutex is the first
 * member of struct pipe_inode_info, so its address is the pipe's.
 */
#ifndef WAITS_BPF_H
#define WAITS_BPF_H

#include "agg.bpf.h"

struct call_waits {
	__u64 off_ts;		/* asleep since (ns); 0: not asleep */
	__u64 wait_ns;
	__u64 lock;		/* the mutex being waited for; 0: none */
	__u64 lock_ts;
	__u64 lock_ns;
	__u32 waits;
	__u32 locks;		/* contended acquisitions */
};

/* prev leaves the CPU inside a pipe call: a wait if it sleeps for a wake-up */
static __always_inline void waits_switch_out(struct call_waits *w, bool preempt,
					     unsigned int prev_state)
{
	if (!preempt && (prev_state & TASK_INTERRUPTIBLE))
		w->off_ts = bpf_ktime_get_ns();
}

/* next runs again: the length of the wait that ends, 0 if none */
static __always_inline __u64 waits_switch_in(struct call_waits *w)
{
	__u64 d;

	if (!w->off_ts)
		return 0;
	d = bpf_ktime_get_ns() - w->off_ts;
	w->off_ts = 0;
	w->waits++;
	w->wait_ns += d;
	return d;
}

/* a mutex acquisition of lock must wait (the first begin counts: a mutex
 * reports its optimistic spin and then its sleep) */
static __always_inline void waits_lock_begin(struct call_waits *w, void *lock,
					     unsigned int flags)
{
	if ((flags & LCB_F_MUTEX) && !w->lock_ts) {
		w->lock = (__u64)lock;
		w->lock_ts = bpf_ktime_get_ns();
	}
}

static __always_inline void waits_lock_end(struct call_waits *w, void *lock)
{
	if (!w->lock_ts || w->lock != (__u64)lock)
		return;
	w->lock_ns += bpf_ktime_get_ns() - w->lock_ts;
	w->locks++;
	w->lock_ts = 0;
}

/* At a read's or write's end: its sleeps, by side. */
static __always_inline void count_sleeps(struct pt_counts *c,
					 const struct call_waits *w, enum pt_op side)
{
	if (!w->waits)
		return;
	if (side == PT_OP_READ) {
		count_add(c, waits_read, w->waits);
		count_add(c, wait_read_ns, w->wait_ns);
	} else {
		count_add(c, waits_write, w->waits);
		count_add(c, wait_write_ns, w->wait_ns);
	}
}

/* At a call's end: its contended acquisitions of the mutex of c's pipe. */
static __always_inline void count_contention(struct pt_counts *c,
					     const struct call_waits *w)
{
	if (!w->locks)
		return;
	count_add(c, lock_contended, w->locks);
	count_add(c, lock_wait_ns, w->lock_ns);
}

#endif
