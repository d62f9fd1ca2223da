/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus exposition: running totals per label set of the series the
 * metrics table's rows name (pt_metric.prom: families in base units,
 * seconds and bytes, with sides and causes as labels; prom_table.c has
 * the histograms and docs/METRICS.md).
 * A family the tier cannot know is left out, never 0. Each counter is the
 * sum of the interval values the CSV reports, so it never decreases, also
 * where it is derived. Labels: tier, and those of the key type (comm by
 * default; pid and comm; pipe_dev and pipe_ino; cgroup). At most cap
 * label sets: the counts of keys past the cap go into one series labelled
 * overflow="true". A key with no events for ttl seconds loses its label
 * set (its series leave the exposition); back later, it starts again
 * from 0, which Prometheus reads as a counter reset.
 */
#ifndef PROM_H
#define PROM_H

#include <stdbool.h>
#include <stdio.h>
#include "model/metrics.h"
#include "model/rows.h"
#include "os/textfile.h"

/* A --hist histogram as a Prometheus histogram (_bucket, _sum, _count). */
struct prom_hist {
	const char *name;	/* without pipetrace_, with its unit */
	const char *labels;	/* its own labels, e.g. side="read"; "" none */
	enum pt_hist hist;
	enum pt_col col;	/* known when this column is */
	bool ns;		/* values in ns, exported in seconds */
	bool derived_tp;	/* derived on the tracepoint tier */
	const char *help;	/* on a family's first histogram */
};

#define PROM_NHISTS PT_NHIST
extern const struct prom_hist prom_hists[PROM_NHISTS];

/*
 * The PromQL of CSV column col ("" if it has none), e.g.
 * sum without (cause) (pipetrace_eagain_total{side="read"}); *note says
 * how the two differ ("" if they do not).
 */
const char *prom_column_query(char *buf, size_t n, enum pt_col col,
			      const char **note);
/* docs/METRICS.md: every CSV column and its Prometheus name, as Markdown. */
void prom_doc(FILE *f);

/* One label set: the running sum of each series of each column (its
 * histograms are its row's in prom_store.keys). */
struct prom_set {
	__u64 v[PT_NCOLS][PT_PROM_SERIES];
	double last;		/* the end of its last interval with events
				 * (monotonic s) */
};

struct prom_store {
	struct pt_rows keys;	/* one row per label set (counts unused) */
	struct prom_set *sets;	/* parallel to keys.v */
	size_t sets_cap;
	struct prom_set overflow;
	struct pt_rows overflow_hists;	/* one row: the overflow's histograms */
	bool overflowed;
	unsigned int hists;	/* 1 << enum pt_hist: the --hist ones */
	double ttl;		/* drop a key's label set this long after its
				 * last events (0: never; -k total: never) */
	size_t cap;
	__u64 untracked;
	struct pt_env env;	/* the last interval's (tier, knobs) */
};

void prom_init(struct prom_store *p, enum pt_by by, size_t cap, unsigned int hists);
void prom_free(struct prom_store *p);
/*
 * Adds one interval's rows, ending at now (monotonic seconds), and drops
 * the label sets of keys without events since p->ttl or more before now;
 * -1 on out of memory.
 */
int prom_add(struct prom_store *p, const struct pt_rows *rows,
	     const struct pt_env *env, double now);

enum prom_fmt {
	PROM_TEXT,		/* text/plain; version=0.0.4 (node_exporter) */
	PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

int prom_render(FILE *f, const struct prom_store *p, enum prom_fmt fmt);
/*
 * The text format into the textfile, replaced whole (os/textfile.h), for
 * node_exporter's textfile collector. -1 with errno on failure; the file
 * is then left as it was.
 */
int prom_textfile(struct textfile *t, const struct prom_store *p);
/* The Content-Type of fmt. */
const char *prom_content_type(enum prom_fmt fmt);
/*
 * A label value, reversibly: at most len bytes of s (to a NUL), a
 * backslash as \\, and a byte that is a control character, DEL or not
 * part of valid UTF-8 as the text \xHH (as the CSV writes a comm, which
 * passes other bytes through), so two names never share a value; then
 * escaped for the exposition ('\\' and '"' get a backslash).
 */
void prom_label_value(FILE *f, const char *s, size_t len);

#endif
