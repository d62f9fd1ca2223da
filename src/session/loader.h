/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and attaching: picks the best tier this kernel allows, loads its
 * BPF object, and drains its counters with read-and-reset.
 */
#ifndef LOADER_H
#define LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include "core/load_opts.h"
#include "core/metrics.h"
#include "core/rows.h"

struct bpf_object;

/* What a tier's probe found on this kernel: how its open must go. */
struct pt_plan {
	bool kprobes;			/* function: kprobes, not fentry/fexit */
	const char *read_fn;		/* function: attach targets */
	const char *write_fn;
	bool has_prefill_event;		/* tracepoint: pipe_prefill (0002) */
	__u32 pipe_page_gfp;		/* GFP_HIGHUSER | __GFP_ACCOUNT here */
	char via[96];			/* how it attaches, for -v */
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

struct pt_session {
	enum pt_tier tier;
	const struct pt_tier_ops *ops;
	struct pt_plan plan;
	struct pt_obj o;
	__u64 dropped_seen;
	int counts_fd[2];
	__u32 max_keys;
	struct pt_key *keys;		/* drain buffers, max_keys each */
	struct pt_counts *vals;
};

/* Returns 0, or -1 with a one-line reason in err. */
int pt_session_open(struct pt_session *s, const struct pt_load_opts *o,
		    char *err, size_t n);
/* Moves everything counted so far into rows (added, not replaced). */
int pt_session_drain(struct pt_session *s, struct pt_rows *rows, __u64 *untracked);
void pt_session_close(struct pt_session *s);

#endif
