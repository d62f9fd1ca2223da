// SPDX-License-Identifier: GPL-2.0
/*
 * --web-config: the exporters' format read, bcrypt passwords checked
 * (libcrypt), and every file refused that another user could have put
 * there or that says something pipestat would not do.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pipestat/web_config.h"
#include "unit.h"

/* cost 4 (fast); the second written $2y$ as htpasswd and the exporters do */
#define HASH_S3CRET	"$2b$04$2XwrEozG85FPW6sTk/hW5ObpGBf9eu7P187qHczVP7moaQTMLWx/a"
#define HASH_OTHER	"$2y$04$MDyGrH.8xN6.oBOH0yLH/ugBJ6LAxruvpNEDBvSTJlCJ0q3YsiTu."

static char dir[] = "/tmp/pt-webconfig.XXXXXX";

static const char *put(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

/* the error web_config_load gives for text, after "--web-config PATH" */
static const char *load_err(const char *text)
{
	static char err[512];
	const char *path = put("bad.yml", text, 0600);
	struct web_config w;
	size_t skip = strlen("--web-config ") + strlen(path);

	if (web_config_load(path, &w, err, sizeof(err)))
		return "(loaded)";
	return strlen(err) > skip ? err + skip : err;
}

static void good(void)
{
	struct web_config w;
	char err[512];
	const char *path;

	put("server.crt", "CERT\n", 0644);
	put("server.key", "KEY\n", 0600);
	path = put("web.yml", "# as node_exporter takes it\n"
		   "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		   "basic_auth_users:\n  prometheus: " HASH_S3CRET "\n"
		   "  'other': '" HASH_OTHER "'\n", 0644);
	CHECK(web_config_load(path, &w, err, sizeof(err)));
	CHECK(w.cert_pem && !strcmp(w.cert_pem, "CERT\n"));
	CHECK(w.key_pem && !strcmp(w.key_pem, "KEY\n"));
	CHECK(w.nusers == 2);
	/* a second apart: bcrypt's time budget never in the way */
	CHECK(web_config_auth(&w, "prometheus", "s3cret", 1e6) == WEB_AUTH_OK);
	CHECK(web_config_auth(&w, "prometheus", "s3cret ", 1e6 + 1) == WEB_AUTH_DENIED);
	CHECK(web_config_auth(&w, "prometheus", "", 1e6 + 2) == WEB_AUTH_DENIED);
	CHECK(web_config_auth(&w, "other", "other pw", 1e6 + 3) == WEB_AUTH_OK);
	CHECK(web_config_auth(&w, "other", "s3cret", 1e6 + 4) == WEB_AUTH_DENIED);
	CHECK(web_config_auth(&w, "nobody", "s3cret", 1e6 + 5) == WEB_AUTH_DENIED);
	CHECK(web_config_auth(&w, "prometheus", "other pw", 1e6 + 6) == WEB_AUTH_DENIED);
	/* right after a check, others wait; the pair last found right does not */
	CHECK(web_config_auth(&w, "other", "other pw", 2e6) == WEB_AUTH_OK);
	CHECK(web_config_auth(&w, "prometheus", "wrong", 2e6 + 1) == WEB_AUTH_DENIED);
	CHECK(web_config_auth(&w, "prometheus", "wrong", 2e6 + 1) == WEB_AUTH_BUSY);
	CHECK(web_config_auth(&w, "prometheus", "s3cret", 2e6 + 1) == WEB_AUTH_BUSY);
	CHECK(web_config_auth(&w, "other", "other pw", 2e6 + 1) == WEB_AUTH_OK);
	CHECK(web_config_auth(&w, "prometheus", "s3cret", 2e6 + 2) == WEB_AUTH_OK);
	web_config_free(&w);
	CHECK(!w.nusers && !w.cert_pem);

	/* nothing in it: plain HTTP, nobody asked for a password */
	path = put("empty.yml", "# nothing\n", 0644);
	CHECK(web_config_load(path, &w, err, sizeof(err)) && !w.cert_pem && !w.nusers);
	CHECK(web_config_auth(&w, "prometheus", "s3cret", 1e6) == WEB_AUTH_DENIED);
	/* basic authentication without TLS, as exporter-toolkit allows */
	path = put("auth.yml", "basic_auth_users:\n  p: " HASH_S3CRET "\n", 0644);
	CHECK(web_config_load(path, &w, err, sizeof(err)) && !w.cert_pem && w.nusers == 1);
	web_config_free(&w);
}

static void refused(void)
{
	CHECK_STR(load_err("tls_server_config:\n  cert_file: [x\n"),
		  ":3: did not find expected ',' or ']'");
	CHECK_STR(load_err("tls_server_config:\n  cert_file: server.crt\n"),
		  ":2: tls_server_config: want cert_file and key_file");
	CHECK_STR(load_err("tls_server_config:\n  cert_file: server.crt\n  key_file: "
			   "server.key\n  client_ca_file: ca.crt\n"),
		  ":4: tls_server_config: 'client_ca_file' is not supported "
		  "(pipestat knows cert_file and key_file)");
	CHECK_STR(load_err("http_server_config:\n  http2: false\n"),
		  ":1: 'http_server_config' is not supported (pipestat knows "
		  "tls_server_config and basic_auth_users)");
	CHECK_STR(load_err("basic_auth_users:\n  p: plaintext\n"),
		  ":2: basic_auth_users: p: want a bcrypt hash ($2y$..., e.g. from "
		  "htpasswd -nBC 10 p)");
	CHECK_STR(load_err("basic_auth_users:\n  p: $2y$04$short\n"),
		  ":2: basic_auth_users: p: want a bcrypt hash ($2y$..., e.g. from "
		  "htpasswd -nBC 10 p)");
	CHECK_STR(load_err("basic_auth_users:\n  p: " HASH_S3CRET "\n  p: " HASH_OTHER "\n"),
		  ":3: basic_auth_users: 'p' twice");
	CHECK_STR(load_err("- a list\n"), ":1: want tls_server_config and basic_auth_users");
	CHECK(strstr(load_err("tls_server_config:\n  cert_file: none.crt\n"),
		     ":2: cert_file "));
	CHECK(strstr(load_err("tls_server_config:\n  cert_file: none.crt\n"),
		     "/none.crt: No such file or directory"));
}

/* files and directories others could write */
static void planted(void)
{
	char sub[64], err[512], want[512], path[128];
	struct web_config w;

	put("w.yml", "", 0666);
	snprintf(path, sizeof(path), "%s/w.yml", dir);
	CHECK(!web_config_load(path, &w, err, sizeof(err)));
	snprintf(want, sizeof(want), "--web-config %s: %s is writable by others "
		 "(mode 0666): they could change or swap the file", path, path);
	CHECK_STR(err, want);
	chmod(path, 0620);
	CHECK(!web_config_load(path, &w, err, sizeof(err)));

	/* a directory on the way others write, sticky or not */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	mkdir(sub, 0777);
	chmod(sub, 0777);
	put("open/w.yml", "", 0644);
	snprintf(path, sizeof(path), "%s/w.yml", sub);
	CHECK(!web_config_load(path, &w, err, sizeof(err)));
	snprintf(want, sizeof(want), "--web-config %s: %s is writable by others "
		 "(mode 0777): they could change or swap the file", path, sub);
	CHECK_STR(err, want);
	/* like /tmp: others cannot rename or remove what is ours in it */
	chmod(sub, 01777);
	CHECK(web_config_load(path, &w, err, sizeof(err)));
	/* the same through a link: refused, wherever it points */
	snprintf(want, sizeof(want), "%s/link.yml", dir);
	CHECK(!symlink(path, want));
	CHECK(!web_config_load(want, &w, err, sizeof(err)));
	CHECK(strstr(err, ": goes through a symbolic link: give the path it points to"));
	chmod(sub, 0777);
	/* no regular file */
	CHECK(!web_config_load(dir, &w, err, sizeof(err)));
	CHECK(strstr(err, " is not a regular file"));
	/* someone else's file (as root only: nobody else can chown) */
	if (!geteuid()) {
		chmod(sub, 0755);
		CHECK(!chown(path, 65534, 65534));
		CHECK(!web_config_load(path, &w, err, sizeof(err)));
		snprintf(want, sizeof(want), "--web-config %s: %s belongs to uid 65534 "
			 "(neither root nor us)", path, path);
		CHECK_STR(err, want);
	}
}

int main(void)
{
	char rm[64];
	int rc;

	if (!mkdtemp(dir))
		return 1;
	good();
	refused();
	planted();
	rc = unit_summary("test_web_config");
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	return system(rm) ? 1 : rc;
}
