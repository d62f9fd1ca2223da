/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetop's status-line prompts: the filter, and a resize's size then its
 * confirmation. Keys in, what to do out; no curses drawing, so unit tests
 * can drive them.
 */
#ifndef PIPETOP_PROMPT_H
#define PIPETOP_PROMPT_H

#include <stddef.h>
#include "model/metrics.h"
#include "tune/pipe_resize.h"

enum tp_kind { TP_NONE, TP_FILTER, TP_SIZE, TP_CONFIRM };

struct tp_prompt {
	enum tp_kind kind;	/* TP_NONE: no prompt */
	char edit[32];		/* what is typed */
	struct pipe_ref pipe;	/* the pipe to resize: its dev and ino */
	long size;		/* the size typed, bytes (TP_CONFIRM) */
};

enum tp_done {
	TP_TYPING,	/* the prompt goes on */
	TP_CANCEL,	/* Esc, or not y at the confirmation */
	TP_FILTER_SET,	/* the filter is edit */
	TP_ASK,		/* a size is typed: now the confirmation */
	TP_RESIZE,	/* confirmed: resize pipe to size */
	TP_BAD,		/* the size typed is not one: why in err */
};

/* The filter prompt, holding the filter in use. */
void tp_filter(struct tp_prompt *p, const char *filter);
/* The resize prompt for key's pipe, offer pre-filled (0: empty). */
void tp_resize(struct tp_prompt *p, const struct pt_key *key, long offer);
/* A key (a character or a curses KEY_* code) into the prompt. */
enum tp_done tp_key(struct tp_prompt *p, int ch, char *err, size_t n);
/* The status line while the prompt is open. */
void tp_text(char *buf, size_t n, const struct tp_prompt *p);

#endif
