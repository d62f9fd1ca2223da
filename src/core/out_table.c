// SPDX-License-Identifier: GPL-2.0
/* The human table: a heading per interval, one line per key. */
#include <string.h>
#include <time.h>
#include "fmt.h"
#include "out.h"

static void heading(FILE *f, const struct pt_report *r)
{
	enum pt_by by = r->rows->by;
	time_t t = (time_t)r->time;
	char when[16], head[16];

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	fprintf(f, "%s  tier: %s  interval: %.2fs  key: %s\n", when,
		tier_name(r->env->tier), r->interval_s, by_name(by));
	if (by == PT_BY_TOTAL)
		fprintf(f, "%-8s", "");
	if (by_has_pid(by))
		fprintf(f, "%-8s", "PID");
	if (by_has_comm(by))
		fprintf(f, "%-16s ", "COMM");
	if (by_has_pipe(by))
		fprintf(f, "%-10s ", "PIPE");
	for (int i = 0; i < PT_NCOLS; i++) {
		if (!pt_metrics[i].head)
			continue;
		snprintf(head, sizeof(head), "%s%s", pt_metrics[i].head,
			 pt_col_quality(i, r->env) == PT_DERIVED ? "*" : "");
		fprintf(f, " %*s", pt_metrics[i].width, head);
	}
	fputc('\n', f);
}

static void line(FILE *f, const struct pt_report *r, const struct pt_row *row)
{
	enum pt_by by = r->rows->by;
	char buf[32], comm[PT_COMM_LEN + 1];

	if (by == PT_BY_TOTAL)
		fprintf(f, "%-8s", "total");
	if (by_has_pid(by))
		fprintf(f, "%-8u", row->key.tgid);
	if (by_has_comm(by))
		fprintf(f, "%-16.16s ", fmt_comm(comm, row->key.comm));
	if (by_has_pipe(by))
		fprintf(f, "%-10llu ", (unsigned long long)row->key.ino);
	for (int i = 0; i < PT_NCOLS; i++) {
		struct pt_value v;

		if (!pt_metrics[i].head)
			continue;
		v = pt_get(i, &row->c, r->env);
		fmt_table_value(buf, sizeof(buf), &v, pt_metrics[i].width);
		fprintf(f, " %*s", pt_metrics[i].width, buf);
	}
	fputc('\n', f);
}

int out_table_report(FILE *f, const struct pt_report *r)
{
	heading(f, r);
	for (size_t i = 0; i < r->rows->n; i++)
		line(f, r, &r->rows->v[i]);
	if (!r->rows->n)
		fputs("(no pipe activity)\n", f);
	if (r->env->untracked)
		fprintf(f, "warning: %llu events not tracked: counter map full\n",
			(unsigned long long)r->env->untracked);
	fprintf(f, "* derived, not measured directly; - not known on this tier\n\n");
	return fflush(f) || ferror(f) ? -1 : 0;
}
