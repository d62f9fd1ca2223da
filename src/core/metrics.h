/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reported metrics: one table of columns, shared by every output
 * format and front end, and how each tier knows each of them.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>
#include <linux/types.h>
#include "pipetrace.h"
#include "tier.h"

enum pt_quality {
	PT_NA,		/* this kernel/tier cannot know it: '-' / empty */
	PT_EXACT,
	PT_DERIVED,	/* computed from other signals, marked as such */
};

/* Per-interval facts that are not per key. */
struct pt_env {
	enum pt_tier tier;
	int knob_prealloc_max;	/* -1: the kernel has no such knob */
	int knob_prealloc_keep;
	int knob_read_batch;
	__u64 untracked;	/* events dropped: counter map full */
};

enum pt_vtype { PT_V_U64, PT_V_RATIO, PT_V_PCT };

struct pt_value {
	enum pt_quality q;
	enum pt_vtype type;
	__u64 u;
	double d;
};

struct pt_metric {
	const char *csv;	/* CSV column: never renamed, only appended */
	const char *head;	/* table header, "" to leave out of tables */
	int width;
	struct pt_value (*get)(const struct pt_counts *c, const struct pt_env *e);
};

extern const struct pt_metric pt_metrics[];
extern const int pt_nmetrics;

/*
 * Counts where every signal happened once, through read(2) and write(2):
 * whether a column is derived or unknown depends on the tier and knobs,
 * not on a row's counts, so front ends ask with these.
 */
void counts_every_signal(struct pt_counts *c);

/* Reads the pipe knobs under /proc/sys/fs into env (-1 where absent). */
void env_read_knobs(struct pt_env *env);

#endif
