// SPDX-License-Identifier: GPL-2.0
/* Glue for the syscall tier's BPF object (bpf/syscall_tier.bpf.c). */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "btf_probe.h"
#include "preempt.h"
#include "model/metrics.h"
#include "tier_glue.h"
#include "syscall_tier.skel.h"

/* the machine whose system call table the BPF object was built with
 * (bpf/syscall_abi.bpf.h, the same ARCH as this build) */
#if defined(__x86_64__)
#define SYSCALL_MACHINE "x86_64"
#elif defined(__aarch64__)
#define SYSCALL_MACHINE "aarch64"
#else
#error "syscall tier: no system call table for this architecture (bpf/syscall_abi.bpf.h)"
#endif

static int probe(struct pt_plan *plan, char *why, size_t n)
{
	struct utsname u;
	char model[16];
	int pre;

	if (uname(&u) || strcmp(u.machine, SYSCALL_MACHINE)) {
		snprintf(why, n, "built for " SYSCALL_MACHINE " syscall numbers");
		return -1;
	}
	if (!btf_has_tracepoint("sys_enter") || !btf_has_tracepoint("sys_exit") ||
	    !btf_has_tracepoint("mm_page_alloc")) {
		snprintf(why, n, "kernel BTF lacks sys_enter/sys_exit/mm_page_alloc");
		return -1;
	}
	if (!btf_has_func("bpf_rdonly_cast")) {
		snprintf(why, n, "needs the bpf_rdonly_cast kfunc (Linux 6.2 or later)");
		return -1;
	}
	plan->pipe_page_gfp = btf_pipe_page_gfp();
	/* pages before the mutex (mainline 7.2, kernel-patch/ 0003): the
	 * mutex's owner read at each page */
	plan->read_owner = btf_prefill_path();
	plan->lacks = btf_lacks_lock_events();
	pre = preempt_kernel(model, sizeof(model));
	plan->perf_tp = perf_tracepoint(pre, "raw_syscalls/sys_exit");
	snprintf(plan->via, sizeof(plan->via), "%s (preempt=%s)",
		 tracepoint_path(plan->perf_tp, pre), model);
	return 0;
}


static int open_obj(struct pt_obj *o, const struct pt_plan *plan)
{
	struct syscall_tier_bpf *skel = PT_SKEL_OPEN(syscall_tier, o);

	if (!skel)
		return -errno;
	skel->rodata->pipe_page_gfp = plan->pipe_page_gfp;
	skel->rodata->read_owner = plan->read_owner;
	/* the hooks the columns asked for need (the ring claim: rodata) */
	tp_autoload(plan, true, skel->progs.sc_sys_enter, skel->progs.sc_sys_enter_perf);
	tp_autoload(plan, true, skel->progs.sc_sys_exit, skel->progs.sc_sys_exit_perf);
	tp_autoload(plan, true, skel->progs.sc_uring_done, skel->progs.sc_uring_done_perf);
	tp_autoload(plan, true, skel->progs.sc_uring_poll, skel->progs.sc_uring_poll_perf);
	tp_autoload(plan, plan->hooks & PT_HOOK_PAGES, skel->progs.sc_page_alloc,
		 skel->progs.sc_page_alloc_perf);
	tp_autoload(plan, plan->hooks & PT_HOOK_LOCKS, skel->progs.sc_lock_begin,
		 skel->progs.sc_lock_begin_perf);
	tp_autoload(plan, plan->hooks & PT_HOOK_LOCKS, skel->progs.sc_lock_end,
		 skel->progs.sc_lock_end_perf);
	/* the scheduler switches with preemption off: tp_btf everywhere */
	bpf_program__set_autoload(skel->progs.sc_switch, plan->hooks & PT_HOOK_WAITS);
	return 0;
}

static int attach(struct pt_obj *o, const struct pt_plan *plan)
{
	(void)plan;
	return syscall_tier_bpf__attach(o->skel);
}

PT_SKEL_LOAD_DESTROY(syscall_tier)

const struct pt_tier_ops tier_syscall_ops = {
	.tier = PT_TIER_SYSCALL,
	.probe = probe,
	.open = open_obj,
	.load = syscall_tier_load,
	.attach = attach,
	.destroy = syscall_tier_destroy,
};
