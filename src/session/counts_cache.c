// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pipetrace.h"
#include "counts_cache.h"

/* a per-CPU value's stride in what the map syscalls copy */
#define STRIDE ((sizeof(struct pt_cached) + 7) & ~(size_t)7)

int counts_cache_bind(struct pt_counts_cache *cc, struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "counts_cache");

	if (!m)
		return -ENOENT;
	cc->ncpus = libbpf_num_possible_cpus();
	if (cc->ncpus <= 0)
		return cc->ncpus ?: -EINVAL;
	cc->vals = calloc(cc->ncpus, STRIDE);
	cc->zero = calloc(cc->ncpus, STRIDE);
	if (!cc->vals || !cc->zero)
		return -ENOMEM;
	cc->fd = bpf_map__fd(m);
	return 0;
}

/* Generation gen's ready entries into rows (their counts, or none);
 * emptied when take. */
static int read_gen(struct pt_counts_cache *cc, __u32 gen, struct pt_rows *rows,
		    bool take)
{
	static const struct pt_counts none;

	for (__u32 i = gen * PT_CACHE_SLOTS; i < (gen + 1) * PT_CACHE_SLOTS; i++) {
		bool used = false;

		if (bpf_map_lookup_elem(cc->fd, &i, cc->vals))
			return -errno;
		for (int cpu = 0; cpu < cc->ncpus; cpu++) {
			const struct pt_cached *e = cc->vals + cpu * STRIDE;

			/* claims are never left half done: the programs
			 * that made them have all returned */
			if (e->state == PT_CACHE_READY &&
			    rows_add(rows, &e->key, take ? &e->c : &none))
				return -ENOMEM;
			used |= e->state != PT_CACHE_FREE;
		}
		if (take && used && bpf_map_update_elem(cc->fd, &i, cc->zero, BPF_ANY))
			return -errno;
	}
	return 0;
}

int counts_cache_drain(struct pt_counts_cache *cc, __u32 gen, struct pt_rows *rows)
{
	return read_gen(cc, gen, rows, true);
}

int counts_cache_keys(struct pt_counts_cache *cc, __u32 gen, struct pt_rows *rows)
{
	return read_gen(cc, gen, rows, false);
}

void counts_cache_unbind(struct pt_counts_cache *cc)
{
	free(cc->vals);
	free(cc->zero);
	cc->vals = cc->zero = NULL;
}
