/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus exposition: running totals per label set, generated from the
 * metrics table. Each u64 column is a counter pipetrace_<csv>_total (a
 * knob column a gauge pipetrace_<csv>); ratio columns are left to PromQL;
 * a column the tier cannot know is left out, never 0. Labels: tier, and
 * those of the key type (comm by default; pid and comm; pipe_ino). At most
 * cap label sets: the counts of keys past the cap go into one series
 * labelled overflow="true", so every series stays monotonic.
 */
#ifndef PROM_H
#define PROM_H

#include <stdbool.h>
#include <stdio.h>
#include "metrics.h"
#include "rows.h"
#include "textfile.h"

struct prom_store {
	struct pt_rows totals;	/* one row per label set, since the start */
	struct pt_counts overflow;
	bool overflowed;
	size_t cap;
	__u64 untracked;
	struct pt_env env;	/* the last interval's (tier, knobs) */
};

void prom_init(struct prom_store *p, enum pt_by by, size_t cap);
void prom_free(struct prom_store *p);
/* Adds one interval's rows; -1 on out of memory. */
int prom_add(struct prom_store *p, const struct pt_rows *rows,
	     const struct pt_env *env);

enum prom_fmt {
	PROM_TEXT,		/* text/plain; version=0.0.4 (node_exporter) */
	PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

int prom_render(FILE *f, const struct prom_store *p, enum prom_fmt fmt);
/*
 * The text format into the textfile, replaced whole (core/textfile.h), for
 * node_exporter's textfile collector. -1 with errno on failure; the file
 * is then left as it was.
 */
int prom_textfile(struct textfile *t, const struct prom_store *p);
/* The Content-Type of fmt. */
const char *prom_content_type(enum prom_fmt fmt);
/*
 * A label value: '\\', '"' and newline escaped as the format wants, and
 * bytes outside printable ASCII written as the text \xHH (valid UTF-8).
 */
void prom_label_value(FILE *f, const char *s, size_t len);

#endif
