// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "tier.h"

static const char *const tier_names[PT_TIER_COUNT] = {
	[PT_TIER_TRACEPOINT] = "tracepoint",
	[PT_TIER_FUNCTION] = "function",
	[PT_TIER_SYSCALL] = "syscall",
};

const char *tier_name(enum pt_tier t)
{
	return t < PT_TIER_COUNT ? tier_names[t] : "auto";
}

int tier_parse(const char *s)
{
	for (int t = 0; t < PT_TIER_COUNT; t++)
		if (!strcmp(s, tier_names[t]))
			return t;
	return strcmp(s, "auto") ? -1 : PT_TIER_AUTO;
}

static const char *const tier_abouts[PT_TIER_COUNT] = {
	[PT_TIER_TRACEPOINT] = "pipe:* tracepoints of kernel-patch/ (patched kernels)",
	[PT_TIER_FUNCTION] = "fentry/fexit (or kprobes) on pipe_read/pipe_write",
	[PT_TIER_SYSCALL] = "syscall, kmem and io_uring tracepoints only",
};

const char *tier_about(enum pt_tier t)
{
	return t < PT_TIER_COUNT ? tier_abouts[t] : "";
}
