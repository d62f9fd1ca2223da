// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
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
#include "web_config.h"

/* TLS 1.2 and 1.3 only, as the other exporters (exporter-toolkit) */
#define TLS_PRIORITIES	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

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
	struct web_config web;
	char url[LISTEN_HOST_MAX + 32];
	char why[256];		/* libmicrohttpd's first complaint while starting */
	bool started;
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

static enum web_auth authorize(struct pt_server *s, struct MHD_Connection *c)
{
	char *password = NULL, *user;
	enum web_auth a = WEB_AUTH_DENIED;

	user = MHD_basic_auth_get_username_password(c, &password);
	if (user && password)
		a = web_config_auth(&s->web, user, password, now());
	MHD_free(user);
	MHD_free(password);
	return a;
}

/* 401 asking for a password, or 429 when its check has to wait */
static enum MHD_Result refuse(struct MHD_Connection *c, enum web_auth a)
{
	const char *body = a == WEB_AUTH_BUSY ? "Too many password checks, retry\n" :
			   "Unauthorized\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	if (a == WEB_AUTH_BUSY) {
		MHD_add_response_header(r, "Retry-After", "1");
		ret = MHD_queue_response(c, MHD_HTTP_TOO_MANY_REQUESTS, r);
	} else {
		ret = MHD_queue_basic_auth_fail_response(c, "pipetrace", r);
	}
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
	enum web_auth a;
	enum prom_fmt fmt;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version, (void)upload, (void)upload_size, (void)state;
	if (g && !g->answering)
		guard_answering(g, now());
	if (s->web.nusers && (a = authorize(s, c)) != WEB_AUTH_OK)
		return refuse(c, a);
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

/* why a start failed (a key that does not fit the certificate, ...);
 * afterwards clients' mistakes are theirs, not for our stderr */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct pt_server *s = cls;
	size_t len;

	if (s->started || s->why[0])
		return;
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	len = strcspn(s->why, "\n");
	s->why[len] = '\0';
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

static void server_free(struct pt_server *s)
{
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	web_config_free(&s->web);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* libmicrohttpd's options: the cap's room, our callbacks, TLS if asked */
static void options(struct pt_server *s, int fd, struct MHD_OptionItem *o)
{
	/* first, or it has said things on stderr before */
	*o++ = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, s };
	/* room above the cap for connections shut down and not yet closed */
	*o++ = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, 2 * GUARD_MAX_CONNS, NULL };
	*o++ = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	*o++ = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection, s };
	*o++ = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)answered, s };
	if (s->web.cert_pem) {
		*o++ = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->web.cert_pem };
		*o++ = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->web.key_pem };
		*o++ = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, TLS_PRIORITIES };
	}
	*o = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
}

struct pt_server *serve_start(const char *addr_port, const char *web_config,
			      struct prom_store *p, char *err, size_t n)
{
	struct MHD_OptionItem opts[12];
	char bound[LISTEN_HOST_MAX + 8];
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct pt_server *s;
	int fd;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, n, "%s", strerror(errno));
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->p = p;
	s->stop_fd = -1;
	if (web_config && !web_config_load(web_config, &s->web, err, n)) {
		server_free(s);
		return NULL;
	}
	if (s->web.cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, n, "--web-config %s: this libmicrohttpd has no TLS", web_config);
		server_free(s);
		return NULL;
	}
	fd = listen_open(addr_port, bound, sizeof(bound), err, n);
	if (fd < 0 || (s->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
		if (fd >= 0) {
			snprintf(err, n, "%s", strerror(errno));
			close(fd);
		}
		server_free(s);
		return NULL;
	}
	if (s->web.cert_pem)
		flags |= MHD_USE_TLS;
	snprintf(s->url, sizeof(s->url), "%s://%s/metrics",
		 s->web.cert_pem ? "https" : "http", bound);
	options(s, fd, opts);
	errno = 0;
	s->d = MHD_start_daemon(flags, 0, admit, s, handle, s,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	s->started = s->d;
	if (!s->d || (errno = pthread_create(&s->thread, NULL, serve_loop, s))) {
		if (s->why[0] && s->web.cert_pem)	/* about the key or certificate */
			snprintf(err, n, "--web-config %s: %s", web_config, s->why);
		else
			snprintf(err, n, "--listen %s: %s", addr_port, s->why[0] ?
				 s->why : errno ? strerror(errno) : "cannot serve there");
		if (s->d)
			MHD_stop_daemon(s->d);
		else
			close(fd);
		server_free(s);
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
	server_free(s);
}
