// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include "output/fmt.h"
#include "graph_render.h"

/* node fills by where the process waits: the busy stage stands out */
static const char *const fill[] = {
	[PL_BUSY] = "#f4a09c",		/* red: it sets the pace */
	[PL_STARVED] = "#d7b4f0",	/* violet: it would, given a CPU */
	[PL_WAITS_WRITE] = "#f7d774",	/* amber: its downstream is slower */
	[PL_WAITS_READ] = "#9cc3ef",	/* blue: its upstream is slower */
	[PL_UNKNOWN] = "#ffffff",
	[PL_IDLE] = "#f2f2f2",		/* faded: moved nothing */
};

static void set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, "");
}

static void set_u64(void *obj, const char *name, __u64 u)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
	set(obj, name, buf);
}

static void set_pct(void *obj, const char *name, bool known, double share)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", 100 * share);
	set(obj, name, known ? buf : "-");
}

static Agnode_t *add_node(Agraph_t *gv, const struct pl_node *node)
{
	char name[FMT_MARKED_LEN + 16], label[FMT_MARKED_LEN + 160], pid[16], cpu[48] = "";
	bool waits = node->state != PL_UNKNOWN && node->state != PL_IDLE;
	const struct pl_shares *s = &node->share;
	Agnode_t *n;

	pl_node_name(name, sizeof(name), node);
	n = agnode(gv, name, 1);
	snprintf(pid, sizeof(pid), "%u", node->pid);
	if (waits && s->sched)
		snprintf(cpu, sizeof(cpu), " CPU %.0f%% RUNQ %.0f%%", 100 * s->cpu,
			 100 * s->runq);
	if (waits)
		snprintf(label, sizeof(label), "%s\\n%s (R %.0f%% W %.0f%%%s)%s", name,
			 pl_state_name(node->state), 100 * s->wait_read,
			 100 * s->wait_write, cpu, node->bottleneck ? "\\nbottleneck" : "");
	else
		snprintf(label, sizeof(label), "%s\\n%s", name, pl_state_name(node->state));
	set(n, "label", label);
	set(n, "pid", pid);
	set(n, "comm", node->comm);
	set(n, "state", pl_state_name(node->state));
	set(n, "bottleneck", node->bottleneck ? "true" : "false");
	set_pct(n, "wait_read_pct", waits, s->wait_read);
	set_pct(n, "wait_write_pct", waits, s->wait_write);
	set_pct(n, "cpu_pct", waits && s->sched, s->cpu);
	set_pct(n, "runq_pct", waits && s->sched, s->runq);
	set(n, "fillcolor", fill[node->state]);
	set(n, "tooltip", node->cmdline[0] ? node->cmdline : name);
	if (node->bottleneck) {
		set(n, "color", "#b03a2e");
		set(n, "penwidth", "3");
	}
	if (node->state == PL_IDLE) {
		set(n, "style", "rounded,filled,dashed");
		set(n, "color", "#bbbbbb");
		set(n, "fontcolor", "#999999");
	}
	return n;
}

static void add_edge(Agraph_t *gv, Agnode_t **nodes, const struct pl_graph *g,
		     const struct pl_edge *e)
{
	char figures[96], label[PL_PATH_LEN + 100], pipe[64], width[16];
	Agedge_t *edge = agedge(gv, nodes[e->from], nodes[e->to], NULL, 1);

	pl_edge_figures(figures, sizeof(figures), g, e);
	snprintf(label, sizeof(label), "%s%s%s", e->path, e->path[0] ? "\\n" : "",
		 figures);
	fmt_pipe(pipe, sizeof(pipe), e->dev, e->ino);
	/* width by throughput: 1 to 6 points, the busiest edge widest */
	snprintf(width, sizeof(width), "%.1f",
		 1 + (g->max_bytes ? 5.0 * e->bytes / g->max_bytes : 0));
	set(edge, "label", label);
	set(edge, "pipe", pipe);
	set(edge, "penwidth", width);
	set(edge, "tooltip", e->path[0] ? e->path : pipe);
	if (e->path[0])
		set(edge, "fifo", e->path);
	if (e->known) {
		set_u64(edge, "bytes", e->bytes);
		set_u64(edge, "calls", e->calls);
		set(edge, "side", e->by_reader ? "read" : "write");
	}
	if (!e->bytes)
		set(edge, "style", "dashed");
}

static Agraph_t *build(const struct pl_graph *g)
{
	Agraph_t *gv = agopen("pipeline", Agdirected, NULL);
	Agnode_t **nodes = calloc(g->nnodes + 1, sizeof(*nodes));

	if (!gv || !nodes) {
		free(nodes);
		if (gv)
			agclose(gv);
		return NULL;
	}
	agattr(gv, AGRAPH, "rankdir", "LR");
	agattr(gv, AGNODE, "shape", "box");
	agattr(gv, AGNODE, "style", "rounded,filled");
	agattr(gv, AGNODE, "fontname", "Helvetica");
	agattr(gv, AGEDGE, "fontname", "Helvetica");
	agattr(gv, AGEDGE, "fontsize", "10");
	/* declared, so a reader of the DOT finds them empty where unknown */
	agattr(gv, AGEDGE, "fifo", "");
	agattr(gv, AGEDGE, "bytes", "");
	agattr(gv, AGEDGE, "calls", "");
	agattr(gv, AGEDGE, "side", "");
	if (g->pipes_left_out) {
		char note[128];

		snprintf(note, sizeof(note), "%zu pipe%s of many writers and readers "
			 "not drawn", g->pipes_left_out, g->pipes_left_out > 1 ? "s" : "");
		set(gv, "label", note);
		set_u64(gv, "pipes_left_out", g->pipes_left_out);
	}
	for (size_t i = 0; i < g->nnodes; i++)
		nodes[i] = add_node(gv, &g->nodes[i]);
	for (size_t i = 0; i < g->nedges; i++)
		add_edge(gv, nodes, g, &g->edges[i]);
	free(nodes);
	return gv;
}

static int render_dot(Agraph_t *gv, char **data, size_t *len)
{
	FILE *f = open_memstream(data, len);

	if (!f)
		return -1;
	if (agwrite(gv, f)) {
		fclose(f);
		free(*data);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

static int render_laid_out(Agraph_t *gv, const char *format, char **data, size_t *len)
{
	GVC_t *gvc = gvContext();
	unsigned int n = 0;
	char *out = NULL;
	int err = -1;

	if (!gvc)
		return -1;
	if (!gvLayout(gvc, gv, "dot")) {
		if (!gvRenderData(gvc, gv, format, &out, &n) && out && n &&
		    (*data = malloc(n))) {
			memcpy(*data, out, n);
			*len = n;
			err = 0;
		}
		gvFreeRenderData(out);
		gvFreeLayout(gvc, gv);
	}
	gvFreeContext(gvc);
	return err;
}

int graph_render(const struct pl_graph *g, enum pl_format f, char **data,
		 size_t *len)
{
	Agraph_t *gv = build(g);
	int err;

	if (!gv)
		return -1;
	*data = NULL;
	if (f == PL_FMT_DOT)
		err = render_dot(gv, data, len);
	else
		err = render_laid_out(gv, f == PL_FMT_SVG ? "svg" : "png", data, len);
	agclose(gv);
	return err;
}
