// SPDX-License-Identifier: GPL-2.0
/* The human table: a heading per interval, one line per key. */
#include <string.h>
#include <time.h>
#include "os/cgroup.h"
#include "os/proc_args.h"
#include "columns.h"
#include "ends.h"
#include "fmt.h"
#include "report.h"

/* The columns a report shows: -o's, or the default set. */
static const struct pt_columns *columns(const struct pt_report *r)
{
	static struct pt_columns def;

	if (r->cols)
		return r->cols;
	if (!def.n)
		columns_default(&def);
	return &def;
}

#define TABLE_COLS	80	/* a line with the default columns, at most */
#define NAME_MIN	24	/* a cgroup or a pipe's ends, however many -o adds */
#define ARGS_MIN	8	/* -k pid: the ARGS column, when there is room */

/* Where a line's parts go: the widths that depend on the rows printed. */
struct table_layout {
	int pipe_w;	/* the widest inode, at least "PIPE" */
	int cgroup_w;	/* the widest path, within TABLE_COLS */
	int ends_w;	/* writers -> readers, within TABLE_COLS */
	int args_w;	/* -k pid: the arguments, within the line; 0: none */
};

static int values_width(const struct pt_report *r)
{
	const struct pt_columns *cols = columns(r);
	char head[64];
	int w = 0;

	for (int i = 0; i < cols->n; i++)
		w += 1 + column_head(head, sizeof(head), pt_table_col(cols->col[i], r->env),
				     r->env, r->rate);
	return w;
}

/* The line's width: a wider terminal's, else TABLE_COLS. */
static int line_width(const struct pt_report *r)
{
	return r->width > TABLE_COLS ? r->width : TABLE_COLS;
}

/* What the line leaves a name column after the rest of it. */
static int room(const struct pt_report *r, int used)
{
	int left = line_width(r) - used;

	return left > NAME_MIN ? left : NAME_MIN;
}

static void lay_out(struct table_layout *l, const struct pt_report *r)
{
	enum pt_by by = r->rows->by;
	int values = values_width(r), cg_room = room(r, values + 1);
	char buf[4096];

	l->pipe_w = 4;
	l->cgroup_w = 6;
	for (size_t i = 0; i < out_nrows(r); i++) {
		const struct pt_key *k = &r->rows->v[i].key;
		int len;

		if (by_has_pipe(by)) {
			len = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)k->ino);
			l->pipe_w = len > l->pipe_w ? len : l->pipe_w;
		}
		if (by_has_cgroup(by)) {
			cgroup_name(buf, sizeof(buf), k->cgroup);
			len = strlen(buf);
			l->cgroup_w = len > l->cgroup_w ? len : l->cgroup_w;
		}
	}
	if (l->cgroup_w > cg_room)
		l->cgroup_w = cg_room;
	l->ends_w = room(r, l->pipe_w + 1 + values + 2);
	/* the arguments only where the line has room: never past it */
	l->args_w = r->args && by_has_pid(by) ? line_width(r) - (8 + 15 + values + 2) : 0;
	if (l->args_w < ARGS_MIN)
		l->args_w = 0;
}

static void heading(FILE *f, const struct pt_report *r, const struct table_layout *l)
{
	const struct pt_columns *cols = columns(r);
	enum pt_by by = r->rows->by;
	time_t t = (time_t)r->time;
	char when[16], head[64];

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	fprintf(f, "%s  tier: %s  interval: %.2fs  key: %s\n", when,
		tier_name(r->env->tier), r->interval_s, by_name(by));
	if (by == PT_BY_TOTAL)
		fprintf(f, "%-8s", "");
	if (by_has_pid(by))
		fprintf(f, "%-8s", "PID");
	if (by_has_comm(by))
		fprintf(f, "%-15s", "COMM");
	if (by_has_side(by))
		fprintf(f, "%-6s", "SIDE");
	if (by_has_pipe(by))
		fprintf(f, "%-*s ", l->pipe_w, "PIPE");
	if (by_has_cgroup(by))
		fprintf(f, "%-*s ", l->cgroup_w, "CGROUP");
	for (int i = 0; i < cols->n; i++) {
		int w = column_head(head, sizeof(head), pt_table_col(cols->col[i], r->env),
				    r->env, r->rate);

		fprintf(f, " %*s", w, head);
	}
	if (r->ends)
		fputs("  WRITERS -> READERS", f);
	else if (l->args_w)
		fputs("  ARGS", f);
	fputc('\n', f);
}

/* A pipe's ends in width characters (ends_text's rule), its processes by
 * pid with their arguments. */
static void ends_cell(char *buf, size_t n, const struct pt_report *rep,
		      const struct pt_key *pipe, int width)
{
	const struct pt_row *w[ENDS_LISTED], *r[ENDS_LISTED];
	struct ends_side sw = { .v = w, .args = rep->args }, sr = { .v = r, .args = rep->args };
	const struct pt_rows *ends = rep->ends;

	sw.total = ends_list(ends, pipe, true, w, ENDS_LISTED);
	sr.total = ends_list(ends, pipe, false, r, ENDS_LISTED);
	sw.k = sw.total < ENDS_LISTED ? sw.total : ENDS_LISTED;
	sr.k = sr.total < ENDS_LISTED ? sr.total : ENDS_LISTED;
	ends_text(buf, n, &sw, &sr, width);
}

static void line(FILE *f, const struct pt_report *r, const struct pt_row *row,
		 const struct table_layout *l)
{
	const struct pt_columns *cols = columns(r);
	enum pt_by by = r->rows->by;
	char buf[32], head[64], comm[PT_COMM_LEN + 1];

	if (by == PT_BY_TOTAL)
		fprintf(f, "%-8s", "total");
	if (by_has_pid(by))
		fprintf(f, "%-8u", row->key.tgid);
	if (by_has_comm(by))
		fprintf(f, "%-15.15s", fmt_comm(comm, row->key.comm));
	if (by_has_side(by))
		fprintf(f, "%-6s", row->side ? side_name(row->side) : "-");
	if (by_has_pipe(by))
		fprintf(f, "%-*llu ", l->pipe_w, (unsigned long long)row->key.ino);
	if (by_has_cgroup(by)) {
		char cg[4096];
		int len;

		cgroup_name(cg, sizeof(cg), row->key.cgroup);
		len = strlen(cg);
		/* a path too long keeps its end, the leaf: ".." for the rest */
		if (len > l->cgroup_w)
			fprintf(f, "..%s ", cg + len - (l->cgroup_w - 2));
		else
			fprintf(f, "%-*s ", l->cgroup_w, cg);
	}
	for (int i = 0; i < cols->n; i++) {
		enum pt_col col = pt_table_col(cols->col[i], r->env);
		int w = column_head(head, sizeof(head), col, r->env, r->rate);
		struct pt_value v = out_value(r, col, row, true);

		if (v.q != PT_NA && v.type == PT_V_U64 && !strcmp(pt_metrics[col].unit, "bytes"))
			fmt_iec(buf, sizeof(buf), v.u);
		else
			fmt_table_value(buf, sizeof(buf), &v, w);
		fprintf(f, " %*s", w, buf);
	}
	if (r->ends) {
		char ends[1024];

		ends_cell(ends, sizeof(ends), r, &row->key, l->ends_w);
		fprintf(f, "  %s", ends);
	} else if (l->args_w) {
		const char *a = args_of(r->args, row->key.tgid, row->key.comm);
		char marked[FMT_ARGS_MARKED_LEN];

		/* "-": gone before they were read; none: nothing */
		if (!a || *fmt_args_marked(marked, sizeof(marked), args_after_command(a),
					   l->args_w))
			fprintf(f, "  %s", a ? marked : "-");
	}
	fputc('\n', f);
}

int out_table_report(FILE *f, const struct pt_report *r)
{
	struct table_layout l;
	char lost[256];

	lay_out(&l, r);
	heading(f, r, &l);
	for (size_t i = 0; i < out_nrows(r); i++)
		line(f, r, &r->rows->v[i], &l);
	if (!r->rows->n)
		fputs("(no pipe activity)\n", f);
	if (*fmt_lost(lost, sizeof(lost), r->env))
		fprintf(f, "warning: %s\n", lost);
	fprintf(f, "* derived, not measured; - not known on this tier; " FMT_UNITS "\n\n");
	return fflush(f) || ferror(f) ? -1 : 0;
}
