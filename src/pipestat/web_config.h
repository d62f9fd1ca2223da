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
 * Keys pipestat does not implement are refused, never ignored.
 */
#ifndef PIPESTAT_WEB_CONFIG_H
#define PIPESTAT_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct web_user {
	char *name;
	char *hash;		/* bcrypt: $2a$, $2b$ or $2y$ */
};

struct web_config {
	char *cert_pem;		/* NULL: plain HTTP */
	char *key_pem;
	struct web_user *users;	/* none: no authentication */
	size_t nusers;
	char *cached;		/* "user:password" last found right */
	double next_check;	/* no bcrypt before this (monotonic s) */
};

enum web_auth {
	WEB_AUTH_OK,
	WEB_AUTH_DENIED,
	WEB_AUTH_BUSY,		/* not checked: bcrypt's share of time used up */
};

/*
 * Reads path and the files it names (each one root can trust, see
 * trusted_read()); false with a one-line reason in err.
 */
bool web_config_load(const char *path, struct web_config *w, char *err, size_t n);
/*
 * User and password right? (bcrypt, libcrypt's crypt_r.) The last right
 * pair is remembered; any other pair costs a bcrypt, and bcrypt gets at
 * most a quarter of the server's time (after a check that took d, none
 * for 3d more), so wrong passwords sent in a flood cannot starve the
 * scrapes: their requests get WEB_AUTH_BUSY. now: CLOCK_MONOTONIC s.
 */
enum web_auth web_config_auth(struct web_config *w, const char *user,
			      const char *password, double now);
void web_config_free(struct web_config *w);

#endif
