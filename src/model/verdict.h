/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on one process from its shares of the interval: waiting on
 * its pipes, or setting the pace, busy on a CPU or starved of one. One
 * rule for every place that judges (the pipeline's picture in
 * pipeline.c, --advise's cpu-bound rule in advise.c).
 */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdbool.h>
#include "metrics.h"

/*
 * Where a process spent the interval, from its pipes' waits: writing
 * (its downstream is slower), reading (its upstream is), or neither: the
 * stage that sets the pace, busy on a CPU or starved (runnable, waiting
 * for one longer than it ran: more CPUs, not a bigger ring, would help).
 */
enum pl_state {
	PL_BUSY,
	PL_WAITS_WRITE,
	PL_WAITS_READ,
	PL_UNKNOWN,	/* the waits are not timed (--no-waits, no events) */
	PL_IDLE,	/* holds a pipe but moved nothing in the interval */
	PL_STARVED,
};

/* A process's shares of the interval, 0..1 (one thread all of it: 1). */
struct pl_shares {
	double wait_read, wait_write;	/* asleep on its pipes */
	double cpu, runq;		/* on a CPU; runnable, waiting for one */
	bool sched;			/* cpu and runq known */
};

/* c's shares (a process's counts); false if its waits are not known. */
bool pl_shares_of(const struct pt_counts *c, const struct pt_env *env,
		  struct pl_shares *s);
/*
 * The verdict on a process that moved data: waits writing or reading when
 * that wait is the larger and longer than the rest of the interval, else
 * starved if it waited for a CPU longer than it ran on one, else busy
 * (also when that is not known).
 */
enum pl_state pl_verdict(const struct pl_shares *s);

/* "busy", "starved", "waits writing", "waits reading", "waits unknown",
 * "idle" */
const char *pl_state_name(enum pl_state s);

#endif
