/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table's columns and their order (pipestat -o): the operator's
 * default set, named sets and columns picked by name. CSV and JSON always
 * carry every column (the contract); this is the table only.
 */
#ifndef COLUMNS_H
#define COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/metrics.h"

struct pt_columns {
	int n;
	enum pt_col col[PT_NCOLS];
};

/* The default: calls, bytes, EAGAINs and waits, in 80 columns. */
void columns_default(struct pt_columns *c);
/* -k pipe's table without -o: the default less the calls (READS, WRITES),
 * room for the writers -> readers in 80 columns. */
void columns_pipe(struct pt_columns *c);
/*
 * -o LIST, comma-separated: column names (CSV names; eagain,
 * wait_read_pct, wait_write_pct for the table's own) and sets (default;
 * kernel: pool, allocations, sections; all). A LIST starting with '+'
 * adds to c as it is. False with a one-line reason in err.
 */
bool columns_parse(struct pt_columns *c, const char *list, char *err, size_t n);
/* What -o and -s take, for their error messages */
#define COLUMN_NAMES	"CSV column names (pipestat(8), CSV COLUMNS), eagain, " \
			"wait_read_pct, wait_write_pct"
/* The column of the first len bytes of name, one of -o's (and -s's)
 * names (column_name); -1 if none. */
int column_of(const char *name, size_t len);
/* A column's -o name: its CSV name, or a table-only column's name; NULL
 * for one pipestat does not show (pipetop's own). */
const char *column_name(enum pt_col col);
/*
 * A column's heading into buf: '*' when env's tier derives it, "/s" (or
 * its own rate heading) for a count with --rate. Returns the column's
 * width: its table width, or more for a longer heading.
 */
int column_head(char *buf, size_t n, enum pt_col col, const struct pt_env *env,
		bool rate);

#endif
