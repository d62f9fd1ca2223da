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

/* The per-CPU cache in front of them (pipetrace.h), both generations. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * PT_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct pt_cached);
} counts_cache SEC(".maps");

/* Histogram slots, in two generations like the counters. */
struct hists_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_DEFAULT_KEYS);
	__type(key, struct pt_hkey);
	__type(value, struct pt_hval);
} hists0 SEC(".maps"), hists1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct hists_map);
} hists SEC(".maps") = {
	.values = { &hists0, &hists1 },
};

/* Processes named with -p; looked up only when pt_scope.by_pid is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

/* --cgroup: the cgroup v2 directory at index 0 (libbpf-tools convention) */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

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
 * Task t's process id in pipetrace's pid namespace, as ps there shows it;
 * 0 if it is not visible from there. t is a BTF pointer (current, or a
 * tracepoint's task): its fields are plain loads.
 */
static __always_inline __u32 task_tgid(struct task_struct *t)
{
	struct pid *pid;
	__u32 level;

	if (!pt_scope.pidns_ino)
		return t->tgid;
	pid = BPF_CORE_READ(t, group_leader, thread_pid);
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

/*
 * The current task's process id (task_tgid()), or 0 if -p/-n/--cgroup
 * leave it out. cur is bpf_get_current_task_btf(), fetched once by the
 * program and passed on: on CPUs that return through a mitigation thunk
 * (SRSO) each helper call costs more than the loads it saves.
 */
static __always_inline __u32 current_wanted(struct task_struct *cur)
{
	__u32 tgid = task_tgid(cur);

	if (!tgid || tgid == pt_scope.self_tgid)
		return 0;
	if (pt_scope.by_pid && !bpf_map_lookup_elem(&pid_filter, &tgid))
		return 0;
	if (pt_scope.by_cgroup && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return 0;
	if (pt_scope.by_comm && !comm_matches(cur->comm))
		return 0;
	return tgid;
}

/* Task t's part of a key: process (tgid: task_tgid(t)), command (and
 * cgroup, else 0). */
static __always_inline void key_of_task(struct pt_key *key, struct task_struct *t, __u32 tgid)
{
	key->tgid = tgid;
	__builtin_memcpy(key->comm, t->comm, sizeof(key->comm));
	key->cgroup = pt_scope.key_cgroup ? t->cgroups->dfl_cgrp->kn->id : 0;
}

static __always_inline void key_for_task(struct pt_key *key, struct task_struct *t)
{
	key_of_task(key, t, task_tgid(t));
}

/* The live generation of a two-generation map (counts or hists). */
static __always_inline void *live_gen(void *gens)
{
	__u32 gen = pt_gen.epoch & 1;

	return bpf_map_lookup_elem(gens, &gen);
}

/* The value of key in map, created as zero on first use; NULL (and a key
 * counted as dropped) when the map is full. */
static __always_inline void *lookup_or_init(void *map, const void *key,
					    const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	/* -EEXIST from a racing creator is fine; a full map is not */
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		__sync_fetch_and_add(&pt_gen.keys_dropped, 1);
	return v;
}

/* The counters of key in generation gen (0, 1), created on first use. */
static __always_inline struct pt_counts *counts_in(const struct pt_key *key, __u32 gen)
{
	static const struct pt_counts zero;
	void *map = bpf_map_lookup_elem(&counts, &gen);

	return map ? lookup_or_init(map, key, &zero) : NULL;
}

/* key's entry among a generation's PT_CACHE_SLOTS: multiplicative hashing */
static __always_inline __u32 cache_slot(const struct pt_key *key)
{
	/* a multiplier each: with one over (tgid << 32 | ino), a shell's
	 * processes (pids 2 apart) on one pipe shared a slot nearly always */
	__u64 h = ((key->ino ^ key->dev) * 0x9E3779B97F4A7C15ULL) ^
		  ((__u64)key->tgid * 0xC2B2AE3D27D4EB4FULL);

	if (pt_scope.one_cache_slot)
		return 0;
	return h >> (64 - __builtin_ctz(PT_CACHE_SLOTS));
}

static __always_inline bool keys_equal(const struct pt_key *a, const struct pt_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	_Static_assert(sizeof(*a) == 5 * sizeof(__u64), "pt_key: five words");
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) |
		 (x[4] ^ y[4]));
}

/*
 * The counters of key in generation gen: its entry in this CPU's
 * cache (an inlined array look-up and a compare) when it holds key or is
 * free, else the hash. Programs on one CPU may preempt each other: an
 * entry is claimed with a compare-and-swap and counts only once its key is
 * written (ready); one that is being claimed sends the caller to the hash.
 * A key gets an entry only if the hash has room for it too, so --max-keys
 * and the keys dropped stay the hash's. gen: the live generation, or the
 * one a drain reads once the programs in flight (the caller) are done.
 */
static __always_inline struct pt_counts *counts_cached(const struct pt_key *key, __u32 gen)
{
	__u32 i = gen * PT_CACHE_SLOTS + cache_slot(key);
	struct pt_cached *e = bpf_map_lookup_elem(&counts_cache, &i);

	if (!e)
		return counts_in(key, gen);
	if (e->state == PT_CACHE_READY && keys_equal(&e->key, key))
		return &e->c;
	if (e->state != PT_CACHE_FREE ||
	    __sync_val_compare_and_swap(&e->state, PT_CACHE_FREE, PT_CACHE_CLAIMING) !=
	    PT_CACHE_FREE)
		return counts_in(key, gen);
	if (!counts_in(key, gen)) {
		e->state = PT_CACHE_FREE;
		return NULL;
	}
	e->key = *key;
	/* the key before the state that lets others add */
	asm volatile("" ::: "memory");
	e->state = PT_CACHE_READY;
	return &e->c;
}

/* The counters of key in the live generation. */
static __always_inline struct pt_counts *counts_of(const struct pt_key *key)
{
	return counts_cached(key, pt_gen.epoch & 1);
}

#define count_add(c, field, n) __sync_fetch_and_add(&(c)->field, (n))

/*
 * One call that returned -EAGAIN, by side: a read or write for want of
 * RWF_NOWAIT/IOCB_NOWAIT (nowait) or of O_NONBLOCK (nonblock; nowait is
 * not said when O_NONBLOCK is set too), or a splice.
 */
static __always_inline void count_eagain(struct pt_counts *c, enum pt_op side,
					 bool nowait)
{
	if (side == PT_OP_READ && nowait)
		count_add(c, eagain_read_nowait, 1);
	else if (side == PT_OP_READ)
		count_add(c, eagain_read_nonblock, 1);
	else if (side == PT_OP_WRITE && nowait)
		count_add(c, eagain_write_nowait, 1);
	else if (side == PT_OP_WRITE)
		count_add(c, eagain_write_nonblock, 1);
	else
		count_add(c, eagain_splice, 1);
}

static __always_inline bool hist_wanted(enum pt_hist h)
{
	return pt_scope.hists & (1u << h);
}

/* floor(log2(v)), 0 for 0 and 1: a histogram slot */
static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 s = 0;

	if (v >> 32) {
		v >>= 32;
		s += 32;
	}
	if (v >> 16) {
		v >>= 16;
		s += 16;
	}
	if (v >> 8) {
		v >>= 8;
		s += 8;
	}
	if (v >> 4) {
		v >>= 4;
		s += 4;
	}
	if (v >> 2) {
		v >>= 2;
		s += 2;
	}
	if (v >> 1)
		s += 1;
	return s < PT_HIST_SLOTS ? s : PT_HIST_SLOTS - 1;
}

/* One value into histogram h of key (a no-op unless --hist asked for h). */
static __always_inline void hist_add(const struct pt_key *key, enum pt_hist h, __u64 v)
{
	static const struct pt_hval zero;
	struct pt_hkey hk;
	struct pt_hval *slot;
	void *map;

	/* first: without --hist the verifier drops the rest */
	if (!hist_wanted(h))
		return;
	hk = (struct pt_hkey){ .key = *key, .hist = h, .slot = log2_slot(v) };
	map = live_gen(&hists);
	if (!map)
		return;
	slot = lookup_or_init(map, &hk, &zero);
	if (slot) {
		__sync_fetch_and_add(&slot->n, 1);
		__sync_fetch_and_add(&slot->sum, v);
	}
}

/* sched_switch's prev_state for a sleep that waits for a wake-up (a pipe's
 * wait_event_interruptible); a mutex or I/O sleep is uninterruptible */
#define TASK_INTERRUPTIBLE	0x1
/* lock:contention_begin flags (include/trace/events/lock.h): a mutex; an
 * rt_mutex (PREEMPT_RT's mutexes, and its sleeping spinlocks) */
#define LCB_F_MUTEX		(1U << 5)
#define LCB_F_RT		(1U << 3)

#endif /* AGG_BPF_H */
