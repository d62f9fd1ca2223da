/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread state of a call in progress, for the tiers that keep one
 * (syscall: entry to exit; tracepoint: a pipe call's first event to its
 * pipe_copy).
 *
 * The state lives in a slot of an array picked by thread id: an array
 * look-up is inlined by the verifier, a task storage look-up is a helper
 * call, dear on CPUs with return thunks. A thread takes a free slot with a
 * cmpxchg on its owner field (thread id, 0: free). When another thread
 * holds the slot, the state goes to the task's storage instead, and the
 * slot's spilled counter says how many threads of that slot have theirs
 * there: the storage is looked at only when one has. Exact either way.
 *
 * The object that includes this header defines struct call_state first,
 * with a member live that is nonzero while a call is in progress
 * (call_end() sets it to 0). Here:
 *   call_slots, call_states  the array, and the task storage for spills
 *   call_begin(t)	a state for a new call of t (current, or a thread of
 *			it), not initialised; the caller sets it, live != 0
 *   call_in_progress(t)  the state of t's call in progress, NULL if none
 *   call_open(t)	call_in_progress(t), or else a new state, zeroed and
 *			live, in one slot look-up
 *   call_end(t, st)	t's call is over: frees its slot or its storage
 *   call_drop(t)	t is gone (t need not be current): as call_end() for
 *			whatever call t left in progress
 */
#ifndef CALL_SLOTS_BPF_H
#define CALL_SLOTS_BPF_H

#include "agg.bpf.h"	/* pt_scope */

#define CALL_SLOTS 16384
/* each object uses some of the functions */
#define __call_slot_fn static __always_inline __attribute__((unused))

struct call_slot {
	__u32 owner;		/* thread id; 0: free */
	__u32 spilled;		/* threads of this slot with state in storage */
	struct call_state st;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CALL_SLOTS);
	__type(key, __u32);
	__type(value, struct call_slot);
} call_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct call_state);
} call_states SEC(".maps");

__call_slot_fn struct call_slot *slot_of(struct task_struct *t)
{
	/* pt_scope.one_call_slot: tests put every thread on slot 0 */
	__u32 i = pt_scope.one_call_slot ? 0 : (__u32)t->pid & (CALL_SLOTS - 1);

	return bpf_map_lookup_elem(&call_slots, &i);
}

/* the free slot s for t, or else t's task storage */
__call_slot_fn struct call_state *call_take(struct call_slot *s, struct task_struct *t)
{
	struct call_state *st;

	if (__sync_val_compare_and_swap(&s->owner, 0, (__u32)t->pid) == 0)
		return &s->st;
	st = bpf_task_storage_get(&call_states, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (st && !st->live)
		__sync_fetch_and_add(&s->spilled, 1);
	return st;
}

__call_slot_fn struct call_state *call_begin(struct task_struct *t)
{
	struct call_slot *s = slot_of(t);

	if (!s)
		return NULL;
	if (s->owner == (__u32)t->pid)
		return &s->st;
	return call_take(s, t);
}

__call_slot_fn struct call_state *call_in_progress(struct task_struct *t)
{
	struct call_slot *s = slot_of(t);
	struct call_state *st;

	if (!s)
		return NULL;
	if (s->owner == (__u32)t->pid)
		st = &s->st;
	else if (s->spilled)
		st = bpf_task_storage_get(&call_states, t, NULL, 0);
	else
		return NULL;
	return st && st->live ? st : NULL;
}

__call_slot_fn struct call_state *call_open(struct task_struct *t)
{
	struct call_slot *s = slot_of(t);
	__u32 tid = t->pid;
	struct call_state *st;

	if (!s)
		return NULL;
	if (s->owner == tid) {
		st = &s->st;
	} else {
		st = s->spilled ? bpf_task_storage_get(&call_states, t, NULL, 0) : NULL;
		if (!st || !st->live)
			st = call_take(s, t);
	}
	if (st && !st->live)
		*st = (struct call_state){ .live = 1 };
	return st;
}

__call_slot_fn void call_end(struct task_struct *t, struct call_state *st)
{
	struct call_slot *s = slot_of(t);

	st->live = 0;
	if (!s)
		return;
	if (st == &s->st)
		s->owner = 0;
	else
		__sync_fetch_and_sub(&s->spilled, 1);
}

__call_slot_fn void call_drop(struct task_struct *t)
{
	struct call_slot *s = slot_of(t);
	struct call_state *st;

	if (!s)
		return;
	if (s->owner == (__u32)t->pid) {
		s->st.live = 0;
		s->owner = 0;
	} else if (s->spilled) {
		st = bpf_task_storage_get(&call_states, t, NULL, 0);
		if (st && st->live) {
			st->live = 0;
			__sync_fetch_and_sub(&s->spilled, 1);
		}
	}
}

#endif
