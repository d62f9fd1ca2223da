// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint tier: tp_btf programs on the pipe:* events of kernel-patch/.
 * Every counter is a direct count of the kernel's own events.
 *
 * pipe_copy and pipe_eagain carry the struct file, so they are keyed by
 * (task, pipe inode). The page events (pipe_page_get, pipe_prefill) carry
 * only the pipe, but both are emitted inside pipe_write() by the writing
 * task, before that call's own pipe_copy (the last event of every
 * pipe_write()). So they are summed in the call's page tally (struct
 * page_tally, in a call slot or task storage: call_slots.bpf.h) and added to the
 * key of that pipe_copy: exact, including the first write to a new pipe
 * (a pipe -> inode map filled by earlier copies would miss it).
 *
 * Sleeps (pipe_wait_begin/end, in pipe_read() and pipe_write() only) are
 * summed the same way and added at the call's pipe_copy, which every
 * pipe_read() and pipe_write() ends with, whatever the wait returned: so
 * a wait costs no key or counter look-up of its own (the histograms of
 * --hist, which want each wait, still key it at pipe_wait_end).
 *
 * That per-call state costs a slot look-up at every event. Columns that
 * need no page tally, contention or ring state (the default view) get a
 * light set instead (user space picks one set before load): pipe_copy
 * counts the call alone, and each wait is its own state, its sleeps-map
 * entry, counted whole at its pipe_wait_end.
 *
 * Programs for events the running kernel lacks (pipe_prefill without 0002)
 * are switched off by user space before load (btf_trace_<event> check).
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

/*
 * Enum values of include/trace/events/pipe.h. Stable within the series
 * (kernel-patch/README.md); plain numbers here so vmlinux.h of a kernel with
 * or without the series both compile.
 */
#define KPIPE_SIDE_READ		0
#define KPIPE_SIDE_WRITE	1
#define KPIPE_SRC_POOL		0
#define KPIPE_CAUSE_NOWAIT	1
#define KPIPE_REASON_EMPTY	0
#define KPIPE_REASON_FULL	1

/* The page events of a pipe_write() (pipe_page_get, pipe_prefill). */
struct page_tally {
	struct pipe_inode_info *pipe;	/* of the events below */
	__u32 bufs_new;
	__u32 pool_hits;
	__u32 alloc_locked;
	__u32 alloc_unlocked;
	__u32 prefill_dropped;
};

/*
 * Events of the current pipe_read()/pipe_write(), from its first (a page,
 * wait or lock event) until its pipe_copy, which ends every call that
 * took pipe->mutex or tried to (-EAGAIN, -ERESTARTSYS and faults too):
 * in a call slot or in task storage (call_slots.bpf.h), freed there.
 *
 * A contention_begin can come from any task, for any mutex: whether it
 * was a pipe call's, only its pipe_copy tells. So a task that contends a
 * mutex outside pipe calls keeps its state (and slot) until its next pipe
 * call, or until it is freed (tp_task_free). Harmless: exact either way,
 * the other threads of that slot keep theirs in task storage meanwhile.
 */
struct call_state {
	__u32 live;		/* a call in progress: this state is in use */
	struct page_tally pages;
	/*
	 * The call's waits (off_ts: in a pipe_wait_begin/end bracket since;
	 * waits, wait_ns: on wait_pipe) until its pipe_copy, and contention
	 * on a mutex until its pipe_copy or pipe_eagain says whether it was
	 * that pipe's (lock events carry no file).
	 */
	struct call_waits w;
	struct pipe_inode_info *wait_pipe;
};

#include "call_slots.bpf.h"

/*
 * Pipes whose mutex a pipe call has contended, and their inode: lock
 * events carry no file, so a wait for a mutex is keyed at its
 * contention_begin (and a drain counts it while it lasts) only if the
 * mutex is one of these. Filled where a contended call ends, off the
 * path of calls that do not contend: the first contention on a pipe is
 * counted when its call ends.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* the pipe: its mutex */
	__type(value, __u64);	/* its inode */
} lock_inodes SEC(".maps");

/* Contention of the current call on pipe's mutex (file's), into c. */
static __always_inline void count_locks(struct pt_counts *c, struct call_state *st,
					struct pipe_inode_info *pipe, struct file *file)
{
	__u64 lock = (__u64)pipe, inode;

	if (!st || !st->w.locks)
		return;
	if (st->w.lock == lock) {
		count_contention(c, &st->w);
		if (!bpf_map_lookup_elem(&lock_inodes, &lock)) {
			inode = (__u64)file->f_inode;
			bpf_map_update_elem(&lock_inodes, &lock, &inode, BPF_ANY);
		}
	}
	st->w.locks = 0;
	st->w.lock_ns = 0;
}

/*
 * The key of the current task on the pipe whose mutex lock is, if
 * lock_inodes knows it; false if not (or -p/-n leave the task out). The
 * inode must still have that pipe: i_pipe is cleared before a pipe is
 * freed, so a stale entry never names a lock that is not a pipe's.
 */
static __always_inline bool lock_key(struct pt_key *key, void *lock, struct task_struct *task)
{
	__u64 l = (__u64)lock, *v = bpf_map_lookup_elem(&lock_inodes, &l);
	struct inode *inode;

	if (!v)
		return false;
	inode = (struct inode *)*v;
	if (BPF_CORE_READ(inode, i_pipe) != lock || !pt_task_key(key, task))
		return false;
	key->ino = BPF_CORE_READ(inode, i_ino);
	key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	return true;
}

/* The page tally of the current call, for page events of pipe. */
static __always_inline struct page_tally *pages_of(struct pipe_inode_info *pipe)
{
	struct call_state *st = call_open(bpf_get_current_task_btf());

	if (!st)
		return NULL;
	/* the call's first page event (or one of another pipe's) */
	if (st->pages.pipe != pipe)
		st->pages = (struct page_tally){ .pipe = pipe };
	return &st->pages;
}

SEC("tp_btf/pipe_page_get")
int BPF_PROG(tp_page_get, struct pipe_inode_info *pipe, int src)
{
	struct page_tally *t = pages_of(pipe);

	if (!t)
		return 0;
	t->bufs_new++;
	/* a page the write did not take from the pool is allocated under
	 * the mutex; the prefill's pages before it are pipe_prefill's */
	if (src == KPIPE_SRC_POOL)
		t->pool_hits++;
	else
		t->alloc_locked++;
	return 0;
}

SEC("tp_btf/pipe_prefill")
int BPF_PROG(tp_prefill, struct pipe_inode_info *pipe, unsigned int wanted,
	     unsigned int pooled, unsigned int allocated, unsigned int dropped)
{
	struct page_tally *t = pages_of(pipe);

	if (!t)
		return 0;
	t->alloc_unlocked += allocated;
	t->prefill_dropped += dropped;
	return 0;
}

/*
 * A read's user-access sections from pipe_copy's copy calls: one each
 * into a plain user buffer (a batched run is one); into an iovec a copy
 * call opens one per segment piece, which the event does not count, so
 * such a read makes the tier's sections unknown, never short; none into
 * kernel memory.
 */
static __always_inline void count_sections(struct pt_counts *c, unsigned int copies,
					   const struct iov_iter *iter)
{
	__u8 type = BPF_CORE_READ(iter, iter_type);

	if (type == bpf_core_enum_value(enum iter_type, ITER_UBUF))
		count_add(c, read_sections, copies);
	else if (type == bpf_core_enum_value(enum iter_type, ITER_IOVEC) && copies)
		count_add(c, read_sections_unknown, 1);
}

/* A read's or write's own counts, as its pipe_copy says; false for a read */
static __always_inline bool count_copy(struct pt_counts *c, const struct pt_key *key,
				       int side, size_t len, ssize_t ret, unsigned int bufs,
				       unsigned int copies, const struct iov_iter *iter)
{
	__u64 bytes = ret > 0 ? ret : 0;

	if (side == KPIPE_SIDE_READ) {
		count_add(c, reads, 1);
		count_add(c, read_bytes, bytes);
		count_add(c, read_bufs, bufs);
		count_sections(c, copies, iter);
		/* 0 for a read that asked for bytes: no writer left */
		if (!ret && len)
			count_add(c, read_eof, 1);
		if (bytes)
			hist_add(key, PT_HIST_READ_SIZE, bytes);
		return false;
	}
	count_add(c, writes, 1);
	count_add(c, write_bytes, bytes);
	if (bytes)
		hist_add(key, PT_HIST_WRITE_SIZE, bytes);
	return true;
}

SEC("tp_btf/pipe_copy")
int BPF_PROG(tp_copy, struct pipe_inode_info *pipe, struct file *file,
	     int side, size_t len, ssize_t ret, unsigned int bufs,
	     unsigned int copies, bool batched, const struct iov_iter *iter)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct page_tally tally = {};
	struct call_state *st;
	struct pt_key key = {};
	struct ring_seen ring;
	struct pt_counts *c;
	bool waited = false;

	/* the end of the call: count what its state holds, free it */
	st = call_in_progress(task);
	c = file_counts(&key, file, task);
	if (st) {
		if (c) {
			count_locks(c, st, pipe, file);
			waited = st->wait_pipe == pipe && st->w.waits;
			if (st->wait_pipe == pipe)
				count_sleeps(c, &st->w, side == KPIPE_SIDE_READ ?
					     PT_OP_READ : PT_OP_WRITE);
		}
		if (side == KPIPE_SIDE_WRITE && st->pages.pipe == pipe)
			tally = st->pages;
		call_end(task, st);
	}
	if (!c || !count_copy(c, &key, side, len, ret, bufs, copies, iter))
		return 0;
	ring_read(&ring, pipe);
	ring.used = pipe->head - pipe->tail;
	/* a write that waited found the ring full; -EAGAIN: tp_eagain */
	count_ring(c, &ring, waited);
	/* in use when the write began: now, less the slots it filled */
	hist_add(&key, PT_HIST_OCCUPANCY,
		 ring.used > tally.bufs_new ? ring.used - tally.bufs_new : 0);
	if (tally.bufs_new)
		count_add(c, bufs_new, tally.bufs_new);
	if (tally.pool_hits)
		count_add(c, pool_hits, tally.pool_hits);
	if (tally.alloc_locked)
		count_add(c, alloc_locked, tally.alloc_locked);
	if (tally.alloc_unlocked)
		count_add(c, alloc_unlocked, tally.alloc_unlocked);
	if (tally.prefill_dropped)
		count_add(c, prefill_dropped, tally.prefill_dropped);
	/* pages taken by a write that moved nothing */
	if (ret <= 0 && (tally.alloc_locked || tally.alloc_unlocked))
		count_add(c, alloc_wasted, tally.alloc_locked + tally.alloc_unlocked);
	return 0;
}

SEC("tp_btf/pipe_eagain")
int BPF_PROG(tp_eagain, struct pipe_inode_info *pipe, struct file *file,
	     int side, int cause, int reason)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_key key = {};
	struct pt_counts *c;

	c = file_counts(&key, file, task);
	if (!c)
		return 0;
	/* the light set keeps no call state (nor loads tp_lock_*) */
	if (pt_scope.hooks & PT_HOOK_LOCKS)
		count_locks(c, call_in_progress(task), pipe, file);
	count_eagain(c, side == KPIPE_SIDE_READ ? PT_OP_READ : PT_OP_WRITE,
		     cause == KPIPE_CAUSE_NOWAIT);
	switch (reason) {
	case KPIPE_REASON_EMPTY:
		count_add(c, eagain_empty, 1);
		break;
	case KPIPE_REASON_FULL: {
		struct ring_seen ring;

		count_add(c, eagain_full, 1);
		if (!(pt_scope.hooks & PT_HOOK_RING))
			break;
		ring_read(&ring, pipe);
		count_ring(c, &ring, true);
		break;
	}
	}
	return 0;
}

/* A reader waits for data or a writer for room (kernel-patch/ 0001). */
SEC("tp_btf/pipe_wait_begin")
int BPF_PROG(tp_wait_begin, struct pipe_inode_info *pipe, struct file *file,
	     int side)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_open(task);
	struct pt_key key = {};

	/* keyed now so that a drain can count it while it lasts (a task
	 * -p/-n leave out is not counted at its pipe_copy either) */
	if (!st || !pt_task_key(&key, task))
		return 0;
	pipe_id(file, &key.ino, &key.dev);
	waits_sleep_begin(&st->w, task->pid, side == KPIPE_SIDE_READ ? PT_SLEEP_READ :
			  PT_SLEEP_WRITE, &key, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/pipe_wait_end")
int BPF_PROG(tp_wait_end, struct pipe_inode_info *pipe, struct file *file,
	     int side)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);
	__u64 d;

	if (!st)
		seed_end(task->pid);
	if (!st || !st->w.off_ts)
		return 0;
	/* counted at this call's pipe_copy */
	if (st->wait_pipe != pipe) {
		st->wait_pipe = pipe;
		st->w.waits = 0;
		st->w.wait_ns = 0;
	}
	d = waits_switch_in(&st->w, task->pid, bpf_ktime_get_ns());
	/* --hist wants each wait: the verifier drops this without it */
	if (hist_wanted(PT_HIST_WAIT_READ) || hist_wanted(PT_HIST_WAIT_WRITE)) {
		struct pt_key key = {};

		if (!pt_task_key(&key, task))
			return 0;
		pipe_id(file, &key.ino, &key.dev);
		hist_add(&key, side == KPIPE_SIDE_READ ? PT_HIST_WAIT_READ :
			 PT_HIST_WAIT_WRITE, d);
	}
	return 0;
}

/*
 * The light set: no call state. A wait's length for --hist, or its start
 * when another thread holds its sleeps-map entry (tids equal mod
 * PT_SLEEP_SLOTS, both waiting): in task storage, looked at only then.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);	/* the wait began (ns); 0: none */
} wait_starts SEC(".maps");

static __always_inline bool wait_hists(void)
{
	return hist_wanted(PT_HIST_WAIT_READ) || hist_wanted(PT_HIST_WAIT_WRITE);
}

/*
 * The light programs read their arguments from ctx where they use them:
 * BPF_PROG() loads them all first and the compiler spills them across
 * the helper calls, a dozen instructions of a program of ~150.
 * pipe_copy(pipe, file, side, len, ret, bufs, copies, batched, iter);
 * pipe_wait_begin/end(pipe, file, side).
 */
#define ARG_FILE(ctx)	((struct file *)(ctx)[1])
#define ARG_SIDE(ctx)	((int)(ctx)[2])

SEC("tp_btf/pipe_copy")
int tp_lite_copy(__u64 *ctx)
{
	/* every field written by file_counts(): nothing to clear first */
	struct pt_key key;
	struct pt_counts *c = file_counts(&key, ARG_FILE(ctx), bpf_get_current_task_btf());

	if (c)
		count_copy(c, &key, ARG_SIDE(ctx), ctx[3], ctx[4], ctx[5], ctx[6],
			   (const struct iov_iter *)ctx[8]);
	return 0;
}

static __always_inline enum pt_sleep_kind wait_kind(int side)
{
	return side == KPIPE_SIDE_READ ? PT_SLEEP_READ : PT_SLEEP_WRITE;
}

/*
 * A wait of task on file's pipe that ends at now and that the sleeps map
 * did not show (shown: it did, and ended it): the --hist length, and the
 * count of one not shown, from its start in task storage.
 */
static __always_inline void wait_end_unshown(struct task_struct *task, struct file *file,
					     int side, __u64 now, bool shown)
{
	__u64 *start = bpf_task_storage_get(&wait_starts, task, NULL, 0), d;
	struct pt_key key = {};
	struct pt_counts *c;

	/* none: it began before the programs were attached */
	if (!start || !*start)
		return;
	d = now - *start;
	*start = 0;
	if (!pt_task_key(&key, task))
		return;
	pipe_id(file, &key.ino, &key.dev);
	c = shown ? NULL : counts_of(&key);
	if (c)
		count_wait(c, wait_kind(side), d);
	hist_add(&key, side == KPIPE_SIDE_READ ? PT_HIST_WAIT_READ : PT_HIST_WAIT_WRITE, d);
}

/* attached before tp_lite_wbegin (tier_tracepoint.c): every wait shown ends */
SEC("tp_btf/pipe_wait_end")
int tp_lite_wend(__u64 *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_sleep *e = sleep_entry(task->pid);
	__u64 now = bpf_ktime_get_ns();
	bool shown = e && e->tid == task->pid;

	if (shown)
		sleep_end(e, now);
	/* without --hist the verifier drops this for a wait shown */
	if (!shown || wait_hists())
		wait_end_unshown(task, ARG_FILE(ctx), ARG_SIDE(ctx), now, shown);
	return 0;
}

/* A wait is keyed once, at its begin, in its sleeps-map entry. */
SEC("tp_btf/pipe_wait_begin")
int tp_lite_wbegin(__u64 *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_sleep *e = sleep_entry(task->pid);
	__u64 now = bpf_ktime_get_ns(), *start;
	__u32 tgid = current_wanted(task);

	if (!tgid)
		return 0;
	if (e && sleep_claim(e, task->pid)) {
		key_of_task(&e->key, task, tgid);
		pipe_id(ARG_FILE(ctx), &e->key.ino, &e->key.dev);
		sleep_open(e, wait_kind(ARG_SIDE(ctx)), now);
		if (!wait_hists())
			return 0;
	}
	/* its entry is another thread's, or --hist wants its length */
	start = bpf_task_storage_get(&wait_starts, task, NULL,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (start)
		*start = now;
	return 0;
}

/*
 * Mutex contention; whose it was, the call's pipe_copy/pipe_eagain says.
 * The mutex of a pipe lock_inodes knows is shown while it is waited for.
 */
SEC("tp_btf/contention_begin")
int BPF_PROG(tp_lock_begin, void *lock, unsigned int flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st;
	struct pt_key key = {};

	if (!(flags & LCB_F_MUTEX))
		return 0;
	st = call_open(task);
	if (!st)
		return 0;
	/* another mutex's contention still pending: not this call's pipe */
	if (st->w.locks && st->w.lock != (__u64)lock) {
		st->w.locks = 0;
		st->w.lock_ns = 0;
	}
	waits_lock_begin(&st->w, lock, flags, task->pid,
			 !st->w.lock_ts && lock_key(&key, lock, task) ? &key : NULL);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(tp_lock_end, void *lock, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);

	if (st)
		waits_lock_end(&st->w, lock, task->pid);
	return 0;
}

/*
 * A task is freed: whatever state it left (a mutex contended outside pipe
 * calls, or in its exit after sched_process_exit) goes with it, and its
 * slot is free for the next thread of that id.
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(tp_task_free, struct task_struct *p)
{
	call_drop(p);
	return 0;
}
