/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make bench only: the step the syscall and function ladders end with
 * (ladder.bpf.c, fladder.bpf.c), the least a per-key pipe counter
 * needs: the key (process, command, pipe) and its counters in a hash map,
 * calls, bytes and buffers added with atomics (-DPERCPU: a per-CPU hash,
 * plain adds). With LADDER_SLOTS, also the slots the steps before keep
 * the call's state in.
 */
#ifndef LADDER_COUNT_BPF_H
#define LADDER_COUNT_BPF_H

#ifdef LADDER_SLOTS
/* the call's state in a slot picked by thread id (call_slots.bpf.h's
 * way): the includer defines struct call first */
struct slot {
	__u32 owner;
	struct call c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");
#endif

struct ladder_key {
	__u32 tgid;
	__u32 dev;
	__u64 ino;
	char comm[16];
};

struct counts {
	__u64 calls;
	__u64 bytes;
	__u64 bufs;
};

struct {
#ifdef PERCPU
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
#else
	__uint(type, BPF_MAP_TYPE_HASH);
#endif
	__uint(max_entries, 10240);
	__type(key, struct ladder_key);
	__type(value, struct counts);
} counts SEC(".maps");

#ifdef PERCPU
#define add(field, n) ((field) += (n))
#else
#define add(field, n) __sync_fetch_and_add(&(field), (n))
#endif

/* One call of task on pipe (ino, dev) that returned ret. */
static __always_inline void ladder_count(struct task_struct *task, __u64 ino,
					 __u32 dev, long ret)
{
	static const struct counts zero;
	struct ladder_key k = { .tgid = task->tgid, .dev = dev, .ino = ino };
	struct counts *n;

	__builtin_memcpy(k.comm, task->comm, sizeof(k.comm));
	n = bpf_map_lookup_elem(&counts, &k);
	if (!n) {
		bpf_map_update_elem(&counts, &k, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&counts, &k);
		if (!n)
			return;
	}
	add(n->calls, 1);
	if (ret > 0)
		add(n->bytes, ret);
	add(n->bufs, 1);
}

#endif
