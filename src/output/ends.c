// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ends.h"
#include "fmt.h"
#include "os/proc_args.h"

bool pt_is_writer(const struct pt_counts *c)
{
	return c->writes || c->splice_in || c->eagain_write_nonblock ||
	       c->eagain_write_nowait || c->wait_write_ns;
}

bool pt_is_reader(const struct pt_counts *c)
{
	return c->reads || c->splice_out || c->eagain_read_nonblock ||
	       c->eagain_read_nowait || c->wait_read_ns;
}

enum pt_side end_side(const struct pt_counts *c)
{
	bool w = pt_is_writer(c), r = pt_is_reader(c);

	return w && r ? PT_SIDE_BOTH : w ? PT_SIDE_WRITE : r ? PT_SIDE_READ : PT_SIDE_NONE;
}

int rows_fold(struct pt_rows *dst, const struct pt_rows *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct pt_row *row = &src->v[i];
		enum pt_side side = by_has_side(dst->by) ? end_side(&row->c) : PT_SIDE_NONE;

		if (rows_add_row(dst, row, side))
			return -1;
	}
	return 0;
}

static int pipe_cmp(const struct pt_key *a, const struct pt_key *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

static int end_cmp(const void *a, const void *b)
{
	const struct pt_key *x = &((const struct pt_row *)a)->key;
	const struct pt_key *y = &((const struct pt_row *)b)->key;

	return pipe_cmp(x, y) ?: (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

void ends_sort(struct pt_rows *ends)
{
	qsort(ends->v, ends->n, sizeof(*ends->v), end_cmp);
	rows_reindex(ends);
}

size_t ends_list(const struct pt_rows *ends, const struct pt_key *pipe,
		 bool writers, const struct pt_row **v, size_t cap)
{
	size_t lo = 0, hi = ends->n, total = 0;

	while (lo < hi) {	/* the pipe's first end */
		size_t mid = (lo + hi) / 2;

		if (pipe_cmp(&ends->v[mid].key, pipe) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ends->n && !pipe_cmp(&ends->v[lo].key, pipe); lo++) {
		const struct pt_row *e = &ends->v[lo];

		if (!(writers ? pt_is_writer(&e->c) : pt_is_reader(&e->c)))
			continue;
		if (total < cap)
			v[total] = e;
		total++;
	}
	return total;
}

void ends_names(char *buf, size_t n, const struct pt_rows *ends,
		const struct pt_key *pipe, bool writers)
{
	const struct pt_row *v[ENDS_LISTED];
	size_t total = ends_list(ends, pipe, writers, v, ENDS_LISTED), len = 0;
	char comm[FMT_MARKED_LEN];

	buf[0] = '\0';
	for (size_t i = 0; i < total && i < ENDS_LISTED && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%s[%u]", i ? "," : "",
				fmt_comm_marked(comm, v[i]->key.comm, PT_COMM_LEN),
				v[i]->key.tgid);
	if (total > ENDS_LISTED && len < n)
		snprintf(buf + len, n - len, ",+%zu", total - ENDS_LISTED);
}

/*
 * " ARGS" of r's process (fmt_args_marked), at most acap characters of
 * them; "" when acap is 0 or they were not read.
 */
static int end_args(char *buf, size_t n, const struct pt_row *r,
		    const struct proc_args *args, int acap)
{
	const char *a = acap > 0 ? args_of(args, r->key.tgid, r->key.comm) : NULL;
	char marked[FMT_ARGS_MARKED_LEN];

	buf[0] = '\0';
	if (!a || !*(a = args_after_command(a)))
		return 0;
	if (!*fmt_args_marked(marked, sizeof(marked), a, acap))
		return 0;
	return snprintf(buf, n, " %s", marked);
}

/*
 * "comm[pid] args", the comm marked (fmt_comm_marked) and cut so the whole
 * fits in at most max characters (the args first: cut to at most acap
 * characters, 0: left out): the name is cut before it is marked, so a cut
 * one is still well formed.
 */
static int end_name(char *buf, size_t n, const struct pt_row *r,
		    const struct proc_args *args, int acap, int max)
{
	char pid[16 + FMT_ARGS_MARKED_LEN], comm[FMT_MARKED_LEN];
	int plen = snprintf(pid, sizeof(pid), "[%u]", r->key.tgid);
	size_t keep = strnlen(r->key.comm, PT_COMM_LEN);
	int clen = strlen(fmt_comm_marked(comm, r->key.comm, keep));

	plen += end_args(pid + plen, sizeof(pid) - plen, r, args, acap);
	while (max >= 0 && clen + plen > max && keep > 1)
		clen = strlen(fmt_comm_marked(comm, r->key.comm, --keep));
	if (max >= 0 && clen + plen > max)
		clen = max - plen > 1 ? max - plen : 1;
	return snprintf(buf, n, "%.*s%s", clen, comm, pid);
}

/* One side's processes in at most budget characters (budget >= 0), each
 * one's args cut to acap characters; returns the length, *whole whether
 * every process is there uncut. */
static int side_cut(char *buf, size_t n, const struct ends_side *s, int budget,
		    int acap, bool *whole)
{
	char ent[64 + FMT_ARGS_MARKED_LEN], more[16];
	int len = 0, i;

	for (i = 0; i < s->k; i++) {
		int elen = (i ? 1 : 0) + end_name(ent, sizeof(ent), s->v[i], s->args,
						   acap, -1);
		int rest = s->total - i - 1;
		int mlen = rest ? snprintf(more, sizeof(more), "+%d", rest) : 0;

		if (len + elen + mlen > budget)
			break;
		len += snprintf(buf + len, n - len, "%s%s", i ? "," : "", ent);
	}
	*whole = i == s->total;
	if (*whole)
		return len;
	if (!i) {
		int mlen = s->total > 1 ? snprintf(more, sizeof(more), "+%d",
						   s->total - 1) : 0;
		int room = budget - mlen;

		if (room < 3) {
			room = budget;
			mlen = 0;
		}
		end_name(ent, sizeof(ent), s->v[0], s->args, acap, room);
		len = snprintf(buf, n, "%.*s", room > 0 ? room : 0, ent);
		if (mlen)
			len += snprintf(buf + len, n - len, "%s", more);
		return len;
	}
	return len + snprintf(buf + len, n - len, "+%d", s->total - i);
}

/* One side's processes in at most budget characters (budget < 0: what buf
 * holds); returns the length. Args are what gives way first: cut shorter
 * and shorter, then left out, before any process is. */
static int side_text(char *buf, size_t n, const struct ends_side *s, int budget)
{
	static const int acaps[] = { PROC_ARGS_LEN, 24, 12, 6, 0 };
	size_t last = sizeof(acaps) / sizeof(acaps[0]) - 1;
	bool whole = false;
	int len = 0;

	if (budget < 0 || budget > (int)n - 1)
		budget = n - 1;
	buf[0] = '\0';
	if (!s->total)
		return snprintf(buf, n, "%.*s", budget, s->idle && *s->idle ? s->idle : "?");
	for (size_t a = s->args ? 0 : last; a <= last && !whole; a++)
		len = side_cut(buf, n, s, budget, acaps[a], &whole);
	return len;
}

/*
 * avail characters for two sides that want w and r more: a side that
 * fits in half gives the other the rest, else each gets half.
 */
static void split(int w, int r, int avail, int *bw, int *br)
{
	int half = avail / 2;

	if (w <= half) {
		*bw = w;
		*br = avail - w;
	} else if (r <= avail - half) {
		*br = r;
		*bw = avail - r;
	} else {
		*bw = half;
		*br = avail - half;
	}
}

void ends_text(char *buf, size_t n, const struct ends_side *w,
	       const struct ends_side *r, int width)
{
	int lw, lr, bw, br, avail = width - 4;
	char sw[512], sr[512];

	lw = side_text(sw, sizeof(sw), w, -1);
	lr = side_text(sr, sizeof(sr), r, -1);
	if (width >= 0 && lw + lr > avail && avail >= 2) {
		struct ends_side nw = *w, nr = *r;
		int lw0, lr0;

		/* the names without their args: what the args may have */
		nw.args = nr.args = NULL;
		lw0 = side_text(sw, sizeof(sw), &nw, -1);
		lr0 = side_text(sr, sizeof(sr), &nr, -1);
		if (lw0 + lr0 <= avail) {
			int extra = avail - lw0 - lr0, ew = lw - lw0, er = lr - lr0;

			/* the shorter args whole where they fit, the rest
			 * to the other's: two cut ones say less */
			if (ew <= er && ew <= extra)
				er = extra - ew;
			else if (er <= extra)
				ew = extra - er;
			else
				split(ew, er, extra, &ew, &er);
			bw = lw0 + ew;
			br = lr0 + er;
		} else {
			split(lw0, lr0, avail, &bw, &br);
		}
		side_text(sw, sizeof(sw), w, bw);
		side_text(sr, sizeof(sr), r, br);
	}
	snprintf(buf, n, "%s -> %s", sw, sr);
	if (width >= 0 && (size_t)width < n)
		buf[width] = '\0';
}
