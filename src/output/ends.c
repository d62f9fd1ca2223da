// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ends.h"
#include "fmt.h"

bool pt_is_writer(const struct pt_counts *c)
{
	return c->writes || c->splice_in || c->eagain_write_nonblock ||
	       c->eagain_write_nowait || c->wait_write_ns;
}

bool pt_is_reader(const struct pt_counts *c)
{
	return c->reads || c->splice_out || c->eagain_read_nonblock ||
	       c->eagain_read_nowait || c->wait_read_ns;
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

size_t ends_list(const struct pt_rows *ends, const struct pt_key *pipe,
		 bool writers, const struct pt_row **v, size_t cap)
{
	size_t lo = 0, hi = ends->n, total = 0;

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
		if (total < cap)
			v[total] = e;
		total++;
	}
	return total;
}

void ends_names(char *buf, size_t n, const struct pt_rows *ends,
		const struct pt_key *pipe, bool writers)
{
	const struct pt_row *v[ENDS_LISTED];
	size_t total = ends_list(ends, pipe, writers, v, ENDS_LISTED), len = 0;
	char comm[FMT_MARKED_LEN];

	buf[0] = '\0';
	for (size_t i = 0; i < total && i < ENDS_LISTED && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%s[%u]", i ? "," : "",
				fmt_comm_marked(comm, v[i]->key.comm, PT_COMM_LEN),
				v[i]->key.tgid);
	if (total > ENDS_LISTED && len < n)
		snprintf(buf + len, n - len, ",+%zu", total - ENDS_LISTED);
}
