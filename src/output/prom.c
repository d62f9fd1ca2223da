// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "os/cgroup.h"
#include "fmt.h"
#include "prom.h"

void prom_init(struct prom_store *p, enum pt_by by, size_t cap, unsigned int hists)
{
	memset(p, 0, sizeof(*p));
	rows_init(&p->keys, by);
	rows_init(&p->overflow_hists, PT_BY_TOTAL);
	p->cap = cap;
	p->hists = hists;
	p->env.tier = PT_TIER_COUNT;
}

void prom_free(struct prom_store *p)
{
	rows_free(&p->keys);
	rows_free(&p->overflow_hists);
	free(p->sets);
	p->sets = NULL;
}

/*
 * The label set of k, with events at now: its own, or past the cap the
 * overflow one; NULL on OOM.
 */
static struct prom_set *set_of(struct prom_store *p, const struct pt_key *k, double now)
{
	static const struct pt_counts none;
	long i = rows_find(&p->keys, k);
	struct prom_set *set;

	if (i >= 0) {
		p->sets[i].last = now;
		return &p->sets[i];
	}
	if (p->keys.n >= p->cap) {
		p->overflowed = true;
		return &p->overflow;
	}
	if (pt_grow((void **)&p->sets, &p->sets_cap, p->keys.n + 1, sizeof(*p->sets), 64) ||
	    rows_add(&p->keys, k, &none))
		return NULL;
	set = &p->sets[p->keys.n - 1];
	memset(set, 0, sizeof(*set));
	set->last = now;
	return set;
}

/* Series k of column col in one interval's counts c; false if not known. */
static bool series_value(enum pt_col col, int k, const struct pt_counts *c,
			 const struct pt_env *env, __u64 *u)
{
	size_t raw = pt_metrics[col].series[k].raw;
	struct pt_value v;

	if (raw) {
		*u = *(const __u64 *)((const char *)c + raw - 1);
		return pt_col_quality(col, env) != PT_NA;
	}
	v = pt_get(col, c, env);
	*u = v.u;
	return v.q != PT_NA;
}

/*
 * The label sets of keys without events for p->ttl seconds are dropped,
 * freeing their room under the cap (the overflow series stays: it is no
 * key's; so does -k total's one set, the host's).
 */
static int expire(struct prom_store *p, double now)
{
	size_t n = 0;
	bool *keep;

	if (!p->ttl || p->keys.by == PT_BY_TOTAL || !p->keys.n)
		return 0;
	keep = calloc(p->keys.n, sizeof(*keep));
	if (!keep)
		return -1;
	for (size_t i = 0; i < p->keys.n; i++) {
		keep[i] = now - p->sets[i].last < p->ttl;
		if (keep[i])
			p->sets[n++] = p->sets[i];
	}
	rows_keep(&p->keys, keep);
	free(keep);
	return 0;
}

int prom_add(struct prom_store *p, const struct pt_rows *rows,
	     const struct pt_env *env, double now)
{
	p->env = *env;
	p->untracked += env->untracked;
	for (size_t i = 0; i < rows->n; i++) {
		struct prom_set *set = set_of(p, &rows->v[i].key, now);
		__u64 u;

		if (!set || rows_add_hists(set == &p->overflow ? &p->overflow_hists :
					   &p->keys, &rows->v[i]))
			return -1;
		for (int c = 0; c < PT_NCOLS; c++)
			for (int k = 0; k < PT_PROM_SERIES; k++)
				if (pt_metrics[c].prom && pt_metrics[c].series[k].labels &&
				    !pt_metrics[c].knob &&
				    series_value(c, k, &rows->v[i].c, env, &u))
					set->v[c][k] += u;
	}
	return expire(p, now);
}

/* The length of a valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* no overlong forms, surrogates or code points past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void prom_label_value(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	len = strnlen(s, len);
	for (size_t i = 0; i < len; i++) {
		size_t n = u[i] >= 0x80 ? utf8_len(u + i, len - i) : 0;

		if (n) {
			fwrite(u + i, 1, n, f);
			i += n - 1;
		} else if (u[i] == '\\') {
			fputs("\\\\\\\\", f);	/* \\ in the value */
		} else if (u[i] == '"') {
			fputs("\\\"", f);
		} else if (u[i] < 0x20 || u[i] >= 0x7f) {
			fprintf(f, "\\\\x%02x", u[i]);	/* \xHH in the value */
		} else {
			fputc(u[i], f);
		}
	}
}

/*
 * {tier="..",<key labels>,<own labels>[,le=".."]} of one series; key
 * NULL: the overflow series.
 */
static void labels(FILE *f, const struct prom_store *p, const struct pt_key *key,
		   const char *own, const char *le)
{
	enum pt_by by = p->keys.by;

	fprintf(f, "{tier=\"%s\"", tier_name(p->env.tier));
	if (!key) {
		fputs(",overflow=\"true\"", f);
	} else {
		if (by_has_pid(by))
			fprintf(f, ",pid=\"%u\"", key->tgid);
		if (by_has_comm(by)) {
			fputs(",comm=\"", f);
			prom_label_value(f, key->comm, PT_COMM_LEN);
			fputc('"', f);
		}
		if (by_has_pipe(by)) {
			char dev[24];

			fmt_dev(dev, sizeof(dev), key->dev);
			fprintf(f, ",pipe_dev=\"%s\",pipe_ino=\"%llu\"", dev,
				(unsigned long long)key->ino);
		}
		if (by_has_cgroup(by)) {
			char cg[4096];

			cgroup_name(cg, sizeof(cg), key->cgroup);
			fputs(",cgroup=\"", f);
			prom_label_value(f, cg, sizeof(cg));
			fputc('"', f);
		}
	}
	if (*own)
		fprintf(f, ",%s", own);
	if (le)
		fprintf(f, ",le=\"%s\"", le);
	fputc('}', f);
}

/*
 * # HELP and # TYPE of a family; OpenMetrics names a counter's family
 * without _total.
 */
static void family(FILE *f, enum prom_fmt fmt, const char *name, const char *type,
		   const char *help, const char *note)
{
	int len = strlen(name);

	if (fmt == PROM_OPENMETRICS && !strcmp(type, "counter"))
		len -= strlen("_total");
	fprintf(f, "# HELP pipetrace_%.*s %s%s\n", len, name, help, note);
	fprintf(f, "# TYPE pipetrace_%.*s %s\n", len, name, type);
}

/* v, in seconds when it counts ns: exactly, to the nanosecond */
static void value(char *buf, size_t n, __u64 v, bool ns)
{
	if (ns)
		snprintf(buf, n, "%llu.%09llu", (unsigned long long)(v / 1000000000),
			 (unsigned long long)(v % 1000000000));
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

/* Series k of column col: a count in ns is exported in seconds. */
static void sample(FILE *f, const struct prom_store *p, enum pt_col col, int k,
		   const struct pt_key *key, __u64 v)
{
	char buf[32];

	value(buf, sizeof(buf), v, !strcmp(pt_metrics[col].unit, "ns"));
	fprintf(f, "pipetrace_%s", pt_metrics[col].prom);
	labels(f, p, key, pt_metrics[col].series[k].labels, NULL);
	fprintf(f, " %s\n", buf);
}

/* Whether column col has series of family name. */
static bool in_family(enum pt_col col, const char *name)
{
	return pt_metrics[col].prom && !strcmp(pt_metrics[col].prom, name);
}

/* Whether column col opens its family: no column before it has one. */
static bool family_first(enum pt_col col)
{
	for (int c = 0; c < (int)col; c++)
		if (in_family(c, pt_metrics[col].prom))
			return false;
	return true;
}

/* The histograms of the family starting at first, up to (not with) its end. */
static size_t hist_family_end(size_t first)
{
	size_t end = first + 1;

	while (end < PROM_NHISTS && !strcmp(prom_hists[end].name, prom_hists[first].name))
		end++;
	return end;
}

/* A knob: its value now, labelled by the tier only. */
static void gauge(FILE *f, const struct prom_store *p, enum prom_fmt fmt,
		  enum pt_col col)
{
	static const struct pt_counts none;
	const struct pt_metric *m = &pt_metrics[col];
	struct pt_value v = pt_get(col, &none, &p->env);

	if (v.q == PT_NA)
		return;
	family(f, fmt, m->prom, "gauge", m->help, "");
	fprintf(f, "pipetrace_%s{tier=\"%s\"} %llu\n", m->prom,
		tier_name(p->env.tier), (unsigned long long)v.u);
}

/* The family of counters opened by column first: every label set's known
 * series, wherever their columns are in the table. */
static void counters(FILE *f, const struct prom_store *p, enum prom_fmt fmt,
		     enum pt_col first)
{
	const char *name = pt_metrics[first].prom;
	bool known[PT_NCOLS] = {}, any = false, derived = false;

	for (int c = first; c < PT_NCOLS; c++) {
		enum pt_quality q = pt_col_quality(c, &p->env);

		known[c] = in_family(c, name) && q != PT_NA;
		any |= known[c];
		derived |= known[c] && q == PT_DERIVED;
	}
	if (!any)
		return;
	family(f, fmt, name, "counter", pt_metrics[first].help,
	       derived ? " (derived on this tier)" : "");
	for (size_t r = 0; r <= p->keys.n; r++) {
		const struct pt_key *key = r < p->keys.n ? &p->keys.v[r].key : NULL;
		const struct prom_set *set = key ? &p->sets[r] : &p->overflow;

		if (!key && !p->overflowed)
			break;
		for (int c = first; c < PT_NCOLS; c++)
			for (int k = 0; k < PT_PROM_SERIES && known[c]; k++)
				if (pt_metrics[c].series[k].labels)
					sample(f, p, c, k, key, set->v[c][k]);
	}
}

/*
 * One histogram of one label set: log2 slot s holds the values up to
 * 2^(s+1) - 1 (the last one, all above), so its bucket has that bound.
 */
static void histogram(FILE *f, const struct prom_store *p, const struct prom_hist *h,
		      const struct pt_key *key, const struct pt_row *row)
{
	const __u64 *slot = row->hist[h->hist];
	char le[32], v[32];
	__u64 n = 0;

	for (int s = 0; s < PT_HIST_SLOTS; s++) {
		n += slot[s];
		if (s == PT_HIST_SLOTS - 1)
			snprintf(le, sizeof(le), "+Inf");
		else
			value(le, sizeof(le), (2ull << s) - 1, h->ns);
		fprintf(f, "pipetrace_%s_bucket", h->name);
		labels(f, p, key, h->labels, le);
		fprintf(f, " %llu\n", (unsigned long long)n);
	}
	value(v, sizeof(v), row->hist_sum[h->hist], h->ns);
	fprintf(f, "pipetrace_%s_sum", h->name);
	labels(f, p, key, h->labels, NULL);
	fprintf(f, " %s\npipetrace_%s_count", v, h->name);
	labels(f, p, key, h->labels, NULL);
	fprintf(f, " %llu\n", (unsigned long long)n);
}

/* The histograms [first, end) of one family that --hist asked for. */
static void histograms(FILE *f, const struct prom_store *p, enum prom_fmt fmt,
		       size_t first, size_t end)
{
	bool known[PROM_NHISTS] = {}, any = false;

	for (size_t i = first; i < end; i++) {
		known[i] = p->hists & (1u << prom_hists[i].hist) &&
			   pt_col_quality(prom_hists[i].col, &p->env) != PT_NA;
		any |= known[i];
	}
	if (!any)
		return;
	family(f, fmt, prom_hists[first].name, "histogram", prom_hists[first].help,
	       prom_hists[first].derived_tp && p->env.tier == PT_TIER_TRACEPOINT ?
	       " (derived on this tier)" : "");
	for (size_t r = 0; r <= p->keys.n; r++) {
		const struct pt_row *row = r < p->keys.n ? &p->keys.v[r] :
					   p->overflow_hists.n ? &p->overflow_hists.v[0] : NULL;

		if (!row || !row->hist)
			continue;
		for (size_t i = first; i < end; i++)
			if (known[i])
				histogram(f, p, &prom_hists[i],
					  r < p->keys.n ? &row->key : NULL, row);
	}
}

int prom_render(FILE *f, const struct prom_store *p, enum prom_fmt fmt)
{
	const char *tier = tier_name(p->env.tier);

	family(f, fmt, "build_info", "gauge", "pipetrace version and the tier counting.", "");
	fprintf(f, "pipetrace_build_info{version=\"%s\",tier=\"%s\"} 1\n",
		PIPETRACE_VERSION, tier);
	for (int c = 0; c < PT_NCOLS; c++) {
		if (!pt_metrics[c].prom || !family_first(c))
			continue;
		if (pt_metrics[c].knob)
			gauge(f, p, fmt, c);
		else
			counters(f, p, fmt, c);
	}
	for (size_t h = 0, end; h < PROM_NHISTS; h = end) {
		end = hist_family_end(h);
		histograms(f, p, fmt, h, end);
	}
	family(f, fmt, "untracked_events_total", "counter",
	       "Events not counted: the in-kernel counter map was full.", "");
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
