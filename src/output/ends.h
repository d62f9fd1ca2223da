/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pipe's ends: the processes that write into it and read from it, from
 * rows keyed by pipe and process (PT_BY_PIPE_PID). pipestat -k pipe names
 * them as pipetop does: "dd[12]" for command dd, process 12 (CSV and JSON:
 * rec_procs()).
 */
#ifndef ENDS_H
#define ENDS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/rows.h"

#define ENDS_LISTED	32	/* per side; the rest only counted, as "+N" */

/* A process of a pipe writes into it / reads from it (or tried to, or
 * waited to). */
bool pt_is_writer(const struct pt_counts *c);
bool pt_is_reader(const struct pt_counts *c);

struct proc_args;

/* The side of its pipe an end (a PT_BY_PIPE_PID row) took. */
enum pt_side end_side(const struct pt_counts *c);
/* Folds src's rows (counts and histograms) into dst under dst->by, apart
 * by end_side() where dst's key has a side (by_has_side). */
int rows_fold(struct pt_rows *dst, const struct pt_rows *src);
/* Orders ends (PT_BY_PIPE_PID rows) by pipe, then process, for ends_names. */
void ends_sort(struct pt_rows *ends);
/*
 * The writers (or readers) of pipe (its dev and ino) among ends, by pid:
 * the first cap into v; returns how many there are.
 */
size_t ends_list(const struct pt_rows *ends, const struct pt_key *pipe,
		 bool writers, const struct pt_row **v, size_t cap);
/*
 * For a human: "comm[pid],..." of the writers (or readers) of pipe, each
 * comm as fmt_comm_marked() shows it; after ENDS_LISTED, "+N" for the
 * rest; "" if none.
 */
void ends_names(char *buf, size_t n, const struct pt_rows *ends,
		const struct pt_key *pipe, bool writers);

/* One side of a pipe for ends_text: v[0..k) of its total processes. */
struct ends_side {
	const struct pt_row *const *v;
	int k, total;
	const char *idle;	/* shown for a side no process used, if not
				 * NULL or "": who holds it open */
	const struct proc_args *args;	/* each one's arguments; NULL: none */
};
/*
 * "writer[pid],... -> reader[pid],..." in at most width characters (n >
 * width; width < 0: no limit), the rule both tools cut lists by: a name
 * is "comm[pid] ARGS" with the side's args, which give way first (cut,
 * then left out); then each side keeps the whole names that fit and
 * counts the rest as "+N"; a name alone too long for its side loses the
 * end of its command name, never its [pid]; a side not seen shows its
 * idle text, else "?".
 */
void ends_text(char *buf, size_t n, const struct ends_side *w,
	       const struct ends_side *r, int width);

#endif
