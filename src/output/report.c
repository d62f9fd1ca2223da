// SPDX-License-Identifier: GPL-2.0
/*
 * What every report format shares (report.h): the rows a report prints,
 * a cell's value (--rate), and -s's order.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>
#include <string.h>
#include "report.h"

size_t out_nrows(const struct pt_report *r)
{
	return r->max_rows && r->max_rows < r->rows->n ? r->max_rows : r->rows->n;
}

struct pt_value out_value(const struct pt_report *r, enum pt_col col,
			  const struct pt_row *row, bool whole)
{
	struct pt_value v = pt_get(col, &row->c, r->env);

	/* events of no key: the interval's first row has them, once */
	if (col == PT_COL_UNTRACKED && row != r->rows->v)
		v.u = 0;
	if (!r->rate || v.q == PT_NA || v.type != PT_V_U64 || pt_metrics[col].knob ||
	    pt_metrics[col].state)
		return v;
	v.d = r->interval_s > 0 ? v.u / r->interval_s : 0;
	if (whole)
		v.u = (__u64)(v.d + 0.5);
	else
		v.type = PT_V_RATIO;
	return v;
}

static int sort_cmp(const void *a, const void *b, void *arg)
{
	const struct pt_row *x = a, *y = b;
	const struct { enum pt_col col; const struct pt_env *env; } *s = arg;
	struct pt_value vx = pt_get(s->col, &x->c, s->env);
	struct pt_value vy = pt_get(s->col, &y->c, s->env);
	double dx = vx.type == PT_V_U64 || vx.type == PT_V_TIME ? (double)vx.u : vx.d;
	double dy = vy.type == PT_V_U64 || vy.type == PT_V_TIME ? (double)vy.u : vy.d;

	if ((vx.q == PT_NA) != (vy.q == PT_NA))
		return vx.q == PT_NA ? 1 : -1;
	if (vx.q != PT_NA && dx != dy)
		return dx < dy ? 1 : -1;
	return rows_key_cmp(x, y);
}

void out_sort(struct pt_rows *rows, enum pt_col col, const struct pt_env *env)
{
	struct { enum pt_col col; const struct pt_env *env; } s = { col, env };

	qsort_r(rows->v, rows->n, sizeof(*rows->v), sort_cmp, &s);
	rows_reindex(rows);
}
