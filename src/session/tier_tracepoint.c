// SPDX-License-Identifier: GPL-2.0
/* Glue for the tracepoint tier's BPF object (bpf/tracepoint_tier.bpf.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "btf_probe.h"
#include "loader.h"
#include "tracepoint_tier.skel.h"

/* Events every metric needs; pipe_prefill (0002) is optional. */
static const char *const needed[] = { "pipe_copy", "pipe_eagain", "pipe_page_get" };

static int probe(char *why, size_t n)
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
	return 0;
}

static void destroy(void *skel)
{
	tracepoint_tier_bpf__destroy(skel);
}

static int open_tier(struct pt_session *s, const struct pt_load_opts *o)
{
	struct tracepoint_tier_bpf *skel = tracepoint_tier_bpf__open();
	int err;

	if (!skel)
		return -errno;
	s->skel = skel;
	s->destroy = destroy;
	s->obj = skel->obj;
	/* one program per event; off where this kernel lacks the event */
	bpf_program__set_autoload(skel->progs.pt_prefill,
				  btf_has_tracepoint("pipe_prefill"));
	err = PT_LOAD_SKEL(s, o, skel, tracepoint_tier_bpf__load);
	if (err)
		return err;
	return tracepoint_tier_bpf__attach(skel);
}

const struct pt_tier_ops tier_tracepoint_ops = {
	.tier = PT_TIER_TRACEPOINT,
	.probe = probe,
	.open = open_tier,
};
