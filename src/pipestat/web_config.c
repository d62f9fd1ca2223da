// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gnutls/x509.h>
#include <yaml.h>
#include "os/trusted_file.h"
#include "web_config.h"

#define WEB_FILE_MAX	(1 << 20)

static const char bcrypt_b64[] =
	"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/*
 * The file is read as a stream of libyaml events, not loaded as a
 * document: anything the format does not have is refused at its first
 * event, before the parser has gone deep into it.
 */
struct parse {
	const char *path;
	yaml_parser_t yp;
	yaml_event_t ev;	/* the current event */
	bool have_ev;
	struct web_config *w;
	size_t users_room;
	size_t cert_line;
	FILE *warn;
	char *err;
	size_t n;
};

/* one section's keys, each allowed once */
struct field {
	const char *name;
	bool (*value)(struct parse *p);	/* the value's first event is current */
};

struct section {
	const char *in;		/* its name and ": ", or "" at the top */
	const char *known;	/* its keys, for the message */
	const struct field *fields;
	size_t nfields;
};

static size_t line(const struct parse *p)
{
	return p->ev.start_mark.line + 1;
}

static void vsay(const struct parse *p, size_t at, char *out, size_t n,
		 const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* a name from the file can hold a newline: one line all the same */
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			*c = '?';
	if (at)
		snprintf(out, n, "--web-config %s:%zu: %s", p->path, at, msg);
	else
		snprintf(out, n, "--web-config %s: %s", p->path, msg);
}

/* false, with the reason at line at (0: the whole file) */
static bool fail_at(struct parse *p, size_t at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(p, at, p->err, p->n, fmt, ap);
	va_end(ap);
	return false;
}

static void warn_at(const struct parse *p, size_t at, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (!p->warn)
		return;
	va_start(ap, fmt);
	vsay(p, at, msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(p->warn, "pipestat: %s\n", msg);
}

/* the next event; aliases and text with a NUL in it are refused here */
static bool next(struct parse *p)
{
	if (p->have_ev)
		yaml_event_delete(&p->ev);
	p->have_ev = yaml_parser_parse(&p->yp, &p->ev);
	if (!p->have_ev)
		return fail_at(p, p->yp.problem_mark.line + 1, "%s",
			       p->yp.problem ? p->yp.problem : "out of memory");
	if (p->ev.type == YAML_ALIAS_EVENT)
		return fail_at(p, line(p), "aliases (*%s) are not supported",
			       p->ev.data.alias.anchor);
	if (p->ev.type == YAML_SCALAR_EVENT &&
	    strlen((const char *)p->ev.data.scalar.value) != p->ev.data.scalar.length)
		return fail_at(p, line(p), "a NUL byte in text");
	return true;
}

/* the current event's text; NULL for a list or a mapping */
static const char *scalar(const struct parse *p)
{
	return p->ev.type == YAML_SCALAR_EVENT ? (const char *)p->ev.data.scalar.value : NULL;
}

/* "key:" with nothing after it */
static bool empty(const struct parse *p)
{
	return scalar(p) && !*scalar(p);
}

/* the keys of the mapping whose start is the current event */
static bool mapping(struct parse *p, const struct section *s)
{
	unsigned int seen = 0;

	for (;;) {
		const char *key;
		size_t i;

		if (!next(p))
			return false;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			return true;
		key = scalar(p);
		if (!key)
			return fail_at(p, line(p), "%swant key: value lines", s->in);
		for (i = 0; i < s->nfields && strcmp(key, s->fields[i].name); i++)
			;
		if (i == s->nfields)
			return fail_at(p, line(p), "%s'%s' is not supported (pipestat knows %s)",
				       s->in, key, s->known);
		if (seen & 1u << i)
			return fail_at(p, line(p), "%s'%s' twice", s->in, key);
		seen |= 1u << i;
		if (!next(p) || !s->fields[i].value(p))
			return false;
	}
}

/* a file the config names, relative to the config's directory */
static bool read_named(struct parse *p, const char *key, char **out)
{
	const char *name = scalar(p), *slash = strrchr(p->path, '/');
	char path[4096], why[256];
	size_t len;

	if (!name || !*name)
		return fail_at(p, line(p), "%s: want a file name", key);
	if (*name == '/' || !slash)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - p->path), p->path, name);
	*out = trusted_read(path, WEB_FILE_MAX, &len, why, sizeof(why));
	return *out ? true : fail_at(p, line(p), "%s %s: %s", key, path, why);
}

static bool cert_file(struct parse *p)
{
	p->cert_line = line(p);
	return read_named(p, "cert_file", &p->w->cert_pem);
}

static bool key_file(struct parse *p)
{
	return read_named(p, "key_file", &p->w->key_pem);
}

static void say_date(char *out, size_t n, time_t t)
{
	struct tm tm;

	strftime(out, n, "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
}

/*
 * Clients refuse a certificate out of its dates, but it is the operator
 * who can fix it: said at the start. One GnuTLS cannot read is for
 * libmicrohttpd to refuse.
 */
static void cert_dates(const struct parse *p)
{
	gnutls_datum_t pem = {
		.data = (unsigned char *)p->w->cert_pem,
		.size = strlen(p->w->cert_pem),
	};
	gnutls_x509_crt_t crt;
	time_t now = time(NULL), from, until;
	char when[64];

	if (gnutls_x509_crt_init(&crt) < 0)
		return;
	if (gnutls_x509_crt_import(crt, &pem, GNUTLS_X509_FMT_PEM) >= 0) {
		from = gnutls_x509_crt_get_activation_time(crt);
		until = gnutls_x509_crt_get_expiration_time(crt);
		if (until != (time_t)-1 && until < now) {
			say_date(when, sizeof(when), until);
			warn_at(p, p->cert_line, "cert_file: the certificate expired "
				"on %s: clients will refuse it", when);
		} else if (from != (time_t)-1 && from > now) {
			say_date(when, sizeof(when), from);
			warn_at(p, p->cert_line, "cert_file: the certificate is valid "
				"from %s only: clients will refuse it until then", when);
		}
	}
	gnutls_x509_crt_deinit(crt);
}

static const struct field tls_fields[] = {
	{ "cert_file", cert_file },
	{ "key_file", key_file },
};

static const struct section tls_section = {
	"tls_server_config: ", "cert_file and key_file", tls_fields, 2,
};

static bool tls_server_config(struct parse *p)
{
	size_t at = line(p);

	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(p, at, "tls_server_config: want cert_file and key_file");
	if (!mapping(p, &tls_section))
		return false;
	if (!p->w->cert_pem || !p->w->key_pem)
		return fail_at(p, at, "tls_server_config: want cert_file and key_file");
	cert_dates(p);
	return true;
}

/*
 * A bcrypt hash's cost: "$2y$" (or 2a, 2b), two digits, '$', then 22
 * characters of salt and 31 of digest in bcrypt's base64, whose last
 * ones carry padding bits that must be 0 (or the hash could never
 * match: libcrypt writes them 0). -1 if h is none.
 */
static int bcrypt_cost(const char *h)
{
	int cost;

	if (strlen(h) != 60 || strncmp(h, "$2", 2) || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[6] != '$' || strspn(h + 4, "0123456789") != 2 ||
	    strspn(h + 7, bcrypt_b64) != 53)
		return -1;
	if ((strchr(bcrypt_b64, h[28]) - bcrypt_b64) % 16 ||
	    (strchr(bcrypt_b64, h[59]) - bcrypt_b64) % 4)
		return -1;
	cost = (h[4] - '0') * 10 + h[5] - '0';
	return cost >= 4 && cost <= 31 ? cost : -1;
}

static bool check_hash(struct parse *p, const char *user, const char *hash)
{
	int cost = hash ? bcrypt_cost(hash) : -1;

	if (cost < 0)
		return fail_at(p, line(p), "basic_auth_users: %s: want a bcrypt hash "
			       "($2y$..., e.g. from htpasswd -nBC 10 %s)", user, user);
	if (cost > WEB_COST_MAX)
		return fail_at(p, line(p), "basic_auth_users: %s: bcrypt cost %d is above "
			       "%d: each check would take seconds of CPU (htpasswd "
			       "-nBC 12 %s)", user, cost, WEB_COST_MAX, user);
	if (cost < WEB_COST_WEAK)
		warn_at(p, line(p), "basic_auth_users: %s: bcrypt cost %d is weak: a "
			"stolen hash is quick to crack (htpasswd -nBC %d %s)", user, cost,
			WEB_COST_WEAK, user);
	return true;
}

/* one more user, its name and hash copied */
static bool add_user(struct parse *p, const char *name, const char *hash)
{
	struct web_config *w = p->w;
	struct web_user *u;

	if (w->nusers == p->users_room) {
		p->users_room = p->users_room ? 2 * p->users_room : 4;
		u = realloc(w->users, p->users_room * sizeof(*u));
		if (!u)
			return fail_at(p, line(p), "out of memory");
		w->users = u;
	}
	u = &w->users[w->nusers];
	*u = (struct web_user){ .name = strdup(name), .hash = strdup(hash) };
	w->nusers++;
	return u->name && u->hash ? true : fail_at(p, line(p), "out of memory");
}

/* one "name: hash" pair, its key the current event */
static bool user(struct parse *p)
{
	const char *name = scalar(p);
	char *copy;
	bool ok;

	if (!name || !*name || strchr(name, ':'))
		return fail_at(p, line(p), "basic_auth_users: want a user name (no ':')");
	if (web_config_user(p->w, name))
		return fail_at(p, line(p), "basic_auth_users: '%s' twice", name);
	if (p->w->nusers == WEB_USERS_MAX)
		return fail_at(p, line(p), "basic_auth_users: more than %d users",
			       WEB_USERS_MAX);
	copy = strdup(name);
	if (!copy)
		return fail_at(p, line(p), "out of memory");
	ok = next(p) && check_hash(p, copy, scalar(p)) && add_user(p, copy, scalar(p));
	free(copy);
	return ok;
}

static bool basic_auth_users(struct parse *p)
{
	if (empty(p))
		return true;
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(p, line(p), "basic_auth_users: want user: bcrypt-hash lines");
	for (;;) {
		if (!next(p))
			return false;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			return true;
		if (!user(p))
			return false;
	}
}

static const struct field top_fields[] = {
	{ "tls_server_config", tls_server_config },
	{ "basic_auth_users", basic_auth_users },
};

static const struct section top_section = {
	"", "tls_server_config and basic_auth_users", top_fields, 2,
};

/* the document's top node is current */
static bool top(struct parse *p)
{
	if (empty(p))
		return true;
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(p, line(p), "want tls_server_config and basic_auth_users");
	return mapping(p, &top_section);
}

/* libyaml's events come in its grammar's order: stream start, then a
 * document start or the stream's end, a node, the document's end */
static bool stream(struct parse *p)
{
	if (!next(p) || !next(p))
		return false;
	if (p->ev.type == YAML_STREAM_END_EVENT)
		return true;
	if (!next(p) || !top(p) || !next(p) || !next(p))
		return false;
	if (p->ev.type != YAML_STREAM_END_EVENT)
		return fail_at(p, line(p), "one YAML document only");
	return true;
}

/* warnings held until the whole file is read: a refused one says one line */
static bool parse_all(struct parse *p, const char *text, size_t len)
{
	bool ok;

	yaml_parser_initialize(&p->yp);
	yaml_parser_set_input_string(&p->yp, (const unsigned char *)text, len);
	ok = stream(p);
	if (p->have_ev)
		yaml_event_delete(&p->ev);
	yaml_parser_delete(&p->yp);
	if (ok && !p->w->cert_pem && !p->w->nusers)
		warn_at(p, 0, "nothing in it: plain HTTP, and no password asked, "
			"as without --web-config");
	return ok;
}

bool web_config_parse(const char *path, const char *text, size_t len,
		      struct web_config *w, FILE *warn, char *err, size_t n)
{
	struct parse p = { .path = path, .w = w, .err = err, .n = n };
	char *said = NULL;
	size_t said_len = 0;
	bool ok;

	memset(w, 0, sizeof(*w));
	if (warn && !(p.warn = open_memstream(&said, &said_len))) {
		snprintf(err, n, "--web-config %s: out of memory", path);
		return false;
	}
	ok = parse_all(&p, text, len);
	if (p.warn && !fclose(p.warn) && ok)
		fputs(said, warn);
	free(said);
	if (!ok)
		web_config_free(w);
	return ok;
}

bool web_config_load(const char *path, struct web_config *w, FILE *warn,
		     char *err, size_t n)
{
	char why[256], *buf;
	size_t len;
	bool ok;

	memset(w, 0, sizeof(*w));
	buf = trusted_read(path, WEB_FILE_MAX, &len, why, sizeof(why));
	if (!buf) {
		snprintf(err, n, "--web-config %s: %s", path, why);
		return false;
	}
	ok = web_config_parse(path, buf, len, w, warn, err, n);
	free(buf);
	return ok;
}

struct web_user *web_config_user(const struct web_config *w, const char *name)
{
	for (size_t i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, name))
			return &w->users[i];
	return NULL;
}

/* equal strings, in a time that does not say where they differ */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= a[i] ^ b[i];
	return !d;
}

bool web_user_verified(const struct web_user *u, const char *password)
{
	return u->verified && same(u->verified, password);
}

bool web_user_remember(struct web_user *u, const char *password)
{
	char *copy = strdup(password);

	if (!copy)
		return false;
	free(u->verified);
	u->verified = copy;
	return true;
}

void web_config_free(struct web_config *w)
{
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
		free(w->users[i].verified);
	}
	free(w->users);
	free(w->cert_pem);
	free(w->key_pem);
	memset(w, 0, sizeof(*w));
}
