/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One output row written field by field, as CSV (RFC 4180, the field
 * names left to a header) or as one JSON object per line (NDJSON, the CSV
 * column names as keys): the code that knows a row's fields writes it
 * once for both formats. Unknown values are an empty CSV field and JSON
 * null, never 0.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdbool.h>
#include <stdio.h>
#include "model/metrics.h"
#include "model/rows.h"

enum rec_fmt { REC_CSV, REC_JSON };

struct rec {
	FILE *f;
	enum rec_fmt fmt;
	int n;		/* fields written in this row */
};

void rec_begin(struct rec *r, FILE *f, enum rec_fmt fmt);
void rec_end(struct rec *r);
/* s NULL: unknown */
void rec_str(struct rec *r, const char *name, const char *s);
/* a string of at most len bytes, not necessarily NUL-terminated */
void rec_strn(struct rec *r, const char *name, const char *s, size_t len);
void rec_u64(struct rec *r, const char *name, unsigned long long u);
void rec_i64(struct rec *r, const char *name, long long i);
/* d with prec decimals; not finite: unknown */
void rec_fixed(struct rec *r, const char *name, double d, int prec);
void rec_null(struct rec *r, const char *name);
/* a metric's value in the CSV's form; PT_NA: unknown */
void rec_value(struct rec *r, const char *name, const struct pt_value *v);
/* the columns derived for c: "a;b" in CSV, ["a","b"] in JSON */
void rec_derived(struct rec *r, const char *name, const struct pt_counts *c,
		 const struct pt_env *env);

struct proc_args;

/*
 * Processes (the first n of total rows' keys): JSON, an array of
 * {"pid":N,"comm":"..."} objects (pass every one), with "args" (the
 * command line, null if not read) when args is not NULL; CSV, "comm[pid],..."
 * then ",+N" for those left out, each comm escaped as fmt_csv_escape()
 * does with ',', '[' and ']' as \xHH too, so the list splits back at its
 * commas and each entry at its last '['.
 */
void rec_procs(struct rec *r, const char *name, const struct pt_row *const *v,
	       size_t n, size_t total, const struct proc_args *args);

/*
 * A log2 histogram as an object keyed by each slot's lower bound (slot s:
 * 2^s, slot 0: 0), empty slots left out; JSON only. slot NULL: no values.
 */
void rec_hist(struct rec *r, const char *name, const __u64 *slot, int nslots);

/*
 * s (at most len bytes, stops at NUL) as a JSON string with its quotes:
 * '"', '\\' and control bytes escaped, and every byte outside ASCII as
 * \u00XX, so any comm gives valid JSON (and valid UTF-8).
 */
void json_string(FILE *f, const char *s, size_t len);

#endif
