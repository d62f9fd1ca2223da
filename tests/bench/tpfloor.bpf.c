// SPDX-License-Identifier: GPL-2.0
/*
 * make vmbench only: the tracepoint tier's floor, the hooks themselves.
 * Empty programs on every event the tier attaches to (the pipe:* events
 * of kernel-patch/ and lock:contention_*), so only the patched kernel
 * loads it. Built again with -DCOUNT (tpcount.bpf.o): the floor plus the
 * least any per-key counter needs at each pipe_copy (ladder_count.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#ifdef COUNT
#include "ladder_count.bpf.h"

SEC("tp_btf/pipe_copy")
int BPF_PROG(tpfloor_copy, struct pipe_inode_info *pipe, struct file *file,
	     int side, size_t len, ssize_t ret)
{
	struct inode *inode = file->f_inode;

	ladder_count(bpf_get_current_task_btf(), inode->i_ino, inode->i_sb->s_dev, ret);
	return 0;
}
#else
SEC("tp_btf/pipe_copy")
int tpfloor_copy(void *ctx) { return 0; }
#endif

SEC("tp_btf/pipe_eagain")
int tpfloor_eagain(void *ctx) { return 0; }

SEC("tp_btf/pipe_page_get")
int tpfloor_page_get(void *ctx) { return 0; }

SEC("tp_btf/pipe_prefill")
int tpfloor_prefill(void *ctx) { return 0; }

SEC("tp_btf/pipe_wait_begin")
int tpfloor_wait_begin(void *ctx) { return 0; }

SEC("tp_btf/pipe_wait_end")
int tpfloor_wait_end(void *ctx) { return 0; }

SEC("tp_btf/contention_begin")
int tpfloor_lock_begin(void *ctx) { return 0; }

SEC("tp_btf/contention_end")
int tpfloor_lock_end(void *ctx) { return 0; }
