// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <microhttpd.h>
#include "os/clock.h"
#include "auth_pool.h"
#include "conn_guard.h"
#include "listen.h"
#include "serve.h"
#include "web_config.h"

/* TLS 1.2 and 1.3 only, as the other exporters (exporter-toolkit) */
#define TLS_PRIORITIES	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/*
 * libmicrohttpd runs in our own thread (its external event loop), so the
 * connections' deadlines are enforced between its turns, on sockets only
 * that thread closes. A request whose password needs bcrypt is suspended
 * while a worker checks it (auth_pool.h).
 */
struct pt_server {
	struct MHD_Daemon *d;
	pthread_t thread;
	int stop_fd;		/* eventfd: serve_stop() ends the loop */
	int wake_fd;		/* eventfd: a check is done (a resume did not
				 * wake a poll of libmicrohttpd 0.9.75's epoll
				 * fd by itself) */
	struct conn_guard guard;
	pthread_mutex_t lock;	/* the store */
	struct prom_store *p;
	char *svg;		/* the pipeline's picture; NULL before the first */
	size_t svg_len;
	double graph_asked;	/* when / or /graph.svg was last asked for */
	const char *web_config;	/* its path; NULL */
	struct web_config web;
	struct auth_pool *pool;	/* with users */
	char url[LISTEN_HOST_MAX + 32];
	char why[256];		/* libmicrohttpd's first complaint while starting */
	bool started;
};

enum auth {
	AUTH_OK,
	AUTH_DENIED,
	AUTH_BUSY,		/* not checked: too many checks under way */
	AUTH_CHECKING,		/* suspended until a worker has checked it */
};

/* a request's password check (its libmicrohttpd state) */
struct check {
	struct pt_server *s;
	struct MHD_Connection *c;
	enum auth result;
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

/* the suspended request goes on, to be answered as a says */
static void resume(struct check *ck, enum auth a)
{
	ck->result = a;
	MHD_resume_connection(ck->c);
	eventfd_write(ck->s->wake_fd, 1);
}

/* on a worker, or in pool_stop() */
static void checked(void *arg, bool right)
{
	resume(arg, right ? AUTH_OK : AUTH_DENIED);
}

/*
 * Suspended first: a worker done before the suspension would resume a
 * connection not yet suspended, which then waits for ever.
 */
static enum auth check(struct pt_server *s, struct MHD_Connection *c,
		       const struct web_user *u, const char *password, void **state)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = i ? i->client_addr : NULL;
	/* an unknown user's check takes as long as a wrong password's */
	const char *hash = u ? u->hash : s->web.users[0].hash;
	struct check *ck;
	const void *addr;
	size_t len;

	if (!sa || !(ck = calloc(1, sizeof(*ck))))
		return AUTH_BUSY;
	if (sa->sa_family == AF_INET6) {
		addr = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		len = 16;
	} else {
		addr = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		len = 4;
	}
	ck->s = s;
	ck->c = c;
	*state = ck;
	MHD_suspend_connection(c);
	if (!auth_pool_submit(s->pool, addr, len, password, hash, u, checked, ck))
		resume(ck, AUTH_BUSY);
	return AUTH_CHECKING;
}

/*
 * A password found right before is not checked again; any other is
 * checked off the loop, and found right, remembered (on this thread, the
 * only one that reads it).
 */
static enum auth authorize(struct pt_server *s, struct MHD_Connection *c, void **state)
{
	const struct check *ck = *state;
	char *password = NULL, *user;
	struct web_user *u = NULL;
	enum auth a = AUTH_DENIED;

	user = MHD_basic_auth_get_username_password(c, &password);
	if (user && password)
		u = web_config_user(&s->web, user);
	if (ck)
		a = ck->result;
	else if (u && web_user_verified(u, password))
		a = AUTH_OK;
	else if (user && password)
		a = check(s, c, u, password, state);
	if (ck && a == AUTH_OK && u)
		web_user_remember(u, password);
	MHD_free(user);
	MHD_free(password);
	return a;
}

/* 401 asking for a password, or 429 when its check has to wait */
static enum MHD_Result refuse(struct MHD_Connection *c, enum auth a)
{
	const char *body = a == AUTH_BUSY ? "Too many password checks, retry\n" :
			   "Unauthorized\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	if (a == AUTH_BUSY) {
		MHD_add_response_header(r, "Retry-After", "1");
		ret = MHD_queue_response(c, MHD_HTTP_TOO_MANY_REQUESTS, r);
	} else {
		ret = MHD_queue_basic_auth_fail_response(c, "pipetrace", r);
	}
	MHD_destroy_response(r);
	return ret;
}

/* The page at /: the pipeline's picture, fetched again every second. */
static const char page[] =
"<!DOCTYPE html>\n"
"<html><head><meta charset=\"utf-8\"><title>pipetrace: pipeline</title>\n"
"<style>body{font-family:sans-serif;margin:1em}#graph svg{max-width:100%;"
"height:auto}</style></head>\n"
"<body><h1>pipeline</h1>\n"
"<p>red: busy, sets the pace; amber: waits writing (downstream slower); "
"blue: waits reading (upstream slower); grey: moved nothing. "
"<span id=\"when\">Waiting for the first interval.</span></p>\n"
"<div id=\"graph\"></div>\n"
"<script>\n"
"async function load() {\n"
"  try {\n"
"    const r = await fetch('graph.svg', { cache: 'no-store' });\n"
"    if (!r.ok) return;\n"
"    document.getElementById('graph').innerHTML = await r.text();\n"
"    document.getElementById('when').textContent =\n"
"      'Updated ' + new Date().toLocaleTimeString() + '.';\n"
"  } catch (e) {}\n"
"}\n"
"load();\n"
"setInterval(load, 1000);\n"
"</script></body></html>\n";

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status,
			    const char *body)
{
	return reply(c, status, "text/plain", strdup(body), strlen(body));
}

static enum MHD_Result metrics(struct pt_server *s, struct MHD_Connection *c)
{
	const char *accept;
	enum prom_fmt fmt;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

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

static enum MHD_Result graph(struct pt_server *s, struct MHD_Connection *c)
{
	char *body = NULL;
	size_t len = 0;

	pthread_mutex_lock(&s->lock);
	s->graph_asked = now();
	if (s->svg && (body = malloc(s->svg_len)))
		memcpy(body, s->svg, len = s->svg_len);
	pthread_mutex_unlock(&s->lock);
	if (!body)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "No interval drawn yet\n");
	return reply(c, MHD_HTTP_OK, "image/svg+xml", body, len);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version,
			      const char *upload, size_t *upload_size, void **state)
{
	struct guarded *g = guarded_of(c);
	struct pt_server *s = cls;
	enum auth a;

	(void)version, (void)upload, (void)upload_size;
	if (g && !g->answering)
		guard_answering(g, now());
	a = s->web.nusers ? authorize(s, c, state) : AUTH_OK;
	if (a == AUTH_CHECKING)
		return MHD_YES;
	if (a != AUTH_OK)
		return refuse(c, a);
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
	if (!strcmp(url, "/metrics"))
		return metrics(s, c);
	if (!strcmp(url, "/graph.svg"))
		return graph(s, c);
	if (!strcmp(url, "/")) {
		pthread_mutex_lock(&s->lock);
		s->graph_asked = now();
		pthread_mutex_unlock(&s->lock);
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", strdup(page),
			     sizeof(page) - 1);
	}
	return text(c, MHD_HTTP_NOT_FOUND, "pipetrace serves /metrics, /graph.svg and /\n");
}

static void answered(void *cls, struct MHD_Connection *c, void **state,
		     enum MHD_RequestTerminationCode toe)
{
	struct guarded *g = guarded_of(c);

	(void)cls, (void)toe;
	free(*state);
	*state = NULL;
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
	struct pollfd fds[3] = {
		{ .fd = i->epoll_fd, .events = POLLIN },
		{ .fd = s->stop_fd, .events = POLLIN },
		{ .fd = s->wake_fd, .events = POLLIN },
	};
	MHD_UNSIGNED_LONG_LONG mhd_ms;
	eventfd_t done;
	int ms;

	while (!fds[1].revents) {
		if (fds[2].revents)
			eventfd_read(s->wake_fd, &done);
		MHD_run(s->d);
		ms = guard_expire(&s->guard, now());
		if (MHD_get_timeout(s->d, &mhd_ms) == MHD_YES && (ms < 0 || mhd_ms < (unsigned)ms))
			ms = mhd_ms;
		if (poll(fds, 3, ms) < 0 && errno != EINTR)
			break;
	}
	return NULL;
}

/* checks under way end as wrong: their connections resumed, to close */
static void pool_stop(struct pt_server *s)
{
	if (s->pool)
		auth_pool_stop(s->pool);
	s->pool = NULL;
}

static void server_free(struct pt_server *s)
{
	pool_stop(s);
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	web_config_free(&s->web);
	free(s->svg);
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

struct pt_server *serve_prepare(const char *web_config, char *err, size_t n)
{
	struct pt_server *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, n, "%s", strerror(errno));
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->stop_fd = -1;
	s->wake_fd = -1;
	s->web_config = web_config;
	if (web_config && !web_config_load(web_config, &s->web, stderr, err, n)) {
		server_free(s);
		return NULL;
	}
	if (s->web.cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, n, "--web-config %s: this libmicrohttpd has no TLS", web_config);
		server_free(s);
		return NULL;
	}
	return s;
}

/* libmicrohttpd's own thread, serving; false with why in err */
static bool run_daemon(struct pt_server *s, const char *addr_port, int fd,
		       char *err, size_t n)
{
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem opts[12];

	if (s->web.cert_pem)
		flags |= MHD_USE_TLS;
	if (s->pool)
		flags |= MHD_ALLOW_SUSPEND_RESUME;
	options(s, fd, opts);
	errno = 0;
	s->d = MHD_start_daemon(flags, 0, admit, s, handle, s,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	s->started = s->d;
	if (s->d && !(errno = pthread_create(&s->thread, NULL, serve_loop, s)))
		return true;
	if (s->why[0] && s->web.cert_pem)	/* about the key or certificate */
		snprintf(err, n, "--web-config %s: %s", s->web_config, s->why);
	else
		snprintf(err, n, "--listen %s: %s", addr_port, s->why[0] ?
			 s->why : errno ? strerror(errno) : "cannot serve there");
	if (s->d)
		MHD_stop_daemon(s->d);
	else
		close(fd);
	s->d = NULL;
	return false;
}

bool serve_start(struct pt_server *s, const char *addr_port, struct prom_store *p,
		 char *err, size_t n)
{
	char bound[LISTEN_HOST_MAX + 8];
	int fd;

	s->p = p;
	if (s->web.nusers && !(s->pool = auth_pool_start(err, n)))
		return false;
	fd = listen_open(addr_port, bound, sizeof(bound), err, n);
	if (fd < 0)
		return false;
	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->stop_fd < 0 || s->wake_fd < 0) {
		snprintf(err, n, "%s", strerror(errno));
		close(fd);
		return false;
	}
	snprintf(s->url, sizeof(s->url), "%s://%s/metrics",
		 s->web.cert_pem ? "https" : "http", bound);
	return run_daemon(s, addr_port, fd, err, n);
}

const char *serve_url(const struct pt_server *s)
{
	return s->url;
}

void serve_set_graph(struct pt_server *s, char *svg, size_t len)
{
	char *old;

	pthread_mutex_lock(&s->lock);
	old = s->svg;
	s->svg = svg;
	s->svg_len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
}

bool serve_graph_wanted(struct pt_server *s)
{
	bool wanted;

	pthread_mutex_lock(&s->lock);
	wanted = s->graph_asked && now() - s->graph_asked < SERVE_GRAPH_WANTED_S;
	pthread_mutex_unlock(&s->lock);
	return wanted;
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
	if (s->d) {
		eventfd_write(s->stop_fd, 1);
		pthread_join(s->thread, NULL);
		pool_stop(s);
		MHD_stop_daemon(s->d);
	}
	server_free(s);
}
