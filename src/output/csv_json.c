// SPDX-License-Identifier: GPL-2.0
/*
 * CSV (RFC 4180): one header, one row per key per interval. Columns are a
 * contract with scripts: never renamed or reordered, only appended.
 * JSON (--json): the same rows as NDJSON, keyed by the CSV column names.
 */
#include <stdlib.h>
#include "fmt.h"
#include "report.h"
#include "os/cgroup.h"
#include "os/proc_args.h"
#include "csv_layout.h"
#include "ends.h"
#include "record.h"

/* One row of a report: what the layout's own fields read. */
struct csv_row {
	const struct pt_report *r;
	const struct pt_row *row;
};

static void put_time(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	rec_fixed(o, name, a->r->time, 3);
}

static void put_interval(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	rec_fixed(o, name, a->r->interval_s, 3);
}

static void put_tier(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	rec_str(o, name, tier_name(a->r->env->tier));
}

static void put_key_type(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	rec_str(o, name, by_name(a->r->rows->by));
}

/* The key fields the key type does not use are unknown. */
static void put_pid(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	if (by_has_pid(a->r->rows->by))
		rec_u64(o, name, a->row->key.tgid);
	else
		rec_null(o, name);
}

static void put_comm(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	if (by_has_comm(a->r->rows->by))
		rec_strn(o, name, a->row->key.comm, PT_COMM_LEN);
	else
		rec_null(o, name);
}

static void put_pipe_ino(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	if (by_has_pipe(a->r->rows->by))
		rec_u64(o, name, a->row->key.ino);
	else
		rec_null(o, name);
}

static void put_derived(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	rec_derived(o, name, &a->row->c, a->r->env);
}

/* A pipe's writers or readers: all in JSON, ENDS_LISTED and "+N" in CSV. */
static void procs(struct rec *o, const char *name, const struct pt_report *r,
		  const struct pt_key *pipe, bool writers)
{
	const struct pt_rows *ends = r->ends;
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
	rec_procs(o, name, v, n, total, r->args);
	if (v != few)
		free(v);
}

static void put_cgroup(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;
	char cg[4096];

	if (!by_has_cgroup(a->r->rows->by)) {
		rec_null(o, name);
		return;
	}
	cgroup_name(cg, sizeof(cg), a->row->key.cgroup);
	rec_str(o, name, cg);
}

static void put_ends(struct rec *o, const char *name, const struct csv_row *a,
		     bool writers)
{
	if (a->r->ends)
		procs(o, name, a->r, &a->row->key, writers);
	else
		rec_null(o, name);
}

static void put_writers(struct rec *o, const char *name, const void *arg)
{
	put_ends(o, name, arg, true);
}

static void put_readers(struct rec *o, const char *name, const void *arg)
{
	put_ends(o, name, arg, false);
}

/* -k pipe: the pipe's device, which with pipe_ino names it */
static void put_pipe_dev(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;
	char dev[24];

	if (!by_has_pipe(a->r->rows->by)) {
		rec_null(o, name);
		return;
	}
	fmt_dev(dev, sizeof(dev), a->row->key.dev);
	rec_str(o, name, dev);
}

/* -k pid: the process's command line, as read when its row was made */
static void put_args(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	if (by_has_pid(a->r->rows->by))
		rec_str(o, name, args_of(a->r->args, a->row->key.tgid, a->row->key.comm));
	else
		rec_null(o, name);
}

/* -k comm: the side its processes took */
static void put_side(struct rec *o, const char *name, const void *arg)
{
	const struct csv_row *a = arg;

	rec_str(o, name, by_has_side(a->r->rows->by) && a->row->side ?
		side_name(a->row->side) : NULL);
}

static struct pt_value metric(enum pt_col col, const void *arg)
{
	const struct csv_row *a = arg;

	return out_value(a->r, col, a->row, false);
}

/*
 * pipestat's fields. Key fields added after the first metrics follow the
 * columns there were when they came (cgroup, writers and readers after
 * eof_reads; pipe_dev after ring_quota_shrunk; args and side after
 * blocked_since), and 'derived' was once the last field; columns appended
 * since come after them all.
 */
static const struct csv_field fields[] = {
	CSV_OWN("time", put_time, "end of the interval, Unix seconds (ms precision)"),
	CSV_OWN("interval_s", put_interval, "length of the interval measured"),
	CSV_OWN("tier", put_tier, "`tracepoint`, `function` or `syscall`"),
	CSV_OWN("key_type", put_key_type, "`total`, `pid`, `comm`, `pipe` or `cgroup`"),
	CSV_OWN("pid", put_pid, "the key's process (empty when not part of the key)"),
	CSV_OWN("comm", put_comm, "the key's command name (empty when not part of the key)"),
	CSV_OWN("pipe_ino", put_pipe_ino, "the key's pipe inode (empty when not part of the key)"),
	CSV_COLS(PT_COL_READS, PT_COL_UNTRACKED),
	CSV_OWN("derived", put_derived, "the columns of this row that are derived, `;`-separated"),
	CSV_COLS(PT_COL_WAITS_READ, PT_COL_EOF_READS),
	CSV_OWN("cgroup", put_cgroup, "with `-k cgroup`: the cgroup v2 path below the cgroup2 "
		"mount (`id:N` once it is removed), else empty"),
	CSV_OWN("writers", put_writers, "with `-k pipe`: the processes writing into the pipe, "
		"`comm[pid]`, comma-separated (the first 32, then `+N`), else empty"),
	CSV_OWN("readers", put_readers, "with `-k pipe`: the processes reading from it, as "
		"`writers`"),
	CSV_COLS(PT_COL_RING_SLOTS, PT_COL_RING_QUOTA_SHRUNK),
	CSV_OWN("pipe_dev", put_pipe_dev, "with `pipe_ino`, the pipe: its file system's device, "
		"major:minor"),
	CSV_COLS(PT_COL_ALLOC_WASTED, PT_COL_IN_BYTES),
	CSV_OWN("args", put_args, "with `-k pid`: the process's command line (its arguments a "
		"space apart, the first 255 bytes), read from /proc when pipestat first saw it "
		"counted; empty if it was gone first"),
	CSV_OWN("side", put_side, "with `-k comm`: the side of their pipes the row's "
		"processes took, `write`, `read` or `both` (of one pipe); empty for neither"),
	CSV_REST,
};

const struct csv_layout out_csv_layout = {
	fields, sizeof(fields) / sizeof(fields[0]), csv_all_cols, metric,
};

int out_csv_header(FILE *f)
{
	csv_header(f, &out_csv_layout);
	return fflush(f) ? -1 : 0;
}

static void row_record(FILE *f, enum rec_fmt fmt, const struct pt_report *r,
		       const struct pt_row *row)
{
	struct rec o;

	rec_begin(&o, f, fmt);
	csv_row(&o, &out_csv_layout, &(struct csv_row){ r, row });
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
