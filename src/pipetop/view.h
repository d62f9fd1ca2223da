/* SPDX-License-Identifier: GPL-2.0 */
/* pipetop's screen: header, table, status line, help overlay (curses). */
#ifndef PIPETOP_VIEW_H
#define PIPETOP_VIEW_H

#include <stdbool.h>
#include "model.h"
#include "prompt.h"

#define TV_MIN_COLS	50
#define TV_MIN_LINES	8

struct tv_state {
	enum tm_mode mode;
	int sort;			/* enum tm_col */
	int shown;			/* value columns on screen; 0: all */
	bool paused, help, have_data;
	struct tp_prompt prompt;	/* f, R: typing on the status line */
	char msg[512];			/* a resize's outcome, until a key */
	char filter[PT_COMM_LEN];
	double interval;		/* refresh, seconds */
	double secs;			/* length of the interval shown */
	double self_cpu;		/* pipetop's own CPU %, last interval */
	int max_rows;			/* -r; 0 = what fits */
	int sel;			/* selected row (arrows, PgUp/PgDn) */
	bool detail;			/* Enter: the selected row's histograms */
	bool advice;			/* a: advice on the pipes in view */
	bool pipeline;			/* g: the pipeline, not the table */
	char kernel[65];
	struct pt_env env;
};

/* curses knows $TERM: checked before loading anything */
bool tv_term_known(void);
/* 0, or -1 when curses cannot drive this terminal ($TERM unknown) */
int tv_start(void);
void tv_end(void);
/* Returns how many value columns the table shows (from the left). */
int tv_draw(const struct tv_state *st, const struct tm_model *m);

#endif
