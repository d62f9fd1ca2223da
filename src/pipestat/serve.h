/* SPDX-License-Identifier: GPL-2.0 */
/* pipestat --listen: /metrics over HTTP (libmicrohttpd, its own thread). */
#ifndef SERVE_H
#define SERVE_H

#include <stddef.h>
#include "core/prom.h"

struct pt_server;

/*
 * Serves p at http://ADDR:PORT/metrics (listen_open()), https:// with
 * basic authentication as web_config (a file, or NULL) says (OpenMetrics when the scraper
 * accepts it, else the text format 0.0.4); NULL with a one-line reason.
 * The store is read under the server's lock: take it to change p.
 */
struct pt_server *serve_start(const char *addr_port, const char *web_config,
			      struct prom_store *p, char *err, size_t n);
/* where it serves: "http[s]://ADDR:PORT/metrics", the port it got */
const char *serve_url(const struct pt_server *s);
void serve_lock(struct pt_server *s);
void serve_unlock(struct pt_server *s);
void serve_stop(struct pt_server *s);

#endif
