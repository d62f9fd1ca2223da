/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Busy or starved: each process's time on a CPU and time runnable but
 * waiting on a run queue for one, from the scheduler's own accounting in
 * /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO), summed over the
 * process's threads and read at each interval's end. The difference
 * between two reads goes into the rows that are one process (-k pid, a
 * pipe's ends); a process first read this interval counts from zero only
 * if it started after the previous read, and one gone before its read,
 * or a thread gone between reads (its figures leave the sum), leaves the
 * row's figures unknown.
 */
#ifndef SCHED_STAT_H
#define SCHED_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/rows.h"

/* One read of a process: its threads' figures summed, and when */
struct sched_read {
	__u64 cpu_ns, runq_ns;
	__u64 at_ns;		/* CLOCK_BOOTTIME; 0: none */
};

struct sched_proc {
	__u32 pid;
	bool alive;		/* found at the last read */
	__u64 start;		/* boot time it started, ns: a reused pid differs */
	struct sched_read base;	/* at the interval's start (the last update) */
	struct sched_read now;	/* the latest since: at the update, or the
				 * last sample before the process exited */
	__u64 span_ns, d_cpu, d_runq;	/* base to now; span 0: unknown */
};

struct sched_stat {
	struct sched_proc *v;	/* by pid */
	size_t n, cap;
	__u64 last_ns;		/* the last sched_update() (or sched_init()) */
};

/* Starts the first interval now. */
void sched_init(struct sched_stat *s);
void sched_free(struct sched_stat *s);
/* Whether this kernel keeps the figures (/proc/self/schedstat exists). */
bool sched_available(void);
/*
 * Reads every process of the n row sets (those keyed PT_BY_PID or
 * PT_BY_PIPE_PID; others are left alone) and the processes read before,
 * keeping the figures of one that exits later for the interval's update.
 * -1 on out of memory.
 */
int sched_sample(struct sched_stat *s, struct pt_rows *const *rows, size_t n);
/*
 * sched_sample(), then sets each such row's sched_span_ns, cpu_ns and
 * runq_ns for the time from the last update to the process's latest read,
 * starts the next interval, and forgets the processes that are gone.
 */
int sched_update(struct sched_stat *s, struct pt_rows *const *rows, size_t n);
/* p's span_ns, d_cpu, d_runq from its base to its latest read; span 0 if
 * either is missing or they do not follow one from the other (a thread
 * gone between them takes its time with it). */
void sched_delta(struct sched_proc *p);

#endif
