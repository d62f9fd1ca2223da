/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipestat --web-config FILE: TLS and basic authentication for --listen,
 * in the web-config format of node_exporter and the other exporters
 * (Prometheus's exporter-toolkit):
 *
 *   tls_server_config:
 *     cert_file: server.crt      # relative to FILE's directory
 *     key_file: server.key
 *   basic_auth_users:
 *     prometheus: $2y$10$...     # bcrypt
 *
 * Keys pipestat does not implement are refused, never ignored; so is a
 * key given twice, an alias, a second document, and any list or mapping
 * where the format has none (so nothing nests deeper than two levels).
 * Reading is linear in the file's size (1 MiB at most) and runs no
 * bcrypt: a hash is checked for its form and cost only.
 */
#ifndef PIPESTAT_WEB_CONFIG_H
#define PIPESTAT_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define WEB_COST_MAX	14	/* a check of more takes seconds of CPU */
#define WEB_COST_WEAK	10	/* below: said on stderr */
#define WEB_USERS_MAX	1024

struct web_user {
	char *name;
	char *hash;		/* bcrypt: $2a$, $2b$ or $2y$, cost 4 to 14 */
	char *verified;		/* the password last found right; NULL */
};

struct web_config {
	char *cert_pem;		/* NULL: plain HTTP */
	char *key_pem;
	struct web_user *users;	/* none: no authentication */
	size_t nusers;
};

/*
 * Reads path and the files it names (each one root can trust, see
 * trusted_read()); false with a one-line reason in err. What is allowed
 * but likely a mistake (nothing in it, an expired certificate, a weak
 * bcrypt cost) is said on warn, a line each, unless warn is NULL.
 */
bool web_config_load(const char *path, struct web_config *w, FILE *warn,
		     char *err, size_t n);
/* the same for text already read from path (len bytes) */
bool web_config_parse(const char *path, const char *text, size_t len,
		      struct web_config *w, FILE *warn, char *err, size_t n);
/* the user called name; NULL */
struct web_user *web_config_user(const struct web_config *w, const char *name);
/* password is the one last found right for u: no bcrypt needed */
bool web_user_verified(const struct web_user *u, const char *password);
/* remembers password as right for u; false without memory */
bool web_user_remember(struct web_user *u, const char *password);
void web_config_free(struct web_config *w);

#endif
