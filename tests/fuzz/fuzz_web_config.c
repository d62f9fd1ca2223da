// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrary --web-config text, its certificate and key beside it: no
 * crash, no leak, linear time (libFuzzer's -timeout), and either a
 * refusal in one line with nothing kept, or a config that holds only
 * what the format allows, warnings each a line of their own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pipestat/web_config.h"

/* a real certificate, so its dates are read too */
static const char cert[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBdDCCARqgAwIBAgITJ8AJgSXs9wjLbpfBKzRI4TM1lDAKBggqhkjOPQQDAjAP\n"
	"MQ0wCwYDVQQDDARmdXp6MCAXDTI2MTIwMzE0NDAwOVoYDzIxMjYxMTA5MTQ0MDA5\n"
	"WjAPMQ0wCwYDVQQDDARmdXp6MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwc67\n"
	"HaxUBuTIcQPWtjd+mev3UlaUgSgQh4V+er/2Om/MFbNZ9Kk88FdY6jWI5fLirIR3\n"
	"+Txoz1Kg62bOuVXhZKNTMFEwHQYDVR0OBBYEFOIjKBmE7kbuTp/K2LQPheD8C+PS\n"
	"MB8GA1UdIwQYMBaAFOIjKBmE7kbuTp/K2LQPheD8C+PSMA8GA1UdEwEB/wQFMAMB\n"
	"Af8wCgYIKoZIzj0EAwIDSAAwRQIhAMJeO4IL+TjO0O+fmSYZDz1TKSxHH9F284RQ\n"
	"BfwMJFl3AiAIBQW9Fa3uJd2CBxY02wJxm+Y5Jlp56mK2+f6vQKwFWw==\n"
	"-----END CERTIFICATE-----\n";

static char dir[] = "/tmp/pt-fuzz-webconfig.XXXXXX";
static char path[64];

static void put(const char *name, const char *text)
{
	char p[96];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void drop(const char *name)
{
	char p[96];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
}

static void cleanup(void)
{
	drop("server.crt");
	drop("server.key");
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	put("server.crt", cert);
	put("server.key", "KEY\n");
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	return 0;
}

static void check_user(const struct web_config *w, const struct web_user *u)
{
	int cost;

	if (!*u->name || strchr(u->name, ':') || web_config_user(w, u->name) != u ||
	    strlen(u->hash) != 60 || strncmp(u->hash, "$2", 2) || u->verified)
		abort();
	cost = atoi(u->hash + 4);
	if (cost < 4 || cost > WEB_COST_MAX)
		abort();
}

/* each warning a line of its own */
static void check_warnings(const char *s)
{
	for (const char *nl; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl || strncmp(s, "pipestat: --web-config ", 23))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config w;
	char err[512], *said = NULL;
	size_t said_len = 0;
	FILE *warn = open_memstream(&said, &said_len);
	bool ok;

	if (!warn)
		abort();
	ok = web_config_parse(path, (const char *)data, size, &w, warn, err, sizeof(err));
	fclose(warn);
	if (ok) {
		if (!w.cert_pem != !w.key_pem)
			abort();
		for (size_t i = 0; i < w.nusers; i++)
			check_user(&w, &w.users[i]);
		check_warnings(said);
	} else if (strncmp(err, "--web-config ", 13) || strchr(err, '\n') ||
		   w.cert_pem || w.key_pem || w.users || w.nusers || *said) {
		abort();
	}
	web_config_free(&w);
	free(said);
	return 0;
}
