// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall tier: for kernels that allow only tracepoint programs.
 *
 * Pipe reads, writes and splices are seen at syscall entry and exit; the
 * pipe ring (head/tail) is read at both ends. Pages for pipe buffers are
 * seen at kmem:mm_page_alloc while the task is inside a pipe write; on a
 * kernel with a prefill path, each reads the mutex's owner
 * (pipe_page.bpf.h).
 *
 * Sleeps: a read's or a write's are its pipe's waits; a splice's are
 * when its pipe is empty or full as it sleeps (sleep_kind_of()).
 *
 * User-access sections of a read: one per buffer for a plain buffer
 * (read(2), one iovec). A readv/preadv2 of two or more iovecs opens one
 * per segment piece (iov_pieces.bpf.h): the buffers it copied from are
 * the slots it emptied and the one it left part read, each giving it the
 * bytes its offset moved by; when those do not add up to what the read
 * returned (another reader, a reused slot), or for an io_uring read or a
 * vmsplice out of a pipe (no window of ring state frames them), the read
 * is counted as one whose sections are not known.
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
#include "syscall_abi.bpf.h"
#include "tier_key.bpf.h"
#include "waits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* io_uring opcodes (uapi) that read or write a file */
#define IORING_OP_READV		1
#define IORING_OP_WRITEV	2
#define IORING_OP_READ_FIXED	4
#define IORING_OP_WRITE_FIXED	5
#define IORING_OP_READ		22
#define IORING_OP_WRITE		23

#define EAGAIN		11
#define S_IFMT		00170000
#define S_IFIFO		0010000
#define O_NONBLOCK	00004000
#define FMODE_WRITE	0x2
#define RWF_NOWAIT	0x00000008

struct pipe_end {
	struct pipe_inode_info *pipe;	/* NULL: this end is not a pipe */
	__u64 ino;
	__u32 dev;
	__u32 head;			/* ring state at syscall entry */
	__u32 tail;
	__u32 offset;			/* vectored read: the tail buffer's offset */
};

struct call_state {
	__u8 live;		/* a call in progress (call_slots.bpf.h) */
	__u8 op;
	__u8 nowait;		/* RWF_NOWAIT without O_NONBLOCK */
	__u8 vec;		/* readv/preadv2 of two or more iovecs; vmsplice */
	__u8 sleep_kind;	/* its last sleep's pt_sleep_kind (0: none) */
	__u32 alloc_locked;	/* pipe pages this write allocated under */
	__u32 alloc_unlocked;	/* ... and before pipe->mutex */
	struct pipe_end src;	/* pipe read from */
	struct pipe_end dst;	/* pipe written to */
	struct call_waits w;	/* sleeps and pipe->mutex contention */
};

/* a call's state from entry to exit: in a slot or in task storage */
#include "call_slots.bpf.h"

/*
 * The ring (head, tail) at a call's entry: for the ring claim, the ring
 * columns and the occupancy histogram only. Else no call reads it, nor
 * the ring again at its exit: a load of another object each.
 */
static __always_inline bool ring_wanted(void)
{
	return (pt_scope.hooks & (PT_HOOK_BUFS | PT_HOOK_RING)) ||
	       hist_wanted(PT_HIST_OCCUPANCY);
}

/* task: the current task, fetched once per program (agg.bpf.h says why) */
static __always_inline struct file *fd_file(struct task_struct *task, int fd)
{
	struct fdtable *fdt = task->files->fdt;
	struct file **fds;
	struct file *file;

	if (fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return NULL;
	fds = fdt->fd;
	/* a plain load of fds[fd] (any type with a pointer first will do),
	 * not a helper call */
	file = (struct file *)kernel_obj(&fds[fd], struct llist_node)->next;
	return file ? kernel_obj(file, struct file) : NULL;
}

/* fd's file if it is an anonymous pipe or FIFO, else NULL. */
static __always_inline struct file *pipe_file(struct task_struct *task, long fd)
{
	struct file *file = fd_file(task, fd);

	if (!file || (file->f_inode->i_mode & S_IFMT) != S_IFIFO || !file->private_data)
		return NULL;
	return file;
}

/* end of a new call: the pipe of file (a pipe_file(), or NULL: none) */
static __always_inline void pipe_end_set(struct pipe_end *end, struct file *file)
{
	struct pipe_inode_info *pipe;

	if (!file) {
		*end = (struct pipe_end){};
		return;
	}
	pipe = kernel_obj(file->private_data, struct pipe_inode_info);
	end->pipe = pipe;
	pipe_id(file, &end->ino, &end->dev);
	end->head = end->tail = end->offset = 0;
	if (ring_wanted()) {
		end->head = pipe->head;
		end->tail = pipe->tail;
	}
}

static __always_inline bool file_nonblock(struct file *file)
{
	return file->f_flags & O_NONBLOCK;
}

/* The key of task on the pipe of end. */
static __always_inline void end_key(struct pt_key *key, const struct pipe_end *end,
				    struct task_struct *task)
{
	key->ino = end->ino;
	key->dev = end->dev;
	key_for_task(key, task);
}

/* The counters of the current task on the pipe of end. */
static __always_inline struct pt_counts *end_counts(const struct pipe_end *end,
						    struct task_struct *task)
{
	struct pt_key key = {};

	end_key(&key, end, task);
	return counts_of(&key);
}

/* --hist: one value of the current task on the pipe of end */
static __always_inline void end_hist(const struct pipe_end *end, enum pt_hist h,
				     __u64 v, struct task_struct *task)
{
	struct pt_key key = {};

	if (!hist_wanted(h))
		return;
	end_key(&key, end, task);
	hist_add(&key, h, v);
}

static __always_inline long native_nr(long id32)
{
	switch (id32) {
	case NR32_read: return NR_read;
	case NR32_write: return NR_write;
	case NR32_readv: return NR_readv;
	case NR32_writev: return NR_writev;
	case NR32_sendfile: case NR32_sendfile64: return NR_sendfile;
	case NR32_splice: return NR_splice;
	case NR32_tee: return NR_tee;
	case NR32_vmsplice: return NR_vmsplice;
	case NR32_preadv2: return NR_preadv2;
	case NR32_pwritev2: return NR_pwritev2;
	default: return -1;
	}
}

/* A system call as the native one it is: its native number (-1: a
 * compat call not ours). */
static __always_inline long call_nr(bool compat, long id)
{
	return compat ? native_nr(id) : id;
}

/* What a system call does to a pipe, if it is one of ours. */
static __always_inline enum pt_op op_of(long id)
{
	switch (id) {
	case NR_read: case NR_readv: case NR_preadv2:
		return PT_OP_READ;
	case NR_write: case NR_writev: case NR_pwritev2:
		return PT_OP_WRITE;
	case NR_splice: case NR_tee: case NR_vmsplice: case NR_sendfile:
		return PT_OP_SPLICE;
	default:
		return PT_OP_NONE;
	}
}

/*
 * A number that is one of ours in either ABI. Tested first: every other
 * system call of the machine then returns with no helper call made.
 */
static __always_inline bool maybe_ours(long nr)
{
	return op_of(nr) != PT_OP_NONE || native_nr(nr) != -1;
}

static __always_inline int on_sys_enter(struct pt_regs *regs, long nr)
{
	struct file *in = NULL, *out = NULL;
	struct task_struct *task;
	struct call_state *st;
	bool compat, vec;
	enum pt_op op;
	long id;

	if (!maybe_ours(nr))
		return 0;
	task = bpf_get_current_task_btf();
	compat = compat_call(task, regs);
	id = call_nr(compat, nr);
	op = op_of(id);
	if (op == PT_OP_NONE)
		return 0;
	/* the pipe ends first: a state is taken only for a pipe's call */
	if (op != PT_OP_SPLICE || id == NR_vmsplice) {
		in = pipe_file(task, call_arg(regs, compat, 0));
		if (!in)
			return 0;
		/* vmsplice(fd, iov, nr_segs, flags): into the pipe or out */
		if (op == PT_OP_WRITE || (id == NR_vmsplice && (in->f_mode & FMODE_WRITE))) {
			out = in;
			in = NULL;
		}
	} else {
		/*
		 * splice(in, off, out, off, len, flags); tee(in, out, len,
		 * flags); sendfile(out, in, off, len) into a pipe splices too
		 */
		bool sendfile = id == NR_sendfile;

		in = pipe_file(task, call_arg(regs, compat, sendfile));
		out = pipe_file(task, call_arg(regs, compat,
					       id == NR_splice ? 2 : sendfile ? 0 : 1));
		/* each tested alone: the verifier refuses or-ing two pointers */
		if (!in) {
			barrier_var(out);
			if (!out)
				return 0;
		}
	}
	/* after the pipe test: reads and writes of other files skip it */
	if (!current_wanted(task))
		return 0;

	st = call_begin(task);
	if (!st)
		return 0;
	/* set in the state itself: no copy of a whole one */
	st->op = op;
	/* the file's flags only for the calls that take RWF_NOWAIT */
	st->nowait = (id == NR_preadv2 || id == NR_pwritev2) &&
		     (call_arg(regs, compat, 5) & RWF_NOWAIT) &&
		     !(in && file_nonblock(in)) && !(out && file_nonblock(out));
	vec = ((id == NR_readv || id == NR_preadv2) && call_arg(regs, compat, 2) > 1) ||
	      id == NR_vmsplice;
	st->vec = vec;
	st->alloc_locked = st->alloc_unlocked = 0;
	pipe_end_set(&st->src, in);
	pipe_end_set(&st->dst, out);
	st->w = (struct call_waits){};
	st->sleep_kind = 0;
	/* a vectored read's sections: only with the ring claim */
	if (vec && op == PT_OP_READ && (pt_scope.hooks & PT_HOOK_BUFS))
		st->src.offset = ring_tail_offset(true, kernel_obj(st->src.pipe,
								   struct pipe_inode_info),
						  st->src.head, st->src.tail);
	st->live = 1;
	return 0;
}

/* iovecs a readv that returned 0 is searched for a non-zero length */
#define EOF_IOVS	8

/*
 * Did a read that returned 0 ask for any bytes? One of 0 bytes returns 0
 * at once, writer or not; one that asked for some gets 0 only when no
 * writer is left: an end of file. Looked at only then, from the call's
 * registers, which the kernel keeps as they were at entry.
 */
static __always_inline bool asked_bytes(struct task_struct *task,
					struct pt_regs *regs)
{
	bool compat = compat_call(task, regs);
	unsigned long iov = call_arg(regs, compat, 1), n = call_arg(regs, compat, 2);

	if (call_nr(compat, call_id(regs)) == NR_read)
		return n;
	/* readv, preadv2: (fd, iov, iovcnt, ...) */
	for (int i = 0; i < EOF_IOVS && i < n; i++) {
		__u64 len = 0;

		if (compat)	/* struct compat_iovec { u32 base, len; } */
			bpf_probe_read_user(&len, 4, (void *)iov + i * 8 + 4);
		else
			bpf_probe_read_user(&len, 8, (void *)iov + i * 16 + 8);
		if (len)
			return true;
	}
	return n > EOF_IOVS;
}

/* A readv/preadv2 of two or more iovecs: its segment pieces, if known. */
static __always_inline void count_vec_sections(struct pt_counts *c,
					       struct task_struct *task,
					       struct call_state *st,
					       struct pt_regs *regs, long ret)
{
	bool compat = compat_call(task, regs);
	struct iov_walk *w = iov_walk_get();
	long n = -1;

	if (w) {
		w->iov = call_arg(regs, compat, 1);
		w->skip = 0;
		w->nsegs = call_arg(regs, compat, 2);
		w->total = ret;
		w->user = 1;
		w->compat = compat;
		if (ring_read_cuts(true, kernel_obj(st->src.pipe, struct pipe_inode_info),
				   st->src.head, st->src.tail, st->src.offset, ret, w))
			n = iov_pieces(w);
	}
	if (n < 0)
		count_add(c, read_sections_unknown, 1);
	else
		count_add(c, read_sections, n);
}

static __always_inline void exit_read(struct task_struct *task, struct call_state *st,
				      struct pt_regs *regs, long ret)
{
	struct pt_counts *c = end_counts(&st->src, task);
	__u32 bufs;

	if (!c)
		return;
	count_add(c, reads, 1);
	count_sleeps(c, &st->w, PT_OP_READ);
	count_contention(c, &st->w);
	if (ret == -EAGAIN)
		count_eagain(c, PT_OP_READ, st->nowait);
	if (!ret && asked_bytes(task, regs))
		count_add(c, read_eof, 1);
	if (ret <= 0)
		return;
	count_add(c, read_bytes, ret);
	end_hist(&st->src, PT_HIST_READ_SIZE, ret, task);
	/* a per-pipe look-up: only for the columns of buffers */
	if (!(pt_scope.hooks & PT_HOOK_BUFS))
		return;
	bufs = ring_claim_read(true, kernel_obj(st->src.pipe, struct pipe_inode_info),
			       st->src.ino, st->src.head, st->src.tail);
	/*
	 * Every buffer a read copied from gave it at least one byte. A read
	 * that exits late can find its slots claimed by a faster one and
	 * the faster one more than its own: the bound keeps both honest.
	 */
	if (bufs > ret)
		bufs = ret;
	count_add(c, read_bufs, bufs);
	if (st->vec)
		count_vec_sections(c, task, st, regs, ret);
	else
		count_add(c, read_sections, bufs);
}

/*
 * A write's pages, at its end (one that failed part way may still have
 * taken some); those of a write that moved no byte (7.2's prealloc for a
 * full pipe) also as wasted.
 */
static __always_inline void count_write_pages(struct pt_counts *c, __u32 locked,
					      __u32 unlocked, bool moved)
{
	if (locked)
		count_add(c, alloc_locked, locked);
	if (unlocked)
		count_add(c, alloc_unlocked, unlocked);
	if (!moved)
		count_add(c, alloc_wasted, locked + unlocked);
}

static __always_inline void exit_write(struct task_struct *task, struct call_state *st,
				       long ret)
{
	struct pipe_inode_info *pipe = kernel_obj(st->dst.pipe, struct pipe_inode_info);
	struct pt_counts *c = end_counts(&st->dst, task);
	__u32 used = st->dst.head - st->dst.tail;
	struct ring_seen ring;

	if (!c)
		return;
	count_add(c, writes, 1);
	count_sleeps(c, &st->w, PT_OP_WRITE);
	count_contention(c, &st->w);
	end_hist(&st->dst, PT_HIST_OCCUPANCY, used, task);
	/* in use at entry and at exit; all of it if the write waited */
	if (pt_scope.hooks & PT_HOOK_RING) {
		ring_read(&ring, pipe);
		ring.used = pipe->head - pipe->tail;
		if (used > ring.used)
			ring.used = used;
		count_ring(c, &ring, st->w.waits || ret == -EAGAIN);
	}
	if (ret == -EAGAIN)
		count_eagain(c, PT_OP_WRITE, st->nowait);
	count_write_pages(c, st->alloc_locked, st->alloc_unlocked, ret > 0);
	if (ret <= 0)
		return;
	count_add(c, write_bytes, ret);
	end_hist(&st->dst, PT_HIST_WRITE_SIZE, ret, task);
	if (pt_scope.hooks & PT_HOOK_BUFS)
		count_add(c, bufs_new, ring_claim_write(pipe, st->dst.ino, st->dst.head,
							st->dst.tail));
}

/* A splice's sleeps were counted as each ended (splice_sleep_ended()) */
static __always_inline void exit_splice(struct task_struct *task, struct call_state *st,
					long ret)
{
	__u64 bytes = ret > 0 ? ret : 0;
	bool eagain = ret == -EAGAIN;
	struct pt_counts *c;

	/* an EAGAIN is counted once, on the first pipe end */
	if (st->src.pipe && (c = end_counts(&st->src, task))) {
		count_add(c, splice_out, 1);
		count_add(c, splice_out_bytes, bytes);
		/* vmsplice copies to user memory outside any read */
		if (st->vec && bytes)
			count_add(c, read_sections_unknown, 1);
		if (st->w.lock == (__u64)st->src.pipe)
			count_contention(c, &st->w);
		if (eagain)
			count_eagain(c, PT_OP_SPLICE, false);
		eagain = false;
	}
	if (st->dst.pipe && (c = end_counts(&st->dst, task))) {
		count_add(c, splice_in, 1);
		count_add(c, splice_in_bytes, bytes);
		if (st->w.lock == (__u64)st->dst.pipe)
			count_contention(c, &st->w);
		if (eagain)
			count_eagain(c, PT_OP_SPLICE, false);
	}
}

/*
 * The side a task asleep in st's call waits on (pt_sleep_kind; 0: not a
 * pipe's wait). A read or a write sleeps only for its pipe. A splice
 * (tee, vmsplice, sendfile) sleeps for its pipe when that is empty (a
 * pipe it reads: pipe_wait_readable()) or full (one it writes:
 * pipe_wait_writable()); else for the other file, a socket's data or
 * room, which is no pipe's wait.
 */
static __always_inline __u8 sleep_kind_of(const struct call_state *st)
{
	struct pipe_inode_info *pipe;

	if (st->op == PT_OP_READ)
		return PT_SLEEP_READ;
	if (st->op == PT_OP_WRITE)
		return PT_SLEEP_WRITE;
	if (st->src.pipe) {
		pipe = kernel_obj(st->src.pipe, struct pipe_inode_info);
		if (pipe->head == pipe->tail)
			return PT_SLEEP_READ;
	}
	if (st->dst.pipe) {
		pipe = kernel_obj(st->dst.pipe, struct pipe_inode_info);
		if (pipe->head - pipe->tail >= pipe->max_usage)
			return PT_SLEEP_WRITE;
	}
	return 0;
}

/* The pipe end a sleep of kind waits on, and its side */
static __always_inline const struct pipe_end *sleep_end_of(const struct call_state *st,
							    __u8 kind)
{
	return kind == PT_SLEEP_READ ? &st->src : &st->dst;
}

static __always_inline enum pt_op sleep_side(__u8 kind)
{
	return kind == PT_SLEEP_READ ? PT_OP_READ : PT_OP_WRITE;
}

/*
 * A sleep of st's call ended, d ns long (WAIT_NONE: none): its --hist
 * value; a splice's sleeps go to their side's pipe now, as the next may
 * be on the other (a splice between two pipes), a read's or a write's
 * at the call's exit.
 */
static __always_inline void sleep_ended(struct call_state *st, struct task_struct *task,
					__u64 d)
{
	const struct pipe_end *end = sleep_end_of(st, st->sleep_kind);
	struct pt_counts *c;
	struct pt_key key = {};

	if (d == WAIT_NONE)
		return;
	if (hist_wanted(PT_HIST_WAIT_READ) || hist_wanted(PT_HIST_WAIT_WRITE)) {
		end_key(&key, end, task);
		waits_hist(&key, sleep_side(st->sleep_kind), d);
	}
	if (st->op != PT_OP_SPLICE || !st->w.waits)
		return;
	c = end_counts(end, task);
	if (c)
		count_sleeps(c, &st->w, sleep_side(st->sleep_kind));
	st->w.waits = 0;
	st->w.wait_ns = 0;
}

static __always_inline int on_sys_exit(struct pt_regs *regs, long ret)
{
	struct task_struct *task;
	struct call_state *st;

	if (!maybe_ours(call_id(regs)))
		return 0;
	/* only a call whose entry took a state has one: its number is not
	 * tested again (a call with none may have slept from before attach) */
	task = bpf_get_current_task_btf();
	st = call_in_progress(task);
	if (!st) {
		seed_end(task->pid);
		return 0;
	}
	sleep_ended(st, task, waits_call_end(&st->w, task->pid));
	if (st->op == PT_OP_READ)
		exit_read(task, st, regs, ret);
	else if (st->op == PT_OP_WRITE)
		exit_write(task, st, ret);
	else
		exit_splice(task, st, ret);
	call_end(task, st);
	return 0;
}

/* read_owner (pipe_page.bpf.h): a prefill path, the mutex's owner read */
static __always_inline int on_page_alloc(unsigned int order, gfp_t gfp_flags)
{
	struct task_struct *task;
	struct call_state *st;

	if (!is_pipe_page(order, gfp_flags))
		return 0;
	task = bpf_get_current_task_btf();
	st = call_in_progress(task);
	/* only this task touches its state: counted at syscall exit */
	if (st && st->op == PT_OP_WRITE && st->dst.pipe)
		pipe_page_count(st->dst.pipe, task, &st->alloc_locked, &st->alloc_unlocked);
	return 0;
}

/* A task inside a pipe call leaves the CPU or gets it back. */
SEC("tp_btf/sched_switch")
int BPF_PROG(sc_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct call_state *st;
	__u64 now = 0;
	__u8 kind;

	/* a preemption or an uninterruptible sleep: no look-up for prev */
	st = waits_is_sleep(preempt, prev_state) ? call_in_progress(prev) : NULL;
	kind = st ? sleep_kind_of(st) : 0;
	if (kind) {
		struct pt_key key = {};

		now = bpf_ktime_get_ns();
		/* a sleep whose switch-in was missed ends here, on its side */
		if (st->w.off_ts)
			sleep_ended(st, prev, waits_switch_in(&st->w, prev->pid, now));
		st->sleep_kind = kind;
		end_key(&key, sleep_end_of(st, kind), prev);
		waits_sleep_begin(&st->w, prev->pid, kind, &key, now);
	}
	/* tests: every switch-in missed (waits.bpf.h says why that matters) */
	if (pt_scope.miss_switch_in)
		return 0;
	st = call_in_progress(next);
	if (!st || !st->w.off_ts)
		return 0;
	/* prev's sleep begins when next's ends: one clock read */
	sleep_ended(st, next, waits_switch_in(&st->w, next->pid, now ?: bpf_ktime_get_ns()));
	return 0;
}

/* Runs only when an acquisition has to wait: one of this call's pipes? */
static __always_inline int on_lock_begin(void *lock, unsigned int flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct call_state *st = call_in_progress(task);
	struct pt_key key = {};

	if (!st || (lock != (void *)st->src.pipe && lock != (void *)st->dst.pipe))
		return 0;
	end_key(&key, lock == (void *)st->src.pipe ? &st->src : &st->dst, task);
	waits_lock_begin(&st->w, lock, flags, task->pid, &key);
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

/*
 * io_uring pipe I/O never passes read(2)/write(2): its completions give
 * ops and bytes, and a nowait attempt that found the pipe empty or full
 * arms a poll instead of returning -EAGAIN to anyone: one EAGAIN each.
 * No syscall window frames them, so they add no ring-derived figures.
 */
static __always_inline int uring_op(struct task_struct *task, struct io_kiocb *req,
				    struct pipe_end *end)
{
	struct file *file;
	int op;

	switch (req->opcode) {
	case IORING_OP_READV: case IORING_OP_READ_FIXED: case IORING_OP_READ:
		op = PT_OP_READ;
		break;
	case IORING_OP_WRITEV: case IORING_OP_WRITE_FIXED: case IORING_OP_WRITE:
		op = PT_OP_WRITE;
		break;
	default:
		return PT_OP_NONE;
	}
	if (!req->file || !current_wanted(task))
		return PT_OP_NONE;
	file = kernel_obj(req->file, struct file);
	if ((file->f_inode->i_mode & S_IFMT) != S_IFIFO)
		return PT_OP_NONE;
	pipe_id(file, &end->ino, &end->dev);
	return op;
}

/*
 * An io_uring read that completed with 0: an end of file if it asked for
 * bytes (READ: its length; READV: any iovec, its length being their
 * number) and no writer is left (an iovec of 0 bytes is not looked at).
 */
static __always_inline bool uring_eof(struct io_kiocb *req)
{
	struct pipe_inode_info *pipe;

	if (bpf_core_type_exists(struct io_rw) &&
	    !kernel_obj(&req->cmd, struct io_rw)->len)
		return false;
	pipe = kernel_obj(kernel_obj(req->file, struct file)->private_data,
			  struct pipe_inode_info);
	return !pipe->writers;
}

static __always_inline int on_uring_done(void *req_ptr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct io_kiocb *req = kernel_obj(req_ptr, struct io_kiocb);
	struct pipe_end end = {};
	struct pt_counts *c;
	int op = uring_op(task, req, &end);
	int res = req->cqe.res;

	if (op == PT_OP_NONE || !(c = end_counts(&end, task)))
		return 0;
	if (op == PT_OP_READ) {
		count_add(c, reads, 1);
		count_add(c, uring_reads, 1);
		if (res > 0) {
			count_add(c, read_bytes, res);
			count_add(c, read_sections_unknown, 1);
		}
		else if (!res && uring_eof(req))
			count_add(c, read_eof, 1);
		else if (res == -EAGAIN)
			count_eagain(c, PT_OP_READ, true);
	} else {
		count_add(c, writes, 1);
		count_add(c, uring_writes, 1);
		if (res > 0)
			count_add(c, write_bytes, res);
		else if (res == -EAGAIN)
			count_eagain(c, PT_OP_WRITE, true);
	}
	return 0;
}

static __always_inline int on_uring_poll(void *req_ptr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pipe_end end = {};
	struct pt_counts *c;
	int op = uring_op(task, kernel_obj(req_ptr, struct io_kiocb), &end);

	if (op == PT_OP_NONE || !(c = end_counts(&end, task)))
		return 0;
	count_eagain(c, op, true);
	return 0;
}

/* Each event's program: a tp_btf one, where the kernel runs it. */
SEC("tp_btf/sys_enter")
int BPF_PROG(sc_sys_enter, struct pt_regs *regs, long nr)
{
	return on_sys_enter(regs, nr);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sc_sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(regs, ret);
}

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(sc_page_alloc, struct page *page, unsigned int order, gfp_t gfp_flags)
{
	return on_page_alloc(order, gfp_flags);
}

SEC("tp_btf/contention_begin")
int BPF_PROG(sc_lock_begin, void *lock, unsigned int flags)
{
	return on_lock_begin(lock, flags);
}

SEC("tp_btf/contention_end")
int BPF_PROG(sc_lock_end, void *lock)
{
	return on_lock_end(lock);
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(sc_uring_done, struct io_ring_ctx *ring, void *req)
{
	return on_uring_done(req);
}

SEC("tp_btf/io_uring_poll_arm")
int BPF_PROG(sc_uring_poll, struct io_kiocb *req)
{
	return on_uring_poll(req);
}

/*
 * And one by the perf path, where the kernel can preempt a tp_btf program
 * (src/session/preempt.c): one preempted holds its per-CPU recursion
 * guard and the kernel skips its next run on that CPU, an event lost;
 * perf runs them with preemption off. The call's registers are the
 * task's own, as tp_btf gives them.
 */
static __always_inline struct pt_regs *task_regs(void)
{
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

SEC("tracepoint/raw_syscalls/sys_enter")
int sc_sys_enter_perf(struct trace_event_raw_sys_enter *ctx)
{
	return on_sys_enter(task_regs(), ctx->id);
}

SEC("tracepoint/raw_syscalls/sys_exit")
int sc_sys_exit_perf(struct trace_event_raw_sys_exit *ctx)
{
	return on_sys_exit(task_regs(), ctx->ret);
}

SEC("tracepoint/kmem/mm_page_alloc")
int sc_page_alloc_perf(struct trace_event_raw_mm_page_alloc *ctx)
{
	return on_page_alloc(ctx->order, ctx->gfp_flags);
}

SEC("tracepoint/lock/contention_begin")
int sc_lock_begin_perf(struct trace_event_raw_contention_begin *ctx)
{
	return on_lock_begin(ctx->lock_addr, ctx->flags);
}

SEC("tracepoint/lock/contention_end")
int sc_lock_end_perf(struct trace_event_raw_contention_end *ctx)
{
	return on_lock_end(ctx->lock_addr);
}

SEC("tracepoint/io_uring/io_uring_complete")
int sc_uring_done_perf(struct trace_event_raw_io_uring_complete *ctx)
{
	return on_uring_done(ctx->req);
}

SEC("tracepoint/io_uring/io_uring_poll_arm")
int sc_uring_poll_perf(struct trace_event_raw_io_uring_poll_arm *ctx)
{
	return on_uring_poll(ctx->req);
}
