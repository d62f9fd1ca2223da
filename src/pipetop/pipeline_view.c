// SPDX-License-Identifier: GPL-2.0
/* curses' wide-character calls, for the box-drawing cells */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/fmt.h"
#include "keys.h"
#include "pipeline_view.h"
#include "view.h"

#define BOX_W	16	/* a process's box, borders included */
#define GAP	12	/* between stages: the edges and their figures */
#define SLOT_H	5	/* a box's four lines and one apart */

/* a line cell's arms, merged where edges meet */
enum { UP = 1, DOWN = 2, LEFT = 4, RIGHT = 8 };

static const wchar_t arms[16] = {
	[0] = L' ', [UP] = L'│', [DOWN] = L'│', [UP | DOWN] = L'│',
	[LEFT] = L'─', [RIGHT] = L'─', [LEFT | RIGHT] = L'─',
	[DOWN | RIGHT] = L'┌', [DOWN | LEFT] = L'┐', [UP | RIGHT] = L'└',
	[UP | LEFT] = L'┘', [UP | DOWN | RIGHT] = L'├', [UP | DOWN | LEFT] = L'┤',
	[LEFT | RIGHT | DOWN] = L'┬', [LEFT | RIGHT | UP] = L'┴',
	[UP | DOWN | LEFT | RIGHT] = L'┼',
};

void pv_init(struct pv_view *v)
{
	pl_init(&v->g);
	seen_init(&v->seen);
	sched_init(&v->sched);
}

void pv_free(struct pv_view *v)
{
	pl_free(&v->g);
	seen_free(&v->seen);
	sched_free(&v->sched);
}

int pv_sched(struct pv_view *v, struct pt_rows *raw, bool shown)
{
	if (shown)
		return sched_update(&v->sched, &raw, 1);
	if (v->sched.n) {
		sched_free(&v->sched);
		sched_init(&v->sched);
	}
	return 0;
}

int pv_update(struct pv_view *v, const struct pt_rows *raw, const struct pt_env *env)
{
	if (seen_learn(&v->seen, raw))
		return -1;
	seen_prune(&v->seen, raw);
	return pl_build(&v->g, raw, env, &v->seen);
}

/* Where each node's box goes. */
struct place {
	int x, y;
};

/* The layout under way: cells, their line arms, and the boxes' cells. */
struct canvas {
	struct pv_grid *grid;
	unsigned char *arm;	/* line arms per cell */
	bool *boxed;		/* a box's cell: no line crosses it */
};

static bool inside(const struct canvas *c, int y, int x)
{
	return y >= 0 && y < c->grid->rows && x >= 0 && x < c->grid->cols;
}

static void put(struct canvas *c, int y, int x, wchar_t ch, enum pv_look look)
{
	if (!inside(c, y, x))
		return;
	c->grid->ch[y * c->grid->cols + x] = ch;
	c->grid->look[y * c->grid->cols + x] = look;
}

/* at most width characters of s from (y, x) */
static void text(struct canvas *c, int y, int x, const char *s, int width,
		 enum pv_look look)
{
	for (int i = 0; s[i] && i < width; i++)
		put(c, y, x + i, (unsigned char)s[i], look);
}

static void arm(struct canvas *c, int y, int x, int bits)
{
	if (inside(c, y, x) && !c->boxed[y * c->grid->cols + x])
		c->arm[y * c->grid->cols + x] |= bits;
}

/* a line from (y, x1) to (y, x2), x1 <= x2: arms toward each other */
static void h_line(struct canvas *c, int y, int x1, int x2)
{
	for (int x = x1; x <= x2; x++)
		arm(c, y, x, (x > x1 ? LEFT : 0) | (x < x2 ? RIGHT : 0));
}

static void v_line(struct canvas *c, int x, int y1, int y2)
{
	int lo = y1 < y2 ? y1 : y2, hi = y1 < y2 ? y2 : y1;

	for (int y = lo; y <= hi; y++)
		arm(c, y, x, (y > lo ? UP : 0) | (y < hi ? DOWN : 0));
}

/* "waits wr 88%": what the box's second line says */
static void state_text(char *buf, size_t n, const struct pl_node *node)
{
	if (node->bottleneck)
		snprintf(buf, n, node->state == PL_STARVED ? "STARVED: CPU" : "BOTTLENECK");
	else if (node->state == PL_WAITS_WRITE)
		snprintf(buf, n, "waits wr %.0f%%", 100 * node->share.wait_write);
	else if (node->state == PL_WAITS_READ)
		snprintf(buf, n, "waits rd %.0f%%", 100 * node->share.wait_read);
	else
		snprintf(buf, n, "%s", pl_state_name(node->state));
}

static void draw_box(struct canvas *c, const struct pl_node *node, struct place p)
{
	enum pv_look look = node->bottleneck ? PV_HOT :
			    node->state == PL_IDLE ? PV_FADED : PV_PLAIN;
	char name[64], state[32];

	for (int y = p.y; y < p.y + 4; y++)
		for (int x = p.x; x < p.x + BOX_W; x++) {
			bool top = y == p.y, bottom = y == p.y + 3;
			bool side = x == p.x || x == p.x + BOX_W - 1;
			wchar_t ch = L' ';

			if ((top || bottom) && !side)
				ch = L'─';
			else if (side && !top && !bottom)
				ch = L'│';
			else if (side)
				ch = top ? (x == p.x ? L'┌' : L'┐') : (x == p.x ? L'└' : L'┘');
			put(c, y, x, ch, look);
			if (inside(c, y, x))
				c->boxed[y * c->grid->cols + x] = true;
		}
	pl_node_name(name, sizeof(name), node);
	state_text(state, sizeof(state), node);
	text(c, p.y + 1, p.x + 1, name, BOX_W - 2, look);
	text(c, p.y + 2, p.x + 1, state, BOX_W - 2, look);
}

static void degrees(const struct pl_graph *g, int *in, int *out)
{
	for (size_t i = 0; i < g->nedges; i++) {
		out[g->edges[i].from]++;
		in[g->edges[i].to]++;
	}
}

/*
 * An edge from u's box to v's: along u's name line, down or up a bus in
 * the gap, along v's name line to an arrowhead; the figures above and
 * below the line on the side only this edge takes (v's, if v has no
 * other writer; else u's, if u has no other reader). An edge into a later
 * band leaves at the right margin and comes in at the left.
 */
static void edge(struct canvas *c, const struct pl_graph *g, const struct pl_edge *e,
		 const struct place *at, const int *band, const int *in, const int *out)
{
	struct place u = at[e->from], v = at[e->to];
	int ys = u.y + 1, yt = v.y + 1, xs = u.x + BOX_W, xt = v.x - 1, xm, lx, lw;
	bool folded = band[e->from] != band[e->to], at_target = in[e->to] == 1;
	char bytes[48], calls[48];

	if (!folded && xt <= xs)
		return;		/* back or within a stage: a cycle */
	if (folded) {
		h_line(c, ys, xs, c->grid->cols - 2);
		put(c, ys, c->grid->cols - 1, L'▶', PV_PLAIN);
		h_line(c, yt, 0, xt - 1);
		xm = 0;
	} else {
		/* the bus next to the side whose figures it leaves room for */
		xm = at_target ? xs + 1 : xt - 2;
		h_line(c, ys, xs, xm);
		v_line(c, xm, ys, yt);
		h_line(c, yt, xm, xt - 1);
	}
	put(c, yt, xt, L'▶', PV_PLAIN);
	pl_edge_rates(bytes, calls, sizeof(bytes), g, e, true);
	if (at_target || folded) {
		lx = xm + 1;
		lw = xt - lx;
		ys = yt;
	} else if (out[e->from] == 1) {
		lx = xs + 1;
		lw = xm - lx;
	} else {
		return;		/* several writers and readers: no side is its own */
	}
	text(c, ys - 1, lx, bytes, lw, PV_PLAIN);
	text(c, ys + 1, lx, calls, lw, PV_PLAIN);
}

/*
 * Stages into bands of as many as fit cols: the first band from column 0,
 * the next ones after a GAP for the edges folded into them.
 */
static int place_nodes(const struct pl_graph *g, int cols, struct place *at, int *band)
{
	int nstages = 0, b = 0, x = 0, y0 = 0, tallest = 0;

	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].stage + 1 > nstages)
			nstages = g->nodes[i].stage + 1;
	for (int s = 0; s < nstages; s++) {
		int row = 0;

		if (s && x + BOX_W > cols) {	/* fold */
			b++;
			y0 += tallest * SLOT_H;
			tallest = 0;
			x = GAP;
		}
		for (size_t i = 0; i < g->nnodes; i++) {
			if (g->nodes[i].stage != s)
				continue;
			at[i] = (struct place){ x, y0 + row * SLOT_H };
			band[i] = b;
			row++;
		}
		if (row > tallest)
			tallest = row;
		x += BOX_W + GAP;
	}
	return y0 + tallest * SLOT_H;
}

void pv_grid_free(struct pv_grid *grid)
{
	free(grid->ch);
	free(grid->look);
	memset(grid, 0, sizeof(*grid));
}

int pv_layout(struct pv_grid *grid, const struct pl_graph *g, int cols, int rows)
{
	size_t n = g->nnodes + 1;
	struct place *at = calloc(n, sizeof(*at));
	int *band = calloc(n, sizeof(int)), *in = calloc(n, sizeof(int)),
	    *out = calloc(n, sizeof(int)), height, err = -1;
	struct canvas c = { .grid = grid };

	memset(grid, 0, sizeof(*grid));
	if (!at || !band || !in || !out)
		goto out;
	height = place_nodes(g, cols, at, band);
	grid->rows = height < rows ? height : rows;
	grid->cols = cols;
	n = (size_t)grid->rows * cols + 1;
	grid->ch = malloc(n * sizeof(*grid->ch));
	grid->look = calloc(n, 1);
	c.arm = calloc(n, 1);
	c.boxed = calloc(n, sizeof(bool));
	if (!grid->ch || !grid->look || !c.arm || !c.boxed) {
		pv_grid_free(grid);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		grid->ch[i] = L' ';
	for (size_t i = 0; i < g->nnodes; i++)
		draw_box(&c, &g->nodes[i], at[i]);
	degrees(g, in, out);
	for (size_t i = 0; i < g->nedges; i++)
		edge(&c, g, &g->edges[i], at, band, in, out);
	/* the lines under the figures and arrowheads written since */
	for (size_t i = 0; i + 1 < n; i++)
		if (c.arm[i] && grid->ch[i] == L' ')
			grid->ch[i] = arms[c.arm[i]];
	err = 0;
out:
	free(c.arm);
	free(c.boxed);
	free(at);
	free(band);
	free(in);
	free(out);
	return err;
}

static void pv_draw(const struct pv_view *v, int top, int bottom)
{
	static const attr_t attr[] = { [PV_PLAIN] = A_NORMAL,
				       [PV_HOT] = A_BOLD | A_REVERSE,
				       [PV_FADED] = A_DIM };
	struct pv_grid grid;

	if (!v->g.nnodes) {
		mvaddstr(top, 0, "(no process moved data through a pipe in the interval)");
		return;
	}
	if (pv_layout(&grid, &v->g, COLS, bottom - top))
		return;
	for (int y = 0; y < grid.rows; y++)
		for (int x = 0; x < grid.cols; x++) {
			attrset(attr[grid.look[y * grid.cols + x]]);
			mvaddnwstr(top + y, x, &grid.ch[y * grid.cols + x], 1);
		}
	attrset(A_NORMAL);
	pv_grid_free(&grid);
}

void pv_screen(const struct tv_state *st, const struct pv_view *v)
{
	char line[256];
	const char *text = line, *next;

	erase();
	snprintf(line, sizeof(line), "pipetop: the pipeline over %.1f s%s  (g: the table)",
		 st->secs, st->paused ? ", paused" : "");
	if (v->g.pipes_left_out)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "  %zu pipe(s) of many writers and readers not drawn",
			 v->g.pipes_left_out);
	attrset(A_BOLD);
	/* two lines at most, broken at a space: the drawing starts below */
	for (int y = 0, len; y < 2 && *text; y++, text = next) {
		len = fmt_wrap(text, COLS, &next);
		mvaddnstr(y, 0, text, len);
	}
	attrset(A_NORMAL);
	if (st->have_data)
		pv_draw(v, 2, LINES - 1);
	tk_status(line, sizeof(line), COLS);
	attrset(A_DIM);
	mvaddnstr(LINES - 1, 0, line, COLS);
	attrset(A_NORMAL);
	refresh();
}
