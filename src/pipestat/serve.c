// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "opts.h"
#include "serve.h"

struct pt_server {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	struct prom_store *p;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version,
			      const char *upload, size_t *upload_size, void **state)
{
	struct pt_server *s = cls;
	const char *accept;
	enum prom_fmt fmt;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version, (void)upload, (void)upload_size, (void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     strdup("GET /metrics\n"), 13);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
			     strdup("pipetrace serves /metrics\n"), 26);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	fmt = accept && strstr(accept, "application/openmetrics-text") ?
	      PROM_OPENMETRICS : PROM_TEXT;
	f = open_memstream(&body, &len);
	if (!f)
		return MHD_NO;
	pthread_mutex_lock(&s->lock);
	prom_render(f, s->p, fmt);
	pthread_mutex_unlock(&s->lock);
	if (fclose(f)) {
		free(body);
		return MHD_NO;
	}
	return reply(c, MHD_HTTP_OK, prom_content_type(fmt), body, len);
}

struct pt_server *serve_start(const char *addr_port, struct prom_store *p,
			      char *err, size_t n)
{
	struct addrinfo *ai;
	struct pt_server *s;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD;
	int rc;

	rc = listen_addr(addr_port, &ai);
	if (rc) {
		snprintf(err, n, "--listen '%s': %s", addr_port, gai_strerror(rc));
		return NULL;
	}
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s = calloc(1, sizeof(*s));
	if (!s) {
		freeaddrinfo(ai);
		snprintf(err, n, "%s", strerror(errno));
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->p = p;
	errno = 0;
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
				MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				MHD_OPTION_CONNECTION_LIMIT, 64,
				MHD_OPTION_CONNECTION_TIMEOUT, 10, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!s->d) {
		snprintf(err, n, "--listen %s: %s", addr_port,
			 errno ? strerror(errno) : "cannot serve there");
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

void serve_lock(struct pt_server *s)
{
	if (s)
		pthread_mutex_lock(&s->lock);
}

void serve_unlock(struct pt_server *s)
{
	if (s)
		pthread_mutex_unlock(&s->lock);
}

void serve_stop(struct pt_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
