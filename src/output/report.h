/* SPDX-License-Identifier: GPL-2.0 */
/* pipestat's output formats, chosen once. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include "model/metrics.h"
#include "model/rows.h"

struct pt_columns;
struct csv_layout;
struct proc_args;

struct pt_report {
	const struct pt_rows *rows;
	const struct pt_env *env;
	double time;		/* end of the interval, Unix seconds */
	double interval_s;	/* length of the interval measured */
	unsigned int hists;	/* JSON: these histograms (1 << enum pt_hist)
				 * as hist_<name> keys after the columns */
	size_t max_rows;	/* -r: the first rows only; 0: all */
	bool rate;		/* --rate: counts per second of the interval */
	const struct pt_columns *cols;	/* the table's (-o); NULL: the default */
	/* -k pipe: rows by pipe and process, ends_sort()ed: writers, readers */
	const struct pt_rows *ends;
	/* the processes' command lines (-k pid, -k pipe's ends); NULL: none */
	const struct proc_args *args;
	/* the table's line: a terminal's width; at most 80 columns below
	 * that (and for 0: not a terminal) */
	int width;
};

/* The rows a report prints: all, or the first max_rows. */
size_t out_nrows(const struct pt_report *r);
/*
 * One cell: pt_get(), and with --rate a count column (not a knob) per
 * second of the interval (rounded to a whole number for the table).
 * untracked (events of no key) is on the report's first row, 0 on the rest.
 */
struct pt_value out_value(const struct pt_report *r, enum pt_col col,
			  const struct pt_row *row, bool whole);
/* -s: rows by col, largest first, values not known last; ties by key. */
void out_sort(struct pt_rows *rows, enum pt_col col, const struct pt_env *env);

/* pipestat's CSV and JSON fields (out_csv.c). */
extern const struct csv_layout out_csv_layout;

/* Each returns 0, or -1 when the stream failed (a closed pipe, say). */
int out_csv_header(FILE *f);
int out_csv_report(FILE *f, const struct pt_report *r);
/*
 * The histograms of mask (1 << enum pt_hist) of every row that has some.
 * hist_parse: "write_size,read_size,occupancy,wait_read,wait_write" or
 * "all" into a mask; -1 for anything else.
 */
int out_hist_report(FILE *f, const struct pt_report *r, unsigned int mask);
long hist_parse(const char *list);
const char *hist_name(enum pt_hist h);
/* The used slots of a histogram, first to last; returns the largest count
 * (0: empty). */
__u64 hist_range(const __u64 *slot, int *first, int *last);
/* One JSON object per row, keys = the CSV columns (no header). */
int out_json_report(FILE *f, const struct pt_report *r);
int out_table_report(FILE *f, const struct pt_report *r);
/* --advise: one line per pipe worth a remark (src/tune/advise.h's rules) */
int out_advise_report(FILE *f, const struct pt_report *r);

#endif
