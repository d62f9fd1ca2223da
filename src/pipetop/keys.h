/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetop's keys: one table binds each key to its action (actions.h) and
 * feeds the help overlay, the status line and --help;
 * tests/host/test_docs.sh holds the man page's KEYS section to it. A new
 * key is an action function and one entry in the table.
 */
#ifndef PIPETOP_KEYS_H
#define PIPETOP_KEYS_H

#include <stddef.h>
#include <stdio.h>
#include "actions.h"

#define TK_MAX_BINDS 6

/* One line of help: the keys it names and what each does. */
struct tk_key {
	const char *names;	/* as help and the man page name them */
	const char *what;
	const char *brief;	/* on the status line; NULL: not there */
	struct {
		int code;	/* a character or a curses KEY_* code */
		ta_action action;
	} binds[TK_MAX_BINDS];	/* up to the first code 0 */
};

extern const struct tk_key tk_keys[];
extern const int tk_nkeys;

/* The action key code ch is bound to; NULL: none. */
ta_action tk_action_of(int ch);
/*
 * The one place a key is acted on: into the open prompt if there is one;
 * else it closes the help (quitting if it is a quit key); else its action.
 * Returns the action's enum ta_reaction flags.
 */
int tk_press(struct ta_state *s, int ch);
/* The table as "NAMES  WHAT" lines, each after indent. */
void tk_print(FILE *f, const char *indent);
/*
 * The status line: each key's brief, two spaces apart, into buf; those
 * that would make it wider than width left out, except the last (help).
 */
void tk_status(char *buf, size_t n, int width);

#endif
