/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipestat --listen: /metrics over HTTP (libmicrohttpd, its own thread),
 * and the pipeline's picture: /graph.svg, and / a page showing it live.
 */
#ifndef SERVE_H
#define SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include "output/prom.h"

struct pt_server;

/*
 * A server not serving yet, with web_config (a file, or NULL) read:
 * called before the tracing starts, so a config that is refused is
 * refused at once. NULL with a one-line reason.
 */
struct pt_server *serve_prepare(const char *web_config, char *err, size_t n);
/*
 * Serves p at http://ADDR:PORT/metrics (listen_open()), https:// with
 * basic authentication as the web-config says (OpenMetrics when the
 * scraper accepts it, else the text format 0.0.4); false with a
 * one-line reason. The store is read under the server's lock: take it
 * to change p.
 */
bool serve_start(struct pt_server *s, const char *addr_port, struct prom_store *p,
		 char *err, size_t n);
/* where it serves: "http[s]://ADDR:PORT/metrics", the port it got */
const char *serve_url(const struct pt_server *s);
/* The pipeline's picture /graph.svg serves from now on (svg: malloc'd,
 * the server's to free; NULL: none, 503). */
void serve_set_graph(struct pt_server *s, char *svg, size_t len);
/*
 * Whether anyone looked at the pipeline (/ or /graph.svg) in the last
 * SERVE_GRAPH_WANTED_S: the picture is drawn only then, Graphviz's layout
 * being no cost to put on every interval of an exporter nobody watches.
 */
#define SERVE_GRAPH_WANTED_S	10
bool serve_graph_wanted(struct pt_server *s);
void serve_lock(struct pt_server *s);
void serve_unlock(struct pt_server *s);
/* ends and frees it, started or not */
void serve_stop(struct pt_server *s);

#endif
