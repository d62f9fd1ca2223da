// SPDX-License-Identifier: GPL-2.0
#include "csv_layout.h"

__u64 csv_all_cols(void)
{
	__u64 cols = 0;

	for (int i = 0; i < PT_NCOLS; i++)
		if (pt_metrics[i].csv)
			cols |= PT_COL_BIT(i);
	return cols;
}

/* The CSV columns field f places, given those the fields before it named. */
static __u64 field_cols(const struct csv_layout *l, const struct csv_field *f,
			__u64 named)
{
	__u64 cols = 0;

	if (f->kind == CSV_K_REST)
		return l->cols() & ~named;
	for (int c = f->from; f->kind == CSV_K_COLS && c <= (int)f->to; c++)
		if (pt_metrics[c].csv)
			cols |= PT_COL_BIT(c);
	return cols;
}

/* fn(own field or NULL, column, arg) for each field in header order */
static void walk(const struct csv_layout *l,
		 void (*fn)(const struct csv_field *own, int col, void *arg),
		 void *arg)
{
	__u64 named = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct csv_field *f = &l->f[i];
		__u64 cols = field_cols(l, f, named);

		if (f->kind == CSV_K_OWN)
			fn(f, -1, arg);
		for (int c = 0; c < PT_NCOLS; c++)
			if (cols & PT_COL_BIT(c))
				fn(NULL, c, arg);
		named |= cols;
	}
}

static const char *name_of(const struct csv_field *own, int col)
{
	return own ? own->name : pt_metrics[col].csv;
}

static void header_field(const struct csv_field *own, int col, void *arg)
{
	struct rec *o = arg;

	fprintf(o->f, "%s%s", o->n++ ? "," : "", name_of(own, col));
}

void csv_header(FILE *f, const struct csv_layout *l)
{
	struct rec o = { .f = f };

	walk(l, header_field, &o);
	fputc('\n', f);
}

struct row_arg {
	struct rec *o;
	const struct csv_layout *l;
	const void *row;
};

static void row_field(const struct csv_field *own, int col, void *arg)
{
	struct row_arg *a = arg;
	struct pt_value v;

	if (own) {
		own->put(a->o, own->name, a->row);
		return;
	}
	v = a->l->value(col, a->row);
	rec_value(a->o, pt_metrics[col].csv, &v);
}

void csv_row(struct rec *o, const struct csv_layout *l, const void *row)
{
	struct row_arg a = { o, l, row };

	walk(l, row_field, &a);
}

static void doc_field(const struct csv_field *own, int col, void *arg)
{
	FILE *f = arg;

	if (own)
		fprintf(f, "| `%s` | | %s |\n", own->name, own->what);
	else
		fprintf(f, "| `%s` | %s | %s |\n", pt_metrics[col].csv,
			pt_metrics[col].unit, pt_metrics[col].what);
}

void csv_doc(FILE *f, const struct csv_layout *l)
{
	fputs("| column | unit | meaning |\n|---|---|---|\n", f);
	walk(l, doc_field, f);
}
