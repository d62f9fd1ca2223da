/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-access sections of a vectored pipe read. The kernel copies buffer
 * by buffer; into an iovec, each piece of a segment that one buffer's copy
 * touches is its own raw_copy_to_user(), one section (a STAC/CLAC pair on
 * x86 with SMAP). So a call that moved total bytes opened as many sections
 * as [0, total) has pieces when cut at every buffer boundary and every
 * segment boundary, a cut made by both counted once; an empty segment
 * opens none.
 *
 * The caller fills the iovec (user memory: the syscall's array; kernel
 * memory: the iov_iter's copy of it) and the buffer boundaries into this
 * CPU's walk (iov_walk_get()). The walk lives in a map, not on the stack:
 * the verifier tracks no value in map memory, so bpf_loop()'s callback
 * verifies in a pass or two whatever the counters do.
 */
#ifndef IOV_PIECES_BPF_H
#define IOV_PIECES_BPF_H

#define IOV_CUTS	16	/* buffer boundaries a counted call may cross */
#define IOV_SEGS	1024	/* UIO_MAXIOV */

struct iov_walk {
	__u64 iov;		/* the iovec array */
	__u64 skip;		/* bytes of its first segment used before the call */
	__u64 total;		/* bytes the call moved */
	__u32 nsegs;
	__u32 ncuts;
	__u32 cut[IOV_CUTS];	/* buffer boundaries: bytes into the call, ascending */
	__u8 user;		/* iov is in user memory */
	__u8 compat;		/* iov is struct compat_iovec { u32 base, len; } */
	__u8 bad;		/* out: an iovec could not be read */
	/* the walk: up to pos, inside segment seg (ending at seg_end) */
	__u32 seg;
	__u32 pieces;
	__u64 pos;
	__u64 seg_end;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iov_walk);
} iov_walks SEC(".maps");

static __always_inline struct iov_walk *iov_walk_get(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&iov_walks, &k);
}

/* the length of segment i: 0, or -1 if it could not be read */
static __always_inline int iov_len(const struct iov_walk *w, __u32 i, __u64 *len)
{
	__u64 at = w->iov + (w->compat ? i * 8 + 4 : i * 16 + 8);
	__u32 size = w->compat ? 4 : 8;

	*len = 0;
	if (w->user)
		return bpf_probe_read_user(len, size, (void *)at) ? -1 : 0;
	return bpf_probe_read_kernel(len, size, (void *)at) ? -1 : 0;
}

/* one step: to the next segment or buffer boundary, or past an empty one */
static long iov_step(__u64 i, void *ctx)
{
	struct iov_walk *w = iov_walk_get();
	__u64 end, len;

	if (!w)
		return 1;
	end = w->total;
	if (w->seg_end < end)
		end = w->seg_end;
	for (int j = 0; j < IOV_CUTS; j++)
		if (j < w->ncuts && w->cut[j] > w->pos && w->cut[j] < end)
			end = w->cut[j];
	if (end > w->pos) {
		w->pieces++;
		w->pos = end;
	}
	if (w->pos >= w->total)
		return 1;
	if (w->seg_end <= w->pos) {
		if (++w->seg >= w->nsegs || iov_len(w, w->seg, &len)) {
			w->bad = 1;
			return 1;
		}
		w->seg_end += len;
	}
	return 0;
}

/* The sections of the call w (this CPU's walk) describes, or -1 if they
 * cannot be known. */
static __always_inline long iov_pieces(struct iov_walk *w)
{
	__u64 len;

	if (!w->total)
		return 0;
	if (w->nsegs > IOV_SEGS || w->ncuts > IOV_CUTS || iov_len(w, 0, &len) ||
	    len < w->skip)
		return -1;
	w->seg = 0;
	w->pieces = 0;
	w->pos = 0;
	w->seg_end = len - w->skip;
	w->bad = 0;
	bpf_loop(w->nsegs + w->ncuts + 2, iov_step, NULL, 0);
	return w->bad || w->pos < w->total ? -1 : w->pieces;
}

#endif /* IOV_PIECES_BPF_H */
