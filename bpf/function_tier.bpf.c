// SPDX-License-Identifier: GPL-2.0
/*
 * Function tier: for kernels without the pipe:* tracepoints that allow
 * fentry/fexit (BPF trampolines) or, failing that, kprobes.
 *
 * One pipe call = entry and exit of pipe_read()/pipe_write() (or
 * anon_pipe_read()/anon_pipe_write(): user space sets the attach target from
 * the kernel's BTF). Between the two, per-task state (a hash by thread id)
 * scopes what happens inside the call:
 *
 *  - kmem:mm_page_alloc, order 0, exactly GFP_HIGHUSER | __GFP_ACCOUNT,
 *    inside pipe_write(): a pipe page allocated; under pipe->mutex or not
 *    is read from the mutex owner (exact);
 *  - anon_pipe_buf_release() inside pipe_read(): a buffer the read used up.
 *
 * The user-copy helpers (copy_page_{to,from}_iter) live in lib/, built
 * without ftrace: neither fentry nor kprobes can attach there. So the
 * buffers a read copied are the buffers it used up plus one if the iterator
 * advanced after the last of them (a partly read buffer), and the new slots
 * of a write follow from its byte count: a write first merges
 * len % PAGE_SIZE bytes into the last buffer when that buffer can take
 * them (read at entry, without the lock), then fills whole pages. Both
 * are derived; reads of buffers spliced in from files are not seen.
 *
 * User-access sections of a read: one per buffer copied into a plain
 * buffer (ITER_UBUF), none into kernel memory, and into an iovec one per
 * segment piece (iov_pieces.bpf.h): the buffer boundaries are where the
 * iterator stood at each release, the segments the iterator's own array.
 * A vectored read that used up more buffers than that keeps is counted as
 * one whose sections are not known.
 *
 * Counts are kept in the task's state and added to the key at exit.
 * What the raw counts mean per column (pool hits = new buffers - pages
 * allocated under the mutex, EAGAIN reasons from the side) is
 * src/core/metrics.c's table.
 * Both attach flavours share the bodies; user space loads one flavour.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "agg.bpf.h"
#include "iov_pieces.bpf.h"
#include "pipe_page.bpf.h"
#include "ring_seen.bpf.h"
#include "tier_key.bpf.h"
#include "waits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define EAGAIN		11
#define O_NONBLOCK	00004000
#define IOCB_NOWAIT	0x8	/* = RWF_NOWAIT (include/linux/fs.h) */
#define PAGE_SIZE	4096
#define MUTEX_FLAGS	0x07
#define RT_MUTEX_HAS_WAITERS	0x01
#define PIPE_BUF_FLAG_CAN_MERGE	0x10

/* how a read's destination takes its copies */
enum dest_kind {
	DEST_KERNEL,		/* kernel memory: no user-access section */
	DEST_UBUF,		/* one plain buffer: a section per buffer */
	DEST_IOVEC,		/* an iovec: a section per segment piece */
};

/* iov_iter before 6.4 named its iovec array iov */
struct iov_iter___old {
	const struct iovec *iov;
} __attribute__((preserve_access_index));

struct call_state {
	struct pt_key key;
	__u64 pipe;		/* its pipe, for the mutex owner */
	__u64 iter;		/* read: the destination iov_iter */
	__u64 left;		/* read: iter count after the last buffer used up */
	__u64 asked;		/* read: iter count at entry */
	struct iov_walk vec;	/* read into an iovec: segments, buffer cuts */
	__u8 dest;		/* read: enum dest_kind */
	__u8 side;
	__u8 nonblock;
	__u8 nowait;
	__u16 merge;		/* write: bytes it would merge into the last buffer */
	__u32 bufs;		/* read: buffers used up */
	__u32 alloc_locked;
	__u32 alloc_unlocked;
	__u32 occupancy;	/* write: ring slots in use at entry */
	struct call_waits w;	/* sleeps and pipe->mutex contention */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* thread id */
	__type(value, struct call_state);
} calls SEC(".maps");

static __always_inline __u32 tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

/*
 * Bytes a write of len will merge into the pipe's last buffer (pipe_write():
 * len % PAGE_SIZE, if the pipe is not empty and that buffer can merge and
 * has room). Read without the lock: another writer or a reader may change
 * it before this write gets the mutex.
 */
static __always_inline __u16 merge_bytes(struct pipe_inode_info *pipe, __u64 len)
{
	__u32 chars = len & (PAGE_SIZE - 1), head, tail, mask;
	struct pipe_buffer *bufs, *buf;

	if (!chars)
		return 0;
	head = BPF_CORE_READ(pipe, head);
	tail = BPF_CORE_READ(pipe, tail);
	if (head == tail)
		return 0;
	mask = BPF_CORE_READ(pipe, ring_size) - 1;
	bufs = BPF_CORE_READ(pipe, bufs);
	buf = (void *)bufs + ((head - 1) & mask) * bpf_core_type_size(struct pipe_buffer);
	if (!(BPF_CORE_READ(buf, flags) & PIPE_BUF_FLAG_CAN_MERGE))
		return 0;
	if (BPF_CORE_READ(buf, offset) + BPF_CORE_READ(buf, len) + chars > PAGE_SIZE)
		return 0;
	return chars;
}

/* What a read copies into; for an iovec, where its segments start. */
static __always_inline __u8 dest_of(struct iov_iter *iter, struct iov_walk *w)
{
	struct iov_iter___old *old = (void *)iter;
	__u8 type = BPF_CORE_READ(iter, iter_type);

	if (bpf_core_enum_value_exists(enum iter_type, ITER_UBUF) &&
	    type == bpf_core_enum_value(enum iter_type, ITER_UBUF))
		return DEST_UBUF;
	if (type != bpf_core_enum_value(enum iter_type, ITER_IOVEC))
		return DEST_KERNEL;
	if (bpf_core_field_exists(iter->__iov))
		w->iov = (__u64)BPF_CORE_READ(iter, __iov);
	else
		w->iov = (__u64)BPF_CORE_READ(old, iov);
	w->skip = BPF_CORE_READ(iter, iov_offset);
	w->nsegs = BPF_CORE_READ(iter, nr_segs);
	return DEST_IOVEC;
}

/* The sections of a read that moved bytes, from the buffers it copied. */
static __always_inline void count_sections(struct pt_counts *c, struct call_state *st,
					   __u32 bufs, __u64 bytes)
{
	struct iov_walk *w;
	long n = -1;

	if (st->dest == DEST_UBUF) {
		count_add(c, read_sections, bufs);
	} else if (st->dest == DEST_IOVEC) {
		w = iov_walk_get();
		if (w) {
			*w = st->vec;
			w->total = bytes;
			n = iov_pieces(w);
		}
		if (n < 0)
			count_add(c, read_sections_unknown, 1);
		else
			count_add(c, read_sections, n);
	}
}

static __always_inline void call_enter(__u8 side, struct kiocb *iocb,
				       struct iov_iter *iter)
{
	struct call_state st = {};
	struct file *file;
	__u32 id = tid();
	__u64 len = BPF_CORE_READ(iter, count);

	/* zero-length calls return at once (the tracepoints skip them too) */
	if (!len)
		return;
	if (!pt_task_key(&st.key))
		return;
	file = BPF_CORE_READ(iocb, ki_filp);
	pt_file_key(&st.key, file);
	st.side = side;
	st.pipe = (__u64)BPF_CORE_READ(file, private_data);
	if (side == PT_OP_READ) {
		st.iter = (__u64)iter;
		st.left = len;
		st.asked = len;
		st.dest = dest_of(iter, &st.vec);
	} else {
		struct pipe_inode_info *pipe = (struct pipe_inode_info *)st.pipe;

		st.merge = merge_bytes(pipe, len);
		st.occupancy = BPF_CORE_READ(pipe, head) - BPF_CORE_READ(pipe, tail);
	}
	st.nonblock = !!(BPF_CORE_READ(file, f_flags) & O_NONBLOCK);
	st.nowait = !st.nonblock && (BPF_CORE_READ(iocb, ki_flags) & IOCB_NOWAIT);
	/* a call not followed to its exit is not counted: say so */
	if (bpf_map_update_elem(&calls, &id, &st, BPF_ANY))
		__sync_fetch_and_add(&pt_gen.keys_dropped, 1);
}

/*
 * A write's view of its ring (ring_seen.bpf.h): slots in use at entry and
 * at exit, all of them if it waited or found the ring full (-EAGAIN). The
 * pipe pointer may be untyped (kprobe flavour): CO-RE reads.
 */
static __always_inline void ring_exit(struct pt_counts *c, struct call_state *st,
				      long ret)
{
	struct pipe_inode_info *pipe = (struct pipe_inode_info *)st->pipe;
	struct user_struct *user = BPF_CORE_READ(pipe, user);
	struct ring_seen ring = {
		.slots = BPF_CORE_READ(pipe, max_usage),
		.used = BPF_CORE_READ(pipe, head) - BPF_CORE_READ(pipe, tail),
		.owner_uid = BPF_CORE_READ(user, uid.val),
		.owner_pages = BPF_CORE_READ(user, pipe_bufs.counter),
	};

	if (st->occupancy > ring.used)
		ring.used = st->occupancy;
	count_ring(c, &ring, st->w.waits || ret == -EAGAIN);
}

static __always_inline void call_exit(long ret)
{
	__u32 id = tid();
	struct call_state *st = bpf_map_lookup_elem(&calls, &id);
	struct pt_counts *c;
	__u64 bytes = ret > 0 ? ret : 0;

	if (!st)
		return;
	c = counts_of(&st->key);
	if (!c)
		goto out;
	count_sleeps(c, &st->w, st->side);
	count_contention(c, &st->w);
	if (st->side == PT_OP_READ) {
		struct iov_iter *iter = (struct iov_iter *)st->iter;
		__u32 bufs = st->bufs;

		/* a buffer read in part after the last one used up */
		if (BPF_CORE_READ(iter, count) < st->left)
			bufs++;
		count_add(c, reads, 1);
		count_add(c, read_bytes, bytes);
		count_add(c, read_bufs, bufs);
		/* the cuts come from the releases: only with them */
		if (pt_scope.hooks & PT_HOOK_BUFS)
			count_sections(c, st, bufs, bytes);
		if (!ret)
			count_add(c, read_eof, 1);
		if (bytes)
			hist_add(&st->key, PT_HIST_READ_SIZE, bytes);
	} else {
		__u64 merged = st->merge < bytes ? st->merge : bytes;
		__u64 slots = (bytes - merged + PAGE_SIZE - 1) / PAGE_SIZE;

		count_add(c, writes, 1);
		count_add(c, write_bytes, bytes);
		hist_add(&st->key, PT_HIST_OCCUPANCY, st->occupancy);
		ring_exit(c, st, ret);
		if (bytes)
			hist_add(&st->key, PT_HIST_WRITE_SIZE, bytes);
		if (slots)
			count_add(c, bufs_new, slots);
		if (st->alloc_locked)
			count_add(c, alloc_locked, st->alloc_locked);
		if (st->alloc_unlocked)
			count_add(c, alloc_unlocked, st->alloc_unlocked);
	}
	if (ret == -EAGAIN)
		count_eagain(c, st->side, st->nowait);
out:
	bpf_map_delete_elem(&calls, &id);
}

static __always_inline struct call_state *call_of(__u8 side)
{
	__u32 id = tid();
	struct call_state *st = bpf_map_lookup_elem(&calls, &id);

	return st && st->side == side ? st : NULL;
}

/* anon_pipe_buf_release() inside pipe_read(): a buffer used up */
static __always_inline void on_buf_release(struct pipe_inode_info *pipe)
{
	struct call_state *st = call_of(PT_OP_READ);
	struct iov_iter *iter;

	if (!st || st->pipe != (__u64)pipe)
		return;
	iter = (struct iov_iter *)st->iter;
	st->bufs++;
	st->left = BPF_CORE_READ(iter, count);
	if (st->dest != DEST_IOVEC)
		return;
	/* a cut past the last one kept makes the pieces unknown */
	if (st->vec.ncuts < IOV_CUTS)
		st->vec.cut[st->vec.ncuts & (IOV_CUTS - 1)] = st->asked - st->left;
	st->vec.ncuts++;
}

/* PREEMPT_RT: a mutex is an rt_mutex, its owner a task pointer */
struct mutex___rt {
	struct rt_mutex_base rtmutex;
} __attribute__((preserve_access_index));

/* Does the current task hold pipe->mutex? (true if it cannot tell) */
static __always_inline bool mutex_held(struct call_state *st)
{
	struct pipe_inode_info *pipe = (struct pipe_inode_info *)st->pipe;
	struct mutex___rt *rt = (void *)&pipe->mutex;
	long owner;

	if (bpf_core_field_exists(pipe->mutex.owner))
		owner = BPF_CORE_READ(pipe, mutex.owner.counter) & ~(long)MUTEX_FLAGS;
	else if (bpf_core_field_exists(rt->rtmutex))
		owner = (long)BPF_CORE_READ(rt, rtmutex.owner) & ~(long)RT_MUTEX_HAS_WAITERS;
	else
		return true;
	return owner == (long)bpf_get_current_task();
}

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fn_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp_flags, int migratetype)
{
	struct call_state *st;

	if (!is_pipe_page(order, gfp_flags))
		return 0;
	st = call_of(PT_OP_WRITE);
	if (!st)
		return 0;
	if (mutex_held(st)) {
		st->alloc_locked++;
	} else {
		st->alloc_unlocked++;
	}
	return 0;
}

/* A task inside pipe_read()/pipe_write() leaves the CPU or gets it back. */
SEC("tp_btf/sched_switch")
int BPF_PROG(fn_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 id = BPF_CORE_READ(prev, pid);
	struct call_state *st = bpf_map_lookup_elem(&calls, &id);
	__u64 d;

	if (st && waits_is_sleep(preempt, prev_state))
		waits_sleep_begin(&st->w, id, st->side == PT_OP_READ ? PT_SLEEP_READ :
				  PT_SLEEP_WRITE, &st->key);
	id = BPF_CORE_READ(next, pid);
	st = bpf_map_lookup_elem(&calls, &id);
	if (st && (d = waits_switch_in(&st->w, id)))
		hist_add(&st->key, st->side == PT_OP_READ ? PT_HIST_WAIT_READ
							 : PT_HIST_WAIT_WRITE, d);
	return 0;
}

/* Runs only when an acquisition has to wait: this call's pipe? */
SEC("tp_btf/contention_begin")
int BPF_PROG(fn_lock_begin, void *lock, unsigned int flags)
{
	__u32 id = tid();
	struct call_state *st = bpf_map_lookup_elem(&calls, &id);

	if (st && (__u64)lock == st->pipe)
		waits_lock_begin(&st->w, lock, flags, id, &st->key);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(fn_lock_end, void *lock, int ret)
{
	__u32 id = tid();
	struct call_state *st = bpf_map_lookup_elem(&calls, &id);

	if (st)
		waits_lock_end(&st->w, lock, id);
	return 0;
}

/* fentry/fexit flavour (targets set by user space: pipe_* or anon_pipe_*) */
SEC("fentry/pipe_read")
int BPF_PROG(fn_read_fentry, struct kiocb *iocb, struct iov_iter *to)
{
	call_enter(PT_OP_READ, iocb, to);
	return 0;
}

SEC("fexit/pipe_read")
int BPF_PROG(fn_read_fexit, struct kiocb *iocb, struct iov_iter *to, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("fentry/pipe_write")
int BPF_PROG(fn_write_fentry, struct kiocb *iocb, struct iov_iter *from)
{
	call_enter(PT_OP_WRITE, iocb, from);
	return 0;
}

SEC("fexit/pipe_write")
int BPF_PROG(fn_write_fexit, struct kiocb *iocb, struct iov_iter *from, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("fentry/anon_pipe_buf_release")
int BPF_PROG(fn_release_fe, struct pipe_inode_info *pipe, struct pipe_buffer *buf)
{
	on_buf_release(pipe);
	return 0;
}

/* kprobe flavour: attached by user space to the same functions */
SEC("kprobe")
int BPF_KPROBE(fn_read_kp, struct kiocb *iocb, struct iov_iter *to)
{
	call_enter(PT_OP_READ, iocb, to);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(fn_read_krp, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(fn_write_kp, struct kiocb *iocb, struct iov_iter *from)
{
	call_enter(PT_OP_WRITE, iocb, from);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(fn_write_krp, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(fn_release_kp, struct pipe_inode_info *pipe)
{
	on_buf_release(pipe);
	return 0;
}
