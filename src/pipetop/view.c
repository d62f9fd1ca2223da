// SPDX-License-Identifier: GPL-2.0
/* pipetop's screen. Everything is drawn from the model each time. */
#include <curses.h>
#include <term.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "output/fmt.h"
#include "output/report.h"
#include "keys.h"
#include "view.h"

#define NAME_MIN	20	/* the ends / process column, at least */
#define NAME_MAX	48	/* value columns give way up to this */
#define PIPE_W		10	/* inode number */
#define HEAD_LINES	5	/* four header lines, then the column heading */

static SCREEN *screen;

bool tv_term_known(void)
{
	int err;

	char *cup;
	bool ok;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return false;
	/* a terminal without cursor addressing (TERM=dumb) cannot be drawn on */
	cup = tigetstr("cup");
	ok = cup && cup != (char *)-1;
	del_curterm(cur_term);
	return ok;
}

int tv_start(void)
{
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	return 0;
}

void tv_end(void)
{
	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
}

/* A line at y, cut to the screen's width; attributes as given. */
static void put(int y, int x, const char *s, int attr)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	attron(attr);
	mvaddnstr(y, x, s, COLS - x);
	attroff(attr);
}

static void knob(char *buf, size_t n, const char *name, int v)
{
	if (v < 0)
		snprintf(buf, n, "%s -", name);
	else
		snprintf(buf, n, "%s %d", name, v);
}

static void total_cell(char *buf, size_t n, const struct tm_model *m, int col,
		       const struct tv_state *st)
{
	struct pt_value v = tm_value(&m->total, col, &st->env, st->secs);
	size_t l;

	/* all: the sum of each pipe's, not the busier side of the sum */
	if (col == TM_MBPS && v.q != PT_NA && st->secs > 0)
		v.d = m->moved / st->secs;
	tm_format(buf, n, &v, tm_col(col)->kind, 7);
	l = strlen(buf);
	if (v.q == PT_DERIVED && l + 1 < n)
		strcpy(buf + l, "*");
}

static void header(const struct tv_state *st, const struct tm_model *m)
{
	char line[512], a[64], b[64], c[64], d[64], e[64], f[64];
	struct pt_value ops = {};

	snprintf(line, sizeof(line), "pipetop %s  tier: %s  kernel: %s  interval: %gs%s",
		 PIPETRACE_VERSION, tier_name(st->env.tier), st->kernel,
		 st->interval, st->paused ? "  [PAUSED]" : "");
	put(0, 0, line, A_BOLD);

	knob(a, sizeof(a), "fs.pipe-prealloc-max", st->env.knob_prealloc_max);
	knob(b, sizeof(b), "fs.pipe-prealloc-keep", st->env.knob_prealloc_keep);
	knob(c, sizeof(c), "fs.pipe-read-batch", st->env.knob_read_batch);
	snprintf(line, sizeof(line), "knobs: %s  %s  %s", a, b, c);
	put(1, 0, line, 0);

	if (!st->have_data) {
		snprintf(line, sizeof(line), "all: collecting for %gs ...",
			 st->interval);
		put(2, 0, line, 0);
	} else {
		const struct pt_counts *t = &m->total;

		ops.q = PT_EXACT;
		ops.type = PT_V_RATIO;
		ops.d = st->secs > 0 ? (t->reads + t->writes + t->splice_in +
					t->splice_out) / st->secs : 0;
		tm_format(a, sizeof(a), &ops, TM_K_RATE, 7);
		total_cell(b, sizeof(b), m, TM_MBPS, st);
		total_cell(c, sizeof(c), m, TM_HIT, st);
		total_cell(d, sizeof(d), m, TM_ALLOCLK, st);
		total_cell(e, sizeof(e), m, TM_SECRD, st);
		{
			struct pt_value r = tm_value(t, TM_EAGR, &st->env, st->secs);
			struct pt_value w = tm_value(t, TM_EAGW, &st->env, st->secs);

			r.d += w.d;
			tm_format(f, sizeof(f), &r, TM_K_RATE, 7);
		}
		snprintf(line, sizeof(line),
			 "all: ops/s %s  B/s %s  hit%% %s  alloc_lk/s %s  "
			 "sec/rd %s  EAGAIN/s %s", a, b, c, d, e, f);
		put(2, 0, line, 0);
	}
	snprintf(line, sizeof(line), "pipes: %zu  processes: %zu  view: %s  "
		 "sort: %s  filter: %s", m->npipes, m->nprocs,
		 st->mode == TM_PER_PIPE ? "per pipe" : "per process",
		 tm_col(st->sort)->name, st->filter[0] ? st->filter : "-");
	if (st->have_data && st->env.untracked) {
		size_t l = strlen(line);

		snprintf(line + l, sizeof(line) - l, "  UNTRACKED: %llu (map full)",
			 (unsigned long long)st->env.untracked);
	}
	if (st->have_data && st->env.skipped) {
		size_t l = strlen(line);

		snprintf(line + l, sizeof(line) - l, "  SKIPPED: %llu runs",
			 (unsigned long long)st->env.skipped);
	}
	if (st->have_data) {
		size_t l = strlen(line);

		snprintf(line + l, sizeof(line) - l, "  self: %.1f%% cpu", st->self_cpu);
	}
	put(3, 0, line, 0);
}

struct layout {
	bool pipe_col;
	int name_w;
	int ncols;		/* value columns that fit, from the left */
	int width[TM_NCOLS];
};

/* The ends / process column: wide enough for the rows on screen. */
static int name_want(const struct tv_state *st, const struct tm_model *m, int nrows)
{
	char buf[512], comm[PT_COMM_LEN + 1];
	int want = NAME_MIN, cap;

	for (int i = 0; st->have_data && i < nrows && (size_t)i < m->n; i++) {
		int len;

		if (st->mode == TM_PER_PIPE)
			tm_ends_text(buf, sizeof(buf), m, &m->items[i], sizeof(buf) - 1);
		else
			snprintf(buf, sizeof(buf), "%s[%u]",
				 fmt_comm(comm, m->items[i].key.comm),
				 m->items[i].key.tgid);
		len = strlen(buf) + 1;
		if (len > want)
			want = len;
	}
	/* at most 2/5 of the width (and NAME_MAX): value columns matter too */
	cap = COLS * 2 / 5 > NAME_MAX ? NAME_MAX : COLS * 2 / 5;
	if (cap < NAME_MIN)
		cap = NAME_MIN;
	return want < cap ? want : cap;
}

static void lay_out(struct layout *l, const struct tv_state *st, int want)
{
	int avail = COLS, used = 0;

	l->pipe_col = st->mode == TM_PER_PIPE && COLS >= 100 &&
		      COLS >= want + PIPE_W + 40;
	if (l->pipe_col)
		avail -= PIPE_W + 1;
	l->ncols = 0;
	for (int i = 0; i < TM_NCOLS; i++) {
		int w = tm_col(i)->width, h = strlen(tm_col(i)->head) + 1;

		l->width[i] = w > h ? w : h;
		if (l->ncols == i && used + 1 + l->width[i] <= avail - want) {
			used += 1 + l->width[i];
			l->ncols++;
		}
	}
	l->name_w = avail - used;
}

static void heading(const struct tv_state *st, const struct layout *l)
{
	char buf[64];
	int x = 0;

	attron(A_REVERSE);
	mvhline(HEAD_LINES - 1, 0, ' ', COLS);
	if (l->pipe_col) {
		mvprintw(HEAD_LINES - 1, x, "%-*s", PIPE_W, "PIPE");
		x += PIPE_W + 1;
	}
	mvaddnstr(HEAD_LINES - 1, x, st->mode == TM_PER_PIPE ?
		  "WRITERS -> READERS" : "PROCESS", l->name_w);
	x += l->name_w;
	for (int i = 0; i < l->ncols; i++) {
		bool sorted = i == st->sort;

		snprintf(buf, sizeof(buf), "%s%s", tm_col(i)->head,
			 tm_col_quality(i, &st->env) == PT_DERIVED ? "*" : "");
		if (sorted)
			attron(A_BOLD | A_UNDERLINE);
		mvprintw(HEAD_LINES - 1, x + 1, "%*s", l->width[i], buf);
		if (sorted)
			attroff(A_BOLD | A_UNDERLINE);
		x += 1 + l->width[i];
	}
	attroff(A_REVERSE);
}

static void row(int y, const struct tv_state *st, const struct tm_model *m,
		const struct tm_item *it, const struct layout *l, bool selected)
{
	char buf[512], comm[PT_COMM_LEN + 1];
	int x = 0;

	if (selected) {
		attron(A_REVERSE);
		mvhline(y, 0, ' ', COLS);
	}
	if (l->pipe_col) {
		snprintf(buf, sizeof(buf), "%-*llu", PIPE_W, (unsigned long long)it->key.ino);
		mvaddnstr(y, x, buf, PIPE_W);
		x += PIPE_W + 1;
	}
	if (st->mode == TM_PER_PIPE)
		tm_ends_text(buf, sizeof(buf), m, it, l->name_w - 1);
	else
		snprintf(buf, sizeof(buf), "%s[%u]", fmt_comm(comm, it->key.comm),
			 it->key.tgid);
	mvaddnstr(y, x, buf, l->name_w - 1);
	x += l->name_w;
	for (int i = 0; i < l->ncols; i++) {
		struct pt_value v = tm_value(&it->c, i, &st->env, st->secs);

		tm_format(buf, sizeof(buf), &v, tm_col(i)->kind, l->width[i]);
		mvprintw(y, x + 1, "%*s", l->width[i], buf);
		x += 1 + l->width[i];
	}
	if (selected)
		attroff(A_REVERSE);
}

/* One histogram, compact: a line per slot from the first to the last used. */
static int hist_lines(int y, int x, int ymax, const char *title,
		      const __u64 *slot)
{
	int first, last, w = 16;
	__u64 max = hist_range(slot, &first, &last);
	char buf[128];

	if (!max || y >= ymax)
		return y;
	put(y++, x, title, A_BOLD);
	for (int s = first; s <= last && y < ymax; s++) {
		int bar = (int)((slot[s] * w + max - 1) / max);
		char stars[32];

		memset(stars, '*', bar);
		stars[bar] = '\0';
		snprintf(buf, sizeof(buf), "%10llu+ %8llu |%-*s|",
			 s ? 1ULL << s : 0ULL, (unsigned long long)slot[s], w, stars);
		put(y++, x, buf, 0);
	}
	return y;
}

/* The selected row's waits, contention and histograms, from line y0. */
static void detail(int y0, const struct tv_state *st, const struct tm_model *m,
		   const struct tm_item *it)
{
	static const char *const titles[PT_NHIST] = {
		[PT_HIST_WRITE_SIZE] = "write size (bytes)",
		[PT_HIST_READ_SIZE] = "read size (bytes)",
		[PT_HIST_OCCUPANCY] = "slots in use at a write",
		[PT_HIST_WAIT_READ] = "reader sleeps (ns)",
		[PT_HIST_WAIT_WRITE] = "writer sleeps (ns)",
	};
	__u64 h[PT_NHIST][PT_HIST_SLOTS];
	int colw = 40, ncol = COLS / colw > 0 ? COLS / colw : 1, col = 0;
	int ymax = LINES - 1, y = y0 + 2, ytop;
	char name[256], line[512], a[32], b[32], c[32], comm[PT_COMM_LEN + 1];
	struct pt_value v;

	mvhline(y0, 0, ACS_HLINE, COLS);
	if (m->mode == TM_PER_PIPE)
		tm_ends_text(name, sizeof(name), m, it, 60);
	else
		snprintf(name, sizeof(name), "%s[%u]", fmt_comm(comm, it->key.comm),
			 it->key.tgid);
	v = pt_get(PT_COL_WAIT_READ_NS, &it->c, &st->env);
	tm_format(a, sizeof(a), &v, TM_K_COUNT, 12);
	v = pt_get(PT_COL_WAIT_WRITE_NS, &it->c, &st->env);
	tm_format(b, sizeof(b), &v, TM_K_COUNT, 12);
	v = pt_get(PT_COL_LOCK_WAIT_NS, &it->c, &st->env);
	tm_format(c, sizeof(c), &v, TM_K_COUNT, 12);
	snprintf(line, sizeof(line), "%s  waited: readers %s ns, writers %s ns, "
		 "for the lock %s ns  (Enter closes)", name, a, b, c);
	put(y0 + 1, 0, line, A_BOLD);
	if (!tm_item_hist(m, it, h)) {
		put(y, 0, "(no histogram data this interval)", A_DIM);
		return;
	}
	ytop = y;
	for (int i = 0; i < PT_NHIST; i++) {
		int end = hist_lines(y, col * colw, ymax, titles[i], h[i]);

		if (end == y)
			continue;
		/* next column when this one is half full or more */
		if (++col < ncol && end - ytop > 0) {
			y = ytop;
			continue;
		}
		col = 0;
		y = end;
		ytop = y;
	}
}

/* Wraps text over lines y.. below ymax; returns the next free line. */
static int wrapped(int y, int ymax, const char *text, int attr)
{
	char line[512];
	int len = strlen(text), w = COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1;

	for (int o = 0; o < len && y < ymax && w > 0; o += w) {
		snprintf(line, sizeof(line), "%.*s", w, text + o);
		put(y++, 0, line, attr);
	}
	return y;
}

/* The advice pane: advise's remarks on the pipes in the table, from y0. */
static void advice(int y0, const struct tv_state *st, const struct tm_model *m)
{
	char text[2048], ends[256], line[2400], pipe[48];
	int ymax = LINES - 1, y = y0 + 2, said = 0;
	struct advice a;

	mvhline(y0, 0, ACS_HLINE, COLS);
	snprintf(line, sizeof(line), "advice per pipe (%s)  (a closes)",
		 advise_threshold());
	put(y0 + 1, 0, line, A_BOLD);
	if (m->mode != TM_PER_PIPE) {
		put(y, 0, "(advice is per pipe: p shows pipes)", A_DIM);
		return;
	}
	for (size_t i = 0; i < m->n && y < ymax; i++) {
		if (!tm_advice(text, sizeof(text), m, &m->items[i], &st->env, &a))
			continue;
		said++;
		tm_ends_text(ends, sizeof(ends), m, &m->items[i], 60);
		fmt_pipe(pipe, sizeof(pipe), m->items[i].key.dev, m->items[i].key.ino);
		snprintf(line, sizeof(line), "pipe %s %s: %s", pipe, ends, text);
		y = wrapped(y, ymax, line, 0);
	}
	if (!said)
		put(y, 0, "(no pipe worth a remark this interval)", A_DIM);
}

static void status(const struct tv_state *st)
{
	char line[256];

	if (st->prompt.kind != TP_NONE || st->msg[0]) {
		if (st->prompt.kind != TP_NONE)
			tp_text(line, sizeof(line), &st->prompt);
		put(LINES - 1, 0, st->prompt.kind != TP_NONE ? line : st->msg, A_BOLD);
		return;
	}
	tk_status(line, sizeof(line));
	put(LINES - 1, 0, line, A_DIM);
}

/* The keys (keys.c) and what marks in the table mean, over the table. */
static void help(void)
{
	static const char *const legend[] = {
		"",
		"*  derived from other signals on this tier",
		"-  not known on this tier (or nothing to divide)",
		FMT_UNITS,
	};
	const int nlegend = sizeof(legend) / sizeof(legend[0]);
	char text[32][96];
	int n = 0, w = 0, y0, x0;

	snprintf(text[n++], sizeof(text[0]), "pipetop keys");
	text[n++][0] = '\0';
	for (int i = 0; i < tk_nkeys && n < 32 - nlegend; i++)
		snprintf(text[n++], sizeof(text[0]), "%-15s %s", tk_keys[i].names,
			 tk_keys[i].what);
	for (int i = 0; i < nlegend; i++)
		snprintf(text[n++], sizeof(text[0]), "%s", legend[i]);

	for (int i = 0; i < n; i++)
		if ((int)strlen(text[i]) > w)
			w = strlen(text[i]);
	w += 4;
	y0 = (LINES - n - 2) / 2;
	x0 = (COLS - w) / 2;
	if (y0 < 0)
		y0 = 0;
	if (x0 < 0)
		x0 = 0;
	for (int i = -1; i <= n; i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%*s", w, "");
		put(y0 + 1 + i, x0, buf, A_REVERSE);
		if (i >= 0 && i < n)
			put(y0 + 1 + i, x0 + 2, text[i], A_REVERSE | (i ? 0 : A_BOLD));
	}
}

void tv_draw(const struct tv_state *st, const struct tm_model *m)
{
	struct layout l;
	int nrows;

	erase();
	if (COLS < TV_MIN_COLS || LINES < TV_MIN_LINES) {
		char buf[128];
		int len = snprintf(buf, sizeof(buf), "pipetop: terminal too small "
				   "(%dx%d), needs %dx%d; q quits", COLS, LINES,
				   TV_MIN_COLS, TV_MIN_LINES);

		for (int y = 0, o = 0; y < LINES && o < len && COLS > 0; y++, o += COLS)
			put(y, 0, buf + o, 0);
		refresh();
		return;
	}
	header(st, m);
	nrows = LINES - HEAD_LINES - 1;
	if (st->max_rows && st->max_rows < nrows)
		nrows = st->max_rows;
	if ((st->detail && m->n) || st->advice)
		nrows = nrows / 3 > 1 ? nrows / 3 : 1;
	lay_out(&l, st, name_want(st, m, nrows));
	heading(st, &l);
	if (st->have_data) {
		/* scrolled so that the selected row is on screen */
		int top = st->sel >= nrows ? st->sel - nrows + 1 : 0;

		for (int i = 0; i < nrows && (size_t)(top + i) < m->n; i++)
			row(HEAD_LINES + i, st, m, &m->items[top + i], &l,
			    top + i == st->sel);
		if (st->detail && (size_t)st->sel < m->n)
			detail(HEAD_LINES + nrows, st, m, &m->items[st->sel]);
		if (st->advice)
			advice(HEAD_LINES + nrows, st, m);
		if (!m->n)
			put(HEAD_LINES, 0, st->filter[0] ? "(no pipe activity matches "
			    "the filter)" : "(no pipe activity)", A_DIM);
	}
	status(st);
	if (st->help)
		help();
	refresh();
}
