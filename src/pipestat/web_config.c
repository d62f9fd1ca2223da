// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <crypt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "core/clock.h"
#include "core/trusted_file.h"
#include "web_config.h"

#define WEB_FILE_MAX	(1 << 20)

struct parse {
	const char *path;
	yaml_document_t doc;
	struct web_config *w;
	char *err;
	size_t n;
};

static bool fail(struct parse *p, const yaml_node_t *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->n, "--web-config %s:%zu: %s", p->path,
		 at->start_mark.line + 1, msg);
	return false;
}

static yaml_node_t *node(struct parse *p, int id)
{
	return yaml_document_get_node(&p->doc, id);
}

/* a scalar's text; NULL for a mapping or a list */
static const char *text(const yaml_node_t *nd)
{
	return nd->type == YAML_SCALAR_NODE ? (const char *)nd->data.scalar.value : NULL;
}

/* "key:" with nothing after it */
static bool empty(const yaml_node_t *nd)
{
	return nd->type == YAML_SCALAR_NODE && !nd->data.scalar.length;
}

/* a file the config names, relative to the config's directory */
static bool read_named(struct parse *p, const yaml_node_t *key, const yaml_node_t *val,
		       char **out)
{
	const char *name = text(val), *slash = strrchr(p->path, '/');
	char path[4096], why[256];
	size_t len;

	if (!name || !*name)
		return fail(p, val, "%s: want a file name", text(key));
	if (*name == '/' || !slash)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - p->path), p->path, name);
	free(*out);
	*out = trusted_read(path, WEB_FILE_MAX, &len, why, sizeof(why));
	return *out ? true : fail(p, val, "%s %s: %s", text(key), path, why);
}

static bool parse_tls(struct parse *p, const yaml_node_t *at)
{
	struct web_config *w = p->w;

	if (at->type != YAML_MAPPING_NODE)
		return fail(p, at, "tls_server_config: want cert_file and key_file");
	for (yaml_node_pair_t *i = at->data.mapping.pairs.start;
	     i < at->data.mapping.pairs.top; i++) {
		yaml_node_t *k = node(p, i->key), *v = node(p, i->value);
		const char *key = text(k) ? text(k) : "";

		if (!strcmp(key, "cert_file")) {
			if (!read_named(p, k, v, &w->cert_pem))
				return false;
		} else if (!strcmp(key, "key_file")) {
			if (!read_named(p, k, v, &w->key_pem))
				return false;
		} else {
			return fail(p, k, "tls_server_config: '%s' is not supported "
				    "(pipestat knows cert_file and key_file)", key);
		}
	}
	if (!w->cert_pem || !w->key_pem)
		return fail(p, at, "tls_server_config: want cert_file and key_file");
	return true;
}

/* a bcrypt hash libcrypt can check against */
static bool bcrypt_hash(const char *h)
{
	struct crypt_data *cd;
	const char *r;
	bool ok;

	if (strncmp(h, "$2a$", 4) && strncmp(h, "$2b$", 4) && strncmp(h, "$2y$", 4))
		return false;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	r = crypt_r("", h, cd);
	ok = r && r[0] != '*' && strlen(r) == strlen(h);
	free(cd);
	return ok;
}

static bool parse_users(struct parse *p, const yaml_node_t *at)
{
	struct web_config *w = p->w;
	size_t max;

	if (empty(at))
		return true;
	if (at->type != YAML_MAPPING_NODE)
		return fail(p, at, "basic_auth_users: want user: bcrypt-hash lines");
	max = at->data.mapping.pairs.top - at->data.mapping.pairs.start;
	w->users = calloc(max, sizeof(*w->users));
	if (!w->users)
		return fail(p, at, "out of memory");
	for (yaml_node_pair_t *i = at->data.mapping.pairs.start;
	     i < at->data.mapping.pairs.top; i++) {
		yaml_node_t *k = node(p, i->key), *v = node(p, i->value);
		const char *user = text(k), *hash = text(v);

		if (!user || !*user || strchr(user, ':'))
			return fail(p, k, "basic_auth_users: want a user name (no ':')");
		for (size_t u = 0; u < w->nusers; u++)
			if (!strcmp(w->users[u].name, user))
				return fail(p, k, "basic_auth_users: '%s' twice", user);
		if (!hash || !bcrypt_hash(hash))
			return fail(p, v, "basic_auth_users: %s: want a bcrypt hash "
				    "($2y$..., e.g. from htpasswd -nBC 10 %s)", user, user);
		w->users[w->nusers].name = strdup(user);
		w->users[w->nusers++].hash = strdup(hash);
		if (!w->users[w->nusers - 1].name || !w->users[w->nusers - 1].hash)
			return fail(p, k, "out of memory");
	}
	return true;
}

static bool parse_root(struct parse *p, const yaml_node_t *root)
{
	if (empty(root))
		return true;
	if (root->type != YAML_MAPPING_NODE)
		return fail(p, root, "want tls_server_config and basic_auth_users");
	for (yaml_node_pair_t *i = root->data.mapping.pairs.start;
	     i < root->data.mapping.pairs.top; i++) {
		yaml_node_t *k = node(p, i->key), *v = node(p, i->value);
		const char *key = text(k) ? text(k) : "";
		bool ok;

		if (!strcmp(key, "tls_server_config"))
			ok = parse_tls(p, v);
		else if (!strcmp(key, "basic_auth_users"))
			ok = parse_users(p, v);
		else
			ok = fail(p, k, "'%s' is not supported (pipestat knows "
				  "tls_server_config and basic_auth_users)", key);
		if (!ok)
			return false;
	}
	return true;
}

bool web_config_load(const char *path, struct web_config *w, char *err, size_t n)
{
	struct parse p = { .path = path, .w = w, .err = err, .n = n };
	yaml_parser_t parser;
	yaml_node_t *root;
	char why[256], *buf;
	size_t len;
	bool ok;

	memset(w, 0, sizeof(*w));
	buf = trusted_read(path, WEB_FILE_MAX, &len, why, sizeof(why));
	if (!buf) {
		snprintf(err, n, "--web-config %s: %s", path, why);
		return false;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	ok = yaml_parser_load(&parser, &p.doc);
	if (!ok) {
		snprintf(err, n, "--web-config %s:%zu: %s", path,
			 parser.problem_mark.line + 1, parser.problem);
	} else {
		root = yaml_document_get_root_node(&p.doc);
		ok = !root || parse_root(&p, root);
		yaml_document_delete(&p.doc);
	}
	yaml_parser_delete(&parser);
	free(buf);
	if (!ok)
		web_config_free(w);
	return ok;
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

enum web_auth web_config_auth(struct web_config *w, const char *user,
			      const char *password, double now)
{
	const struct web_user *u = NULL;
	struct crypt_data *cd;
	const char *r, *hash;
	double took;
	char *pair;
	bool ok;

	if (!w->nusers || asprintf(&pair, "%s:%s", user, password) < 0)
		return WEB_AUTH_DENIED;
	/* bcrypt takes tens of ms: a scraper's every request would pay it */
	if (w->cached && same(w->cached, pair)) {
		free(pair);
		return WEB_AUTH_OK;
	}
	if (now < w->next_check) {
		free(pair);
		return WEB_AUTH_BUSY;
	}
	for (size_t i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, user))
			u = &w->users[i];
	/* an unknown user takes as long as a wrong password */
	hash = u ? u->hash : w->users[0].hash;
	cd = calloc(1, sizeof(*cd));
	took = pt_now(CLOCK_MONOTONIC);
	r = cd ? crypt_r(password, hash, cd) : NULL;
	took = pt_now(CLOCK_MONOTONIC) - took;
	ok = u && r && same(r, hash);
	free(cd);
	w->next_check = now + 4 * took;
	if (ok) {
		free(w->cached);
		w->cached = pair;
	} else {
		free(pair);
	}
	return ok ? WEB_AUTH_OK : WEB_AUTH_DENIED;
}

void web_config_free(struct web_config *w)
{
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->cert_pem);
	free(w->key_pem);
	free(w->cached);
	memset(w, 0, sizeof(*w));
}
