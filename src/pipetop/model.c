// SPDX-License-Identifier: GPL-2.0
/* pipetop's model: grouping, values, sorting and the text of cells. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pipeline/blocked.h"
#include "os/proc_args.h"
#include "output/fmt.h"
#include "model.h"

/* How a column's cells read: a rate, a percentage, bytes or a ratio. */
static enum tm_kind kind_of(const struct pt_metric *m)
{
	if (!strcmp(m->unit, "bytes"))
		return TM_K_BYTES;
	if (m->top.rate)
		return TM_K_RATE;
	if (m->type == PT_V_PCT)
		return TM_K_PCT;
	return TM_K_RATIO;
}

const struct tm_colinfo *tm_col(int i)
{
	static struct tm_colinfo cols[TM_NCOLS];

	if (!cols[0].head)
		for (int c = 0; c < PT_NCOLS; c++) {
			const struct pt_metric *m = &pt_metrics[c];

			if (m->top.head)
				cols[m->top.at] = (struct tm_colinfo){
					m->top.head, m->top.name, m->top.width,
					kind_of(m), c, m->top.rate,
				};
		}
	return &cols[i];
}

void tm_init(struct tm_model *m)
{
	memset(m, 0, sizeof(*m));
	rows_init(&m->procs, PT_BY_PID);
}

void tm_free(struct tm_model *m)
{
	free(m->items);
	free(m->ends);
	rows_free(&m->procs);
	tm_init(m);
}

/* What a process or pipe moved both ways: its busiest first. */
static __u64 bytes_both(const struct pt_counts *c)
{
	return c->write_bytes + c->splice_in_bytes + c->read_bytes + c->splice_out_bytes;
}

/* A column that shows a metric of the table, per second if it says so. */
struct pt_value tm_value(const struct pt_counts *c, int col,
			 const struct pt_env *env, double secs)
{
	const struct tm_colinfo *ci = tm_col(col);
	struct pt_value v = pt_get(ci->metric, c, env);

	if (v.q == PT_NA || !ci->per_second)
		return v;
	v.d = secs > 0 ? v.u / secs : 0;
	v.type = PT_V_RATIO;
	return v;
}

enum pt_quality tm_col_quality(int col, const struct pt_env *env)
{
	return pt_col_quality(tm_col(col)->metric, env);
}

void tm_format(char *buf, size_t n, const struct pt_value *v, enum tm_kind kind,
	       int width)
{
	struct pt_value u = { .q = PT_EXACT, .type = PT_V_U64 };
	double d = v->type == PT_V_U64 ? (double)v->u : v->d;

	if (v->q == PT_NA) {
		snprintf(buf, n, "-");
		return;
	}
	switch (kind) {
	case TM_K_PCT:
		snprintf(buf, n, "%.1f", d);
		return;
	case TM_K_RATIO:
		snprintf(buf, n, "%.2f", d);
		return;
	case TM_K_RATE:
		if (d > 0 && d < 0.995) {
			snprintf(buf, n, "%.2f", d);
			return;
		}
		if (d > 0 && d < 99.95 && d != floor(d)) {
			snprintf(buf, n, "%.1f", d);
			return;
		}
		break;
	case TM_K_BYTES:
		/* as pipestat's table: 1024s, Ki, Mi, ... */
		fmt_iec(buf, n, (unsigned long long)llround(d));
		return;
	case TM_K_COUNT:
		break;
	}
	u.u = (__u64)llround(d);
	fmt_table_value(buf, n, &u, width);
}

/* Pipe first, then its busiest processes. */
static int end_cmp(const void *a, const void *b)
{
	const struct pt_row *x = *(const struct pt_row *const *)a;
	const struct pt_row *y = *(const struct pt_row *const *)b;
	__u64 bx, by;

	if (x->key.dev != y->key.dev)
		return x->key.dev < y->key.dev ? -1 : 1;
	if (x->key.ino != y->key.ino)
		return x->key.ino < y->key.ino ? -1 : 1;
	bx = bytes_both(&x->c);
	by = bytes_both(&y->c);
	if (bx != by)
		return bx < by ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

static bool comm_has(const char *comm, const char *filter)
{
	char c[PT_COMM_LEN + 1];

	if (!*filter)
		return true;
	memcpy(c, comm, PT_COMM_LEN);
	c[PT_COMM_LEN] = '\0';
	return strstr(c, filter) != NULL;
}

static struct tm_item *new_item(struct tm_model *m)
{
	if (pt_grow((void **)&m->items, &m->cap, m->n + 1, sizeof(*m->items), 256))
		return NULL;
	memset(&m->items[m->n], 0, sizeof(m->items[0]));
	return &m->items[m->n++];
}

static int build_pipes(struct tm_model *m, const char *filter)
{
	for (size_t i = 0; i < m->nends;) {
		const struct pt_row *first = m->ends[i];
		struct pt_counts sum = {};
		bool match = false;
		struct tm_item *it;
		size_t j;

		for (j = i; j < m->nends && m->ends[j]->key.dev == first->key.dev &&
			    m->ends[j]->key.ino == first->key.ino; j++) {
			counts_add(&sum, &m->ends[j]->c);
			match = match || comm_has(m->ends[j]->key.comm, filter);
		}
		m->npipes++;
		m->moved += pt_bytes_moved(&sum);
		if (match) {
			if (!(it = new_item(m)))
				return -1;
			it->key.dev = first->key.dev;
			it->key.ino = first->key.ino;
			it->c = sum;
			it->first = i;
			it->nends = j - i;
		}
		i = j;
	}
	return 0;
}

int tm_build(struct tm_model *m, const struct pt_rows *raw, enum tm_mode mode,
	     const char *filter)
{
	m->mode = mode;
	m->n = 0;
	m->nends = 0;
	m->npipes = 0;
	m->moved = 0;
	memset(&m->total, 0, sizeof(m->total));
	rows_clear(&m->procs);

	if (raw->n > m->ends_cap) {
		const struct pt_row **e = realloc(m->ends, raw->n * sizeof(*e));

		if (!e)
			return -1;
		m->ends = e;
		m->ends_cap = raw->n;
	}
	for (size_t i = 0; i < raw->n; i++) {
		m->ends[m->nends++] = &raw->v[i];
		counts_add(&m->total, &raw->v[i].c);
		if (rows_add(&m->procs, &raw->v[i].key, &raw->v[i].c))
			return -1;
	}
	m->nprocs = m->procs.n;
	qsort(m->ends, m->nends, sizeof(*m->ends), end_cmp);
	if (build_pipes(m, mode == TM_PER_PIPE ? filter : "\x01"))
		return -1;
	if (mode == TM_PER_PIPE)
		return 0;

	m->n = 0;
	for (size_t i = 0; i < m->procs.n; i++) {
		const struct pt_row *r = &m->procs.v[i];
		struct tm_item *it;

		if (!comm_has(r->key.comm, filter))
			continue;
		if (!(it = new_item(m)))
			return -1;
		it->key = r->key;
		it->c = r->c;
	}
	return 0;
}

static __u64 ops(const struct pt_counts *c)
{
	return c->reads + c->writes + c->splice_in + c->splice_out;
}

/* Ties (all those 0 B/s) go busiest first by calls. */
static int item_cmp(const void *a, const void *b)
{
	const struct tm_item *x = a, *y = b;

	if (x->sortv != y->sortv)
		return x->sortv < y->sortv ? 1 : -1;
	if (ops(&x->c) != ops(&y->c))
		return ops(&x->c) < ops(&y->c) ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

void tm_sort(struct tm_model *m, int col, const struct pt_env *env, double secs)
{
	for (size_t i = 0; i < m->n; i++) {
		struct pt_value v = tm_value(&m->items[i].c, col, env, secs);

		m->items[i].sortv = v.q == PT_NA ? -1 :
				    v.type == PT_V_U64 ? (double)v.u : v.d;
	}
	qsort(m->items, m->n, sizeof(*m->items), item_cmp);
}

/* Whether any of the pipe's processes wrote into it (or read from it). */
static bool side_used(const struct tm_model *m, const struct tm_item *it, bool writers)
{
	for (__u32 i = 0; i < it->nends; i++) {
		const struct pt_counts *c = &m->ends[it->first + i]->c;

		if (writers ? pt_is_writer(c) : pt_is_reader(c))
			return true;
	}
	return false;
}

void tm_name_idle_sides(struct tm_model *m)
{
	struct pipe_holders q[2 * TM_HELD_LOOKUPS];
	size_t nq = 0;

	if (m->mode != TM_PER_PIPE)
		return;
	for (size_t i = 0; i < m->n && i < TM_HELD_LOOKUPS; i++)
		for (int side = 0; side < 2; side++)
			if (!side_used(m, &m->items[i], !side))
				q[nq++] = (struct pipe_holders){
					.pipe = m->items[i].key, .writers = !side,
					.buf = m->items[i].held[side], .n = TM_HELD_LEN };
	blocked_ends(q, nq);
}

/* tm_ends_text, with each process's arguments or without */
static void ends_of(char *buf, size_t n, const struct tm_model *m,
		    const struct tm_item *it, int width, bool args)
{
	const struct pt_row *w[TM_ENDS_LISTED], *r[TM_ENDS_LISTED];
	struct ends_side sw = { .v = w }, sr = { .v = r };

	for (__u32 i = 0; i < it->nends; i++) {
		const struct pt_row *e = m->ends[it->first + i];

		if (pt_is_writer(&e->c) && sw.total++ < TM_ENDS_LISTED)
			w[sw.k++] = e;
		if (pt_is_reader(&e->c) && sr.total++ < TM_ENDS_LISTED)
			r[sr.k++] = e;
	}
	sw.idle = it->held[0];
	sr.idle = it->held[1];
	sw.args = sr.args = args ? m->args : NULL;
	ends_text(buf, n, &sw, &sr, width);
}

void tm_ends_text(char *buf, size_t n, const struct tm_model *m,
		  const struct tm_item *it, int width)
{
	ends_of(buf, n, m, it, width, false);
}

void tm_ends_named(char *buf, size_t n, const struct tm_model *m,
		   const struct tm_item *it, int width)
{
	ends_of(buf, n, m, it, width, true);
}

void tm_proc_name(char *buf, size_t n, const struct tm_model *m,
		  const struct tm_item *it)
{
	const char *a = args_of(m->args, it->key.tgid, it->key.comm);
	char comm[PT_COMM_LEN + 1], marked[FMT_ARGS_MARKED_LEN];

	a = a ? fmt_args_marked(marked, sizeof(marked), args_after_command(a), -1) : "";
	snprintf(buf, n, "%s[%u]%s%s", fmt_comm(comm, it->key.comm), it->key.tgid,
		 *a ? " " : "", a);
}

double tm_interval_step(double cur, int dir)
{
	static const double steps[] = { 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 15, 30,
					60, 120, 300, 600, 1800, 3600 };
	const int ns = sizeof(steps) / sizeof(steps[0]);

	if (dir > 0) {
		for (int i = 0; i < ns; i++)
			if (steps[i] > cur * (1 + 1e-9))
				return steps[i];
	} else {
		for (int i = ns - 1; i >= 0; i--)
			if (steps[i] < cur * (1 - 1e-9))
				return steps[i];
	}
	return cur;
}

bool tm_item_hist(const struct tm_model *m, const struct tm_item *it,
		  __u64 out[PT_NHIST][PT_HIST_SLOTS])
{
	bool any = false;

	memset(out, 0, sizeof(__u64) * PT_NHIST * PT_HIST_SLOTS);
	for (size_t i = 0; i < m->nends; i++) {
		const struct pt_row *r = m->ends[i];
		bool mine = m->mode == TM_PER_PIPE ?
			    r->key.dev == it->key.dev && r->key.ino == it->key.ino :
			    r->key.tgid == it->key.tgid;

		if (!mine || !r->hist)
			continue;
		any = true;
		for (int h = 0; h < PT_NHIST; h++)
			for (int s = 0; s < PT_HIST_SLOTS; s++)
				out[h][s] += r->hist[h][s];
	}
	return any;
}

int tm_advice(char *buf, size_t n, const struct tm_model *m,
	      const struct tm_item *it, const struct pt_env *env, struct advice *a)
{
	struct pt_row row = { .key = it->key, .c = it->c };

	a->resize = 0;
	if (n)
		buf[0] = '\0';
	if (m->mode != TM_PER_PIPE)
		return 0;
	return advise_pipe(buf, n, &row, NULL, env, a);
}

long tm_resize_offer(const struct tm_model *m, const struct tm_item *it,
		     const struct pt_env *env)
{
	struct advice a;
	char text[1024];

	if (m->mode != TM_PER_PIPE)
		return 0;
	if (tm_advice(text, sizeof(text), m, it, env, &a) && a.resize)
		return a.resize;
	return it->c.ring_slots * sysconf(_SC_PAGESIZE);
}
