// SPDX-License-Identifier: GPL-2.0
/* Glue for the tracepoint tier's BPF object (bpf/tracepoint_tier.bpf.c). */
#include <errno.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "btf_probe.h"
#include "model/metrics.h"
#include "tier_glue.h"
#include "tracepoint_tier.skel.h"

/* Events every metric needs; pipe_prefill (0002) is optional. */
static const char *const needed[] = { "pipe_copy", "pipe_eagain", "pipe_page_get" };

static int probe(struct pt_plan *plan, char *why, size_t n)
{
	if (!btf_has_vmlinux()) {
		snprintf(why, n, "no kernel BTF (/sys/kernel/btf/vmlinux)");
		return -1;
	}
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (btf_has_tracepoint(needed[i]))
			continue;
		if (i == 0)
			snprintf(why, n, "kernel has no pipe:* tracepoints (see kernel-patch/)");
		else
			snprintf(why, n, "kernel lacks the pipe:%s tracepoint", needed[i]);
		return -1;
	}
	plan->lacks = btf_lacks_lock_events();
	if (!btf_has_tracepoint("pipe_wait_begin") || !btf_has_tracepoint("pipe_wait_end"))
		plan->lacks |= PT_NA_NO_WAITS;
	return 0;
}

static int open_obj(struct pt_obj *o, const struct pt_plan *plan)
{
	struct tracepoint_tier_bpf *skel = PT_SKEL_OPEN(tracepoint_tier, o);

	if (!skel)
		return -errno;
	/* one program per event: those the columns asked for need (the
	 * session leaves out the events this kernel lacks); the light set
	 * (no per-call state) when no page, contention or ring column is
	 * asked for */
	__u32 hooks = plan->hooks;
	bool full = hooks & (PT_HOOK_PAGES | PT_HOOK_LOCKS | PT_HOOK_RING);

	bpf_program__set_autoload(skel->progs.tp_copy, full);
	bpf_program__set_autoload(skel->progs.tp_lite_copy, !full);
	bpf_program__set_autoload(skel->progs.tp_page_get, hooks & PT_HOOK_PAGES);
	bpf_program__set_autoload(skel->progs.tp_prefill,
				  plan->has_prefill_event && (hooks & PT_HOOK_PAGES));
	bpf_program__set_autoload(skel->progs.tp_wait_begin, full && (hooks & PT_HOOK_WAITS));
	bpf_program__set_autoload(skel->progs.tp_wait_end, full && (hooks & PT_HOOK_WAITS));
	bpf_program__set_autoload(skel->progs.tp_lite_wbegin, !full && (hooks & PT_HOOK_WAITS));
	bpf_program__set_autoload(skel->progs.tp_lite_wend, !full && (hooks & PT_HOOK_WAITS));
	bpf_program__set_autoload(skel->progs.tp_lock_begin, hooks & PT_HOOK_LOCKS);
	bpf_program__set_autoload(skel->progs.tp_lock_end, hooks & PT_HOOK_LOCKS);
	/* a call's state is opened only by those: freed with its task */
	bpf_program__set_autoload(skel->progs.tp_task_free, full && (hooks &
				  (PT_HOOK_PAGES | PT_HOOK_WAITS | PT_HOOK_LOCKS)));
	return 0;
}

static int attach(struct pt_obj *o, const struct pt_plan *plan)
{
	struct tracepoint_tier_bpf *skel = o->skel;
	/* a wait's end before its begin (the skeleton attaches in section
	 * order, begin first): a wait that began unseen then ends unseen,
	 * none is shown in the sleeps map and never ended */
	struct bpf_program *ends[] = { skel->progs.tp_wait_end, skel->progs.tp_lite_wend };
	struct bpf_link **links[] = { &skel->links.tp_wait_end, &skel->links.tp_lite_wend };

	(void)plan;
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		if (!bpf_program__autoload(ends[i]))
			continue;
		*links[i] = bpf_program__attach(ends[i]);
		if (!*links[i])
			return -errno;
	}
	/* the skeleton leaves links already set alone */
	return tracepoint_tier_bpf__attach(skel);
}

PT_SKEL_LOAD_DESTROY(tracepoint_tier)

const struct pt_tier_ops tier_tracepoint_ops = {
	.tier = PT_TIER_TRACEPOINT,
	.probe = probe,
	.open = open_obj,
	.load = tracepoint_tier_load,
	.attach = attach,
	.destroy = tracepoint_tier_destroy,
};
