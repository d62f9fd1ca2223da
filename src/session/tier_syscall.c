// SPDX-License-Identifier: GPL-2.0
/* Glue for the syscall tier's BPF object (bpf/syscall_tier.bpf.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "btf_probe.h"
#include "loader.h"
#include "syscall_tier.skel.h"

static int probe(char *why, size_t n)
{
	struct utsname u;

	if (uname(&u) || strcmp(u.machine, "x86_64")) {
		snprintf(why, n, "needs x86_64 syscall numbers");
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
	return 0;
}

static void destroy(void *skel)
{
	syscall_tier_bpf__destroy(skel);
}

static int open_tier(struct pt_session *s, const struct pt_load_opts *o)
{
	struct syscall_tier_bpf *skel = syscall_tier_bpf__open();
	int err;

	if (!skel)
		return -errno;
	s->skel = skel;
	s->destroy = destroy;
	s->obj = skel->obj;
	skel->rodata->pipe_page_gfp = btf_pipe_page_gfp();
	err = PT_LOAD_SKEL(s, o, skel, syscall_tier_bpf__load);
	if (err)
		return err;
	return syscall_tier_bpf__attach(skel);
}

const struct pt_tier_ops tier_syscall_ops = {
	.tier = PT_TIER_SYSCALL,
	.probe = probe,
	.open = open_tier,
};
