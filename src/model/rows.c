// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "rows.h"

static const char *const by_names[] = {
	[PT_BY_TOTAL] = "total",
	[PT_BY_PID] = "pid",
	[PT_BY_COMM] = "comm",
	[PT_BY_PIPE] = "pipe",
	[PT_BY_PIPE_PID] = "pipe-pid",
	[PT_BY_CGROUP] = "cgroup",
};

const char *by_name(enum pt_by by)
{
	return by_names[by];
}

int by_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (!strcmp(s, by_names[i]))
			return i;
	return -1;
}

bool by_has_pid(enum pt_by by)
{
	return by == PT_BY_PID || by == PT_BY_PIPE_PID;
}

bool by_has_comm(enum pt_by by)
{
	return by_has_pid(by) || by == PT_BY_COMM;
}

bool by_has_pipe(enum pt_by by)
{
	return by == PT_BY_PIPE || by == PT_BY_PIPE_PID;
}

int pt_grow(void **v, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = n;
	return 0;
}

bool by_has_cgroup(enum pt_by by)
{
	return by == PT_BY_CGROUP;
}

bool by_has_side(enum pt_by by)
{
	return by == PT_BY_COMM;
}

const char *side_name(enum pt_side side)
{
	static const char *const names[] = {
		[PT_SIDE_WRITE] = "write", [PT_SIDE_READ] = "read", [PT_SIDE_BOTH] = "both",
	};

	return names[side];
}

void rows_init(struct pt_rows *r, enum pt_by by)
{
	memset(r, 0, sizeof(*r));
	r->by = by;
}

static void free_hists(struct pt_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].hist);
		free(r->v[i].hist_sum);
		r->v[i].hist = NULL;
		r->v[i].hist_sum = NULL;
	}
}

void rows_clear(struct pt_rows *r)
{
	free_hists(r);
	r->n = 0;
	if (r->slot)
		memset(r->slot, 0, r->nslots * sizeof(*r->slot));
}

void rows_free(struct pt_rows *r)
{
	free_hists(r);
	free(r->v);
	free(r->slot);
	rows_init(r, r->by);
}

static struct pt_key fold_key(enum pt_by by, const struct pt_key *k)
{
	struct pt_key f = {};

	switch (by) {
	case PT_BY_TOTAL:
		break;
	case PT_BY_PID:
		f.tgid = k->tgid;
		memcpy(f.comm, k->comm, sizeof(f.comm));
		break;
	case PT_BY_COMM:
		memcpy(f.comm, k->comm, sizeof(f.comm));
		break;
	case PT_BY_PIPE:
		f.dev = k->dev;
		f.ino = k->ino;
		break;
	case PT_BY_PIPE_PID:
		f = *k;
		f.cgroup = 0;
		break;
	case PT_BY_CGROUP:
		f.cgroup = k->cgroup;
		break;
	}
	return f;
}

static size_t key_hash(const struct pt_key *k, enum pt_side side)
{
	const unsigned char *p = (const unsigned char *)k;
	size_t h = 1469598103934665603ull ^ side;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void index_rows(struct pt_rows *r)
{
	size_t mask = r->nslots - 1;

	memset(r->slot, 0, r->nslots * sizeof(*r->slot));
	for (size_t i = 0; i < r->n; i++) {
		size_t s = key_hash(&r->v[i].key, r->v[i].side) & mask;

		while (r->slot[s])
			s = (s + 1) & mask;
		r->slot[s] = i + 1;
	}
}

static int grow_index(struct pt_rows *r)
{
	size_t n = r->nslots ? r->nslots * 2 : 256;
	size_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -1;
	free(r->slot);
	r->slot = slot;
	r->nslots = n;
	index_rows(r);
	return 0;
}

void counts_add(struct pt_counts *sum, const struct pt_counts *c)
{
	__u64 *d = (__u64 *)sum;
	const __u64 *s = (const __u64 *)c;

	/* counts up to the ring's state, which is folded, not summed; the
	 * scheduler's figures after it are one process's, set per row
	 * (sched_stat.c), never summed */
	for (size_t i = 0; i < offsetof(struct pt_counts, ring_slots) / sizeof(__u64); i++)
		d[i] += s[i];
	if (c->ring_peak > sum->ring_peak)
		sum->ring_peak = c->ring_peak;
	if (c->blocked_since && (!sum->blocked_since || c->blocked_since < sum->blocked_since))
		sum->blocked_since = c->blocked_since;
	/* the smallest ring, with its owner: the one most likely to limit */
	if (c->ring_slots && (!sum->ring_slots || c->ring_slots < sum->ring_slots ||
			      (c->ring_slots == sum->ring_slots &&
			       c->ring_owner_pages > sum->ring_owner_pages))) {
		sum->ring_slots = c->ring_slots;
		sum->ring_owner_uid = c->ring_owner_uid;
		sum->ring_owner_pages = c->ring_owner_pages;
	}
}

/* The slot of folded key f and side: its row's, or the empty one it
 * would take. */
static size_t find_slot(const struct pt_rows *r, const struct pt_key *f,
			enum pt_side side)
{
	size_t s = key_hash(f, side) & (r->nslots - 1);

	for (; r->slot[s]; s = (s + 1) & (r->nslots - 1)) {
		const struct pt_row *row = &r->v[r->slot[s] - 1];

		if (row->side == side && !memcmp(&row->key, f, sizeof(*f)))
			break;
	}
	return s;
}

long rows_find(const struct pt_rows *r, const struct pt_key *k)
{
	struct pt_key f = fold_key(r->by, k);

	return r->nslots ? (long)r->slot[find_slot(r, &f, PT_SIDE_NONE)] - 1 : -1;
}

bool rows_has(const struct pt_rows *r, const struct pt_key *k)
{
	return rows_find(r, k) >= 0;
}

/* The row of k's key under r->by and side, created with zero counts;
 * NULL on OOM. */
static struct pt_row *row_of(struct pt_rows *r, const struct pt_key *k,
			     enum pt_side side)
{
	struct pt_key f = fold_key(r->by, k);
	size_t s;

	if ((r->n + 1) * 2 > r->nslots && grow_index(r))
		return NULL;
	s = find_slot(r, &f, side);
	if (r->slot[s])
		return &r->v[r->slot[s] - 1];
	if (pt_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v), 64))
		return NULL;
	r->v[r->n] = (struct pt_row){ .key = f, .side = side };
	r->slot[s] = ++r->n;
	return &r->v[r->n - 1];
}

int rows_add(struct pt_rows *r, const struct pt_key *k, const struct pt_counts *c)
{
	struct pt_row *row = row_of(r, k, PT_SIDE_NONE);

	if (!row)
		return -1;
	counts_add(&row->c, c);
	return 0;
}

/* row's histograms, allocated on first use; -1 on OOM */
static int hists_of(struct pt_row *row)
{
	if (!row->hist && !(row->hist = calloc(PT_NHIST, sizeof(*row->hist))))
		return -1;
	if (!row->hist_sum && !(row->hist_sum = calloc(PT_NHIST, sizeof(*row->hist_sum))))
		return -1;
	return 0;
}

int rows_add_hist(struct pt_rows *r, const struct pt_hkey *hk, __u64 n, __u64 sum)
{
	struct pt_row *row = row_of(r, &hk->key, PT_SIDE_NONE);

	if (!row || hk->hist >= PT_NHIST || hk->slot >= PT_HIST_SLOTS)
		return row ? 0 : -1;
	if (hists_of(row))
		return -1;
	row->hist[hk->hist][hk->slot] += n;
	row->hist_sum[hk->hist] += sum;
	return 0;
}

/* src's histograms into row's; -1 on OOM */
static int hists_add(struct pt_row *row, const struct pt_row *src)
{
	if (!src->hist)
		return 0;
	if (hists_of(row))
		return -1;
	for (int h = 0; h < PT_NHIST; h++) {
		for (int s = 0; s < PT_HIST_SLOTS; s++)
			row->hist[h][s] += src->hist[h][s];
		row->hist_sum[h] += src->hist_sum[h];
	}
	return 0;
}

int rows_add_hists(struct pt_rows *r, const struct pt_row *src)
{
	struct pt_row *row;

	if (!src->hist)
		return 0;
	row = row_of(r, &src->key, PT_SIDE_NONE);
	return row ? hists_add(row, src) : -1;
}

int rows_add_row(struct pt_rows *r, const struct pt_row *src, enum pt_side side)
{
	struct pt_row *row = row_of(r, &src->key, side);

	if (!row)
		return -1;
	counts_add(&row->c, &src->c);
	return hists_add(row, src);
}

static int row_cmp(const void *a, const void *b)
{
	const struct pt_row *x = a, *y = b;
	__u64 bx = pt_bytes_out(&x->c) + pt_bytes_in(&x->c);
	__u64 by = pt_bytes_out(&y->c) + pt_bytes_in(&y->c);

	if (bx != by)
		return bx < by ? 1 : -1;
	return rows_key_cmp(x, y);
}

int rows_key_cmp(const struct pt_row *x, const struct pt_row *y)
{
	return memcmp(&x->key, &y->key, sizeof(x->key)) ?:
	       (x->side > y->side) - (x->side < y->side);
}

void rows_keep(struct pt_rows *r, const bool *keep)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (keep[i]) {
			r->v[n++] = r->v[i];
			continue;
		}
		free(r->v[i].hist);
		free(r->v[i].hist_sum);
	}
	r->n = n;
	rows_reindex(r);
}

void rows_reindex(struct pt_rows *r)
{
	if (r->slot)
		index_rows(r);
}

/* Sorting reorders v, so the index is rebuilt. */
void rows_sort(struct pt_rows *r)
{
	if (r->n < 2)
		return;	/* v may be NULL: qsort's argument must not be */
	qsort(r->v, r->n, sizeof(*r->v), row_cmp);
	if (r->slot)
		index_rows(r);
}
