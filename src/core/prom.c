// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "cgroup.h"
#include "fmt.h"
#include "prom.h"

void prom_init(struct prom_store *p, enum pt_by by, size_t cap)
{
	memset(p, 0, sizeof(*p));
	rows_init(&p->totals, by);
	p->cap = cap;
	p->env.tier = PT_TIER_COUNT;
}

void prom_free(struct prom_store *p)
{
	rows_free(&p->totals);
}

int prom_add(struct prom_store *p, const struct pt_rows *rows,
	     const struct pt_env *env)
{
	p->env = *env;
	p->untracked += env->untracked;
	for (size_t i = 0; i < rows->n; i++) {
		const struct pt_row *row = &rows->v[i];

		if (p->totals.n >= p->cap && !rows_has(&p->totals, &row->key)) {
			counts_add(&p->overflow, &row->c);
			p->overflowed = true;
		} else if (rows_add(&p->totals, &row->key, &row->c)) {
			return -1;
		}
	}
	return 0;
}

void prom_label_value(FILE *f, const char *s, size_t len)
{
	fmt_escaped(f, s, len, "\\\\x%02x");
}

/* {tier="..",<key labels>} of one series; row NULL: the overflow series */
static void labels(FILE *f, const struct prom_store *p, const struct pt_row *row)
{
	enum pt_by by = p->totals.by;

	fprintf(f, "{tier=\"%s\"", tier_name(p->env.tier));
	if (!row) {
		fputs(",overflow=\"true\"}", f);
		return;
	}
	if (by == PT_BY_PID)
		fprintf(f, ",pid=\"%u\"", row->key.tgid);
	if (by == PT_BY_PID || by == PT_BY_COMM) {
		fputs(",comm=\"", f);
		prom_label_value(f, row->key.comm, PT_COMM_LEN);
		fputc('"', f);
	}
	if (by == PT_BY_PIPE)
		fprintf(f, ",pipe_ino=\"%llu\"", (unsigned long long)row->key.ino);
	if (by_has_cgroup(by)) {
		char cg[4096];

		cgroup_name(cg, sizeof(cg), row->key.cgroup);
		fputs(",cgroup=\"", f);
		prom_label_value(f, cg, sizeof(cg));
		fputc('"', f);
	}
	fputc('}', f);
}

/* # HELP and # TYPE of a family; OpenMetrics names a counter without _total */
static void family(FILE *f, enum prom_fmt fmt, const char *name, bool counter,
		   const char *help, const char *note)
{
	const char *suffix = counter && fmt == PROM_TEXT ? "_total" : "";

	fprintf(f, "# HELP pipetrace_%s%s %s%s\n", name, suffix, help, note);
	fprintf(f, "# TYPE pipetrace_%s%s %s\n", name, suffix,
		counter ? "counter" : "gauge");
}

static void sample(FILE *f, const struct prom_store *p, const char *name,
		   const struct pt_row *row, const struct pt_counts *c, int col)
{
	struct pt_value v = pt_get(col, c, &p->env);

	if (v.q == PT_NA)
		return;
	fprintf(f, "pipetrace_%s_total", name);
	labels(f, p, row);
	fprintf(f, " %llu\n", (unsigned long long)v.u);
}

int prom_render(FILE *f, const struct prom_store *p, enum prom_fmt fmt)
{
	const char *tier = tier_name(p->env.tier);

	family(f, fmt, "build_info", false, "pipetrace version and the tier counting", "");
	fprintf(f, "pipetrace_build_info{version=\"%s\",tier=\"%s\"} 1\n",
		PIPETRACE_VERSION, tier);
	for (int i = 0; i < PT_NCOLS; i++) {
		const struct pt_metric *m = &pt_metrics[i];
		enum pt_quality q = pt_col_quality(i, &p->env);
		struct pt_value v;

		if (!m->csv || m->type != PT_V_U64 || i == PT_COL_UNTRACKED || q == PT_NA)
			continue;
		if (m->knob) {
			static const struct pt_counts none;

			v = pt_get(i, &none, &p->env);
			if (v.q == PT_NA)
				continue;
			family(f, fmt, m->csv, false, m->what, "");
			fprintf(f, "pipetrace_%s{tier=\"%s\"} %llu\n", m->csv, tier,
				(unsigned long long)v.u);
			continue;
		}
		family(f, fmt, m->csv, true, m->what,
		       q == PT_DERIVED ? " (derived on this tier)" : "");
		for (size_t r = 0; r < p->totals.n; r++)
			sample(f, p, m->csv, &p->totals.v[r], &p->totals.v[r].c, i);
		if (p->overflowed)
			sample(f, p, m->csv, NULL, &p->overflow, i);
	}
	family(f, fmt, "untracked_events", true, pt_metrics[PT_COL_UNTRACKED].what, "");
	fprintf(f, "pipetrace_untracked_events_total{tier=\"%s\"} %llu\n", tier,
		(unsigned long long)p->untracked);
	if (fmt == PROM_OPENMETRICS)
		fputs("# EOF\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}

const char *prom_content_type(enum prom_fmt fmt)
{
	return fmt == PROM_OPENMETRICS ?
	       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}

static int render_text(FILE *f, const void *p)
{
	return prom_render(f, p, PROM_TEXT);
}

int prom_textfile(struct textfile *t, const struct prom_store *p)
{
	return textfile_replace(t, render_text, p);
}
