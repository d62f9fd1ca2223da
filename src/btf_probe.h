/* SPDX-License-Identifier: GPL-2.0 */
/* Questions about the running kernel, answered from its BTF. */
#ifndef BTF_PROBE_H
#define BTF_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

bool btf_has_vmlinux(void);
/* The tracepoint exists with BTF: a btf_trace_<event> typedef. */
bool btf_has_tracepoint(const char *event);
bool btf_has_pipe_tracepoints(void);
/* A kernel function (or kfunc) named in vmlinux BTF. */
bool btf_has_func(const char *name);
/* GFP_HIGHUSER | __GFP_ACCOUNT as this kernel numbers its GFP bits. */
__u32 btf_pipe_page_gfp(void);

#endif
