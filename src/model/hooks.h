/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which hook of each tier (enum pt_hook: its BPF programs, or a part of
 * one) counts each raw counter of struct pt_counts, so that a session
 * loads only what the columns asked for need: a program that runs on every
 * page allocation or context switch costs the watched workload even when
 * no column shows what it counts.
 */
#ifndef HOOKS_H
#define HOOKS_H

#include <stddef.h>
#include <linux/types.h>
#include "pipetrace.h"
#include "tier.h"

/* Raw counters as a set: bit i is the i-th __u64 of struct pt_counts. */
#define PT_RAW(f)	(1ULL << (offsetof(struct pt_counts, f) / sizeof(__u64)))
#define PT_NRAW		(sizeof(struct pt_counts) / sizeof(__u64))

/* The hooks tier t needs to count the raw counters raws (PT_HOOK_CALLS
 * always among them). */
__u32 pt_raw_hooks(__u64 raws, enum pt_tier t);
/* The hooks tier t needs for histograms hists (1 << enum pt_hist). */
__u32 pt_hist_hooks(__u32 hists, enum pt_tier t);
/* The hooks tier t has; the others do not exist there. */
__u32 pt_tier_hooks(enum pt_tier t);
/* What hook h is on tier t ("kmem:mm_page_alloc"); NULL if t has none. */
const char *pt_hook_name(enum pt_hook h, enum pt_tier t);

#endif
