// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "tune/pipe_resize.h"
#include "actions.h"

int ta_quit(struct ta_state *s)
{
	(void)s;
	return TA_QUIT;
}

/* The columns s and Left/Right go round: those on screen. */
static int sortable(const struct tv_state *st)
{
	return st->shown > 0 && st->shown < TM_NCOLS ? st->shown : TM_NCOLS;
}

int ta_sort_next(struct ta_state *s)
{
	int n = sortable(s->st);

	s->st->sort = s->st->sort + 1 < n ? s->st->sort + 1 : 0;
	return TA_REBUILD | TA_REDRAW;
}

int ta_sort_prev(struct ta_state *s)
{
	int n = sortable(s->st);

	s->st->sort = s->st->sort > 0 && s->st->sort <= n ? s->st->sort - 1 : n - 1;
	return TA_REBUILD | TA_REDRAW;
}

void ta_select(struct ta_state *s, int row)
{
	int last = s->m->n ? (int)s->m->n - 1 : 0;

	s->st->sel = row < 0 ? 0 : row > last ? last : row;
}

/* The selection moved by delta rows, kept on the table. */
static int move(struct ta_state *s, int delta)
{
	ta_select(s, s->st->sel + delta);
	return TA_REDRAW;
}

int ta_up(struct ta_state *s)
{
	return move(s, -1);
}

int ta_down(struct ta_state *s)
{
	return move(s, 1);
}

int ta_half_page_up(struct ta_state *s)
{
	return move(s, -(s->height / 2));
}

int ta_half_page_down(struct ta_state *s)
{
	return move(s, s->height / 2);
}

int ta_first(struct ta_state *s)
{
	ta_select(s, 0);
	return TA_REDRAW;
}

int ta_last(struct ta_state *s)
{
	ta_select(s, (int)s->m->n - 1);
	return TA_REDRAW;
}

/* The detail and advice panes: one at a time. */
int ta_detail(struct ta_state *s)
{
	s->st->detail = !s->st->detail;
	s->st->advice = false;
	return TA_REDRAW;
}

int ta_advice(struct ta_state *s)
{
	s->st->advice = !s->st->advice;
	s->st->detail = false;
	return TA_REDRAW;
}

/* g: the pipeline drawn from the same rows, or the table again */
int ta_pipeline(struct ta_state *s)
{
	s->st->pipeline = !s->st->pipeline;
	return TA_REBUILD | TA_REDRAW;
}

/* R on the selected pipe: a prompt with the size to offer. */
int ta_resize(struct ta_state *s)
{
	struct tv_state *st = s->st;
	const struct tm_item *it;

	if (s->m->mode != TM_PER_PIPE || (size_t)st->sel >= s->m->n) {
		snprintf(st->msg, sizeof(st->msg), "resize: select a pipe first%s",
			 s->m->mode == TM_PER_PIPE ? "" : " (p shows pipes)");
		return TA_REDRAW;
	}
	it = &s->m->items[st->sel];
	tp_resize(&st->prompt, &it->key, tm_resize_offer(s->m, it, &st->env));
	return TA_REDRAW;
}

/* One row per pipe or per process: the selection back to the top. */
int ta_mode(struct ta_state *s)
{
	s->st->mode = s->st->mode == TM_PER_PIPE ? TM_PER_PROC : TM_PER_PIPE;
	s->st->sel = 0;
	return TA_REBUILD | TA_REDRAW;
}

int ta_filter(struct ta_state *s)
{
	tp_filter(&s->st->prompt, s->st->filter);
	return TA_REDRAW;
}

int ta_pause(struct ta_state *s)
{
	s->st->paused = !s->st->paused;
	return TA_REDRAW;
}

int ta_longer(struct ta_state *s)
{
	s->st->interval = tm_interval_step(s->st->interval, 1);
	return TA_REDRAW;
}

int ta_shorter(struct ta_state *s)
{
	s->st->interval = tm_interval_step(s->st->interval, -1);
	return TA_REDRAW;
}

int ta_help(struct ta_state *s)
{
	s->st->help = true;
	return TA_REDRAW;
}

/* Confirmed: the outcome on the status line, as pipestat --resize logs it. */
static void resize_now(struct tv_state *st)
{
	char line[sizeof(st->msg) - 64], name[48];
	struct pipe_resized done;

	if (pipe_resize(&st->prompt.pipe, st->prompt.size, &done, line, sizeof(line))) {
		snprintf(st->msg, sizeof(st->msg), "resize: %s", line);
		return;
	}
	/* one status line: another user's quota, if charged, before the rest */
	if (resize_charge(line, sizeof(line), &done)) {
		pipe_ref_name(name, sizeof(name), &done.ref);
		snprintf(st->msg, sizeof(st->msg), "resized pipe %s: %s", name, line);
		return;
	}
	resize_describe(line, sizeof(line), &done);
	snprintf(st->msg, sizeof(st->msg), "resized %s", line);
}

int ta_prompt_key(struct ta_state *s, int ch)
{
	struct tv_state *st = s->st;

	switch (tp_key(&st->prompt, ch, st->msg, sizeof(st->msg))) {
	case TP_FILTER_SET:
		strcpy(st->filter, st->prompt.edit);
		return TA_REBUILD | TA_REDRAW;
	case TP_RESIZE:
		resize_now(st);
		break;
	case TP_TYPING:
	case TP_CANCEL:
	case TP_ASK:
	case TP_BAD:
		break;
	}
	return TA_REDRAW;
}
