/* SPDX-License-Identifier: GPL-2.0 */
/* pipestat's two output formats, chosen once. */
#ifndef OUT_H
#define OUT_H

#include <stdio.h>
#include "metrics.h"
#include "rows.h"

struct pt_report {
	const struct pt_rows *rows;
	const struct pt_env *env;
	double time;		/* end of the interval, Unix seconds */
	double interval_s;	/* length of the interval measured */
};

/* Each returns 0, or -1 when the stream failed (a closed pipe, say). */
int out_csv_header(FILE *f);
int out_csv_report(FILE *f, const struct pt_report *r);
/* The 'derived' field: names of the columns derived for c, ';'-separated. */
void out_csv_derived(FILE *f, const struct pt_counts *c, const struct pt_env *env);
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
int out_table_report(FILE *f, const struct pt_report *r);

#endif
