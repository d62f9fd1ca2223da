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

struct ring_claims {
	__u32 head;
	__u32 tail;
};

/* keyed by the pipe_inode_info pointer */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct ring_claims);
} ring_claims SEC(".maps");

/* a is later in the ring than b (indices wrap) */
static __always_inline bool ring_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/*
 * The claims of pipe, given the ring at the call's entry and now. Claims
 * ahead of the live ring belong to a freed pipe_inode_info whose address
 * was reused (a FIFO reopened): start again from this call's entry, as
 * for a pipe not seen before or evicted.
 */
static __always_inline struct ring_claims *
ring_claims_of(struct pipe_inode_info *pipe, __u32 head0, __u32 tail0,
	       __u32 head, __u32 tail)
{
	__u64 k = (__u64)pipe;
	struct ring_claims *rc = bpf_map_lookup_elem(&ring_claims, &k);
	struct ring_claims fresh = { .head = head0, .tail = tail0 };

	if (rc && !ring_after(rc->head, head) && !ring_after(rc->tail, tail))
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
static __always_inline __u32 ring_claim_write(struct pipe_inode_info *pipe,
					      __u32 head0, __u32 tail0)
{
	__u32 head = pipe->head;
	struct ring_claims *rc;

	if (head == head0)
		return 0;	/* nothing to claim: no map look-up */
	rc = ring_claims_of(pipe, head0, tail0, head, pipe->tail);
	return rc ? ring_claim(&rc->head, head0, head) : 0;
}

/*
 * Buffers a read copied from: the slots it emptied, plus the one it left
 * partly read. A slot that no read touched yet has offset 0 (anonymous
 * buffers are filled from their start), so a non-zero offset at the new
 * tail after the read emptied slots means this read stopped inside it.
 */
static __always_inline __u32 ring_claim_read(struct pipe_inode_info *pipe,
					     __u32 head0, __u32 tail0)
{
	__u32 tail = pipe->tail, head = pipe->head;
	struct ring_claims *rc;
	struct pipe_buffer *buf;
	__u32 emptied, offset = 0;

	if (tail == tail0)
		return 1;	/* read from the buffer at the tail only */
	rc = ring_claims_of(pipe, head0, tail0, head, tail);
	if (!rc)
		return 1;
	emptied = ring_claim(&rc->tail, tail0, tail);
	if (!emptied)
		return 1;	/* read from the buffer at the tail only */
	if (tail == head)
		return emptied;
	buf = pipe->bufs + (tail & (pipe->ring_size - 1));
	bpf_probe_read_kernel(&offset, sizeof(offset), &buf->offset);
	return emptied + (offset != 0);
}

#endif /* RING_CLAIM_BPF_H */
