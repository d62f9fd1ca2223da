// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/ends.h"
#include "output/fmt.h"
#include "pipe_seen.h"
#include "pipeline.h"

/* One process's end of one pipe in the interval. */
struct part {
	struct pt_key key;
	struct pt_counts c;
	bool writer, reader;
};

void pl_init(struct pl_graph *g)
{
	memset(g, 0, sizeof(*g));
	g->bottleneck = -1;
}

void pl_free(struct pl_graph *g)
{
	free(g->nodes);
	free(g->edges);
	pl_init(g);
}

static int pipe_then_pid(const void *a, const void *b)
{
	const struct pt_key *x = &((const struct part *)a)->key;
	const struct pt_key *y = &((const struct part *)b)->key;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

/* The interval's ends, and the seen ends that moved nothing in it. */
static struct part *gather(const struct pt_rows *ends, const struct pipe_seen *seen,
			   size_t *n)
{
	size_t cap = ends->n + (seen ? seen->n : 0), k = 0;
	struct part *v = calloc(cap ? cap : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < ends->n; i++) {
		const struct pt_row *row = &ends->v[i];

		v[k] = (struct part){ row->key, row->c, pt_is_writer(&row->c),
				      pt_is_reader(&row->c) };
		/* a side it took before, blocked all of this interval */
		if (seen) {
			const struct seen_end *e = seen_find(seen, row->key.tgid,
							     row->key.dev, row->key.ino);

			v[k].writer |= e && e->writer && !v[k].reader;
			v[k].reader |= e && e->reader && !v[k].writer;
		}
		k++;
	}
	for (size_t i = 0; seen && i < seen->n; i++) {
		const struct seen_end *e = &seen->v[i];

		if (rows_has(ends, &e->key))
			continue;
		v[k] = (struct part){ .key = e->key, .writer = e->writer,
				      .reader = e->reader };
		k++;
	}
	qsort(v, k, sizeof(*v), pipe_then_pid);
	*n = k;
	return v;
}

static int node_cmp(const void *a, const void *b)
{
	__u32 x = ((const struct pl_node *)a)->pid, y = ((const struct pl_node *)b)->pid;

	return (x > y) - (x < y);
}

static long node_of(const struct pl_graph *g, __u32 pid)
{
	const struct pl_node key = { .pid = pid };
	const struct pl_node *n = bsearch(&key, g->nodes, g->nnodes, sizeof(key), node_cmp);

	return n ? n - g->nodes : -1;
}

static int pid_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* One node per process, its counts summed over its pipes. */
static int add_nodes(struct pl_graph *g, const struct part *v, size_t n,
		     const struct pipe_seen *seen)
{
	__u32 *pids = malloc((n + 1) * sizeof(*pids));
	size_t k = 0;

	if (!pids || pt_grow((void **)&g->nodes, &g->nodes_cap, n + 1,
			     sizeof(*g->nodes), 16)) {
		free(pids);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		pids[i] = v[i].key.tgid;
	qsort(pids, n, sizeof(*pids), pid_cmp);
	for (size_t i = 0; i < n; i++)
		if (!i || pids[i] != pids[i - 1])
			pids[k++] = pids[i];
	memset(g->nodes, 0, k * sizeof(*g->nodes));
	for (size_t i = 0; i < k; i++)
		g->nodes[i].pid = pids[i];
	g->nnodes = k;
	free(pids);
	for (size_t i = 0; i < n; i++) {
		struct pl_node *node = &g->nodes[node_of(g, v[i].key.tgid)];

		/* the process's CPU figures, the same on each end that has
		 * them: counts_add() leaves them out */
		if (v[i].c.sched_span_ns) {
			node->c.sched_span_ns = v[i].c.sched_span_ns;
			node->c.cpu_ns = v[i].c.cpu_ns;
			node->c.runq_ns = v[i].c.runq_ns;
		}
		if (!node->comm[0]) {
			memcpy(node->comm, v[i].key.comm, PT_COMM_LEN);
			if (seen)
				snprintf(node->cmdline, sizeof(node->cmdline), "%s",
					 seen_cmdline(seen, node->pid));
		}
		counts_add(&node->c, &v[i].c);
	}
	return 0;
}

static int add_edge(struct pl_graph *g, const struct part *w, const struct part *r,
		    size_t nw, size_t nr, const struct pipe_seen *seen)
{
	const struct seen_end *e;
	struct pl_edge *edge;

	if (pt_grow((void **)&g->edges, &g->edges_cap, g->nedges + 1,
		    sizeof(*g->edges), 16))
		return -1;
	edge = &g->edges[g->nedges++];
	memset(edge, 0, sizeof(*edge));
	edge->from = node_of(g, w->key.tgid);
	edge->to = node_of(g, r->key.tgid);
	edge->dev = w->key.dev;
	edge->ino = w->key.ino;
	e = seen ? seen_find(seen, w->key.tgid, w->key.dev, w->key.ino) : NULL;
	if (!e || !e->path[0])
		e = seen ? seen_find(seen, r->key.tgid, r->key.dev, r->key.ino) : NULL;
	if (e)
		snprintf(edge->path, sizeof(edge->path), "%s", e->path);
	/* all a lone reader read came from the writers, each its own share;
	 * all a lone writer wrote went to the readers */
	if (nr == 1) {
		edge->known = true;
		edge->bytes = pt_bytes_in(&w->c);
		edge->calls = w->c.writes + w->c.splice_in;
	} else if (nw == 1) {
		edge->known = edge->by_reader = true;
		edge->bytes = pt_bytes_out(&r->c);
		edge->calls = r->c.reads + r->c.splice_out;
	}
	if (edge->bytes > g->max_bytes)
		g->max_bytes = edge->bytes;
	return 0;
}

/*
 * A pipe's parts v[0..n): an edge from each writer to each other reader;
 * a pipe of many writers and readers (a jobserver's) is left out,
 * counted: its pairs would swamp the picture and carry no figures.
 */
static int add_pipe_edges(struct pl_graph *g, const struct part *v, size_t n,
			  const struct pipe_seen *seen)
{
	size_t nw = 0, nr = 0;

	for (size_t i = 0; i < n; i++) {
		nw += v[i].writer;
		nr += v[i].reader;
	}
	if (nw > 1 && nr > 1 && nw * nr > PL_MAX_PAIRS) {
		g->pipes_left_out++;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; v[i].writer && j < n; j++)
			if (v[j].reader && v[j].key.tgid != v[i].key.tgid &&
			    add_edge(g, &v[i], &v[j], nw, nr, seen))
				return -1;
	return 0;
}

static int edge_cmp(const void *a, const void *b)
{
	const struct pl_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

static bool moved_nothing(const struct pt_counts *c)
{
	return !c->reads && !c->writes && !c->splice_in && !c->splice_out &&
	       !c->wait_read_ns && !c->wait_write_ns;
}

/*
 * Where each process waited, and the bottleneck: of the processes that
 * set the pace (busy or starved), the one that waited least on its pipes;
 * none when every process waits on another (or on nothing traced).
 */
static void classify(struct pl_graph *g, const struct pt_env *env)
{
	double least = 2;

	for (size_t i = 0; i < g->nnodes; i++) {
		struct pl_node *node = &g->nodes[i];
		double waits;

		if (moved_nothing(&node->c)) {
			node->state = PL_IDLE;
			continue;
		}
		if (!pl_shares_of(&node->c, env, &node->share)) {
			node->state = PL_UNKNOWN;
			continue;
		}
		node->state = pl_verdict(&node->share);
		waits = node->share.wait_read + node->share.wait_write;
		if ((node->state == PL_BUSY || node->state == PL_STARVED) && waits < least) {
			least = waits;
			g->bottleneck = i;
		}
	}
	if (g->bottleneck >= 0)
		g->nodes[g->bottleneck].bottleneck = true;
}

/* Stages left to right: a source 0, a reader one past its writers (a
 * cycle stops growing after as many rounds as there are nodes). */
static void stage(struct pl_graph *g)
{
	bool moved = true;

	for (size_t round = 0; moved && round < g->nnodes; round++) {
		moved = false;
		for (size_t i = 0; i < g->nedges; i++) {
			const struct pl_edge *e = &g->edges[i];
			int s = g->nodes[e->from].stage + 1;

			if (g->nodes[e->to].stage < s) {
				g->nodes[e->to].stage = s;
				moved = true;
			}
		}
	}
}

int pl_build(struct pl_graph *g, const struct pt_rows *ends,
	     const struct pt_env *env, const struct pipe_seen *seen)
{
	struct part *v;
	size_t n, first = 0;
	int err = 0;

	g->nnodes = g->nedges = g->pipes_left_out = 0;
	g->bottleneck = -1;
	g->max_bytes = 0;
	g->interval_s = env->interval_s;
	v = gather(ends, seen, &n);
	if (!v || add_nodes(g, v, n, seen)) {
		free(v);
		return -1;
	}
	for (size_t i = 1; i <= n && !err; i++)
		if (i == n || v[i].key.dev != v[first].key.dev ||
		    v[i].key.ino != v[first].key.ino) {
			err = add_pipe_edges(g, v + first, i - first, seen);
			first = i;
		}
	free(v);
	if (err)
		return -1;
	qsort(g->edges, g->nedges, sizeof(*g->edges), edge_cmp);
	classify(g, env);
	stage(g);
	return 0;
}

struct pipe_rank {
	size_t group;	/* its pipeline's first row */
	long rank;	/* upstream first in it */
	size_t i;	/* its row: ties keep their order */
};

static int rank_cmp(const void *a, const void *b)
{
	const struct pipe_rank *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* What ordering the pipes needs, per pipe and per node. */
struct order_work {
	struct pipe_rank *rk;
	long *wmin, *rmin;	/* per pipe: its writers', readers' rank */
	long *node;		/* per pipe: a node of its ends; -1: none */
	size_t *up;		/* per node: union-find of the pipelines */
	size_t *first;		/* per node: its pipeline's first row */
};

static size_t root_of(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/*
 * Each pipe's pipeline (the nodes its edges join, named by its first row:
 * pipelines as busy as their busiest pipe), and its rank in it from its
 * ends' stages: twice its earliest writer's (a stage's pipes out after
 * those into it), else its earliest reader's less one (just before the
 * reader), else last.
 */
static void rank_pipes(struct order_work *w, const struct pt_rows *pipes,
		       const struct pt_rows *ends, const struct pl_graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		w->up[i] = i;
		w->first[i] = SIZE_MAX;
	}
	for (size_t i = 0; i < g->nedges; i++)
		w->up[root_of(w->up, g->edges[i].from)] = root_of(w->up, g->edges[i].to);
	for (size_t i = 0; i < pipes->n; i++) {
		w->wmin[i] = w->rmin[i] = LONG_MAX;
		w->node[i] = -1;
	}
	for (size_t i = 0; i < ends->n; i++) {
		const struct pt_row *e = &ends->v[i];
		long p = rows_find(pipes, &e->key), node = node_of(g, e->key.tgid);
		long st = node >= 0 ? g->nodes[node].stage : LONG_MAX / 4;

		if (p < 0)
			continue;
		if (node >= 0)
			w->node[p] = node;
		if (pt_is_writer(&e->c) && 2 * st < w->wmin[p])
			w->wmin[p] = 2 * st;
		if (pt_is_reader(&e->c) && 2 * st - 1 < w->rmin[p])
			w->rmin[p] = 2 * st - 1;
	}
	for (size_t i = 0; i < pipes->n; i++) {
		size_t group = i;

		if (w->node[i] >= 0) {
			size_t root = root_of(w->up, w->node[i]);

			if (w->first[root] == SIZE_MAX)
				w->first[root] = i;
			group = w->first[root];
		}
		w->rk[i] = (struct pipe_rank){ group, w->wmin[i] != LONG_MAX ?
					       w->wmin[i] : w->rmin[i], i };
	}
}

int pl_order_pipes(struct pt_rows *pipes, const struct pt_rows *ends,
		   const struct pl_graph *g)
{
	size_t n = pipes->n, nn = g->nnodes;
	struct order_work w;
	struct pt_row *v;
	int err = -1;

	if (n < 2)
		return 0;
	w = (struct order_work){
		.rk = malloc(n * sizeof(*w.rk)), .wmin = malloc(3 * n * sizeof(long)),
		.up = malloc((2 * nn + 1) * sizeof(size_t)),
	};
	v = malloc(n * sizeof(*v));
	if (!w.rk || !w.wmin || !w.up || !v)
		goto out;
	w.rmin = w.wmin + n;
	w.node = w.wmin + 2 * n;
	w.first = w.up + nn;
	rank_pipes(&w, pipes, ends, g);
	qsort(w.rk, n, sizeof(*w.rk), rank_cmp);
	for (size_t i = 0; i < n; i++)
		v[i] = pipes->v[w.rk[i].i];
	memcpy(pipes->v, v, n * sizeof(*v));
	rows_reindex(pipes);
	err = 0;
out:
	free(w.rk);
	free(w.wmin);
	free(w.up);
	free(v);
	return err;
}

double pl_rate(const struct pl_graph *g, __u64 n)
{
	return g->interval_s > 0 ? n / g->interval_s : 0;
}

void pl_node_name(char *buf, size_t n, const struct pl_node *node)
{
	char comm[FMT_MARKED_LEN];

	snprintf(buf, n, "%s[%u]", fmt_comm_marked(comm, node->comm, PT_COMM_LEN),
		 node->pid);
}

/* calls a second: "25.6k" and the like, three significant figures */
static void calls_text(char *buf, size_t n, double d)
{
	static const char prefix[] = " kMGTPE";
	int i = 0;

	while (d >= 1000 && i < (int)sizeof(prefix) - 2) {
		d /= 1000;
		i++;
	}
	if (!i)
		snprintf(buf, n, "%.0f", d);
	else
		snprintf(buf, n, "%.*f%c", d < 10 ? 2 : d < 100 ? 1 : 0, d, prefix[i]);
}

void pl_edge_rates(char *bytes, char *calls, size_t n, const struct pl_graph *g,
		   const struct pl_edge *e, bool brief)
{
	char rate[32];

	if (!e->known) {
		snprintf(bytes, n, "?");
		calls[0] = '\0';
		return;
	}
	/* bytes as every table shows them */
	fmt_iec(rate, sizeof(rate), (unsigned long long)(pl_rate(g, e->bytes) + 0.5));
	snprintf(bytes, n, "%sB/s", rate);
	calls_text(rate, sizeof(rate), pl_rate(g, e->calls));
	snprintf(calls, n, "%s %s/s", rate, brief ? (e->by_reader ? "r" : "w") :
		 e->by_reader ? "reads" : "writes");
}

void pl_edge_figures(char *buf, size_t n, const struct pl_graph *g,
		     const struct pl_edge *e)
{
	char bytes[48], calls[48];

	pl_edge_rates(bytes, calls, sizeof(bytes), g, e, false);
	snprintf(buf, n, "%s%s%s", bytes, calls[0] ? " " : "", calls);
}

enum pl_format pl_format_of(const char *path)
{
	static const char *const ext[] = { [PL_FMT_DOT] = ".dot", [PL_FMT_SVG] = ".svg",
					   [PL_FMT_PNG] = ".png" };
	size_t len = strlen(path);

	for (int f = 0; f < (int)(sizeof(ext) / sizeof(ext[0])); f++)
		if (len > 4 && !strcmp(path + len - 4, ext[f]))
			return f;
	return PL_FMT_NONE;
}
