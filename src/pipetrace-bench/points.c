// SPDX-License-Identifier: GPL-2.0
/* A measured point's workload names and where its processes run (--cpus). */
#include <stdio.h>
#include "pipetrace-bench.h"

const char *const pb_wl_names[PB_NWL + 2] = {
	[PB_STREAM] = "stream",
	[PB_MIX] = "mix",
	[PB_PINGPONG] = "pingpong",
	[PB_URING] = "uring",
	[PB_BW] = "bw",
	[PB_BURSTY] = "bursty",
	[PB_NWL] = "all",	/* every one; then NULL: the operands */
};

int pb_cpu_at(const struct pb_opts *o, int i)
{
	return o->ncpus ? o->cpus[i % o->ncpus] : -1;
}

const char *pb_placement(const struct pb_opts *o, const struct pb_point *p,
			 char *buf, size_t n)
{
	int a = pb_cpu_at(o, 0), b = pb_cpu_at(o, 1);

	/* bw is lmbench's unpinned run; uring is one process, never pinned */
	if (p->wl == PB_BW || p->wl == PB_URING || p->wl == PB_BURSTY || !o->ncpus)
		snprintf(buf, n, "unpinned");
	else if (p->wl == PB_MIX && o->ncpus > 2)
		snprintf(buf, n, "round-robin over %d CPUs", o->ncpus);
	else if (a == b)
		snprintf(buf, n, "same CPU %d", a);
	else
		snprintf(buf, n, "CPUs %d and %d", a, b);
	return buf;
}
