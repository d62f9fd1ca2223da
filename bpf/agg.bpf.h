/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-key counters shared by every tier's BPF object.
 *
 * Two generations of the counter map: programs add into counts[epoch & 1];
 * user space flips epoch, waits an RCU grace period (every program that may
 * still write the old generation has then returned) and drains the old one.
 * So no event is lost or counted twice between intervals.
 */
#ifndef AGG_BPF_H
#define AGG_BPF_H

#include "pipetrace.h"

#define PT_DEFAULT_KEYS 16384

struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_DEFAULT_KEYS);
	__type(key, struct pt_key);
	__type(value, struct pt_counts);
} counts0 SEC(".maps"), counts1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct counts_map);
} counts SEC(".maps") = {
	.values = { &counts0, &counts1 },
};

/* Processes named with -p; looked up only when pt_scope.by_pid is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

const volatile struct pt_scope pt_scope = {};
struct pt_gen pt_gen = {};

static __always_inline bool comm_matches(const char *comm)
{
	for (int i = 0; i < PT_COMM_LEN; i++) {
		if (comm[i] != pt_scope.comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * The current process's pid in pipetrace's pid namespace, as ps there shows
 * it; 0 if it is not visible from there.
 */
static __always_inline __u32 current_tgid(void)
{
	struct task_struct *task;
	struct pid *pid;
	__u32 level;

	if (!pt_scope.pidns_ino)
		return bpf_get_current_pid_tgid() >> 32;
	task = (struct task_struct *)bpf_get_current_task();
	pid = BPF_CORE_READ(task, group_leader, thread_pid);
	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	/* its pid in each namespace from the initial one down to its own */
	for (__u32 i = 0; i <= 32 && i <= level; i++) {
		struct upid up = {};

		bpf_probe_read_kernel(&up, sizeof(up), &pid->numbers[i]);
		if (up.ns && BPF_CORE_READ(up.ns, ns.inum) == pt_scope.pidns_ino)
			return up.nr;
	}
	return 0;
}

/* false if -p/-n leave the current task out */
static __always_inline bool current_wanted(void)
{
	__u32 tgid = current_tgid();
	char comm[PT_COMM_LEN];

	if (!tgid || tgid == pt_scope.self_tgid)
		return false;
	if (pt_scope.by_pid && !bpf_map_lookup_elem(&pid_filter, &tgid))
		return false;
	if (pt_scope.by_comm) {
		bpf_get_current_comm(comm, sizeof(comm));
		return comm_matches(comm);
	}
	return true;
}

/* The current task's part of a key: process and command. */
static __always_inline void key_for_current(struct pt_key *key)
{
	key->tgid = current_tgid();
	bpf_get_current_comm(key->comm, sizeof(key->comm));
}

/* The counters of key in the live generation, created on first use. */
static __always_inline struct pt_counts *counts_of(const struct pt_key *key)
{
	static const struct pt_counts zero;
	__u32 gen = pt_gen.epoch & 1;
	struct pt_counts *c;
	void *map;

	map = bpf_map_lookup_elem(&counts, &gen);
	if (!map)
		return NULL;
	c = bpf_map_lookup_elem(map, key);
	if (c)
		return c;
	/* -EEXIST from a racing creator is fine; a full map is not */
	bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
	c = bpf_map_lookup_elem(map, key);
	if (!c)
		__sync_fetch_and_add(&pt_gen.keys_dropped, 1);
	return c;
}

#define count_add(c, field, n) __sync_fetch_and_add(&(c)->field, (n))

#endif /* AGG_BPF_H */
