/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipetrace-bench: the reference pipe workloads (man/pipetrace-bench.1), their
 * throughput next to the pipe metrics measured during each run, and A/B
 * over the fs.pipe-* knobs.
 */
#ifndef PIPETRACE_BENCH_H
#define PIPETRACE_BENCH_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "cli/cli.h"
#include "model/load_opts.h"
#include "model/metrics.h"
#include "model/rows.h"
#include "workload/workload.h"

struct csv_layout;

enum pb_wl { PB_STREAM, PB_MIX, PB_PINGPONG, PB_URING, PB_BW, PB_BURSTY, PB_NWL };

#define PB_MAX_LIST	16	/* --size, --writers, --readers entries */
#define PB_MAX_CPUS	64
#define PB_MAX_REPS	999
/* the workload's command name: "pbench-<pid of pipetrace-bench>", unique per run */
#define PB_COMM_FMT	"pbench-%d"

#define PB_URING_PIPES	128
#define PB_URING_ROUNDS	256
#define PB_URING_SIZE	4096
#define PB_MIX_PIPE	(1 << 20)
#define PB_CHUNK	65536	/* mix, bw and bursty writes and reads */
/* bursty: 256 KiB bursts (4 default rings) every 20 ms; the reader spends
 * 2 ms per 64 KiB read, 8 ms a burst: its average rate keeps up */
#define PB_BURST	(256 << 10)
#define PB_BURST_GAP_US	20000
#define PB_BURST_WORK_US	2000

struct pb_ab {
	bool on;
	const char *knob;	/* "pipe-read-batch": the file under /proc/sys/fs */
	int value[2];		/* A (baseline), B (patched) */
};

struct pb_opts {
	bool wl[PB_NWL];
	long sizes[PB_MAX_LIST];	/* stream and pingpong; 0 entries: defaults */
	int nsizes;
	long writers[PB_MAX_LIST], readers[PB_MAX_LIST];	/* mix */
	int nwriters, nreaders;
	long pipe_sizes[PB_MAX_LIST];	/* bursty; 0 entries: defaults */
	int npipe_sizes;
	double duration;	/* per repetition */
	int reps;
	long ops;		/* per repetition instead of a duration; 0: none */
	int cpus[PB_MAX_CPUS];
	int ncpus;
	bool quick, csv, json;
	bool baseline;		/* each point also with nothing attached */
	struct pb_ab ab;
	struct pt_load_opts load;
};


/* the workloads by enum pb_wl, then "all" and NULL: the operands */
extern const char *const pb_wl_names[PB_NWL + 2];
/* the option table: --help, the man page's OPTIONS, bash completion */
extern const struct opt_tool pb_tool;

/* CLI_RUN; CLI_EXIT_OK after --help/--version; CLI_USAGE with err (exit 2). */
int pb_parse(int argc, char **argv, struct pb_opts *o, FILE *out,
	     char *err, size_t n);

/* One measured point: a workload with its parameters. */
struct pb_point {
	enum pb_wl wl;
	long size;
	int writers, readers;
	const char *variant;	/* uring: "empty" or "data"; else "" */
	long pipe_size;		/* bursty: F_SETPIPE_SZ first; 0: as made */
};

/* the CPU the i-th end is pinned to (round-robin over --cpus), -1: none */
int pb_cpu_at(const struct pb_opts *o, int i);
/* where the point's ends run: "unpinned", "same CPU 0", "CPUs 0 and 1", ... */
const char *pb_placement(const struct pb_opts *o, const struct pb_point *p,
			 char *buf, size_t n);

/* What one side (or the only side) of a point measured over its reps. */
struct pb_side {
	int knob_value;		/* --ab value, -1 without --ab */
	bool unattached;	/* --baseline's side: no programs, no counts */
	struct pt_env env;
	struct pt_counts c;	/* the loader's totals over every rep */
	double mbps[PB_MAX_REPS], usop[PB_MAX_REPS];
	double wait_pct[PB_MAX_REPS];	/* bursty: writer's time in write(2) */
	long ring;		/* bursty: the pipe's size (F_GETPIPE_SZ) */
	int n;
	long long bytes, ops;	/* what the workload says it did, all reps */
	double seconds;
};

struct pb_stats {
	double median, min, max;
};

/* median (mean of the middle two for even n), min, max of v[0..n) */
struct pb_stats pb_stats_of(const double *v, int n);
/* (b - a) / a in %; 0 when a is 0 */
double pb_delta_pct(double a, double b);
/* above this (max - min) / median, in %, a point is flagged as noisy */
#define PB_SPREAD_WARN_PCT	25
/* (max - min) / median in %; 0 when the median is 0 */
double pb_spread_pct(const struct pb_stats *s);
/* half the larger relative min..max spread of the two sides, in % */
double pb_noise_pct(const struct pb_stats *a, const struct pb_stats *b);
/* pingpong and uring read best as us per op, the rest as MB/s */
bool pb_per_op(enum pb_wl wl);

/* uring.c: npipes pipes x rounds reads of size through io_uring */
int wl_uring(int npipes, int rounds, size_t size, bool prefilled,
	     struct wl_result *r);

/* knob.c */
struct pb_knob_info {
	const char *name;
	int min, max;
};
/* NULL if name (with or without "fs.") is not a knob pipetrace-bench knows */
const struct pb_knob_info *pb_knob_find(const char *name);
/* "KNOB=A,B" into ab; -1 with a one-line err */
int pb_ab_parse(const char *spec, struct pb_ab *ab, char *err, size_t n);
/*
 * SIGINT, SIGTERM, SIGHUP (not under nohup): kill the running workload,
 * restore the knob if one was taken, then die by the signal.
 */
void pb_signals_init(void);
/*
 * Checks that this kernel has the knob and it can be written, saves its
 * value and arranges for it to be restored at exit and on those signals.
 * -1 with err if not.
 */
int pb_knob_begin(const char *knob, char *err, size_t n);
int pb_knob_set(int value);
void pb_knob_restore(void);
/* Puts back a knob a killed --ab run left changed, or says how to (stderr). */
void pb_knob_recover(void);
/* the running workload's process group, for the signal path (0: none) */
void pb_knob_set_child(pid_t pgid);

/* out.c */
/* The columns its rows show (1 << enum pt_col; the table's rows marked
 * .bench): the hooks to load. */
__u64 pb_out_cols(void);
/* Its CSV and JSON fields. */
extern const struct csv_layout pb_csv_layout;
void pb_out_begin(FILE *f, const struct pb_opts *o, enum pt_tier tier);
void pb_out_point(FILE *f, const struct pb_opts *o, const struct pb_point *p,
		  const struct pb_side *sides, int nsides);
void pb_out_end(FILE *f, const struct pb_opts *o);

#endif
