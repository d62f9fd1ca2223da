/* SPDX-License-Identifier: GPL-2.0 */
/* What a front end asks the session layer for: tier, filters, map size. */
#ifndef LOAD_OPTS_H
#define LOAD_OPTS_H

#include <stdbool.h>
#include <linux/types.h>
#include "pipetrace.h"
#include "tier.h"

struct pt_load_opts {
	enum pt_tier tier;		/* PT_TIER_AUTO to choose */
	__u32 pids[PT_MAX_PIDS];	/* -p; none = every process */
	int npids;
	char comm[PT_COMM_LEN];		/* -n; "" = every command */
	__u32 max_keys;			/* counter map size; 0 = the default */
	__u32 hists;			/* 1 << enum pt_hist: histograms to keep */
	/* what the output shows (columns: 1 << enum pt_col; and hists): the
	 * session loads only the hooks they need */
	__u64 cols;
	unsigned int hooks_off;		/* enum pt_hook: never load (--no-waits) */
	const char *cgroup;		/* --cgroup: a cgroup v2 directory */
	bool key_cgroup;		/* -k cgroup: keys carry the cgroup id */
	bool verbose;
};

#endif
