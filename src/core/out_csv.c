// SPDX-License-Identifier: GPL-2.0
/*
 * CSV (RFC 4180): one header, one row per key per interval. Columns are a
 * contract with scripts: never renamed or reordered, only appended.
 */
#include "fmt.h"
#include "out.h"

int out_csv_header(FILE *f)
{
	fputs("time,interval_s,tier,key_type,pid,comm,pipe_ino", f);
	for (int i = 0; i < PT_NCOLS; i++) {
		if (pt_metrics[i].csv)
			fprintf(f, ",%s", pt_metrics[i].csv);
		if (i == PT_COL_DERIVED_AFTER)
			fputs(",derived", f);
	}
	fputc('\n', f);
	return fflush(f) ? -1 : 0;
}

static void csv_key(FILE *f, enum pt_by by, const struct pt_key *k)
{
	char comm[4 * PT_COMM_LEN + 3], name[PT_COMM_LEN + 1];
	bool has_pid = by_has_pid(by), has_comm = by_has_comm(by);
	bool has_pipe = by_has_pipe(by);

	snprintf(name, sizeof(name), "%.*s", PT_COMM_LEN, k->comm);
	fmt_csv_field(comm, sizeof(comm), has_comm ? name : "");
	if (has_pid)
		fprintf(f, ",%u", k->tgid);
	else
		fputs(",", f);
	fprintf(f, ",%s", comm);
	if (has_pipe)
		fprintf(f, ",%llu", (unsigned long long)k->ino);
	else
		fputs(",", f);
}

static void csv_row(FILE *f, const struct pt_report *r, const struct pt_row *row)
{
	char buf[64];

	fprintf(f, "%.3f,%.3f,%s,%s", r->time, r->interval_s,
		tier_name(r->env->tier), by_name(r->rows->by));
	csv_key(f, r->rows->by, &row->key);
	for (int i = 0; i < PT_NCOLS; i++) {
		struct pt_value v = pt_get(i, &row->c, r->env);

		if (pt_metrics[i].csv) {
			fmt_csv_value(buf, sizeof(buf), &v);
			fprintf(f, ",%s", buf);
		}
		if (i == PT_COL_DERIVED_AFTER) {
			fputc(',', f);
			out_csv_derived(f, &row->c, r->env);
		}
	}
	fputc('\n', f);
}

void out_csv_derived(FILE *f, const struct pt_counts *c, const struct pt_env *env)
{
	const char *sep = "";

	for (int i = 0; i < PT_NCOLS; i++) {
		if (!pt_metrics[i].csv || pt_get(i, c, env).q != PT_DERIVED)
			continue;
		fprintf(f, "%s%s", sep, pt_metrics[i].csv);
		sep = ";";
	}
}

int out_csv_report(FILE *f, const struct pt_report *r)
{
	for (size_t i = 0; i < r->rows->n; i++)
		csv_row(f, r, &r->rows->v[i]);
	return fflush(f) || ferror(f) ? -1 : 0;
}
