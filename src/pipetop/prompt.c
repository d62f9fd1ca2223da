// SPDX-License-Identifier: GPL-2.0
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "tune/pipe_resize.h"
#include "prompt.h"

void tp_filter(struct tp_prompt *p, const char *filter)
{
	memset(p, 0, sizeof(*p));
	p->kind = TP_FILTER;
	snprintf(p->edit, PT_COMM_LEN, "%s", filter);
}

void tp_resize(struct tp_prompt *p, const struct pt_key *key, long offer)
{
	memset(p, 0, sizeof(*p));
	p->kind = TP_SIZE;
	p->pipe = pipe_ref_of(key);
	if (offer > 0)
		snprintf(p->edit, sizeof(p->edit), "%ld", offer);
}

/* The answer to "resize? y/n": y goes ahead, any other key cancels. */
static enum tp_done confirm(struct tp_prompt *p, int ch)
{
	p->kind = TP_NONE;
	return ch == 'y' || ch == 'Y' ? TP_RESIZE : TP_CANCEL;
}

static enum tp_done enter(struct tp_prompt *p, char *err, size_t n)
{
	if (p->kind == TP_FILTER) {
		p->kind = TP_NONE;
		return TP_FILTER_SET;
	}
	p->size = pipe_size_parse(p->edit);
	if (p->size < 0) {
		snprintf(err, n, "resize: invalid size '%s': bytes up to 2G "
			 "(k, M, G: KiB, MiB, GiB)", p->edit);
		p->kind = TP_NONE;
		return TP_BAD;
	}
	p->kind = TP_CONFIRM;
	return TP_ASK;
}

enum tp_done tp_key(struct tp_prompt *p, int ch, char *err, size_t n)
{
	/* a filter is a command name's part: no longer than a command name */
	size_t l = strlen(p->edit), max = p->kind == TP_FILTER ? PT_COMM_LEN :
					  sizeof(p->edit);

	if (p->kind == TP_CONFIRM)
		return confirm(p, ch);
	switch (ch) {
	case 27:	/* Esc */
		p->kind = TP_NONE;
		return TP_CANCEL;
	case '\r':
	case '\n':
	case KEY_ENTER:
		return enter(p, err, n);
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (l)
			p->edit[l - 1] = '\0';
		return TP_TYPING;
	}
	if (ch >= 32 && ch < 127 && l + 1 < max) {
		p->edit[l] = ch;
		p->edit[l + 1] = '\0';
	}
	return TP_TYPING;
}

void tp_text(char *buf, size_t n, const struct tp_prompt *p)
{
	char pipe[48];

	pipe_ref_name(pipe, sizeof(pipe), &p->pipe);
	switch (p->kind) {
	case TP_FILTER:
		snprintf(buf, n, "filter (command name contains, Enter applies, "
			 "Esc cancels): %s_", p->edit);
		return;
	case TP_SIZE:
		snprintf(buf, n, "resize pipe %s to (bytes; k, M, G; Enter, Esc "
			 "cancels): %s_", pipe, p->edit);
		return;
	case TP_CONFIRM:
		snprintf(buf, n, "resize pipe %s to %ld bytes? y resizes, any "
			 "other key cancels", pipe, p->size);
		return;
	case TP_NONE:
		break;
	}
	buf[0] = '\0';
}
