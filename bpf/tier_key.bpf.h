/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys: the current task (filtered by -p/-n, as every tier is: agg.bpf.h)
 * plus the pipe's inode, taken from the struct file of the call.
 */
#ifndef TIER_KEY_BPF_H
#define TIER_KEY_BPF_H

#include <bpf/bpf_core_read.h>
#include "agg.bpf.h"

/* Fills the task part of key; false if -p/-n leave the current task out.
 * cur: bpf_get_current_task_btf(), which the program fetched once
 * (agg.bpf.h current_wanted() says why). */
static __always_inline bool pt_task_key(struct pt_key *key, struct task_struct *cur)
{
	__u32 tgid = current_wanted(cur);

	if (!tgid)
		return false;
	key_of_task(key, cur, tgid);
	return true;
}

/*
 * A pipe's inode number and the device of its file system (pipefs for an
 * anonymous pipe, the FIFO's own otherwise), from a typed (BTF) file
 * pointer: a tp_btf or fentry argument, or kernel_obj(). Plain loads, where
 * BPF_CORE_READ() makes a bpf_probe_read_kernel() call of each step (four
 * calls, most of a program's work on a short call).
 */
static __always_inline void pipe_id(struct file *file, __u64 *ino, __u32 *dev)
{
	struct inode *inode = file->f_inode;

	*ino = inode->i_ino;
	*dev = inode->i_sb->s_dev;
}

/* The same into key from a file pointer that may be untyped (the
 * function tier's bodies serve its kprobe flavour too). */
static __always_inline void pt_file_key(struct pt_key *key, struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);

	key->ino = BPF_CORE_READ(inode, i_ino);
	key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
}

/* The counters of the current task cur on file's pipe (a BTF pointer),
 * key filled in; NULL if -p/-n leave the task out or the counter map is
 * full. */
static __always_inline struct pt_counts *file_counts(struct pt_key *key, struct file *file,
						     struct task_struct *cur)
{
	if (!pt_task_key(key, cur))
		return NULL;
	pipe_id(file, &key->ino, &key->dev);
	return counts_of(key);
}

#endif
