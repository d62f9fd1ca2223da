/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Advice on a pipe's ring from one interval's figures (pipestat --advise):
 * documented rules, each remark with the figures that justify it, nothing
 * for a pipe with too little traffic to judge.
 *
 * Rules, over a pipe's row of one interval (W%, R%: the share of the
 * interval its writers, readers slept waiting for room, for data; 100 =
 * one task all of it):
 *   quota-shrunk  ring_quota_shrunk: name the owner and the sysctl
 *   reader-bound  W% >= ADVISE_BOUND_PCT, R% < ADVISE_IDLE_PCT: the reader
 *                 is the bottleneck; a bigger ring will not help
 *   writer-bound  the mirror image
 *   cpu-bound     W% and R% >= ADVISE_IDLE_PCT, and a writer or reader
 *                 sets the pace (pl_verdict(): busy or starved) with its
 *                 time on a CPU and waiting for one >= ADVISE_BOUND_PCT
 *                 (of several, the one with the most named): a bigger
 *                 ring will not help (instead of bursty)
 *   bursty        W% and R% >= ADVISE_IDLE_PCT and writes found the ring
 *                 full: grow it to the bursts seen (bytes written per
 *                 reader wait, rounded up to a power of two pages),
 *                 within fs.pipe-max-size
 *   chatty        >= ADVISE_CHATTY_RATE writes/s of < ADVISE_CHATTY_BYTES
 *                 on average: batching saves system calls
 * and on a kernel with the knobs of kernel-patch/ (never elsewhere: they
 * do not exist there), P = whole pages per write on average, at most
 * ADVISE_POOL_MAX (what a write's prefill could take):
 *   fs.pipe-prealloc-max   >= ADVISE_KNOB_PAGES pool misses (pages
 *                 allocated holding pipe->mutex) per write, P >= 2 and the
 *                 knob below P: raise it to P
 *   fs.pipe-prealloc-keep  >= ADVISE_KNOB_PAGES pages allocated per write
 *                 (under the mutex and prefilled: page churn), P >= 2, the
 *                 knob below P and fs.pipe-prealloc-max at P or above (its
 *                 rule first): raise it to P
 *   fs.pipe-read-batch     0, and reads opened >= ADVISE_KNOB_SECTIONS
 *                 user-access sections each: set it to 1
 * Traffic threshold: nothing but quota-shrunk (which needs one write) for a
 * pipe with fewer than ADVISE_MIN_WRITES writes in the interval; the waits'
 * and the knobs' rules also need ADVISE_MIN_BYTES written (read-batch:
 * ADVISE_MIN_WRITES reads too).
 */
#ifndef ADVISE_H
#define ADVISE_H

#include <stddef.h>
#include "model/metrics.h"
#include "model/rows.h"

#define ADVISE_MIN_WRITES	16
#define ADVISE_MIN_BYTES	(1 << 20)
#define ADVISE_BOUND_PCT	50.0
#define ADVISE_IDLE_PCT		5.0
#define ADVISE_CHATTY_RATE	10000.0
#define ADVISE_CHATTY_BYTES	512
#define ADVISE_POOL_MAX		8	/* the prealloc knobs' maximum */
#define ADVISE_KNOB_PAGES	1.0
#define ADVISE_KNOB_SECTIONS	2.0

struct advice {
	long resize;		/* a suggested ring in bytes; 0: none */
};

/*
 * The remarks on one pipe's row (a -k pipe row of one interval) into buf,
 * "; "-separated; returns their count (0: nothing to say). ends: the
 * interval's ends (PT_BY_PIPE_PID rows, ends_sort()ed, with their CPU
 * figures) for the cpu-bound rule; NULL: not known.
 */
int advise_pipe(char *buf, size_t n, const struct pt_row *row,
		const struct pt_rows *ends, const struct pt_env *env,
		struct advice *a);
/* The threshold, for the line that says why nothing was said */
const char *advise_threshold(void);
/* The columns the rules read (1 << enum pt_col) on a kernel with env's
 * knobs: their hooks to load. */
__u64 advise_cols(const struct pt_env *env);

#endif
