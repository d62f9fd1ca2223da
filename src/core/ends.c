// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ends.h"

bool pt_is_writer(const struct pt_counts *c)
{
	return c->writes || c->splice_in || c->eagain_write_nonblock ||
	       c->eagain_write_nowait;
}

bool pt_is_reader(const struct pt_counts *c)
{
	return c->reads || c->splice_out || c->eagain_read_nonblock ||
	       c->eagain_read_nowait;
}

int rows_fold(struct pt_rows *dst, const struct pt_rows *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct pt_row *row = &src->v[i];

		if (rows_add(dst, &row->key, &row->c) || rows_add_hists(dst, row))
			return -1;
	}
	return 0;
}

static int pipe_cmp(const struct pt_key *a, const struct pt_key *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

static int end_cmp(const void *a, const void *b)
{
	const struct pt_key *x = &((const struct pt_row *)a)->key;
	const struct pt_key *y = &((const struct pt_row *)b)->key;

	return pipe_cmp(x, y) ?: (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

void ends_sort(struct pt_rows *ends)
{
	qsort(ends->v, ends->n, sizeof(*ends->v), end_cmp);
	rows_reindex(ends);
}

void ends_names(char *buf, size_t n, const struct pt_rows *ends,
		const struct pt_key *pipe, bool writers)
{
	size_t lo = 0, hi = ends->n, len = 0;
	int listed = 0, more = 0;

	buf[0] = '\0';
	while (lo < hi) {	/* the pipe's first end */
		size_t mid = (lo + hi) / 2;

		if (pipe_cmp(&ends->v[mid].key, pipe) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ends->n && !pipe_cmp(&ends->v[lo].key, pipe); lo++) {
		const struct pt_row *e = &ends->v[lo];

		if (!(writers ? pt_is_writer(&e->c) : pt_is_reader(&e->c)))
			continue;
		if (listed++ >= ENDS_LISTED) {
			more++;
			continue;
		}
		if (len < n)
			len += snprintf(buf + len, n - len, "%s%.*s[%u]", len ? "," : "",
					(int)strnlen(e->key.comm, PT_COMM_LEN), e->key.comm,
					e->key.tgid);
	}
	if (more && len < n)
		snprintf(buf + len, n - len, ",+%d", more);
}
