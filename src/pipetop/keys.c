// SPDX-License-Identifier: GPL-2.0
#include <curses.h>
#include "keys.h"

/* (Ctrl-C ends pipetop as a signal, not as a key: named for the reader) */
const struct tk_key tk_keys[] = {
	{ "q, Q, Ctrl-C", "quit", "q quit",
	  { { 'q', TK_QUIT }, { 'Q', TK_QUIT } } },
	{ "s, Right", "sort by the next column", "s/<-/-> sort",
	  { { 's', TK_SORT_NEXT }, { KEY_RIGHT, TK_SORT_NEXT } } },
	{ "Left", "sort by the previous column", NULL,
	  { { KEY_LEFT, TK_SORT_PREV } } },
	{ "Up, Down, k, j", "select a row (the table scrolls)", "up/down select",
	  { { KEY_UP, TK_UP }, { 'k', TK_UP }, { KEY_DOWN, TK_DOWN },
	    { 'j', TK_DOWN } } },
	{ "PgUp, PgDn", "the selection half a screen up / down", NULL,
	  { { KEY_PPAGE, TK_HALF_PAGE_UP }, { KEY_NPAGE, TK_HALF_PAGE_DOWN } } },
	{ "Home, End", "select the first / the last row", NULL,
	  { { KEY_HOME, TK_FIRST }, { KEY_END, TK_LAST } } },
	{ "Enter", "the selected row's waits and histograms", "Enter detail",
	  { { '\n', TK_DETAIL }, { '\r', TK_DETAIL }, { KEY_ENTER, TK_DETAIL } } },
	{ "a", "advice on the pipes in view (pipestat --advise's rules)",
	  "a advice", { { 'a', TK_ADVICE } } },
	{ "g", "the pipeline: processes joined by their pipes, the figures on "
	  "each, the bottleneck highlighted (again: the table)", "g pipeline",
	  { { 'g', TK_PIPELINE } } },
	{ "R", "resize the selected pipe: the size advice suggests (else its "
	  "ring) to edit, Enter, then y", "R resize", { { 'R', TK_RESIZE } } },
	{ "p", "one row per pipe / per process", "p pipe/process",
	  { { 'p', TK_MODE } } },
	{ "f", "filter by command name (Enter applies, Esc cancels)", "f filter",
	  { { 'f', TK_FILTER } } },
	{ "space", "pause / resume the display", "space pause",
	  { { ' ', TK_PAUSE } } },
	{ "+, -", "refresh interval longer / shorter", "+/- interval",
	  { { '+', TK_LONGER }, { '=', TK_LONGER }, { '-', TK_SHORTER },
	    { '_', TK_SHORTER } } },
	{ "h, ?", "this help; any key closes it", "h help",
	  { { 'h', TK_HELP }, { '?', TK_HELP } } },
};
const int tk_nkeys = sizeof(tk_keys) / sizeof(tk_keys[0]);

enum tk_action tk_action_of(int ch)
{
	for (int i = 0; i < tk_nkeys; i++)
		for (int b = 0; b < TK_MAX_BINDS && tk_keys[i].binds[b].code; b++)
			if (tk_keys[i].binds[b].code == ch)
				return tk_keys[i].binds[b].action;
	return TK_NONE;
}

void tk_print(FILE *f, const char *indent)
{
	for (int i = 0; i < tk_nkeys; i++)
		fprintf(f, "%s%-15s %s\n", indent, tk_keys[i].names, tk_keys[i].what);
}

void tk_status(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < tk_nkeys && len < n; i++)
		if (tk_keys[i].brief)
			len += snprintf(buf + len, n - len, "%s%s", len ? "  " : "",
					tk_keys[i].brief);
}
