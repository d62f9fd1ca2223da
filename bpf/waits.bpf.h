/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleeps and pipe->mutex contention of one pipe call, for the tiers that
 * bracket a call themselves (syscall, function). A call's state holds a
 * struct call_waits; sched_switch and lock:contention_* update it, the
 * call's exit adds it to the key's counters.
 *
 * A reader waiting for data or a writer waiting for room sleeps in
 * wait_event_interruptible*() (TASK_INTERRUPTIBLE); a mutex or page-fault
 * sleep is uninterruptible and is not a wait. pipe->mutex is the first
 * member of struct pipe_inode_info, so its address is the pipe's.
 *
 * A wait in progress is also in the sleeps map (include/pipetrace.h,
 * struct pt_sleep), where each drain counts it up to the drain; at its
 * end the rest goes to its key at once (the call counts its sleeps and
 * the waits the map could not show).
 *
 * A sleep ends at its thread's switch-in, but sched_switch programs do
 * not see every switch-in: on 6.18, under CPU and fork load, about one
 * sleep in a thousand ends (its thread runs again) with no sched_switch
 * naming the thread as next (two programs on the tracepoint both miss
 * it; the thread's nvcsw matches the switch-outs seen). Its thread is
 * running by its call's end, or by its next sleep: the wait ends there
 * (waits_call_end(), waits_sleep_begin()), else its entry would stay
 * shown and every drain count it again.
 */
#ifndef WAITS_BPF_H
#define WAITS_BPF_H

#include "agg.bpf.h"

/* What the functions below return when no sleep ended: a sleep's length
 * can be 0 (two clock reads in one tick of a coarse clock, as under qemu
 * TCG), and such a sleep still gets its histogram value. */
#define WAIT_NONE (~0ULL)

struct call_waits {
	__u64 off_ts;		/* asleep since (ns); 0: not asleep */
	__u64 wait_ns;
	__u64 lock;		/* the mutex being waited for; 0: none */
	__u64 lock_ts;
	__u64 lock_ns;
	__u32 waits;
	__u32 locks;		/* contended acquisitions */
	__u8 shown;		/* the wait in progress is in the sleeps map */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PT_SLEEP_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pt_sleep);
} sleeps SEC(".maps");

/* Thread tid's entry in the sleeps map (one per tid mod PT_SLEEP_SLOTS;
 * pt_scope.one_sleep_slot: tests put every thread on entry 0) */
static __always_inline struct pt_sleep *sleep_entry(__u32 tid)
{
	__u32 i = pt_scope.one_sleep_slot ? 0 : tid & (PT_SLEEP_SLOTS - 1);

	return bpf_map_lookup_elem(&sleeps, &i);
}

/* Entry e is taken for a wait of thread tid, if no other wait holds it */
static __always_inline bool sleep_claim(struct pt_sleep *e, __u32 tid)
{
	return __sync_val_compare_and_swap(&e->tid, 0, tid) == 0;
}

/* Entry e, claimed and its key written, shows a wait of kind from now */
static __always_inline void sleep_open(struct pt_sleep *e, enum pt_sleep_kind kind,
				       __u64 now)
{
	e->kind = kind;
	e->seeded = 0;
	/* an atomic with a fetch is a full barrier: the key is there first */
	__sync_lock_test_and_set(&e->from, now);
}

/* A wait of thread tid starts at now: shown in the sleeps map if its entry
 * is free or its own (the key is what the wait is counted under). */
static __always_inline void sleep_show(struct call_waits *w, __u32 tid, __u64 now,
				       enum pt_sleep_kind kind, const struct pt_key *key)
{
	struct pt_sleep *e = sleep_entry(tid);
	__u32 owner;

	if (!e)
		return;
	owner = __sync_val_compare_and_swap(&e->tid, 0, tid);
	if (owner && owner != tid)
		return;
	/* owner == tid: left shown by a wait whose end was not seen (a call
	 * whose exit no program saw): taken over, the drains counting none
	 * of it while its key changes */
	if (owner)
		__sync_lock_test_and_set(&e->from, 0);
	e->key = *key;
	sleep_open(e, kind, now);
	w->shown = 1;
}

/* ns of a wait of kind into c */
static __always_inline void wait_add(struct pt_counts *c, __u32 kind, __u64 ns)
{
	if (kind == PT_SLEEP_READ)
		count_add(c, wait_read_ns, ns);
	else if (kind == PT_SLEEP_WRITE)
		count_add(c, wait_write_ns, ns);
	else
		count_add(c, lock_wait_ns, ns);
}

/* One wait of kind (a reader's or a writer's), ns long, into c */
static __always_inline void count_wait(struct pt_counts *c, __u32 kind, __u64 ns)
{
	if (kind == PT_SLEEP_READ)
		count_add(c, waits_read, 1);
	else
		count_add(c, waits_write, 1);
	if (ns)
		wait_add(c, kind, ns);
}

/*
 * The wait entry e shows is over: takes from it what no drain counted.
 * Returns where the rest starts (0: nothing left) and in *gen the
 * generation it goes to; the part before the last drain's switch goes
 * here to the generation that drain reads.
 */
static __always_inline __u64 sleep_take(struct pt_sleep *e, __u32 *gen)
{
	__u64 from = __sync_lock_test_and_set(&e->from, 0), flip, at;
	struct pt_counts *c;

	/* read after the exchange: a drain that had not reached this wait
	 * (from before its switch) will not count [from, switch): that part
	 * goes into the generation that drain reads (it waits for this
	 * program), the rest into the live one */
	flip = *(volatile __u64 *)&pt_gen.flip;
	at = flip & ~1ULL;
	*gen = flip & 1;
	if (from && from < at) {
		c = counts_in(&e->key, *gen ^ 1);
		if (c)
			wait_add(c, e->kind, at - from);
		from = at;
	}
	return from;
}

/*
 * The wait ends at now, its entry freed: what no drain counted goes to
 * its key here, in the generation of each part (the call's end can come
 * after the next switch). Returns where the call must count from: now,
 * or start when the wait was not shown (or its key had no counters).
 */
static __always_inline __u64 sleep_unshow(struct call_waits *w, __u32 tid,
					  __u64 start, __u64 now)
{
	struct pt_counts *c;
	struct pt_sleep *e;
	__u64 from;
	__u32 gen;

	if (!w->shown)
		return start;
	w->shown = 0;
	e = sleep_entry(tid);
	if (!e)
		return start;
	from = sleep_take(e, &gen);
	if (from && from < now) {
		c = counts_cached(&e->key, gen);
		if (c)
			wait_add(c, e->kind, now - from);
		else
			now = from;	/* the call counts it, as it can */
	}
	__sync_lock_test_and_set(&e->tid, 0);
	return now;
}

/*
 * For programs that keep no call state (the tracepoint tier's light set):
 * the wait of the thread whose entry e shows ends at now and is counted
 * whole here, its number too, the entry freed.
 */
static __always_inline void sleep_end(struct pt_sleep *e, __u64 now)
{
	__u32 gen;
	__u64 from = sleep_take(e, &gen);
	struct pt_counts *c = counts_cached(&e->key, gen);

	if (c)
		count_wait(c, e->kind, from && from < now ? now - from : 0);
	__sync_lock_test_and_set(&e->tid, 0);
}

/*
 * Thread tid ends a call whose begin no program saw (its state is not
 * there), or runs again in it (the function tier: fexit and kretprobes
 * never see such a call's end): if it slept in it from before attach,
 * user space put that wait in its sleeps-map entry (pt_gen.seeded),
 * which ends now. One load each while no seeded wait is left.
 */
static __always_inline void seed_end(__u32 tid)
{
	struct pt_sleep *e;

	if (!*(volatile __u32 *)&pt_gen.seeded)
		return;
	e = sleep_entry(tid);
	if (e && e->tid == tid && e->seeded)
		sleep_end(e, bpf_ktime_get_ns());
}

/* prev leaves the CPU: whether that is a wait (it sleeps for a wake-up) */
static __always_inline bool waits_is_sleep(bool preempt, unsigned int prev_state)
{
	return !preempt && (prev_state & TASK_INTERRUPTIBLE);
}

/* The wait of tid (w->off_ts set) ends at now: its length; the call
 * counts what the drains did not. */
static __always_inline __u64 waits_switch_in(struct call_waits *w, __u32 tid, __u64 now)
{
	__u64 d = now - w->off_ts;

	w->wait_ns += now - sleep_unshow(w, tid, w->off_ts, now);
	w->off_ts = 0;
	w->waits++;
	return d;
}

/*
 * Task tid leaves the CPU inside a pipe call at now: a wait if it sleeps
 * for a wake-up; kind and key say how a drain counts it meanwhile. A
 * sleep still in progress had a switch-in no program saw: it ends here,
 * its length returned (WAIT_NONE: none).
 */
static __always_inline __u64 waits_sleep_begin(struct call_waits *w, __u32 tid,
					       enum pt_sleep_kind kind,
					       const struct pt_key *key, __u64 now)
{
	__u64 d = w->off_ts ? waits_switch_in(w, tid, now) : WAIT_NONE;

	w->off_ts = now;
	sleep_show(w, tid, now, kind, key);
	return d;
}

/*
 * A mutex acquisition of lock must wait (the first begin counts: a mutex
 * reports its optimistic spin and then its sleep); key: NULL when whose
 * pipe it is is not known yet (a drain cannot count it meanwhile). On
 * PREEMPT_RT a mutex is an rt_mutex and says LCB_F_RT, as its sleeping
 * spinlocks do: callers that pass the pipe's address tell them apart
 * (pipe->mutex is at 0).
 */
static __always_inline void waits_lock_begin(struct call_waits *w, void *lock,
					     unsigned int flags, __u32 tid,
					     const struct pt_key *key)
{
	if ((flags & (LCB_F_MUTEX | LCB_F_RT)) && !w->lock_ts) {
		w->lock = (__u64)lock;
		w->lock_ts = bpf_ktime_get_ns();
		if (key)
			sleep_show(w, tid, w->lock_ts, PT_SLEEP_LOCK, key);
	}
}

static __always_inline void waits_lock_end(struct call_waits *w, void *lock, __u32 tid)
{
	__u64 now;

	if (!w->lock_ts || w->lock != (__u64)lock)
		return;
	now = bpf_ktime_get_ns();
	w->lock_ns += now - sleep_unshow(w, tid, w->lock_ts, now);
	w->locks++;
	w->lock_ts = 0;
}

/*
 * At a call's end, before its waits are counted: a sleep or a lock wait
 * whose end no program saw ends now (its thread is running), its entry
 * freed. The call's own sleeps end at a switch-in nearly always: two
 * loads and a branch. Returns the length of a sleep it ended (WAIT_NONE:
 * none).
 */
static __always_inline __u64 waits_call_end(struct call_waits *w, __u32 tid)
{
	__u64 d = WAIT_NONE;

	if (!(w->off_ts | w->lock_ts))
		return WAIT_NONE;
	if (w->off_ts)
		d = waits_switch_in(w, tid, bpf_ktime_get_ns());
	if (w->lock_ts)
		waits_lock_end(w, (void *)w->lock, tid);
	return d;
}

/* --hist: a sleep of a call on side, d ns long (WAIT_NONE: none), under key */
static __always_inline void waits_hist(const struct pt_key *key, enum pt_op side, __u64 d)
{
	if (d != WAIT_NONE)
		hist_add(key, side == PT_OP_READ ? PT_HIST_WAIT_READ : PT_HIST_WAIT_WRITE, d);
}

/* At a read's or write's end: its sleeps, by side. */
static __always_inline void count_sleeps(struct pt_counts *c,
					 const struct call_waits *w, enum pt_op side)
{
	if (!w->waits)
		return;
	if (side == PT_OP_READ) {
		count_add(c, waits_read, w->waits);
		count_add(c, wait_read_ns, w->wait_ns);
	} else {
		count_add(c, waits_write, w->waits);
		count_add(c, wait_write_ns, w->wait_ns);
	}
}

/* At a call's end: its contended acquisitions of the mutex of c's pipe. */
static __always_inline void count_contention(struct pt_counts *c,
					     const struct call_waits *w)
{
	if (!w->locks)
		return;
	count_add(c, lock_contended, w->locks);
	count_add(c, lock_wait_ns, w->lock_ns);
}

#endif
