/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and attaching: picks the best tier this kernel allows, loads its
 * BPF object, and drains its counters with read-and-reset.
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "model/load_opts.h"
#include "model/metrics.h"
#include "model/rows.h"
#include "counts_cache.h"
#include "sleeps.h"

struct bpf_object;

/* What a tier's probe found on this kernel: how its open must go. */
struct pt_plan {
	bool kprobes;			/* function: kprobes, not fentry/fexit */
	bool perf_tp;			/* tracepoint programs by perf (preempt.h) */
	const char *read_fn;		/* function: attach targets */
	const char *write_fn;
	bool has_prefill_event;		/* pipe_prefill and the prefill path (0003):
					 * the session, before the tier's probe */
	bool read_owner;		/* a prefill path: pages read the mutex
					 * owner (function: only without its event) */
	__u32 pipe_page_gfp;		/* GFP_HIGHUSER | __GFP_ACCOUNT here */
	unsigned int lacks;		/* PT_NA_NO_*: events this kernel lacks */
	bool batch_built;		/* kernel-patch/ 0004: pipe_read_batch_copy() */
	__u32 hooks;			/* enum pt_hook: what to load (the session) */
	char via[128];			/* how it attaches, for -v */
};

/* A tier's BPF object, as its glue opened it. */
struct pt_obj {
	void *skel;
	struct bpf_object *obj;
	struct pt_scope *scope;	/* in its rodata: set before load */
	struct pt_gen *gen;		/* in its .bss: valid after load */
};

/*
 * A tier: can it run here (the plan), then open, load and attach its
 * object as the plan says. The session calls these in that order; tier
 * glue never calls back into the session.
 */
struct pt_tier_ops {
	enum pt_tier tier;
	/* 0 with the plan filled in; else -1 with why (one line) */
	int (*probe)(struct pt_plan *plan, char *why, size_t n);
	/* opens the skeleton; rodata and autoload from the plan */
	int (*open)(struct pt_obj *o, const struct pt_plan *plan);
	int (*load)(struct pt_obj *o);	/* sets o->gen */
	int (*attach)(struct pt_obj *o, const struct pt_plan *plan);
	void (*destroy)(struct pt_obj *o);
};

extern const struct pt_tier_ops tier_tracepoint_ops;
extern const struct pt_tier_ops tier_function_ops;
extern const struct pt_tier_ops tier_syscall_ops;

/* A map kept in two generations (bpf/agg.bpf.h), and its drain buffers. */
struct pt_gen_map {
	const char *name[2];		/* the generations' map names */
	size_t ksz, vsz;
	int fd[2];
	__u32 max;
	void *keys, *vals;		/* max entries each */
	/* adds n drained entries into rows; -1 on out of memory */
	int (*fold)(struct pt_rows *rows, const void *keys, const void *vals,
		    __u32 n);
};

struct pt_session {
	enum pt_tier tier;
	const struct pt_tier_ops *ops;
	struct pt_plan plan;
	struct pt_obj o;
	__u64 dropped_seen;
	__u64 skipped_seen;		/* runs_skipped() at the last drain */
	struct pt_gen_map counts;	/* struct pt_key -> struct pt_counts */
	struct pt_counts_cache cache;	/* the per-CPU cache in front of counts */
	struct pt_gen_map hists;	/* struct pt_hkey -> __u64 (--hist) */
	struct pt_sleeps sleeps;	/* waits in progress */
	struct blocked_list seeded;	/* waits begun before attach, not ended */
	__u64 switched_ns;		/* the last drain's switch (CLOCK_MONOTONIC) */
};

/* Returns 0, or -1 with a one-line reason in err. */
int pt_session_open(struct pt_session *s, const struct pt_load_opts *o,
		    char *err, size_t n);
/* What a drain could not count since the last one. */
struct pt_lost {
	__u64 untracked;	/* events of no key: the counter map full */
	__u64 skipped;		/* runs of the programs the kernel skipped */
};

/*
 * Moves everything counted so far into rows (added, not replaced), and
 * adds what could not be counted to lost.
 */
int pt_session_drain(struct pt_session *s, struct pt_rows *rows, struct pt_lost *lost);
/*
 * Adds the keys counted since the last drain to rows, with no counts,
 * taking nothing: who is being counted now, for what is read of a
 * process while it runs (its command line). 0, or -1 (errno).
 */
int pt_session_peek(struct pt_session *s, struct pt_rows *rows);
/*
 * Finds the threads o lets through asleep in a pipe read or write now
 * (since before attach: no program saw them begin) and counts their waits
 * from start on (CLOCK_MONOTONIC s: the first interval's start, so a
 * wait is never longer than its interval), as waits in progress, until
 * their calls end: s->seeded lists them. Call right after
 * pt_session_open(). -1 on out of memory.
 */
int pt_session_seed(struct pt_session *s, const struct pt_load_opts *o, double start);
void pt_session_close(struct pt_session *s);
/*
 * Why a load (or parsing BTF) that failed with errno err may be a resource
 * limit, not the kernel: "too many open files (ulimit -n is N): ..." or
 * "the address space is limited to N MiB (ulimit -v): ..."; its length, 0
 * if no limit explains it.
 */
int pt_resource_hint(char *buf, size_t n, int err);
/* What every report of s shares: its tier, missing events, the knobs now. */
void pt_session_env(const struct pt_session *s, struct pt_env *env);

#endif
