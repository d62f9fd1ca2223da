/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waits in progress at a drain (the sleeps map, include/pipetrace.h):
 * each is counted up to the drain in the interval it ends, and its start
 * moved there, so a long wait is split at interval boundaries and a
 * reader blocked now shows as blocked now.
 */
#ifndef SLEEPS_H
#define SLEEPS_H

#include <linux/types.h>
#include "pipeline/blocked.h"
#include "model/rows.h"

struct bpf_object;

struct pt_sleeps {
	struct pt_sleep *e;	/* the map, mmap()ed; NULL: none */
	size_t len;
	bool one_slot;		/* every thread on entry 0 (pt_scope) */
	__u64 seeded_at;	/* when waits were seeded (CLOCK_REALTIME s) */
};

/* Maps the object's sleeps map; 0, or -errno. */
int sleeps_bind(struct pt_sleeps *z, struct bpf_object *obj);
/*
 * Adds every wait in progress, from its start or the last drain to until
 * (CLOCK_MONOTONIC ns), to rows, and moves its start to until. -1 on out
 * of memory.
 */
int sleeps_credit(struct pt_sleeps *z, struct pt_rows *rows, __u64 until);
/*
 * Shows each wait of l (begun before attach) in its thread's entry from
 * now on, seeded: the programs end it at its call's end (bpf/waits.bpf.h,
 * seed_end()). A thread whose entry is taken, or that left its sleep
 * before its entry was written, is dropped from l. Returns how many are
 * left.
 */
size_t sleeps_seed(struct pt_sleeps *z, struct blocked_list *l, __u64 now);
/* Drops from l the waits that ended (their entries no longer seeded for
 * them); ends those whose thread is gone. Returns how many are left. */
size_t sleeps_seeds_left(struct pt_sleeps *z, struct blocked_list *l);
void sleeps_unbind(struct pt_sleeps *z);

#endif
