/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys for the tracepoint and function tiers: the current task (filtered by
 * -p/-n) plus the pipe's inode, taken from the struct file of the call.
 * Filtered as every tier is (agg.bpf.h).
 */
#ifndef TIER_KEY_BPF_H
#define TIER_KEY_BPF_H

#include <bpf/bpf_core_read.h>
#include "agg.bpf.h"

/* Fills the task part of key; false if -p/-n leave the current task out. */
static __always_inline bool pt_task_key(struct pt_key *key)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	if (!current_wanted(cur))
		return false;
	key_for_task(key, cur);
	return true;
}

/* The inode part: pipefs inode of an anonymous pipe, or the FIFO's own. */
static __always_inline void pt_file_key(struct pt_key *key, struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);

	key->ino = BPF_CORE_READ(inode, i_ino);
	key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
}

/*
 * The same from a typed (BTF) file pointer, a tp_btf or fentry argument:
 * plain loads, where BPF_CORE_READ() makes a bpf_probe_read_kernel() call
 * of each step (four calls, most of a program's work on a short call).
 */
static __always_inline void pt_file_key_btf(struct pt_key *key, struct file *file)
{
	struct inode *inode = file->f_inode;

	key->ino = inode->i_ino;
	key->dev = inode->i_sb->s_dev;
}

/* The counters of the current task on file's pipe (a BTF pointer), key
 * filled in; NULL if -p/-n leave the task out or the counter map is full. */
static __always_inline struct pt_counts *file_counts(struct pt_key *key,
						     struct file *file)
{
	if (!pt_task_key(key))
		return NULL;
	pt_file_key_btf(key, file);
	return counts_of(key);
}

#endif
