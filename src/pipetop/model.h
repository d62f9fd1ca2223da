/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetop's model: what one interval's counters become on screen. Pure
 * functions over rows drained with PT_BY_PIPE_PID, no curses, so unit tests
 * can check them.
 */
#ifndef PIPETOP_MODEL_H
#define PIPETOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "tune/advise.h"
#include "model/metrics.h"
#include "output/ends.h"
#include "model/rows.h"

enum tm_mode { TM_PER_PIPE, TM_PER_PROC };

/* a cell: a rate of calls, bytes (or bytes/s) in IEC units, a share, a
 * ratio, a whole count (K = 1000) */
enum tm_kind { TM_K_RATE, TM_K_BYTES, TM_K_PCT, TM_K_RATIO, TM_K_COUNT };

/* A value column (enum tm_col, model/metrics.h): its row's .top, and how
 * its cells read. */
struct tm_colinfo {
	const char *head;
	const char *name;	/* in "sort: NAME" */
	int width;
	enum tm_kind kind;
	enum pt_col metric;	/* the column of the metrics table it shows */
	bool per_second;	/* that metric as a rate */
};
/* Column i (enum tm_col): the metrics table's row placed there. */
const struct tm_colinfo *tm_col(int i);

#define TM_HELD_LEN	64	/* "comm[pid],..." of a side from /proc */
/* pipes whose idle sides a refresh looks up in /proc (each: a walk of it) */
#define TM_HELD_LOOKUPS	8

struct tm_item {
	struct pt_key key;	/* per pipe: dev, ino; per process: tgid, comm */
	struct pt_counts c;
	__u32 first, nends;	/* per pipe: its processes, model->ends[first..] */
	/* per pipe, a side no process used in the interval: who holds it
	 * open (tm_name_idle_sides()); "": not looked up */
	char held[2][TM_HELD_LEN];
	double sortv;
};

struct tm_model {
	enum tm_mode mode;
	struct tm_item *items;	/* shown, filtered, in order */
	size_t n, cap;
	const struct pt_row **ends;	/* raw rows grouped by pipe */
	size_t nends, ends_cap;
	struct pt_rows procs;	/* raw rows folded per process */
	struct pt_counts total;	/* everything traced, unfiltered */
	double moved;		/* bytes through pipes: sum of per-pipe bytes */
	size_t npipes, nprocs;
	const struct proc_args *args;	/* the processes' arguments; NULL: none */
};

void tm_init(struct tm_model *m);
/*
 * Per pipe (the first TM_HELD_LOOKUPS in order), a side no process read
 * or wrote in the interval (a reader blocked since before attach, and the
 * idle writer it waits for) named from /proc: who holds it open.
 */
void tm_name_idle_sides(struct tm_model *m);
void tm_free(struct tm_model *m);
/*
 * Rebuilds m from raw (PT_BY_PIPE_PID; m keeps pointers into it until the
 * next build). filter: "" or a substring a command name must contain (per
 * pipe: one of its processes). Returns -1 on out of memory.
 */
int tm_build(struct tm_model *m, const struct pt_rows *raw, enum tm_mode mode,
	     const char *filter);
/* Busiest first by col; values a tier cannot know go last. */
void tm_sort(struct tm_model *m, int col, const struct pt_env *env, double secs);

/* One cell: rates per second over secs; .q PT_NA when unknown. */
struct pt_value tm_value(const struct pt_counts *c, int col,
			 const struct pt_env *env, double secs);
/* Derived (to mark in the heading), exact or not known on this tier. */
enum pt_quality tm_col_quality(int col, const struct pt_env *env);
/* A cell's text, at most width characters; "-" when not known. */
void tm_format(char *buf, size_t n, const struct pt_value *v, enum tm_kind kind,
	       int width);

/* A process for a human: "comm[pid] args" (args as fmt_args_marked()
 * shows them, none when not known). */
void tm_proc_name(char *buf, size_t n, const struct tm_model *m,
		  const struct tm_item *it);

#define TM_ENDS_LISTED	ENDS_LISTED	/* per side; the rest only counted, as "+N" */
/*
 * "writer[pid],... -> reader[pid],..." in at most width characters (n >
 * width): busiest first, "+N" for those left out, "?" for a side not seen.
 */
void tm_ends_text(char *buf, size_t n, const struct tm_model *m,
		  const struct tm_item *it, int width);
/* The same with each process's arguments (ends_text()'s rule): the detail
 * pane's, where a row's columns do not depend on it. */
void tm_ends_named(char *buf, size_t n, const struct tm_model *m,
		   const struct tm_item *it, int width);

/*
 * The histograms (enum pt_hist x slots) of an item, summed over its raw
 * rows: a pipe's processes, or a process's pipes. False if it has none.
 */
bool tm_item_hist(const struct tm_model *m, const struct tm_item *it,
		  __u64 out[PT_NHIST][PT_HIST_SLOTS]);

/*
 * The advice pane's line for a pipe (per pipe only: advice is per pipe):
 * advise_pipe() over the pipe's counts, its processes summed. Returns the
 * remarks' count, 0 for a process row or a pipe with nothing to say.
 */
int tm_advice(char *buf, size_t n, const struct tm_model *m,
	      const struct tm_item *it, const struct pt_env *env, struct advice *a);
/*
 * The size the resize prompt offers for a pipe: advice's when it has one,
 * else the ring the pipe's writes saw (bytes); 0 when neither is known.
 */
long tm_resize_offer(const struct tm_model *m, const struct tm_item *it,
		     const struct pt_env *env);

/* The next refresh interval up (dir > 0) or down from cur. */
double tm_interval_step(double cur, int dir);

#endif
