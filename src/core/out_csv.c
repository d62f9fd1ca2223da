// SPDX-License-Identifier: GPL-2.0
/*
 * CSV (RFC 4180): one header, one row per key per interval. Columns are a
 * contract with scripts: never renamed or reordered, only appended.
 * JSON (--json): the same rows as NDJSON, keyed by the CSV column names.
 */
#include <stdlib.h>
#include "fmt.h"
#include "out.h"
#include "cgroup.h"
#include "ends.h"
#include "record.h"

int out_csv_header(FILE *f)
{
	fputs("time,interval_s,tier,key_type,pid,comm,pipe_ino", f);
	for (int i = 0; i < PT_NCOLS; i++) {
		if (pt_metrics[i].csv)
			fprintf(f, ",%s", pt_metrics[i].csv);
		if (i == PT_COL_DERIVED_AFTER)
			fputs(",derived", f);
		if (i == PT_COL_KEYS_AFTER)
			fputs(",cgroup,writers,readers", f);
		if (i == PT_COL_PIPE_DEV_AFTER)
			fputs(",pipe_dev", f);
	}
	fputc('\n', f);
	return fflush(f) ? -1 : 0;
}

/* The key fields the key type does not use are unknown. */
static void key_fields(struct rec *o, enum pt_by by, const struct pt_key *k)
{
	bool has_pid = by_has_pid(by), has_comm = by_has_comm(by);
	bool has_pipe = by_has_pipe(by);

	if (has_pid)
		rec_u64(o, "pid", k->tgid);
	else
		rec_null(o, "pid");
	if (has_comm)
		rec_strn(o, "comm", k->comm, PT_COMM_LEN);
	else
		rec_null(o, "comm");
	if (has_pipe)
		rec_u64(o, "pipe_ino", k->ino);
	else
		rec_null(o, "pipe_ino");
}

/* A pipe's writers or readers: all in JSON, ENDS_LISTED and "+N" in CSV. */
static void procs(struct rec *o, const char *name, const struct pt_rows *ends,
		  const struct pt_key *pipe, bool writers)
{
	const struct pt_row *few[ENDS_LISTED], **v = few;
	size_t total = ends_list(ends, pipe, writers, few, ENDS_LISTED);
	size_t n = total < ENDS_LISTED ? total : ENDS_LISTED;

	if (o->fmt == REC_JSON && total > ENDS_LISTED) {
		v = malloc(total * sizeof(*v));
		if (v)
			n = ends_list(ends, pipe, writers, v, total);
		else
			v = few;
	}
	rec_procs(o, name, v, n, total);
	if (v != few)
		free(v);
}

/* The key columns added after the metrics: cgroup, writers, readers. */
static void later_keys(struct rec *o, const struct pt_report *r,
		       const struct pt_row *row)
{
	if (by_has_cgroup(r->rows->by)) {
		char cg[4096];

		cgroup_name(cg, sizeof(cg), row->key.cgroup);
		rec_str(o, "cgroup", cg);
	} else {
		rec_null(o, "cgroup");
	}
	if (r->ends) {
		procs(o, "writers", r->ends, &row->key, true);
		procs(o, "readers", r->ends, &row->key, false);
	} else {
		rec_null(o, "writers");
		rec_null(o, "readers");
	}
}

/* -k pipe: the pipe's device, which with pipe_ino names it */
static void pipe_dev(struct rec *o, enum pt_by by, const struct pt_key *k)
{
	char dev[24];

	if (!by_has_pipe(by)) {
		rec_null(o, "pipe_dev");
		return;
	}
	fmt_dev(dev, sizeof(dev), k->dev);
	rec_str(o, "pipe_dev", dev);
}

static void row_record(FILE *f, enum rec_fmt fmt, const struct pt_report *r,
		       const struct pt_row *row)
{
	struct rec o;

	rec_begin(&o, f, fmt);
	rec_fixed(&o, "time", r->time, 3);
	rec_fixed(&o, "interval_s", r->interval_s, 3);
	rec_str(&o, "tier", tier_name(r->env->tier));
	rec_str(&o, "key_type", by_name(r->rows->by));
	key_fields(&o, r->rows->by, &row->key);
	for (int i = 0; i < PT_NCOLS; i++) {
		struct pt_value v = out_value(r, i, row, false);

		if (pt_metrics[i].csv)
			rec_value(&o, pt_metrics[i].csv, &v);
		if (i == PT_COL_DERIVED_AFTER)
			rec_derived(&o, "derived", &row->c, r->env);
		if (i == PT_COL_KEYS_AFTER)
			later_keys(&o, r, row);
		if (i == PT_COL_PIPE_DEV_AFTER)
			pipe_dev(&o, r->rows->by, &row->key);
	}
	for (int h = 0; h < PT_NHIST && fmt == REC_JSON; h++) {
		char name[32];

		if (!(r->hists & (1u << h)))
			continue;
		snprintf(name, sizeof(name), "hist_%s", hist_name(h));
		rec_hist(&o, name, row->hist ? row->hist[h] : NULL, PT_HIST_SLOTS);
	}
	rec_end(&o);
}

static int report(FILE *f, enum rec_fmt fmt, const struct pt_report *r)
{
	for (size_t i = 0; i < out_nrows(r); i++)
		row_record(f, fmt, r, &r->rows->v[i]);
	return fflush(f) || ferror(f) ? -1 : 0;
}

int out_csv_report(FILE *f, const struct pt_report *r)
{
	return report(f, REC_CSV, r);
}

int out_json_report(FILE *f, const struct pt_report *r)
{
	return report(f, REC_JSON, r);
}
