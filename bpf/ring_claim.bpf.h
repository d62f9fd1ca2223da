/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffers moved through a pipe ring, from head/tail read outside the lock.
 *
 * A call's window (entry..exit) can cover ring slots that another call on
 * the same pipe filled or emptied: a jobserver's blocked readers all see
 * the one token another reader took. Each pipe keeps the last head and tail
 * already claimed; a call claims only the slots after both its entry value
 * and the last claim, so each slot is counted once in the total.
 */
#ifndef RING_CLAIM_BPF_H
#define RING_CLAIM_BPF_H

#include "iov_pieces.bpf.h"
#include "kernel_obj.bpf.h"

struct ring_claims {
	__u32 head;
	__u32 tail;
	__u64 ino;	/* of the pipe they are for */
};

/* keyed by the pipe_inode_info pointer */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct ring_claims);
} ring_claims SEC(".maps");

/*
 * Slot i of a pipe's ring. For the verifier of Linux 6.1, which refuses
 * an unbounded offset on a typed pointer, the index is bounded (a ring has
 * at most 2^19 slots: pipe sizes stop at 2^31 bytes) and multiplied by a
 * constant (it bounds no product of two registers): struct pipe_buffer's
 * size in vmlinux.h, 40 bytes in every kernel the tiers run on.
 */
static __always_inline struct pipe_buffer *ring_slot(struct pipe_buffer *bufs,
						     __u32 ring_size, __u32 i)
{
	return bufs + (i & (ring_size - 1) & 0x7ffff);
}

/* a is later in the ring than b (indices wrap) */
static __always_inline bool ring_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/*
 * The claims of pipe (inode ino), given the ring at the call's entry and
 * now. Claims of another inode, or ahead of the live ring, belong to a
 * freed pipe_inode_info whose address was reused (a new pipe, a FIFO
 * reopened): start again from this call's entry, as for a pipe not seen
 * before or evicted.
 */
static __always_inline struct ring_claims *
ring_claims_of(struct pipe_inode_info *pipe, __u64 ino, __u32 head0, __u32 tail0,
	       __u32 head, __u32 tail)
{
	__u64 k = (__u64)pipe;
	struct ring_claims *rc = bpf_map_lookup_elem(&ring_claims, &k);
	struct ring_claims fresh = { .head = head0, .tail = tail0, .ino = ino };

	if (rc && rc->ino == ino && !ring_after(rc->head, head) &&
	    !ring_after(rc->tail, tail))
		return rc;
	bpf_map_update_elem(&ring_claims, &k, &fresh, BPF_ANY);
	return bpf_map_lookup_elem(&ring_claims, &k);
}

/* Claims slots up to now, not before from; returns how many were new. */
static __always_inline __u32 ring_claim(__u32 *claimed, __u32 from, __u32 now)
{
	for (int i = 0; i < 8; i++) {
		__u32 old = *(volatile __u32 *)claimed;
		__u32 start = ring_after(from, old) ? from : old;

		if (!ring_after(now, start))
			return 0;
		if (__sync_val_compare_and_swap(claimed, old, now) == old)
			return now - start;
	}
	return 0;	/* lost the race eight times: the winners counted */
}

/* New buffers a write created (slots head advanced over). */
static __always_inline __u32 ring_claim_write(struct pipe_inode_info *pipe, __u64 ino,
					      __u32 head0, __u32 tail0)
{
	__u32 head = pipe->head;
	struct ring_claims *rc;

	if (head == head0)
		return 0;	/* nothing to claim: no map look-up */
	rc = ring_claims_of(pipe, ino, head0, tail0, head, pipe->tail);
	return rc ? ring_claim(&rc->head, head0, head) : 0;
}

/*
 * Buffers a read copied from: the slots it emptied, plus the one it left
 * partly read. A slot that no read touched yet has offset 0 (anonymous
 * buffers are filled from their start), so a non-zero offset at the new
 * tail after the read emptied slots means this read stopped inside it.
 * typed: pipe is a BTF pointer (else CO-RE reads, kernel_obj.bpf.h).
 */
static __always_inline __u32 ring_claim_read(bool typed, struct pipe_inode_info *pipe,
					     __u64 ino, __u32 head0, __u32 tail0)
{
	__u32 tail = KREAD(typed, pipe, tail), head = KREAD(typed, pipe, head);
	struct ring_claims *rc;
	struct pipe_buffer *buf;
	__u32 emptied, offset = 0;

	if (tail == tail0)
		return 1;	/* read from the buffer at the tail only */
	rc = ring_claims_of(pipe, ino, head0, tail0, head, tail);
	if (!rc)
		return 1;
	emptied = ring_claim(&rc->tail, tail0, tail);
	if (!emptied)
		return 1;	/* read from the buffer at the tail only */
	if (tail == head)
		return emptied;
	buf = ring_slot(KREAD(typed, pipe, bufs), KREAD(typed, pipe, ring_size), tail);
	bpf_probe_read_kernel(&offset, sizeof(offset), &buf->offset);
	return emptied + (offset != 0);
}

/* The offset of the buffer at the tail of a ring (0: the ring is empty). */
static __always_inline __u32 ring_tail_offset(bool typed, struct pipe_inode_info *pipe,
					      __u32 head, __u32 tail)
{
	struct pipe_buffer *buf;
	__u32 offset = 0;

	if (head == tail)
		return 0;
	buf = ring_slot(KREAD(typed, pipe, bufs), KREAD(typed, pipe, ring_size), tail);
	bpf_probe_read_kernel(&offset, sizeof(offset), &buf->offset);
	return offset;
}

/*
 * The buffer boundaries of a vectored read (w->cut, w->ncuts) that found
 * the ring at head0, tail0 with offset0 at its tail: the bytes each slot
 * from there gave it, by how far its offset moved (a slot filled since
 * then started at 0). True if they add up to the bytes it read.
 */
static __always_inline bool ring_read_cuts(bool typed, struct pipe_inode_info *pipe,
					   __u32 head0, __u32 tail0, __u32 offset0,
					   __u64 bytes, struct iov_walk *w)
{
	__u32 tail = KREAD(typed, pipe, tail), head = KREAD(typed, pipe, head);
	__u32 ring_size = KREAD(typed, pipe, ring_size), emptied = tail - tail0;
	struct pipe_buffer *bufs = KREAD(typed, pipe, bufs);
	__u64 at = 0;

	/* more slots than a cut each, or a slot written again since */
	if (emptied > IOV_CUTS || head - tail0 > ring_size)
		return false;
	for (__u32 i = 0; i <= IOV_CUTS && i <= emptied; i++) {
		struct pipe_buffer *buf = ring_slot(bufs, ring_size, tail0 + i);
		__u32 offset = 0;

		if (i == emptied && tail == head)
			break;	/* no slot left part read */
		bpf_probe_read_kernel(&offset, sizeof(offset), &buf->offset);
		at += offset - (i ? 0 : offset0);
		if (i < emptied)
			w->cut[i & (IOV_CUTS - 1)] = at;
	}
	w->ncuts = emptied;
	return at == bytes;
}

#endif /* RING_CLAIM_BPF_H */
