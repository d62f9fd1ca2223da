// SPDX-License-Identifier: GPL-2.0
/* pipetop's screen. Everything is drawn from the model each time. */
#include <curses.h>
#include <stdarg.h>
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

/*
 * Text from line y at x, wrapped at spaces to width columns (a word wider
 * than that cut), the lines after the first indented by indent; returns
 * the next free line, at most ymax.
 */
static int put_wrapped(int y, int ymax, int x, int width, int indent,
		       const char *text, int attr)
{
	char line[512];
	const char *s = text, *next;
	int w = width;

	while (*s && y < ymax) {
		int len = fmt_wrap(s, w < (int)sizeof(line) ? w : (int)sizeof(line) - 1,
				   &next);

		snprintf(line, sizeof(line), "%*s%.*s", s == text ? 0 : indent, "",
			 len, s);
		put(y++, x, line, attr);
		s = next;
		w = width - indent;
	}
	return y;
}

/* A header line's parts ("sort: B/s"): a line breaks between them only. */
struct items {
	char v[12][96];
	int n;
};

static void item(struct items *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void item(struct items *it, const char *fmt, ...)
{
	va_list ap;

	if (it->n >= (int)(sizeof(it->v) / sizeof(it->v[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(it->v[it->n++], sizeof(it->v[0]), fmt, ap);
	va_end(ap);
}

/* The items from line y, two spaces apart, as many a line as fit; returns
 * the next free line. */
static int pack(int y, const struct items *it, int attr)
{
	char line[512];
	int len = 0;

	for (int i = 0; i < it->n; i++) {
		int il = strlen(it->v[i]);

		if (len && len + 2 + il > COLS) {
			put(y++, 0, line, attr);
			len = 0;
		}
		len += snprintf(line + len, sizeof(line) - len, "%s%s",
				len ? "  " : "", it->v[i]);
		if (len >= (int)sizeof(line))
			len = sizeof(line) - 1;
	}
	if (len)
		put(y++, 0, line, attr);
	return y;
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

/* The fs.pipe-* knobs, a line only on a kernel that has them. */
static void knobs(struct items *it, const struct pt_env *e)
{
	const struct { const char *name; int v; } k[] = {
		{ "fs.pipe-prealloc-max", e->knob_prealloc_max },
		{ "fs.pipe-prealloc-keep", e->knob_prealloc_keep },
		{ "fs.pipe-read-batch", e->knob_read_batch },
	};
	bool any = false;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		any |= k[i].v >= 0;
	for (size_t i = 0; any && i < sizeof(k) / sizeof(k[0]); i++) {
		char v[16] = "-";

		if (k[i].v >= 0)
			snprintf(v, sizeof(v), "%d", k[i].v);
		item(it, "%s%s %s", i ? "" : "knobs: ", k[i].name, v);
	}
}

/* The interval's totals: the busiest first, EAGAIN/s before the kernel's */
static void totals(struct items *it, const struct tv_state *st,
		   const struct tm_model *m)
{
	const struct pt_counts *t = &m->total;
	struct pt_value ops = { .q = PT_EXACT, .type = PT_V_RATIO };
	struct pt_value r = tm_value(t, TM_EAGR, &st->env, st->secs);
	struct pt_value w = tm_value(t, TM_EAGW, &st->env, st->secs);
	char v[32];

	ops.d = st->secs > 0 ? (t->reads + t->writes + t->splice_in +
				t->splice_out) / st->secs : 0;
	tm_format(v, sizeof(v), &ops, TM_K_RATE, 7);
	item(it, "all: ops/s %s", v);
	total_cell(v, sizeof(v), m, TM_MBPS, st);
	item(it, "B/s %s", v);
	r.d += w.d;
	tm_format(v, sizeof(v), &r, TM_K_RATE, 7);
	item(it, "EAGAIN/s %s", v);
	total_cell(v, sizeof(v), m, TM_HIT, st);
	item(it, "hit%% %s", v);
	total_cell(v, sizeof(v), m, TM_ALLOCLK, st);
	item(it, "alloc_lk/s %s", v);
	total_cell(v, sizeof(v), m, TM_SECRD, st);
	item(it, "sec/rd %s", v);
}

/* The header from line 0; returns the line of the column heading. */
static int header(const struct tv_state *st, const struct tm_model *m)
{
	struct items it = {};
	int y;

	item(&it, "pipetop %s", PIPETRACE_VERSION);
	item(&it, "tier: %s", tier_name(st->env.tier));
	item(&it, "kernel: %s", st->kernel);
	item(&it, "interval: %gs", st->interval);
	if (st->paused)
		item(&it, "[PAUSED]");
	y = pack(0, &it, A_BOLD);

	it.n = 0;
	knobs(&it, &st->env);
	y = pack(y, &it, 0);

	it.n = 0;
	if (st->have_data)
		totals(&it, st, m);
	else
		item(&it, "all: collecting for %gs ...", st->interval);
	y = pack(y, &it, 0);

	it.n = 0;
	item(&it, "pipes: %zu", m->npipes);
	item(&it, "processes: %zu", m->nprocs);
	item(&it, "view: %s", st->mode == TM_PER_PIPE ? "per pipe" : "per process");
	item(&it, "sort: %s", tm_col(st->sort)->name);
	item(&it, "filter: %s", st->filter[0] ? st->filter : "-");
	if (st->have_data && st->env.untracked)
		item(&it, "UNTRACKED: %llu (map full)",
		     (unsigned long long)st->env.untracked);
	if (st->have_data && st->env.skipped)
		item(&it, "SKIPPED: %llu runs", (unsigned long long)st->env.skipped);
	if (st->have_data)
		item(&it, "self: %.1f%% cpu", st->self_cpu);
	return pack(y, &it, 0);
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
	char buf[512];
	int want = NAME_MIN, cap;

	for (int i = 0; st->have_data && i < nrows && (size_t)i < m->n; i++) {
		int len;

		if (st->mode == TM_PER_PIPE)
			tm_ends_text(buf, sizeof(buf), m, &m->items[i], sizeof(buf) - 1);
		else
			tm_proc_name(buf, sizeof(buf), m, &m->items[i]);
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

static void heading(int y, const struct tv_state *st, const struct layout *l)
{
	char buf[64];
	int x = 0;

	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	if (l->pipe_col) {
		mvprintw(y, x, "%-*s", PIPE_W, "PIPE");
		x += PIPE_W + 1;
	}
	mvaddnstr(y, x, st->mode == TM_PER_PIPE ?
		  "WRITERS -> READERS" : "PROCESS", l->name_w);
	x += l->name_w;
	for (int i = 0; i < l->ncols; i++) {
		bool sorted = i == st->sort;

		snprintf(buf, sizeof(buf), "%s%s", tm_col(i)->head,
			 tm_col_quality(i, &st->env) == PT_DERIVED ? "*" : "");
		if (sorted)
			attron(A_BOLD | A_UNDERLINE);
		mvprintw(y, x + 1, "%*s", l->width[i], buf);
		if (sorted)
			attroff(A_BOLD | A_UNDERLINE);
		x += 1 + l->width[i];
	}
	attroff(A_REVERSE);
}

static void row(int y, const struct tv_state *st, const struct tm_model *m,
		const struct tm_item *it, const struct layout *l, bool selected)
{
	char buf[512];
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
		tm_proc_name(buf, sizeof(buf), m, it);
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

/* A histogram slot's lower bound as its unit reads: bytes, a duration. */
enum hist_unit { HU_COUNT, HU_BYTES, HU_TIME };

/* One histogram, compact: a line per slot from the first to the last used. */
static int hist_lines(int y, int x, int ymax, const char *title,
		      enum hist_unit unit, const __u64 *slot)
{
	int first, last, w = 16;
	__u64 max = hist_range(slot, &first, &last);
	char buf[128], lo[32];

	if (!max || y >= ymax)
		return y;
	put(y++, x, title, A_BOLD);
	for (int s = first; s <= last && y < ymax; s++) {
		unsigned long long v = s ? 1ULL << s : 0;
		int bar = (int)((slot[s] * w + max - 1) / max);
		char stars[32];

		if (unit == HU_BYTES)
			fmt_iec(lo, sizeof(lo), v);
		else if (unit == HU_TIME)
			fmt_duration(lo, sizeof(lo), v);
		else
			snprintf(lo, sizeof(lo), "%llu", v);
		memset(stars, '*', bar);
		stars[bar] = '\0';
		snprintf(buf, sizeof(buf), "%10s+ %8llu |%-*s|", lo,
			 (unsigned long long)slot[s], w, stars);
		put(y++, x, buf, 0);
	}
	return y;
}

/* A time metric for the detail pane: "-" when the tier cannot know it. */
static void duration_cell(char *buf, size_t n, enum pt_col col,
			  const struct tv_state *st, const struct tm_item *it)
{
	struct pt_value v = pt_get(col, &it->c, &st->env);

	if (v.q == PT_NA)
		snprintf(buf, n, "-");
	else
		fmt_duration(buf, n, v.u);
}

/* The selected row's waits, contention and histograms, from line y0. */
static void detail(int y0, const struct tv_state *st, const struct tm_model *m,
		   const struct tm_item *it)
{
	static const struct { const char *title; enum hist_unit unit; } hists[PT_NHIST] = {
		[PT_HIST_WRITE_SIZE] = { "write size", HU_BYTES },
		[PT_HIST_READ_SIZE] = { "read size", HU_BYTES },
		[PT_HIST_OCCUPANCY] = { "slots in use at a write", HU_COUNT },
		[PT_HIST_WAIT_READ] = { "reader sleeps", HU_TIME },
		[PT_HIST_WAIT_WRITE] = { "writer sleeps", HU_TIME },
	};
	__u64 h[PT_NHIST][PT_HIST_SLOTS];
	int colw = 40, ncol = COLS / colw > 0 ? COLS / colw : 1, col = 0;
	int ymax = LINES - 1, y, ytop;
	char name[256], line[512], a[32], b[32], c[32];

	mvhline(y0, 0, ACS_HLINE, COLS);
	if (m->mode == TM_PER_PIPE)
		tm_ends_named(name, sizeof(name), m, it, 60);
	else
		tm_proc_name(name, sizeof(name), m, it);
	duration_cell(a, sizeof(a), PT_COL_WAIT_READ_NS, st, it);
	duration_cell(b, sizeof(b), PT_COL_WAIT_WRITE_NS, st, it);
	duration_cell(c, sizeof(c), PT_COL_LOCK_WAIT_NS, st, it);
	snprintf(line, sizeof(line), "%s  waited: readers %s, writers %s, for the "
		 "lock %s  (Enter closes)", name, a, b, c);
	y = put_wrapped(y0 + 1, ymax, 0, COLS, 2, line, A_BOLD);
	if (!tm_item_hist(m, it, h)) {
		put(y, 0, "(no histogram data this interval)", A_DIM);
		return;
	}
	ytop = y;
	for (int i = 0; i < PT_NHIST; i++) {
		int end = hist_lines(y, col * colw, ymax, hists[i].title, hists[i].unit,
				     h[i]);

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

/* The advice pane: advise's remarks on the pipes in the table, from y0. */
static void advice(int y0, const struct tv_state *st, const struct tm_model *m)
{
	char text[2048], ends[256], line[2400], pipe[48];
	int ymax = LINES - 1, y, said = 0;
	struct advice a;

	mvhline(y0, 0, ACS_HLINE, COLS);
	snprintf(line, sizeof(line), "advice per pipe (%s)  (a closes)",
		 advise_threshold());
	y = put_wrapped(y0 + 1, ymax, 0, COLS, 2, line, A_BOLD);
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
		y = put_wrapped(y, ymax, 0, COLS, 2, line, 0);
	}
	if (!said)
		put(y, 0, "(no pipe worth a remark this interval)", A_DIM);
}

/* The bottom line: the keys, or a prompt or message (wrapped upwards). */
static void status(const struct tv_state *st)
{
	char line[512];
	const char *text = st->msg, *s, *next;
	int n = 0, y;

	if (st->prompt.kind == TP_NONE && !st->msg[0]) {
		tk_status(line, sizeof(line), COLS);
		put(LINES - 1, 0, line, A_DIM);
		return;
	}
	if (st->prompt.kind != TP_NONE) {
		tp_text(line, sizeof(line), &st->prompt);
		text = line;
	}
	for (s = text; *s; s = next, n++)
		fmt_wrap(s, COLS, &next);
	y = LINES - (n < LINES ? n : LINES);
	for (int i = y; i < LINES; i++) {
		move(i, 0);
		clrtoeol();
	}
	put_wrapped(y, LINES, 0, COLS, 0, text, A_BOLD);
}

/* The keys (keys.c), what each does wrapped beside it, and what marks in
 * the table mean, over the table. */
static void help(void)
{
	static const char *const legend[] = {
		"*  derived from other signals on this tier",
		"-  not known on this tier (or nothing to divide)",
		FMT_UNITS,
	};
	const int nlegend = sizeof(legend) / sizeof(legend[0]);
	const int keyw = 16;	/* the keys' names, then what they do */
	char text[40][128];
	int n = 0, w = 0, y0, x0, textw = COLS - 4 < 124 ? COLS - 4 : 124;

	snprintf(text[n++], sizeof(text[0]), "pipetop keys");
	for (int i = 0; i < tk_nkeys; i++) {
		const char *s = tk_keys[i].what, *next;

		for (int first = 1; *s && n < 40 - nlegend - 1; first = 0, s = next) {
			int len = fmt_wrap(s, textw - keyw, &next);

			snprintf(text[n++], sizeof(text[0]), "%-*s%.*s", keyw,
				 first ? tk_keys[i].names : "", len, s);
		}
	}
	text[n++][0] = '\0';
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
		char buf[160];

		snprintf(buf, sizeof(buf), "%*s", w, "");
		put(y0 + 1 + i, x0, buf, A_REVERSE);
		if (i >= 0 && i < n)
			put(y0 + 1 + i, x0 + 2, text[i], A_REVERSE | (i ? 0 : A_BOLD));
	}
}

int tv_draw(const struct tv_state *st, const struct tm_model *m)
{
	struct layout l;
	int nrows, y;

	erase();
	if (COLS < TV_MIN_COLS || LINES < TV_MIN_LINES) {
		char buf[128];
		int len = snprintf(buf, sizeof(buf), "pipetop: terminal too small "
				   "(%dx%d), needs %dx%d; q quits", COLS, LINES,
				   TV_MIN_COLS, TV_MIN_LINES);

		for (int y = 0, o = 0; y < LINES && o < len && COLS > 0; y++, o += COLS)
			put(y, 0, buf + o, 0);
		refresh();
		return 0;
	}
	y = header(st, m);
	nrows = LINES - y - 2;	/* the heading, the status line */
	if (nrows < 1)
		nrows = 1;
	if (st->max_rows && st->max_rows < nrows)
		nrows = st->max_rows;
	if ((st->detail && m->n) || st->advice)
		nrows = nrows / 3 > 1 ? nrows / 3 : 1;
	lay_out(&l, st, name_want(st, m, nrows));
	heading(y++, st, &l);
	if (st->have_data) {
		/* scrolled so that the selected row is on screen */
		int top = st->sel >= nrows ? st->sel - nrows + 1 : 0;

		for (int i = 0; i < nrows && (size_t)(top + i) < m->n; i++)
			row(y + i, st, m, &m->items[top + i], &l,
			    top + i == st->sel);
		if (st->detail && (size_t)st->sel < m->n)
			detail(y + nrows, st, m, &m->items[st->sel]);
		if (st->advice)
			advice(y + nrows, st, m);
		if (!m->n)
			put(y, 0, st->filter[0] ? "(no pipe activity matches "
			    "the filter)" : "(no pipe activity)", A_DIM);
	}
	status(st);
	if (st->help)
		help();
	refresh();
	return l.ncols;
}
