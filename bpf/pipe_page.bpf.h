/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pipe buffer pages seen at kmem:mm_page_alloc, for the tiers without the
 * pipe:pipe_page_get event (syscall, function): which pages are a pipe's,
 * whether each was allocated holding pipe->mutex.
 *
 * A kernel with a prefill path allocates some pages of a write before it
 * takes the mutex: mainline since 7.2 (anon_pipe_get_page_prealloc(), up
 * to PIPE_PREALLOC_MAX pages of a write of more than a page) and
 * kernel-patch/ 0003. There the loader sets read_owner and each page reads
 * the mutex's owner; elsewhere every page of a write is under the mutex
 * and no owner is read.
 */
#ifndef PIPE_PAGE_BPF_H
#define PIPE_PAGE_BPF_H

#define PIPE_MUTEX_FLAGS	0x07
#define PIPE_RT_MUTEX_HAS_WAITERS	0x01

/* GFP_HIGHUSER | __GFP_ACCOUNT on the running kernel, set by the loader */
const volatile __u32 pipe_page_gfp = 0;
const volatile bool read_owner = false;

/* A pipe buffer page is order 0 with exactly pipe_page_gfp; a fault on
 * the user buffer allocates with other flags. */
static __always_inline bool is_pipe_page(unsigned int order, gfp_t gfp_flags)
{
	return !order && gfp_flags == pipe_page_gfp;
}

/* PREEMPT_RT: a mutex is an rt_mutex, its owner a task pointer */
struct mutex___rt {
	struct rt_mutex_base rtmutex;
} __attribute__((preserve_access_index));

/* Does task hold pipe->mutex? (true if the kernel's mutex is not known) */
static __always_inline bool pipe_mutex_held(struct pipe_inode_info *pipe,
					    struct task_struct *task)
{
	struct mutex___rt *rt = (void *)&pipe->mutex;
	long owner;

	if (bpf_core_field_exists(pipe->mutex.owner))
		owner = BPF_CORE_READ(pipe, mutex.owner.counter) & ~(long)PIPE_MUTEX_FLAGS;
	else if (bpf_core_field_exists(rt->rtmutex))
		owner = (long)BPF_CORE_READ(rt, rtmutex.owner) & ~(long)PIPE_RT_MUTEX_HAS_WAITERS;
	else
		return true;
	return owner == (long)task;
}

/* A pipe page the current task allocated: under the mutex or before it. */
static __always_inline void pipe_page_count(struct pipe_inode_info *pipe,
					    struct task_struct *task,
					    __u32 *locked, __u32 *unlocked)
{
	if (!read_owner || pipe_mutex_held(pipe, task))
		(*locked)++;
	else
		(*unlocked)++;
}

#endif
