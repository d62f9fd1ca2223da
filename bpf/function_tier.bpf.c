// SPDX-License-Identifier: GPL-2.0
/*
 * Function tier: for kernels without the pipe:* tracepoints that allow
 * fentry/fexit (BPF trampolines) or, failing that, kprobes.
 *
 * One pipe call = entry and exit of pipe_read()/pipe_write() (or
 * anon_pipe_read()/anon_pipe_write(): user space sets the attach target from
 * the kernel's BTF). Between the two, per-task state scopes the helpers:
 *
 *  - copy_page_to_iter() inside pipe_read(): one per pipe buffer copied,
 *    each its own user-access section (the only read copy path without
 *    the batched read of kernel-patch/ 0003);
 *  - copy_page_from_iter(page, 0, PAGE_SIZE, ...) inside pipe_write(): a
 *    new ring slot (merges into the last buffer copy less than a page);
 *  - kmem:mm_page_alloc, order 0, GFP_HIGHUSER | __GFP_ACCOUNT, inside
 *    pipe_write(): a pipe page allocated; pipe->mutex held or not is read
 *    from the mutex owner. A new slot whose page is not the one just
 *    allocated under the mutex came from the pipe's cache (tmp_page, or
 *    the pool of 0002): a pool hit.
 *
 * Counts are kept in the task's state and added to the key at exit.
 * Both attach flavours share the bodies; user space loads one flavour.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "agg.bpf.h"
#include "tier_key.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define EAGAIN		11
#define O_NONBLOCK	00004000
#define IOCB_NOWAIT	0x8	/* = RWF_NOWAIT (include/linux/fs.h) */
#define PAGE_SIZE	4096
#define MUTEX_FLAGS	0x07

/* GFP_HIGHUSER | __GFP_ACCOUNT on the running kernel, set by the loader */
const volatile __u32 pipe_page_gfp = 0;

enum { SIDE_READ = 1, SIDE_WRITE = 2 };

struct call_state {
	struct pt_key key;
	__u64 pipe;		/* write: its pipe, for the mutex owner */
	__u64 last_alloc;	/* page allocated under the mutex, not yet used */
	__u8 side;
	__u8 nonblock;
	__u8 nowait;
	__u32 bufs;		/* read: copy_page_to_iter calls */
	__u32 bufs_new;		/* write: new slots */
	__u32 pool_hits;
	__u32 alloc_locked;
	__u32 alloc_unlocked;
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

static __always_inline void call_enter(__u8 side, struct kiocb *iocb,
				       struct iov_iter *iter)
{
	struct call_state st = {};
	struct file *file;
	__u32 id = tid();

	/* zero-length calls return at once (the tracepoints skip them too) */
	if (!BPF_CORE_READ(iter, count))
		return;
	if (!pt_task_key(&st.key))
		return;
	file = BPF_CORE_READ(iocb, ki_filp);
	pt_file_key(&st.key, file);
	st.side = side;
	if (side == SIDE_WRITE)
		st.pipe = (__u64)BPF_CORE_READ(file, private_data);
	st.nonblock = !!(BPF_CORE_READ(file, f_flags) & O_NONBLOCK);
	st.nowait = !st.nonblock && (BPF_CORE_READ(iocb, ki_flags) & IOCB_NOWAIT);
	bpf_map_update_elem(&calls, &id, &st, BPF_ANY);
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
	if (st->side == SIDE_READ) {
		count_add(c, reads, 1);
		count_add(c, read_bytes, bytes);
		count_add(c, read_bufs, st->bufs);
		count_add(c, read_sections, st->bufs);
		if (ret == -EAGAIN) {
			if (st->nowait)
				count_add(c, eagain_read_nowait, 1);
			else
				count_add(c, eagain_read_nonblock, 1);
			/* pipe_read() returns -EAGAIN only on an empty pipe */
			count_add(c, eagain_empty, 1);
		}
	} else {
		count_add(c, writes, 1);
		count_add(c, write_bytes, bytes);
		if (st->bufs_new)
			count_add(c, bufs_new, st->bufs_new);
		if (st->pool_hits)
			count_add(c, pool_hits, st->pool_hits);
		if (st->alloc_locked)
			count_add(c, alloc_locked, st->alloc_locked);
		if (st->alloc_unlocked)
			count_add(c, alloc_unlocked, st->alloc_unlocked);
		if (ret == -EAGAIN) {
			if (st->nowait)
				count_add(c, eagain_write_nowait, 1);
			else
				count_add(c, eagain_write_nonblock, 1);
			/* pipe_write() returns -EAGAIN only on a full pipe */
			count_add(c, eagain_full, 1);
		}
	}
out:
	bpf_map_delete_elem(&calls, &id);
}

static __always_inline struct call_state *call_of(__u8 side)
{
	__u32 id = tid();
	struct call_state *st = bpf_map_lookup_elem(&calls, &id);

	return st && st->side == side ? st : NULL;
}

static __always_inline void on_copy_to_iter(void)
{
	struct call_state *st = call_of(SIDE_READ);

	if (st)
		st->bufs++;
}

static __always_inline void on_copy_from_iter(struct page *page, size_t offset,
					      size_t bytes)
{
	struct call_state *st;

	if (offset || bytes != PAGE_SIZE)
		return;
	st = call_of(SIDE_WRITE);
	if (!st)
		return;
	st->bufs_new++;
	if ((__u64)page != st->last_alloc)
		st->pool_hits++;
	st->last_alloc = 0;
}

/* Does the current task hold pipe->mutex? (true if it cannot tell) */
static __always_inline bool mutex_held(struct call_state *st)
{
	struct pipe_inode_info *pipe = (struct pipe_inode_info *)st->pipe;
	long owner;

	if (!bpf_core_field_exists(pipe->mutex.owner))
		return true;
	owner = BPF_CORE_READ(pipe, mutex.owner.counter);
	return (owner & ~(long)MUTEX_FLAGS) == (long)bpf_get_current_task();
}

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fn_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp_flags, int migratetype)
{
	struct call_state *st;

	if (order || gfp_flags != pipe_page_gfp)
		return 0;
	st = call_of(SIDE_WRITE);
	if (!st)
		return 0;
	if (mutex_held(st)) {
		st->alloc_locked++;
		st->last_alloc = (__u64)page;
	} else {
		st->alloc_unlocked++;
	}
	return 0;
}

/* fentry/fexit flavour (targets set by user space: pipe_* or anon_pipe_*) */
SEC("fentry/pipe_read")
int BPF_PROG(fe_read, struct kiocb *iocb, struct iov_iter *to)
{
	call_enter(SIDE_READ, iocb, to);
	return 0;
}

SEC("fexit/pipe_read")
int BPF_PROG(fx_read, struct kiocb *iocb, struct iov_iter *to, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("fentry/pipe_write")
int BPF_PROG(fe_write, struct kiocb *iocb, struct iov_iter *from)
{
	call_enter(SIDE_WRITE, iocb, from);
	return 0;
}

SEC("fexit/pipe_write")
int BPF_PROG(fx_write, struct kiocb *iocb, struct iov_iter *from, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("fentry/copy_page_to_iter")
int BPF_PROG(fe_copy_to, struct page *page, size_t offset, size_t bytes,
	     struct iov_iter *i)
{
	on_copy_to_iter();
	return 0;
}

SEC("fentry/copy_page_from_iter")
int BPF_PROG(fe_copy_from, struct page *page, size_t offset, size_t bytes,
	     struct iov_iter *i)
{
	on_copy_from_iter(page, offset, bytes);
	return 0;
}

/* kprobe flavour: attached by user space to the same functions */
SEC("kprobe")
int BPF_KPROBE(kp_read, struct kiocb *iocb, struct iov_iter *to)
{
	call_enter(SIDE_READ, iocb, to);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kr_read, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_write, struct kiocb *iocb, struct iov_iter *from)
{
	call_enter(SIDE_WRITE, iocb, from);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kr_write, long ret)
{
	call_exit(ret);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_copy_to, struct page *page, size_t offset, size_t bytes)
{
	on_copy_to_iter();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_copy_from, struct page *page, size_t offset, size_t bytes)
{
	on_copy_from_iter(page, offset, bytes);
	return 0;
}
