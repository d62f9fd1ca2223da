// SPDX-License-Identifier: GPL-2.0
/*
 * make vmbench only: where the function tier's cost goes, as ladder.bpf.c
 * does for the syscall tier. Built once per step (-DSTEP=1..6), each step
 * the one before plus the next hook or piece of work:
 *   1  empty fentry programs on pipe_read() and pipe_write();
 *   2  + empty fexit programs on both (the trampoline now calls the
 *        function itself, between the two);
 *   3  + an empty program on kmem:mm_page_alloc: every hook the tier
 *        needs without waits, its floor;
 *   4  + the call's state from entry to exit (the pipe's key from the
 *        typed arguments, the ring at entry), in a slot picked by thread
 *        id (call_slots.bpf.h's way);
 *   5  + a counter per key (ladder_count.bpf.h).
 * Alternatives measured beside them: -DHASH_STATE keeps step 4's state
 * in a hash map by thread id (update, look-up, delete: helper calls);
 * -DFEXIT_ONLY is step 2 without the fentry programs; -DKPROBES is step
 * 2 on kprobes/kretprobes (the tier's fallback) instead of a trampoline;
 * -DRELEASE_HOOK is step 3 plus an empty fentry program on
 * anon_pipe_buf_release(), the hook the tier counted a read's buffers on
 * before (one run per buffer).
 * (kprobe.multi is not offered: the test kernels and Debian 12's have
 * no CONFIG_FPROBE.)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct call {
	__u64 ino;
	__u32 dev;
	__u32 head;
	__u32 tail;
};

#if STEP >= 4
#ifdef HASH_STATE
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct call);
} calls SEC(".maps");

static __always_inline void call_put(struct call *c)
{
	__u32 tid = bpf_get_current_pid_tgid();

	bpf_map_update_elem(&calls, &tid, c, BPF_ANY);
}

static __always_inline bool call_take(struct call *c)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct call *s = bpf_map_lookup_elem(&calls, &tid);

	if (!s)
		return false;
	*c = *s;
	bpf_map_delete_elem(&calls, &tid);
	return true;
}
#else
#define LADDER_SLOTS
#include "ladder_count.bpf.h"

static __always_inline void call_put(struct call *c)
{
	__u32 tid = bpf_get_current_pid_tgid(), i = tid & 16383;
	struct slot *s = bpf_map_lookup_elem(&slots, &i);

	if (s && __sync_val_compare_and_swap(&s->owner, 0, tid) == 0)
		s->c = *c;
}

static __always_inline bool call_take(struct call *c)
{
	__u32 tid = bpf_get_current_pid_tgid(), i = tid & 16383;
	struct slot *s = bpf_map_lookup_elem(&slots, &i);

	if (!s || s->owner != tid)
		return false;
	*c = s->c;
	s->owner = 0;
	return true;
}
#endif
#endif

#if STEP >= 5
#include "ladder_count.bpf.h"
#endif

/* unused in the steps and variants without the programs that call them */
#define __ladder_fn static __always_inline __attribute__((unused))

__ladder_fn void enter(struct kiocb *iocb)
{
#if STEP >= 4
	struct inode *inode = iocb->ki_filp->f_inode;
	struct pipe_inode_info *pipe = inode->i_pipe;
	struct call c = {
		.ino = inode->i_ino,
		.dev = inode->i_sb->s_dev,
		.head = pipe->head,
		.tail = pipe->tail,
	};

	call_put(&c);
#endif
}

__ladder_fn void leave(long ret)
{
#if STEP >= 4
	struct call c;

	if (!call_take(&c))
		return;
#if STEP >= 5
	ladder_count(bpf_get_current_task_btf(), c.ino, c.dev, ret);
#endif
#endif
}

#if defined(KPROBES)
SEC("kprobe/pipe_read")
int BPF_KPROBE(fl_read_kp) { return 0; }

SEC("kretprobe/pipe_read")
int BPF_KRETPROBE(fl_read_krp) { return 0; }

SEC("kprobe/pipe_write")
int BPF_KPROBE(fl_write_kp) { return 0; }

SEC("kretprobe/pipe_write")
int BPF_KRETPROBE(fl_write_krp) { return 0; }
#else
#ifndef FEXIT_ONLY
SEC("fentry/pipe_read")
int BPF_PROG(fl_read_entry, struct kiocb *iocb, struct iov_iter *to)
{
	enter(iocb);
	return 0;
}

SEC("fentry/pipe_write")
int BPF_PROG(fl_write_entry, struct kiocb *iocb, struct iov_iter *from)
{
	enter(iocb);
	return 0;
}
#endif

#if STEP >= 2
SEC("fexit/pipe_read")
int BPF_PROG(fl_read_exit, struct kiocb *iocb, struct iov_iter *to, long ret)
{
	leave(ret);
	return 0;
}

SEC("fexit/pipe_write")
int BPF_PROG(fl_write_exit, struct kiocb *iocb, struct iov_iter *from, long ret)
{
	leave(ret);
	return 0;
}
#endif
#endif

#ifdef RELEASE_HOOK
SEC("fentry/anon_pipe_buf_release")
int BPF_PROG(fl_release, struct pipe_inode_info *pipe, struct pipe_buffer *buf)
{
	return 0;
}
#endif

#if STEP >= 3
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fl_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp_flags, int migratetype)
{
	return 0;
}
#endif
