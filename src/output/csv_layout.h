/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CSV layout: the fields of a tool's rows, in order, written once. It
 * drives the header, each row (CSV and JSON, through output/record.h) and
 * the tool's section of docs/CSV.md. A field is one of the tool's own
 * (a name, a meaning and a function that writes it) or columns of the
 * metrics table; the layout's last field, CSV_REST, places every column
 * of the tool's set no earlier field named, so a column appended to the
 * table is appended to the CSV with no change here. The order is a
 * contract with scripts: fields are only ever appended.
 */
#ifndef CSV_LAYOUT_H
#define CSV_LAYOUT_H

#include <stdio.h>
#include "model/metrics.h"
#include "record.h"

enum csv_kind {
	CSV_K_OWN,	/* the tool's own field */
	CSV_K_COLS,	/* the CSV columns from..to of the metrics table */
	CSV_K_REST,	/* the columns of the set no field before named */
};

struct csv_field {
	enum csv_kind kind;
	const char *name;	/* own field: its name, the JSON key */
	const char *what;	/* own field: its meaning, one line */
	/* own field: writes the field of row (the tool's own row type) */
	void (*put)(struct rec *o, const char *name, const void *row);
	enum pt_col from, to;	/* CSV_K_COLS */
};

#define CSV_OWN(n, fn, w)	{ CSV_K_OWN, n, w, fn, 0, 0 }
#define CSV_COLS(a, b)		{ .kind = CSV_K_COLS, .from = (a), .to = (b) }
#define CSV_COL(a)		CSV_COLS(a, a)
#define CSV_REST		{ .kind = CSV_K_REST }

struct csv_layout {
	const struct csv_field *f;
	size_t n;
	/* the metric columns of the tool's rows (CSV columns only) */
	__u64 (*cols)(void);
	/* a metric column's value in row */
	struct pt_value (*value)(enum pt_col col, const void *row);
};

/* Every column with a CSV name: pipestat's set. */
__u64 csv_all_cols(void);
/* The layout's header line, with its newline. */
void csv_header(FILE *f, const struct csv_layout *l);
/* One row's fields, from rec_begin() to before rec_end(). */
void csv_row(struct rec *o, const struct csv_layout *l, const void *row);
/* Each field's name, unit and meaning in header order, as a Markdown table. */
void csv_doc(FILE *f, const struct csv_layout *l);

#endif
