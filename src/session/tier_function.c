// SPDX-License-Identifier: GPL-2.0
/*
 * Glue for the function tier's BPF object (bpf/function_tier.bpf.c):
 * fentry/fexit where the kernel allows BPF trampolines, else kprobes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "btf_probe.h"
#include "preempt.h"
#include "model/metrics.h"
#include "tier_glue.h"
#include "function_tier.skel.h"

static bool kprobes_available(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
}

/*
 * What the programs use that older kernels lack (Linux 5.10 has none of
 * them): said in one line here rather than by the verifier at load.
 */
static bool lacks_bpf_features(char *why, size_t n)
{
	const char *lacks[3];
	int k = 0;

	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
				    BPF_FUNC_get_current_task_btf, NULL) != 1)
		lacks[k++] = "bpf_get_current_task_btf";
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) != 1)
		lacks[k++] = "task storage maps";
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL) != 1)
		lacks[k++] = "bpf_loop";
	if (!k)
		return false;
	snprintf(why, n, "kernel lacks %s%s%s%s%s (Linux 5.17 or later)", lacks[0],
		 k > 1 ? ", " : "", k > 1 ? lacks[1] : "", k > 2 ? ", " : "",
		 k > 2 ? lacks[2] : "");
	return true;
}

static int probe(struct pt_plan *plan, char *why, size_t n)
{
	char model[16];
	bool kprobes;
	int err, pre;

	if (!btf_has_vmlinux()) {
		snprintf(why, n, "no kernel BTF (/sys/kernel/btf/vmlinux)");
		return -1;
	}
	if (lacks_bpf_features(why, n))
		return -1;
	/* newer kernels split the anonymous pipe paths out of the FIFO ones */
	if (btf_has_func("anon_pipe_read") && btf_has_func("anon_pipe_write")) {
		plan->read_fn = "anon_pipe_read";
		plan->write_fn = "anon_pipe_write";
	} else if (btf_has_func("pipe_read") && btf_has_func("pipe_write")) {
		plan->read_fn = "pipe_read";
		plan->write_fn = "pipe_write";
	} else {
		snprintf(why, n, "kernel BTF has neither pipe_read/pipe_write nor "
			 "anon_pipe_read/anon_pipe_write");
		return -1;
	}
	if (!btf_has_tracepoint("mm_page_alloc")) {
		snprintf(why, n, "kernel BTF lacks the kmem:mm_page_alloc tracepoint");
		return -1;
	}
	/*
	 * PIPESTAT_NO_FENTRY=1: take the kprobe path (tests of the fallback).
	 * A kernel that preempts tasks in the kernel (preempt=full or lazy,
	 * PREEMPT_RT; Debian 14's default is lazy) can preempt a trampoline
	 * program, whose per-CPU recursion guard then skips the next run on
	 * that CPU: a call lost. Also when nothing says, kprobes if there are.
	 */
	pre = preempt_kernel(model, sizeof(model));
	kprobes = kprobes_available();
	if (getenv("PIPESTAT_NO_FENTRY") || (pre && kprobes))
		err = EPERM;
	else
		err = btf_fentry_attach_errno(plan->read_fn);
	plan->kprobes = err != 0;
	if (plan->kprobes && !kprobes) {
		snprintf(why, n, "kernel refuses fentry on %s (%s) and has no kprobes",
			 plan->read_fn, strerror(err));
		return -1;
	}
	plan->pipe_page_gfp = btf_pipe_page_gfp();
	/* pages before the mutex: counted by the prefill's event
	 * (kernel-patch/ 0003), or on a kernel with a prefill path but not
	 * that event (mainline 7.2) by the mutex owner at each page */
	plan->read_owner = !plan->has_prefill_event && btf_prefill_path();
	plan->lacks = btf_lacks_lock_events();
	plan->perf_tp = perf_tracepoint(pre, "kmem/mm_page_alloc");
	snprintf(plan->via, sizeof(plan->via), "%s on %s/%s, %s (preempt=%s%s)",
		 plan->kprobes ? "kprobes" : "fentry/fexit", plan->read_fn,
		 plan->write_fn, tracepoint_path(plan->perf_tp, pre), model,
		 pre && !plan->kprobes ? ", no kprobes: calls can be missed" : "");
	return 0;
}

static int attach_kprobe(struct bpf_program *p, struct bpf_link **link,
			 bool ret, const char *func)
{
	*link = bpf_program__attach_kprobe(p, ret, func);
	return *link ? 0 : -errno;
}

static int attach(struct pt_obj *o, const struct pt_plan *plan)
{
	struct function_tier_bpf *skel = o->skel;
	const char *read_fn = plan->read_fn, *write_fn = plan->write_fn;
	int err = 0;

	/* kprobes need their function named; the skeleton attaches the rest */
	if (plan->kprobes) {
		err = attach_kprobe(skel->progs.fn_read_kp, &skel->links.fn_read_kp, false, read_fn);
		err = err ?: attach_kprobe(skel->progs.fn_read_krp, &skel->links.fn_read_krp, true, read_fn);
		err = err ?: attach_kprobe(skel->progs.fn_write_kp, &skel->links.fn_write_kp, false, write_fn);
		err = err ?: attach_kprobe(skel->progs.fn_write_krp, &skel->links.fn_write_krp, true, write_fn);
		if (err)
			return err;
	}
	return function_tier_bpf__attach(skel);
}

static int open_obj(struct pt_obj *o, const struct pt_plan *plan)
{
	struct function_tier_bpf *skel = PT_SKEL_OPEN(function_tier, o);
	struct bpf_program *fentry[4], *kprobe[4];
	int err;

	if (!skel)
		return -errno;
	fentry[0] = skel->progs.fn_read_fentry;
	fentry[1] = skel->progs.fn_read_fexit;
	fentry[2] = skel->progs.fn_write_fentry;
	fentry[3] = skel->progs.fn_write_fexit;
	kprobe[0] = skel->progs.fn_read_kp;
	kprobe[1] = skel->progs.fn_read_krp;
	kprobe[2] = skel->progs.fn_write_kp;
	kprobe[3] = skel->progs.fn_write_krp;
	for (size_t i = 0; i < sizeof(fentry) / sizeof(fentry[0]); i++) {
		bpf_program__set_autoload(fentry[i], !plan->kprobes);
		bpf_program__set_autoload(kprobe[i], plan->kprobes);
	}
	skel->rodata->pipe_page_gfp = plan->pipe_page_gfp;
	skel->rodata->read_owner = plan->read_owner;
	/* the other hooks the columns asked for need */
	tp_autoload(plan, plan->hooks & PT_HOOK_PAGES, skel->progs.fn_page_alloc,
		    skel->progs.fn_page_alloc_perf);
	/* the series' test kernels run their tp_btf programs unpreempted */
	bpf_program__set_autoload(skel->progs.fn_prefill,
				  plan->has_prefill_event && (plan->hooks & PT_HOOK_PAGES));
	tp_autoload(plan, plan->hooks & PT_HOOK_LOCKS, skel->progs.fn_lock_begin,
		    skel->progs.fn_lock_begin_perf);
	tp_autoload(plan, plan->hooks & PT_HOOK_LOCKS, skel->progs.fn_lock_end,
		    skel->progs.fn_lock_end_perf);
	bpf_program__set_autoload(skel->progs.fn_switch, plan->hooks & PT_HOOK_WAITS);
	if (plan->kprobes)
		return 0;
	err = bpf_program__set_attach_target(fentry[0], 0, plan->read_fn);
	err = err ?: bpf_program__set_attach_target(fentry[1], 0, plan->read_fn);
	err = err ?: bpf_program__set_attach_target(fentry[2], 0, plan->write_fn);
	return err ?: bpf_program__set_attach_target(fentry[3], 0, plan->write_fn);
}

PT_SKEL_LOAD_DESTROY(function_tier)

const struct pt_tier_ops tier_function_ops = {
	.tier = PT_TIER_FUNCTION,
	.probe = probe,
	.open = open_obj,
	.load = function_tier_load,
	.attach = attach,
	.destroy = function_tier_destroy,
};
