/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetop's key actions, one function each: an action changes the view's
 * state and answers with what the run loop must do next. The key table
 * (keys.c) binds keys to them. No curses and no terminal, so unit tests
 * drive them on a prepared state.
 */
#ifndef PIPETOP_ACTIONS_H
#define PIPETOP_ACTIONS_H

#include "model.h"
#include "view.h"

/* An action's answer, or'ed flags (0: nothing changed on screen). */
enum ta_reaction {
	TA_REDRAW = 1 << 0,	/* the screen again */
	TA_REBUILD = 1 << 1,	/* the table again from the interval's rows:
				 * the sort, view or filter changed */
	TA_QUIT = 1 << 2,
};

/* What an action acts on. */
struct ta_state {
	struct tv_state *st;		/* what the keys change */
	const struct tm_model *m;	/* the rows on screen: the selection's */
	int height;			/* the screen's lines, for PgUp/PgDn */
};

typedef int (*ta_action)(struct ta_state *s);

int ta_quit(struct ta_state *s);
int ta_sort_next(struct ta_state *s);
int ta_sort_prev(struct ta_state *s);
int ta_up(struct ta_state *s);
int ta_down(struct ta_state *s);
int ta_half_page_up(struct ta_state *s);
int ta_half_page_down(struct ta_state *s);
int ta_first(struct ta_state *s);
int ta_last(struct ta_state *s);
int ta_detail(struct ta_state *s);
int ta_advice(struct ta_state *s);
int ta_pipeline(struct ta_state *s);
int ta_resize(struct ta_state *s);
int ta_mode(struct ta_state *s);
int ta_filter(struct ta_state *s);
int ta_pause(struct ta_state *s);
int ta_longer(struct ta_state *s);
int ta_shorter(struct ta_state *s);
int ta_help(struct ta_state *s);

/* A key typed into the open prompt (f, R), its outcome carried out. */
int ta_prompt_key(struct ta_state *s, int ch);

/* Selects row, or the nearest row that exists (the first when none). */
void ta_select(struct ta_state *s, int row);

#endif
