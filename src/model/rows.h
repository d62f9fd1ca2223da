/* SPDX-License-Identifier: GPL-2.0 */
/* Folding the kernel's fine-grained counters into rows of one key type. */
#ifndef ROWS_H
#define ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pipetrace.h"

enum pt_by {
	PT_BY_TOTAL,
	PT_BY_PID,
	PT_BY_COMM,
	PT_BY_PIPE,
	PT_BY_PIPE_PID,	/* pipe and process: pipetop's ends */
	PT_BY_CGROUP,	/* cgroup v2 (the kernel keys carry it only then) */
};

/*
 * The side of its pipes a -k comm row's processes took: the writers and
 * the readers of one command name are rows of their own (python3 writing
 * into python3), each with its own waits.
 */
enum pt_side {
	PT_SIDE_NONE,	/* not part of the key; or neither side (only
			 * mutex contention, say) */
	PT_SIDE_WRITE,
	PT_SIDE_READ,
	PT_SIDE_BOTH,	/* read and wrote one pipe */
};

struct pt_row {
	struct pt_key key;	/* fields the key type does not use are 0 */
	enum pt_side side;	/* with the key, the row's identity */
	struct pt_counts c;
	__u64 (*hist)[PT_HIST_SLOTS];	/* [PT_NHIST], NULL until one is seen */
	__u64 *hist_sum;		/* [PT_NHIST]: the sum of each one's values */
};

struct pt_rows {
	enum pt_by by;
	struct pt_row *v;
	size_t n, cap;
	size_t *slot;		/* open-addressing index into v, 0 = empty */
	size_t nslots;
};

/* Room for need elements of elem bytes in *v (first, then doubling);
 * -1 on out of memory, *v unchanged. */
int pt_grow(void **v, size_t *cap, size_t need, size_t elem, size_t first);

const char *by_name(enum pt_by by);
int by_parse(const char *s);	/* -1 if unknown */
/* The key fields rows of this key type have. */
bool by_has_pid(enum pt_by by);
bool by_has_comm(enum pt_by by);
bool by_has_pipe(enum pt_by by);
bool by_has_cgroup(enum pt_by by);
/* Rows of this key type are apart by side (-k comm). */
bool by_has_side(enum pt_by by);
/* "write", "read", "both"; NULL for PT_SIDE_NONE */
const char *side_name(enum pt_side side);

void rows_init(struct pt_rows *r, enum pt_by by);
void rows_clear(struct pt_rows *r);
void rows_free(struct pt_rows *r);
/* The index in r->v of the row for k's key under r->by; -1 if none. */
long rows_find(const struct pt_rows *r, const struct pt_key *k);
/* Whether r has a row for k's key under r->by. */
bool rows_has(const struct pt_rows *r, const struct pt_key *k);
/* Adds c into the row of k's key under r->by (side PT_SIDE_NONE); -1 on
 * out of memory. */
int rows_add(struct pt_rows *r, const struct pt_key *k, const struct pt_counts *c);
/* Adds src's counts and histograms into the row of its key under r->by
 * and side; -1 on out of memory. */
int rows_add_row(struct pt_rows *r, const struct pt_row *src, enum pt_side side);
void counts_add(struct pt_counts *sum, const struct pt_counts *c);
/* Adds n values summing to sum to a histogram slot of hk's key under
 * r->by; -1 on OOM. */
int rows_add_hist(struct pt_rows *r, const struct pt_hkey *hk, __u64 n, __u64 sum);
/* Adds src's histograms into the row of src's key under r->by (side
 * PT_SIDE_NONE); -1 on OOM. */
int rows_add_hists(struct pt_rows *r, const struct pt_row *src);
/* Keeps the rows i with keep[i] (in order), frees the others. */
void rows_keep(struct pt_rows *r, const bool *keep);
/* After reordering r->v: the index again. */
void rows_reindex(struct pt_rows *r);
/* Sorts rows by bytes moved, busiest first, ties by key. */
void rows_sort(struct pt_rows *r);
/* Rows' order by key, then side: ties of every sort. */
int rows_key_cmp(const struct pt_row *x, const struct pt_row *y);

#endif
