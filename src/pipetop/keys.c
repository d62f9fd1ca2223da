// SPDX-License-Identifier: GPL-2.0
#include <curses.h>
#include <string.h>
#include "keys.h"

/* (Ctrl-C ends pipetop as a signal, not as a key: named for the reader) */
const struct tk_key tk_keys[] = {
	{ "q, Q, Ctrl-C", "quit", "q quit",
	  { { 'q', ta_quit }, { 'Q', ta_quit } } },
	{ "s, Right", "sort by the next column", "s/<-/-> sort",
	  { { 's', ta_sort_next }, { KEY_RIGHT, ta_sort_next } } },
	{ "Left", "sort by the previous column", NULL,
	  { { KEY_LEFT, ta_sort_prev } } },
	{ "Up, Down, k, j", "select a row (the table scrolls)", "up/down select",
	  { { KEY_UP, ta_up }, { 'k', ta_up }, { KEY_DOWN, ta_down },
	    { 'j', ta_down } } },
	{ "PgUp, PgDn", "the selection half a screen up / down", NULL,
	  { { KEY_PPAGE, ta_half_page_up }, { KEY_NPAGE, ta_half_page_down } } },
	{ "Home, End", "select the first / the last row", NULL,
	  { { KEY_HOME, ta_first }, { KEY_END, ta_last } } },
	{ "Enter", "the selected row's waits and histograms", "Enter detail",
	  { { '\n', ta_detail }, { '\r', ta_detail }, { KEY_ENTER, ta_detail } } },
	{ "a", "advice on the pipes in view (pipestat --advise's rules)",
	  "a advice", { { 'a', ta_advice } } },
	{ "g", "the pipeline: processes joined by their pipes, the figures on "
	  "each, the bottleneck highlighted (again: the table)", "g pipeline",
	  { { 'g', ta_pipeline } } },
	{ "R", "resize the selected pipe: the size advice suggests (else its "
	  "ring) to edit, Enter, then y", "R resize", { { 'R', ta_resize } } },
	{ "p", "one row per pipe / per process", "p pipe/process",
	  { { 'p', ta_mode } } },
	{ "f", "filter by command name (Enter applies, Esc cancels)", "f filter",
	  { { 'f', ta_filter } } },
	{ "space", "pause / resume the display", "space pause",
	  { { ' ', ta_pause } } },
	{ "+, -", "refresh interval longer / shorter", "+/- interval",
	  { { '+', ta_longer }, { '=', ta_longer }, { '-', ta_shorter },
	    { '_', ta_shorter } } },
	{ "h, ?", "this help; q quits, any other key closes it", "h help",
	  { { 'h', ta_help }, { '?', ta_help } } },
};
const int tk_nkeys = sizeof(tk_keys) / sizeof(tk_keys[0]);

ta_action tk_action_of(int ch)
{
	for (int i = 0; i < tk_nkeys; i++)
		for (int b = 0; b < TK_MAX_BINDS && tk_keys[i].binds[b].code; b++)
			if (tk_keys[i].binds[b].code == ch)
				return tk_keys[i].binds[b].action;
	return NULL;
}

int tk_press(struct ta_state *s, int ch)
{
	struct tv_state *st = s->st;
	ta_action act = tk_action_of(ch);
	int shown = 0;

	if (ch == KEY_RESIZE)
		return TA_REDRAW;
	if (st->prompt.kind != TP_NONE)
		return ta_prompt_key(s, ch);
	if (st->msg[0]) {	/* a resize's outcome stays until a key */
		st->msg[0] = '\0';
		shown = TA_REDRAW;
	}
	if (st->help) {
		st->help = false;
		return act == ta_quit ? TA_QUIT : TA_REDRAW;
	}
	return act ? act(s) | shown : shown;
}

void tk_print(FILE *f, const char *indent)
{
	for (int i = 0; i < tk_nkeys; i++)
		fprintf(f, "%s%-15s %s\n", indent, tk_keys[i].names, tk_keys[i].what);
}

void tk_status(char *buf, size_t n, int width)
{
	const char *last = NULL;
	int len = 0, keep;

	/* the last brief (help, which lists them all) is always there */
	for (int i = 0; i < tk_nkeys; i++)
		if (tk_keys[i].brief)
			last = tk_keys[i].brief;
	keep = last ? 2 + (int)strlen(last) : 0;
	buf[0] = '\0';
	for (int i = 0; i < tk_nkeys && len < (int)n; i++) {
		const char *b = tk_keys[i].brief;

		if (!b || (b != last && len + (len ? 2 : 0) + (int)strlen(b) + keep > width))
			continue;
		len += snprintf(buf + len, n - len, "%s%s", len ? "  " : "", b);
	}
}
