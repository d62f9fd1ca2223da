/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the running kernel can preempt a BPF trampoline program. Those
 * (fentry/fexit, tp_btf) run with migration off but preemption on; one
 * preempted holds its per-CPU recursion guard, and the next run of it on
 * that CPU is skipped by the kernel: a call lost. kprobe handlers and
 * tracepoint programs by the perf path (SEC("tracepoint/...")) run with
 * preemption off.
 */
#ifndef PREEMPT_H
#define PREEMPT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * 1 if tasks are preempted in the kernel (full, lazy, rt), 0 if not
 * (none, voluntary), -1 if nothing says. The model's name goes to model:
 * "lazy", "full", "rt", ... or "unknown".
 */
int preempt_kernel(char *model, size_t n);

/*
 * Whether a tracer that preempts (preempt_kernel() not 0) can take the
 * perf path to tracepoint event (such as "kmem/mm_page_alloc"): its id is
 * in tracefs, where libbpf looks.
 */
bool perf_tracepoint(int preempts, const char *event);

/* How the tracepoint programs run, for a tier's -v line ("perf ...") */
const char *tracepoint_path(bool perf, int preempts);

#endif
