// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <microhttpd.h>
#include "core/clock.h"
#include "conn_guard.h"
#include "listen.h"
#include "serve.h"

/*
 * libmicrohttpd runs in our own thread (its external event loop), so the
 * connections' deadlines are enforced between its turns, on sockets only
 * that thread closes.
 */
struct pt_server {
	struct MHD_Daemon *d;
	pthread_t thread;
	int stop_fd;		/* eventfd: serve_stop() ends the loop */
	struct conn_guard guard;
	pthread_mutex_t lock;	/* the store */
	struct prom_store *p;
	char url[LISTEN_HOST_MAX + 32];
};

static double now(void)
{
	return pt_now(CLOCK_MONOTONIC);
}

static struct guarded *guarded_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

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
	struct guarded *g = guarded_of(c);
	struct pt_server *s = cls;
	const char *accept;
	enum prom_fmt fmt;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version, (void)upload, (void)upload_size, (void)state;
	if (g && !g->answering)
		guard_answering(g, now());
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

static void answered(void *cls, struct MHD_Connection *c, void **state,
		     enum MHD_RequestTerminationCode toe)
{
	struct guarded *g = guarded_of(c);

	(void)cls, (void)state, (void)toe;
	if (g)
		guard_waiting(g, now());
}

static enum MHD_Result admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct pt_server *s = cls;

	(void)addr, (void)len;
	return guard_admit(&s->guard) ? MHD_YES : MHD_NO;
}

static void connection(void *cls, struct MHD_Connection *c, void **ctx,
		       enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *i;
	struct pt_server *s = cls;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*ctx)
			guard_remove(&s->guard, *ctx);
		return;
	}
	i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!i)
		return;
	*ctx = guard_add(&s->guard, i->connect_fd, now());
	if (!*ctx)	/* no memory to watch it: not served */
		shutdown(i->connect_fd, SHUT_RDWR);
}

static void *serve_loop(void *arg)
{
	struct pt_server *s = arg;
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd fds[2] = {
		{ .fd = i->epoll_fd, .events = POLLIN },
		{ .fd = s->stop_fd, .events = POLLIN },
	};
	MHD_UNSIGNED_LONG_LONG mhd_ms;
	int ms;

	while (!fds[1].revents) {
		MHD_run(s->d);
		ms = guard_expire(&s->guard, now());
		if (MHD_get_timeout(s->d, &mhd_ms) == MHD_YES && (ms < 0 || mhd_ms < (unsigned)ms))
			ms = mhd_ms;
		if (poll(fds, 2, ms) < 0 && errno != EINTR)
			break;
	}
	return NULL;
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
	if (!s || (s->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
		snprintf(err, n, "%s", strerror(errno));
		free(s);
		close(fd);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->p = p;
	snprintf(s->url, sizeof(s->url), "http://%s/metrics", bound);
	errno = 0;
	/* room above the cap for connections shut down and not yet closed */
	s->d = MHD_start_daemon(MHD_USE_EPOLL, 0, admit, s, handle, s,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, 2 * GUARD_MAX_CONNS,
				MHD_OPTION_NOTIFY_CONNECTION, connection, s,
				MHD_OPTION_NOTIFY_COMPLETED, answered, s,
				MHD_OPTION_END);
	if (!s->d || (errno = pthread_create(&s->thread, NULL, serve_loop, s))) {
		snprintf(err, n, "--listen %s: %s", addr_port,
			 errno ? strerror(errno) : "cannot serve there");
		if (s->d)
			MHD_stop_daemon(s->d);
		else
			close(fd);
		close(s->stop_fd);
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
	eventfd_write(s->stop_fd, 1);
	pthread_join(s->thread, NULL);
	MHD_stop_daemon(s->d);
	close(s->stop_fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
