// SPDX-License-Identifier: GPL-2.0
/*
 * Function tier: for kernels without the pipe:* tracepoints that allow
 * fentry/fexit (BPF trampolines) or, failing that, kprobes.
 *
 * One pipe call = entry and exit of pipe_read()/pipe_write() (or
 * anon_pipe_read()/anon_pipe_write(): user space sets the attach target from
 * the kernel's BTF). Between the two, the call's state (call_slots.bpf.h, as
 * the syscall tier keeps it) scopes what happens inside the call:
 *
 *  - kmem:mm_page_alloc, order 0, exactly GFP_HIGHUSER | __GFP_ACCOUNT,
 *    inside pipe_write(): a pipe page allocated. Where the kernel has a
 *    prefill path, pages may come before pipe->mutex is taken: its
 *    pipe:pipe_prefill event says how many (kernel-patch/ 0003), or else
 *    each page reads the mutex owner (mainline 7.2's prealloc:
 *    pipe_page.bpf.h). Exact either way.
 *
 * The user-copy helpers (copy_page_{to,from}_iter) live in lib/, built
 * without ftrace: neither fentry nor kprobes can attach there. So the
 * buffers a read copied follow from the ring at entry and exit, as the
 * syscall tier derives them (ring_claim.bpf.h: the slots it emptied, each
 * counted once over overlapping calls, plus one left partly read; a hook
 * on anon_pipe_buf_release() cost more than the rest of the tier on a 64
 * KiB read, one run per page), and the new slots of a write from its byte
 * count: a write first merges len % PAGE_SIZE bytes into the last buffer
 * when that buffer can take them (read at entry, without the lock), then
 * fills whole pages. Both are derived.
 *
 * User-access sections of a read: one per buffer copied into a plain
 * buffer (ITER_UBUF), none into kernel memory, and into an iovec one per
 * segment piece (iov_pieces.bpf.h): the iterator's own segment array cut
 * at the bytes each ring slot gave the read (ring_read_cuts(), as the
 * syscall tier). A vectored read that used up more buffers than a walk
 * keeps, or whose slots do not add up, is counted as one whose sections
 * are not known.
 *
 * Counts are kept in the task's state and added to the key at exit.
 * What the raw counts mean per column (pool hits = new buffers - pages
 * allocated under the mutex, EAGAIN reasons from the side, one section per
 * buffer) is src/model/metrics.c's table.
 * Both attach flavours share the bodies; user space loads one flavour.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "agg.bpf.h"
#include "iov_pieces.bpf.h"
#include "kernel_obj.bpf.h"
#include "pipe_page.bpf.h"
#include "ring_claim.bpf.h"
#include "ring_seen.bpf.h"
#include "tier_key.bpf.h"
#include "waits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define EAGAIN		11
#define O_NONBLOCK	00004000
#define IOCB_NOWAIT	0x8	/* = RWF_NOWAIT (include/linux/fs.h) */
#define PAGE_SIZE	4096
#define PIPE_BUF_FLAG_CAN_MERGE	0x10

/* how a read's destination takes its copies */
enum dest_kind {
	DEST_KERNEL,		/* kernel memory: no user-access section */
	DEST_UBUF,		/* one plain buffer: a section per buffer */
	DEST_IOVEC,		/* an iovec: a section per segment piece */
};

/* iov_iter before 6.4 named its iovec array iov, since then __iov: both
 * as flavors, so either vmlinux.h (an arch's may be older) builds */
struct iov_iter___old {
	const struct iovec *iov;
} __attribute__((preserve_access_index));

struct iov_iter___new {
	const struct iovec *__iov;
} __attribute__((preserve_access_index));

struct call_state {
	__u8 live;		/* a call in progress (call_slots.bpf.h) */
	__u8 dest;		/* read: enum dest_kind */
	__u8 side;
	__u8 nonblock;
	__u8 nowait;
	__u16 merge;		/* write: bytes it would merge into the last buffer */
	__u32 head;		/* the ring at entry */
	__u32 tail;
	__u32 alloc_locked;
	__u32 alloc_unlocked;
	__u32 offset;		/* read into an iovec: the tail buffer's offset */
	__u64 pipe;		/* its pipe, for the mutex owner */
	struct iov_walk vec;	/* read into an iovec: its segments */
	struct pt_key key;
	struct call_waits w;	/* sleeps and pipe->mutex contention */
};

/* a call's state from entry to exit: in a slot by thread id (inlined), in
 * task storage only when another thread holds that slot */
#include "call_slots.bpf.h"


/*
 * Bytes a write of len will merge into the pipe's last buffer (pipe_write():
 * len % PAGE_SIZE, if the pipe is not empty and that buffer can merge and
 * has room). Read without the lock: another writer or a reader may change
 * it before this write gets the mutex. The buffer is found by index: probe
 * reads in both flavours.
 */
static __always_inline __u16 merge_bytes(bool typed, struct pipe_inode_info *pipe,
					 __u32 head, __u32 tail, __u64 len)
{
	__u32 chars = len & (PAGE_SIZE - 1);
	struct pipe_buffer *buf;

	if (!chars || head == tail)
		return 0;
	buf = ring_slot(KREAD(typed, pipe, bufs), KREAD(typed, pipe, ring_size), head - 1);
	if (!(BPF_CORE_READ(buf, flags) & PIPE_BUF_FLAG_CAN_MERGE))
		return 0;
	if (BPF_CORE_READ(buf, offset) + BPF_CORE_READ(buf, len) + chars > PAGE_SIZE)
		return 0;
	return chars;
}

/* What a read copies into; for an iovec, where its segments start. */
static __always_inline __u8 dest_of(bool typed, struct iov_iter *iter,
				    struct iov_walk *w)
{
	struct iov_iter___old *old = (void *)iter;
	struct iov_iter___new *new = (void *)iter;
	__u8 type = KREAD(typed, iter, iter_type);

	if (bpf_core_enum_value_exists(enum iter_type, ITER_UBUF) &&
	    type == bpf_core_enum_value(enum iter_type, ITER_UBUF))
		return DEST_UBUF;
	if (type != bpf_core_enum_value(enum iter_type, ITER_IOVEC))
		return DEST_KERNEL;
	if (bpf_core_field_exists(new->__iov))
		w->iov = (__u64)BPF_CORE_READ(new, __iov);
	else
		w->iov = (__u64)BPF_CORE_READ(old, iov);
	w->skip = BPF_CORE_READ(iter, iov_offset);
	w->nsegs = BPF_CORE_READ(iter, nr_segs);
	return DEST_IOVEC;
}

/* The sections of a read that moved bytes from the buffers it copied. */
static __always_inline void count_sections(bool typed, struct pt_counts *c,
					   struct call_state *st,
					   struct pipe_inode_info *pipe,
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
			if (ring_read_cuts(typed, pipe, st->head, st->tail, st->offset,
					   bytes, w))
				n = iov_pieces(w);
		}
		if (n < 0)
			count_add(c, read_sections_unknown, 1);
		else
			count_add(c, read_sections, n);
	}
}

/* The pipe of a call's file (inode->i_pipe: file->private_data of a pipe
 * or FIFO, but typed). */
static __always_inline struct pipe_inode_info *pipe_of(bool typed, struct kiocb *iocb)
{
	struct file *file = KREAD(typed, iocb, ki_filp);
	struct inode *inode = KREAD(typed, file, f_inode);

	return KREAD(typed, inode, i_pipe);
}

static __always_inline void call_enter(bool typed, __u8 side, struct kiocb *iocb,
				       struct iov_iter *iter)
{
	struct task_struct *task;
	struct call_state *st;
	struct pipe_inode_info *pipe;
	struct super_block *sb;
	struct inode *inode;
	struct file *file;
	__u64 len = KREAD(typed, iter, count);

	/* zero-length calls return at once (the tracepoints skip them too) */
	if (!len)
		return;
	task = bpf_get_current_task_btf();
	if (!current_wanted(task))
		return;
	/* a wait seeded in an earlier call whose switch-in was missed */
	seed_end(task->pid);
	st = call_begin(task);
	/* a call not followed to its exit is not counted: say so */
	if (!st) {
		__sync_fetch_and_add(&pt_gen.keys_dropped, 1);
		return;
	}
	file = KREAD(typed, iocb, ki_filp);
	inode = KREAD(typed, file, f_inode);
	sb = KREAD(typed, inode, i_sb);
	pipe = KREAD(typed, inode, i_pipe);
	*st = (struct call_state){ .live = 1, .side = side, .pipe = (__u64)pipe };
	key_for_task(&st->key, task);
	st->key.ino = KREAD(typed, inode, i_ino);
	st->key.dev = KREAD(typed, sb, s_dev);
	st->head = KREAD(typed, pipe, head);
	st->tail = KREAD(typed, pipe, tail);
	if (side == PT_OP_WRITE) {
		st->merge = merge_bytes(typed, pipe, st->head, st->tail, len);
	} else {
		st->dest = dest_of(typed, iter, &st->vec);
		if (st->dest == DEST_IOVEC)
			st->offset = ring_tail_offset(typed, pipe, st->head, st->tail);
	}
	st->nonblock = !!(KREAD(typed, file, f_flags) & O_NONBLOCK);
	st->nowait = !st->nonblock && (KREAD(typed, iocb, ki_flags) & IOCB_NOWAIT);
}

/*
 * A write's view of its ring (ring_seen.bpf.h): slots in use at entry and
 * at exit, all of them if it waited or found the ring full (-EAGAIN).
 */
static __always_inline void ring_exit(bool typed, struct pt_counts *c,
				      struct call_state *st,
				      struct pipe_inode_info *pipe, long ret)
{
	struct user_struct *user = KREAD(typed, pipe, user);
	struct ring_seen ring = {
		.slots = KREAD(typed, pipe, max_usage),
		.used = KREAD(typed, pipe, head) - KREAD(typed, pipe, tail),
		.owner_uid = KREAD(typed, user, uid.val),
		.owner_pages = KREAD(typed, user, pipe_bufs.counter),
	};

	if (st->head - st->tail > ring.used)
		ring.used = st->head - st->tail;
	count_ring(c, &ring, st->w.waits || ret == -EAGAIN);
}

/*
 * The call returns ret. fexit passes its arguments (typed: the pipe is
 * read with plain loads); a kretprobe has only ret, and the pipe the entry
 * kept.
 */
static __always_inline void call_exit(bool typed, struct kiocb *iocb, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);
	struct pipe_inode_info *pipe;
	struct pt_counts *c;
	__u64 bytes = ret > 0 ? ret : 0;

	if (!st)
		return;
	waits_hist(&st->key, st->side, waits_call_end(&st->w, task->pid));
	pipe = typed ? pipe_of(typed, iocb) : (struct pipe_inode_info *)st->pipe;
	c = counts_of(&st->key);
	if (!c)
		goto out;
	count_sleeps(c, &st->w, st->side);
	count_contention(c, &st->w);
	if (st->side == PT_OP_READ) {
		count_add(c, reads, 1);
		if (!ret)
			count_add(c, read_eof, 1);
		if (bytes) {
			count_add(c, read_bytes, bytes);
			hist_add(&st->key, PT_HIST_READ_SIZE, bytes);
		}
		/* a per-pipe look-up: only for the columns of buffers */
		if (bytes && (pt_scope.hooks & PT_HOOK_BUFS)) {
			__u32 bufs = ring_claim_read(typed, pipe, st->key.ino,
						     st->head, st->tail);

			/* each buffer copied gave at least one byte (a late exit
			 * can find its slots claimed by a faster read) */
			if (bufs > bytes)
				bufs = bytes;
			count_add(c, read_bufs, bufs);
			count_sections(typed, c, st, pipe, bufs, bytes);
		}
	} else {
		__u64 merged = st->merge < bytes ? st->merge : bytes;
		__u64 slots = (bytes - merged + PAGE_SIZE - 1) / PAGE_SIZE;

		count_add(c, writes, 1);
		count_add(c, write_bytes, bytes);
		hist_add(&st->key, PT_HIST_OCCUPANCY, st->head - st->tail);
		ring_exit(typed, c, st, pipe, ret);
		if (bytes)
			hist_add(&st->key, PT_HIST_WRITE_SIZE, bytes);
		if (slots)
			count_add(c, bufs_new, slots);
		/* (not alloc_wasted: one more test here took this program
		 * past the 7.2 verifier's 1M instructions) */
		if (st->alloc_locked)
			count_add(c, alloc_locked, st->alloc_locked);
		if (st->alloc_unlocked)
			count_add(c, alloc_unlocked, st->alloc_unlocked);
	}
	if (ret == -EAGAIN)
		count_eagain(c, st->side, st->nowait);
out:
	call_end(task, st);
}

/* The current task's call in progress if it is on side; its task in *task. */
static __always_inline struct call_state *call_on(__u8 side, struct task_struct **task)
{
	struct call_state *st;

	*task = bpf_get_current_task_btf();
	st = call_in_progress(*task);
	return st && st->side == side ? st : NULL;
}

/* read_owner (pipe_page.bpf.h): a prefill path without its event */
static __always_inline int on_page_alloc(unsigned int order, gfp_t gfp_flags)
{
	struct task_struct *task;
	struct call_state *st;

	if (!is_pipe_page(order, gfp_flags))
		return 0;
	st = call_on(PT_OP_WRITE, &task);
	if (!st)
		return 0;
	/* only this task touches its state: counted at the call's exit */
	pipe_page_count((struct pipe_inode_info *)st->pipe, task,
			&st->alloc_locked, &st->alloc_unlocked);
	return 0;
}

/*
 * A write of the current task took pipe->mutex after prefilling: the
 * pages it allocated before (fn_page_alloc counted them under the mutex
 * as they came) were not under it. One event per lock acquisition where
 * 16 owner reads per 64 KiB write would be. (The clamp: pages of a
 * prefill that began before the page program was attached.)
 */
SEC("tp_btf/pipe_prefill")
int BPF_PROG(fn_prefill, struct pipe_inode_info *pipe, unsigned int wanted,
	     unsigned int pooled, unsigned int allocated)
{
	struct task_struct *task;
	struct call_state *st = call_on(PT_OP_WRITE, &task);

	if (!st || st->pipe != (__u64)pipe)
		return 0;
	if (allocated > st->alloc_locked)
		allocated = st->alloc_locked;
	st->alloc_locked -= allocated;
	st->alloc_unlocked += allocated;
	return 0;
}

/* A task inside pipe_read()/pipe_write() leaves the CPU or gets it back. */
SEC("tp_btf/sched_switch")
int BPF_PROG(fn_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct call_state *st;
	__u64 now = 0;

	/* a preemption or an uninterruptible sleep: no look-up for prev */
	st = waits_is_sleep(preempt, prev_state) ? call_in_progress(prev) : NULL;
	if (st) {
		now = bpf_ktime_get_ns();
		waits_hist(&st->key, st->side,
			   waits_sleep_begin(&st->w, prev->pid, st->side == PT_OP_READ ?
					     PT_SLEEP_READ : PT_SLEEP_WRITE, &st->key, now));
	}
	/* tests: every switch-in missed (waits.bpf.h says why that matters) */
	if (pt_scope.miss_switch_in)
		return 0;
	st = call_in_progress(next);
	/*
	 * No state: maybe a thread asleep in a pipe call from before attach,
	 * whose exit no fexit or kretprobe will see (they only follow calls
	 * entered after them). Its seeded wait ends as any other, here.
	 */
	if (!st)
		seed_end(next->pid);
	if (!st || !st->w.off_ts)
		return 0;
	/* prev's sleep begins when next's ends: one clock read */
	waits_hist(&st->key, st->side,
		   waits_switch_in(&st->w, next->pid, now ?: bpf_ktime_get_ns()));
	return 0;
}

/* Runs only when an acquisition has to wait: this call's pipe? */
static __always_inline int on_lock_begin(void *lock, unsigned int flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);

	if (st && (__u64)lock == st->pipe)
		waits_lock_begin(&st->w, lock, flags, task->pid, &st->key);
	return 0;
}

static __always_inline int on_lock_end(void *lock)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);

	if (st)
		waits_lock_end(&st->w, lock, task->pid);
	return 0;
}

/* fentry/fexit flavour (targets set by user space: pipe_* or anon_pipe_*) */
SEC("fentry/pipe_read")
int BPF_PROG(fn_read_fentry, struct kiocb *iocb, struct iov_iter *to)
{
	call_enter(true, PT_OP_READ, iocb, to);
	return 0;
}

SEC("fexit/pipe_read")
int BPF_PROG(fn_read_fexit, struct kiocb *iocb, struct iov_iter *to, long ret)
{
	call_exit(true, iocb, ret);
	return 0;
}

SEC("fentry/pipe_write")
int BPF_PROG(fn_write_fentry, struct kiocb *iocb, struct iov_iter *from)
{
	call_enter(true, PT_OP_WRITE, iocb, from);
	return 0;
}

SEC("fexit/pipe_write")
int BPF_PROG(fn_write_fexit, struct kiocb *iocb, struct iov_iter *from, long ret)
{
	call_exit(true, iocb, ret);
	return 0;
}

/* kprobe flavour: attached by user space to the same functions */
SEC("kprobe")
int BPF_KPROBE(fn_read_kp, struct kiocb *iocb, struct iov_iter *to)
{
	call_enter(false, PT_OP_READ, iocb, to);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(fn_read_krp, long ret)
{
	call_exit(false, NULL, ret);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(fn_write_kp, struct kiocb *iocb, struct iov_iter *from)
{
	call_enter(false, PT_OP_WRITE, iocb, from);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(fn_write_krp, long ret)
{
	call_exit(false, NULL, ret);
	return 0;
}

/* tp_btf programs, where the kernel runs them with preemption off */
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fn_page_alloc, struct page *page, unsigned int order, gfp_t gfp_flags)
{
	return on_page_alloc(order, gfp_flags);
}

SEC("tp_btf/contention_begin")
int BPF_PROG(fn_lock_begin, void *lock, unsigned int flags)
{
	return on_lock_begin(lock, flags);
}

SEC("tp_btf/contention_end")
int BPF_PROG(fn_lock_end, void *lock)
{
	return on_lock_end(lock);
}

/* perf ones where it can preempt them (bpf/syscall_tier.bpf.c says why) */
SEC("tracepoint/kmem/mm_page_alloc")
int fn_page_alloc_perf(struct trace_event_raw_mm_page_alloc *ctx)
{
	return on_page_alloc(ctx->order, ctx->gfp_flags);
}

SEC("tracepoint/lock/contention_begin")
int fn_lock_begin_perf(struct trace_event_raw_contention_begin *ctx)
{
	return on_lock_begin(ctx->lock_addr, ctx->flags);
}

SEC("tracepoint/lock/contention_end")
int fn_lock_end_perf(struct trace_event_raw_contention_end *ctx)
{
	return on_lock_end(ctx->lock_addr);
}
