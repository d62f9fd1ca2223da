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

struct ring_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct ring_claims {
	__u64 pipe;		/* pipe_inode_info the claims belong to */
	__u32 head;
	__u32 tail;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct ring_key);
	__type(value, struct ring_claims);
} ring_claims SEC(".maps");

/* a is later in the ring than b (indices wrap) */
static __always_inline bool ring_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/*
 * At entry. A claim ahead of the live ring means this is a new
 * pipe_inode_info (a FIFO reopened, an evicted entry): start afresh.
 */
static __always_inline void ring_claim_start(void *pipe, __u32 dev, __u64 ino,
					     __u32 head, __u32 tail)
{
	struct ring_key k = { .ino = ino, .dev = dev };
	struct ring_claims *rc = bpf_map_lookup_elem(&ring_claims, &k);
	struct ring_claims fresh = { .pipe = (__u64)pipe, .head = head, .tail = tail };

	if (rc && rc->pipe == (__u64)pipe && !ring_after(rc->head, head) &&
	    !ring_after(rc->tail, tail))
		return;
	bpf_map_update_elem(&ring_claims, &k, &fresh, BPF_ANY);
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

static __always_inline struct ring_claims *ring_claims_of(__u32 dev, __u64 ino)
{
	struct ring_key k = { .ino = ino, .dev = dev };

	return bpf_map_lookup_elem(&ring_claims, &k);
}

/* New buffers a write created (slots head advanced over). */
static __always_inline __u32 ring_claim_write(struct pipe_inode_info *pipe,
					      __u32 dev, __u64 ino, __u32 head0)
{
	struct ring_claims *rc = ring_claims_of(dev, ino);

	if (!rc)
		return 0;
	return ring_claim(&rc->head, head0, BPF_CORE_READ(pipe, head));
}

/*
 * Buffers a read copied from: the slots it emptied, plus the one it left
 * partly read. A slot that no read touched yet has offset 0 (anonymous
 * buffers are filled from their start), so a non-zero offset at the new
 * tail after the read emptied slots means this read stopped inside it.
 */
static __always_inline __u32 ring_claim_read(struct pipe_inode_info *pipe,
					     __u32 dev, __u64 ino, __u32 tail0)
{
	struct ring_claims *rc = ring_claims_of(dev, ino);
	__u32 tail = BPF_CORE_READ(pipe, tail);
	__u32 head = BPF_CORE_READ(pipe, head);
	__u32 mask = BPF_CORE_READ(pipe, ring_size) - 1;
	struct pipe_buffer *bufs = BPF_CORE_READ(pipe, bufs);
	__u32 emptied, offset;

	if (!rc)
		return 1;
	emptied = ring_claim(&rc->tail, tail0, tail);
	if (!emptied)
		return 1;	/* read from the buffer at the tail only */
	if (tail == head)
		return emptied;
	offset = BPF_CORE_READ(bufs + (tail & mask), offset);
	return emptied + (offset != 0);
}

#endif /* RING_CLAIM_BPF_H */
