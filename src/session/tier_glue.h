/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every tier's glue does the same way with its bpftool skeleton
 * (NAME_bpf__open/load/destroy): open it into a struct pt_obj, load it,
 * destroy it. The parts that differ (rodata, autoload, attach) are the
 * glue's own.
 */
#ifndef TIER_GLUE_H
#define TIER_GLUE_H

#include <errno.h>
#include <bpf/libbpf.h>
#include "session.h"

/* A tracepoint hook's two programs: the tp_btf one or the perf one, as
 * the plan says (preempt.h); neither if the hook is not wanted. */
static inline void tp_autoload(const struct pt_plan *plan, bool want,
			       struct bpf_program *btf, struct bpf_program *perf)
{
	bpf_program__set_autoload(btf, want && !plan->perf_tp);
	bpf_program__set_autoload(perf, want && plan->perf_tp);
}

/* Opens skeleton NAME into o; evaluates to the skeleton or NULL (errno). */
#define PT_SKEL_OPEN(name, o) ({					\
	struct name##_bpf *skel_ = name##_bpf__open();			\
	if (skel_) {							\
		(o)->skel = skel_;					\
		(o)->obj = skel_->obj;					\
		(o)->scope = (struct pt_scope *)&skel_->rodata->pt_scope; \
	}								\
	skel_;								\
})

/* name_load() and name_destroy() for the tier's struct pt_tier_ops. */
#define PT_SKEL_LOAD_DESTROY(name)					\
static int name##_load(struct pt_obj *o)				\
{									\
	struct name##_bpf *skel = o->skel;				\
	int err = name##_bpf__load(skel);				\
									\
	if (!err)							\
		o->gen = &skel->bss->pt_gen;				\
	return err;							\
}									\
									\
static void name##_destroy(struct pt_obj *o)				\
{									\
	name##_bpf__destroy(o->skel);					\
}

#endif
