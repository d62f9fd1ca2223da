// SPDX-License-Identifier: GPL-2.0
/*
 * make bench only: where the syscall tier's cost goes. Built once per
 * step (-DSTEP=1..4), each step doing what the one before does plus the
 * next piece of work every per-key pipe counter needs:
 *   1  the syscall number test (read/write) at entry and exit;
 *   2  + the fd -> file -> pipe test, as the syscall tier does it;
 *   3  + the call's state (the ring at entry) from entry to exit, in a
 *        slot picked by thread id as the syscall tier keeps it;
 *   4  + a counter per key (process, command, pipe) in a hash map: calls,
 *        bytes and buffers added with atomics.
 * Alternatives measured beside them: -DTASK_STORAGE keeps step 3's
 * state in task storage (a helper call each side), -DPERCPU keeps step
 * 4's counters in a per-CPU hash with plain adds, -DPAGE_HOOK adds to
 * step 1 an empty program on kmem:mm_page_alloc, the hook the tier
 * counts pipe pages on (one run per page allocated), -DSWITCH_HOOK an
 * empty program on sched:sched_switch, the hook its waits are timed on
 * (one run per context switch, of any task), -DSWITCH_CLOCK that program
 * reading the clock (bpf_ktime_get_ns()): the least a timed wait costs,
 * one clock read at each switch that begins or ends one. The floor
 * (floor.bpf.c) is the step below 1, the full tier (pipestat) the one
 * above 4.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kernel_obj.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define S_IFMT	00170000
#define S_IFIFO	0010000

struct call {
	__u64 ino;
	__u32 head;
	__u32 tail;
};

#if STEP >= 3
#ifdef TASK_STORAGE
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct call);
} calls SEC(".maps");

static __always_inline struct call *call_get(struct task_struct *t, bool create)
{
	return bpf_task_storage_get(&calls, t, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline void call_put(struct task_struct *t, struct call *c)
{
	c->ino = 0;
}
#else
#define LADDER_SLOTS
#include "ladder_count.bpf.h"

static __always_inline struct call *call_get(struct task_struct *t, bool create)
{
	__u32 tid = t->pid, i = tid & 16383;
	struct slot *s = bpf_map_lookup_elem(&slots, &i);

	if (!s)
		return NULL;
	if (s->owner == tid)
		return &s->c;
	if (create && __sync_val_compare_and_swap(&s->owner, 0, tid) == 0)
		return &s->c;
	return NULL;	/* the tier falls back to task storage here */
}

static __always_inline void call_put(struct task_struct *t, struct call *c)
{
	__u32 i = t->pid & 16383;
	struct slot *s = bpf_map_lookup_elem(&slots, &i);

	if (s)
		s->owner = 0;
}
#endif
#endif

#include "ladder_count.bpf.h"

static __always_inline bool ours(long nr)
{
	return nr == 0 || nr == 1;	/* read, write */
}

#if STEP >= 2
static __always_inline struct inode *pipe_inode(struct task_struct *task, long fd,
						struct file **filep)
{
	struct fdtable *fdt = task->files->fdt;
	struct file *file;
	struct inode *inode;

	if (fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return NULL;
	file = (struct file *)kernel_obj(&fdt->fd[fd], struct llist_node)->next;
	if (!file)
		return NULL;
	file = kernel_obj(file, struct file);
	inode = file->f_inode;
	if ((inode->i_mode & S_IFMT) != S_IFIFO || !file->private_data)
		return NULL;
	*filep = file;
	return inode;
}
#endif

/* Steps 1 and 2: a read or write, of a pipe from step 2 on. */
static __always_inline bool our_call(long nr, struct pt_regs *regs,
				     struct task_struct **task,
				     struct inode **inode, struct file **file)
{
	if (!ours(nr))
		return false;
#if STEP >= 2
	*task = bpf_get_current_task_btf();
	*inode = pipe_inode(*task, regs->di, file);
	return *inode;
#else
	return true;
#endif
}

#ifdef PAGE_HOOK
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(ladder_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp_flags, int migratetype)
{
	return 0;
}
#endif

#if defined(SWITCH_HOOK) || defined(SWITCH_CLOCK)
#ifdef SWITCH_CLOCK
__u64 switched_at;
#endif

SEC("tp_btf/sched_switch")
int BPF_PROG(ladder_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
#ifdef SWITCH_CLOCK
	switched_at = bpf_ktime_get_ns();
#endif
	return 0;
}
#endif

SEC("tp_btf/sys_enter")
int BPF_PROG(ladder_sys_enter, struct pt_regs *regs, long nr)
{
	struct task_struct *task;
	struct inode *inode;
	struct file *file;
#if STEP >= 3
	struct pipe_inode_info *pipe;
	struct call *c;
#endif

	if (!our_call(nr, regs, &task, &inode, &file))
		return 0;
#if STEP >= 3
	pipe = kernel_obj(file->private_data, struct pipe_inode_info);
	c = call_get(task, true);
	if (!c)
		return 0;
	c->ino = inode->i_ino;
	c->head = pipe->head;
	c->tail = pipe->tail;
#endif
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ladder_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task;
	struct inode *inode;
	struct file *file;
#if STEP >= 3
	struct call *c;
#endif

	if (!our_call(regs->orig_ax, regs, &task, &inode, &file))
		return 0;
#if STEP >= 3
	c = call_get(task, false);
	if (!c || !c->ino)
		return 0;
	call_put(task, c);
#endif
#if STEP >= 4
	ladder_count(task, inode->i_ino, inode->i_sb->s_dev, ret);
#endif
	return 0;
}
