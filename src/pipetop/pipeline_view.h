/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetop's pipeline view (key g): the model of pipeline/pipeline.h as text,
 * stages left to right in boxes, box-drawing edges with bytes/s and
 * calls/s on them, the bottleneck highlighted, a chain too long for the
 * width folded onto the next band.
 */
#ifndef PIPETOP_PIPELINE_VIEW_H
#define PIPETOP_PIPELINE_VIEW_H

#include <stdbool.h>
#include <wchar.h>
#include "os/sched_stat.h"
#include "pipeline/pipe_seen.h"
#include "pipeline/pipeline.h"

struct pv_view {
	struct pl_graph g;
	struct pipe_seen seen;	/* idle holders, command lines, FIFO paths */
	struct sched_stat sched;	/* busy or starved: CPU figures */
};

/* What a cell shows: drawn plain, highlighted (the bottleneck) or faded. */
enum pv_look { PV_PLAIN, PV_HOT, PV_FADED };

/* The view laid out: rows x cols cells, no curses (unit-testable). */
struct pv_grid {
	int rows, cols;
	wchar_t *ch;
	unsigned char *look;	/* enum pv_look */
};

void pv_init(struct pv_view *v);
void pv_free(struct pv_view *v);
/*
 * Once per interval, after the drain: the processes' CPU figures into
 * raw's ends while the view is shown; forgotten while it is not (a span
 * from long ago is no interval's). -1 on OOM.
 */
int pv_sched(struct pv_view *v, struct pt_rows *raw, bool shown);
/* The graph of one interval's rows by pipe and process; -1 on OOM. */
int pv_update(struct pv_view *v, const struct pt_rows *raw, const struct pt_env *env);
/* g laid out cols wide (at most rows high); -1 on OOM (free with pv_grid_free). */
int pv_layout(struct pv_grid *grid, const struct pl_graph *g, int cols, int rows);
void pv_grid_free(struct pv_grid *grid);
struct tv_state;
/* The whole screen: a title, the pipeline, the keys on the status line. */
void pv_screen(const struct tv_state *st, const struct pv_view *v);

#endif
