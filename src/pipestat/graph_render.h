/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pipeline's picture (pipeline/pipeline.h's model) by Graphviz: its
 * cgraph for the DOT (no layout: stable, sorted as the model is, for
 * diffs) and its dot layout for SVG and PNG.
 */
#ifndef GRAPH_RENDER_H
#define GRAPH_RENDER_H

#include <stddef.h>
#include "pipeline/pipeline.h"

/* The whole file in format f into *data (free() it), its length in *len;
 * -1 if Graphviz or the memory failed. */
int graph_render(const struct pl_graph *g, enum pl_format f, char **data,
		 size_t *len);

#endif
