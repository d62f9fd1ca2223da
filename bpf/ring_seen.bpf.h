/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pipe's ring as a write saw it, for the ring_* columns: its usable
 * slots (pipe->max_usage), the user its pages count to (pipe->user, whose
 * pipe_bufs the pipe-user-pages quotas limit), the most slots in use the
 * write saw, and whether it found the ring full. A writer sleeps in
 * pipe_write() only when the ring is full, and -EAGAIN on a write means a
 * full ring, so such a write saw every slot in use.
 */
#ifndef RING_SEEN_BPF_H
#define RING_SEEN_BPF_H

#include "agg.bpf.h"

struct ring_seen {
	__u32 slots;
	__u32 used;		/* slots in use: the most this write saw */
	__u32 owner_uid;
	__u64 owner_pages;
};

/* Size and owner from a typed pipe pointer (tp_btf, kernel_obj()). */
static __always_inline void ring_read(struct ring_seen *r,
				      struct pipe_inode_info *pipe)
{
	struct user_struct *user = pipe->user;

	r->slots = pipe->max_usage;
	r->owner_uid = user->uid.val;
	r->owner_pages = user->pipe_bufs.counter;
}

/* The most slots in use any write of c's key saw: a maximum, kept with a
 * compare-and-swap (a lost race only leaves a larger value in place). */
static __always_inline void ring_peak(struct pt_counts *c, __u64 used)
{
	for (int i = 0; i < 4; i++) {
		__u64 old = *(volatile __u64 *)&c->ring_peak;

		if (used <= old ||
		    __sync_val_compare_and_swap(&c->ring_peak, old, used) == old)
			return;
	}
}

/* One write's view of the ring into c; full: it found no free slot. */
static __always_inline void count_ring(struct pt_counts *c, struct ring_seen *r,
				       bool full)
{
	c->ring_slots = r->slots;
	c->ring_owner_uid = r->owner_uid;
	c->ring_owner_pages = r->owner_pages;
	/* head and tail are read without the lock: never above the ring */
	ring_peak(c, full || r->used > r->slots ? r->slots : r->used);
	if (full)
		count_add(c, ring_full_writes, 1);
}

#endif
