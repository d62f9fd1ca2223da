/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU counter cache in front of the counter hash (bpf/agg.bpf.h,
 * struct pt_cached): a drain folds a generation's ready entries of every
 * CPU into rows and empties them for the generation's next interval.
 */
#ifndef COUNTS_CACHE_H
#define COUNTS_CACHE_H

#include <linux/types.h>
#include "model/rows.h"

struct bpf_object;

struct pt_counts_cache {
	int fd;
	int ncpus;		/* possible CPUs: values per entry */
	void *vals, *zero;	/* one entry of every CPU */
};

/* Finds the object's counts_cache map; 0, or -errno. */
int counts_cache_bind(struct pt_counts_cache *cc, struct bpf_object *obj);
/*
 * Adds generation gen's entries to rows and empties them. Call only when
 * no program can write gen (pt_session_drain). 0, or -errno.
 */
int counts_cache_drain(struct pt_counts_cache *cc, __u32 gen, struct pt_rows *rows);
/* The keys of generation gen's entries ready so far into rows, with no
 * counts, the entries left as they are (programs may be adding to them).
 * 0, or -errno. */
int counts_cache_keys(struct pt_counts_cache *cc, __u32 gen, struct pt_rows *rows);
void counts_cache_unbind(struct pt_counts_cache *cc);

#endif
