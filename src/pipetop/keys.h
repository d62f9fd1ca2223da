/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetop's keys: one table feeds the key handler, the help overlay, the
 * status line and --help; tests/host/test_docs.sh holds the man page's
 * KEYS section to it.
 */
#ifndef PIPETOP_KEYS_H
#define PIPETOP_KEYS_H

#include <stddef.h>
#include <stdio.h>

enum tk_action {
	TK_NONE,
	TK_QUIT,
	TK_SORT_NEXT,
	TK_SORT_PREV,
	TK_UP,
	TK_DOWN,
	TK_HALF_PAGE_UP,
	TK_HALF_PAGE_DOWN,
	TK_FIRST,
	TK_LAST,
	TK_DETAIL,
	TK_ADVICE,
	TK_PIPELINE,
	TK_RESIZE,
	TK_MODE,
	TK_FILTER,
	TK_PAUSE,
	TK_LONGER,
	TK_SHORTER,
	TK_HELP,
};

#define TK_MAX_BINDS 6

/* One line of help: the keys it names and what each does. */
struct tk_key {
	const char *names;	/* as help and the man page name them */
	const char *what;
	const char *brief;	/* on the status line; NULL: not there */
	struct {
		int code;	/* a character or a curses KEY_* code */
		enum tk_action action;
	} binds[TK_MAX_BINDS];	/* up to the first code 0 */
};

extern const struct tk_key tk_keys[];
extern const int tk_nkeys;

/* What key code ch does (TK_NONE: nothing). */
enum tk_action tk_action_of(int ch);
/* The table as "NAMES  WHAT" lines, each after indent. */
void tk_print(FILE *f, const char *indent);
/* The status line: each key's brief, two spaces apart, into buf. */
void tk_status(char *buf, size_t n);

#endif
