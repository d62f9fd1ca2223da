/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIER_H
#define TIER_H

/* Attach tiers, best first (docs/ARCHITECTURE.md). */
enum pt_tier {
	PT_TIER_TRACEPOINT,
	PT_TIER_FUNCTION,
	PT_TIER_SYSCALL,
	PT_TIER_COUNT,
	PT_TIER_AUTO = PT_TIER_COUNT,
};

const char *tier_name(enum pt_tier t);
/* "auto" and the tier names; returns -1 for anything else */
int tier_parse(const char *s);

/* What a tier attaches to, one line. */
const char *tier_about(enum pt_tier t);

#endif
