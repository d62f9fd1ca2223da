// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include "listen.h"
#include "serve.h"

struct pt_server {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	struct prom_store *p;
	char url[LISTEN_HOST_MAX + 32];
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
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
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
	struct pt_server *s;
	char bound[LISTEN_HOST_MAX + 8];
	int fd;

	fd = listen_open(addr_port, bound, sizeof(bound), err, n);
	if (fd < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, n, "%s", strerror(errno));
		close(fd);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->p = p;
	snprintf(s->url, sizeof(s->url), "http://%s/metrics", bound);
	errno = 0;
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
				handle, s, MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, 64,
				MHD_OPTION_CONNECTION_TIMEOUT, 10, MHD_OPTION_END);
	if (!s->d) {
		snprintf(err, n, "--listen %s: %s", addr_port,
			 errno ? strerror(errno) : "cannot serve there");
		close(fd);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

const char *serve_url(const struct pt_server *s)
{
	return s->url;
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
