/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pipeline as a graph, one model for every picture of it (pipestat
 * --graph, the exporter's /graph.svg, pipetop's pipeline view): a node per
 * process, an edge per pipe from each writer to each reader, each node
 * classed by where it waits, and the bottleneck. Built from one interval's
 * rows by pipe and process (PT_BY_PIPE_PID); no drawing here.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include "model/metrics.h"
#include "model/rows.h"
#include "model/verdict.h"

struct pipe_seen;

#define PL_CMDLINE_LEN	128
/* A pipe with several writers and readers gets an edge per pair up to
 * this many pairs (their figures are not known anyway). */
#define PL_MAX_PAIRS	64
#define PL_PATH_LEN	256

struct pl_node {
	__u32 pid;
	char comm[PT_COMM_LEN];
	char cmdline[PL_CMDLINE_LEN];	/* "" if not known */
	struct pt_counts c;	/* its pipes' counts, summed */
	struct pl_shares share;
	enum pl_state state;
	bool bottleneck;
	int stage;		/* 0 for a source, else 1 + its writers' */
};

struct pl_edge {
	size_t from, to;	/* nodes: a writer, a reader of one pipe */
	__u32 dev;		/* the pipe */
	__u64 ino;
	char path[PL_PATH_LEN];	/* a FIFO's path; "" for a pipe, or unknown */
	/*
	 * What went along the edge: the writer's writes when the pipe has
	 * one reader, else the reader's reads when it has one writer; not
	 * known (several of each) otherwise.
	 */
	bool known;
	bool by_reader;		/* the figures are the reader's reads */
	__u64 bytes, calls;
};

struct pl_graph {
	struct pl_node *nodes;	/* by pid */
	size_t nnodes, nodes_cap;
	struct pl_edge *edges;	/* by writer, reader, pipe */
	size_t nedges, edges_cap;
	double interval_s;
	long bottleneck;	/* a node; -1: none */
	size_t pipes_left_out;	/* of over PL_MAX_PAIRS writer-reader pairs */
	__u64 max_bytes;	/* the busiest edge's */
};

void pl_init(struct pl_graph *g);
void pl_free(struct pl_graph *g);
/*
 * Rebuilds g from one interval's ends (PT_BY_PIPE_PID rows, sorted with
 * ends_sort()) lasting env->interval_s; seen (may be NULL) adds the
 * processes that still hold a pipe but moved nothing (PL_IDLE), command
 * lines and FIFO paths. -1 on out of memory.
 */
int pl_build(struct pl_graph *g, const struct pt_rows *ends,
	     const struct pt_env *env, const struct pipe_seen *seen);

/*
 * pipes (PT_BY_PIPE rows) in pipeline order: each pipeline's pipes
 * together (the pipelines in the order of their first rows), upstream
 * first: a pipe whose reader writes into another pipe comes before it
 * (a | b | c: a's pipe into b, then b's into c, whatever their inode
 * numbers), by the stage of each pipe's earliest writer in g (built from
 * ends with pl_build()); ties keep their order. -1 on out of memory
 * (pipes left as they were).
 */
int pl_order_pipes(struct pt_rows *pipes, const struct pt_rows *ends,
		   const struct pl_graph *g);

/* Per second of the interval; 0 for an interval of no length. */
double pl_rate(const struct pl_graph *g, __u64 n);
/* The node's label: "comm[pid]" (the comm shown as fmt_comm_marked()). */
void pl_node_name(char *buf, size_t n, const struct pl_node *node);
/*
 * The edge's figures for a human: bytes "12.5MiB/s" and calls "1.6k
 * writes/s" (with brief, "1.6k w/s"); "?" and "" when not known.
 */
void pl_edge_rates(char *bytes, char *calls, size_t n, const struct pl_graph *g,
		   const struct pl_edge *e, bool brief);
/* Both on one line: "12.5MiB/s 1.6k writes/s", or "?". */
void pl_edge_figures(char *buf, size_t n, const struct pl_graph *g,
		     const struct pl_edge *e);

/* Pictures by their file's extension. */
enum pl_format { PL_FMT_NONE = -1, PL_FMT_DOT, PL_FMT_SVG, PL_FMT_PNG };
/* The format of path's extension; PL_FMT_NONE if none fits. */
enum pl_format pl_format_of(const char *path);

#endif
