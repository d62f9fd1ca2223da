/* SPDX-License-Identifier: GPL-2.0 */
/* Questions about the running kernel, answered from its BTF. */
#ifndef BTF_PROBE_H
#define BTF_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

bool btf_has_vmlinux(void);
/* 0; -ENOENT without /sys/kernel/btf/vmlinux; else why it did not parse */
int btf_vmlinux_error(void);
/* The tracepoint exists with BTF: a btf_trace_<event> typedef. */
bool btf_has_tracepoint(const char *event);
/* The kernel has a function of that name (BTF_KIND_FUNC). */
bool btf_has_func(const char *name);
/* Pages of a write may be allocated before pipe->mutex is taken. */
bool btf_prefill_path(void);
/* 0 if an fentry program can be loaded and attached on func, else errno. */
int btf_fentry_attach_errno(const char *func);
/* GFP_HIGHUSER | __GFP_ACCOUNT as this kernel numbers its GFP bits. */
__u32 btf_pipe_page_gfp(void);

/* PT_NA_NO_LOCKS if the kernel has no lock:contention_begin/end */
unsigned int btf_lacks_lock_events(void);

#endif
