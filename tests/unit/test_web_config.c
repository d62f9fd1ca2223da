// SPDX-License-Identifier: GPL-2.0
/*
 * --web-config: the exporters' format read, passwords found right
 * remembered, every file refused that another user could have put there
 * or that says something pipestat would not do, or says it twice, and
 * what is likely a mistake said on the warning stream.
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

	if (web_config_load(path, &w, NULL, err, sizeof(err))) {
		web_config_free(&w);
		return "(loaded)";
	}
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
	CHECK(web_config_load(path, &w, NULL, err, sizeof(err)));
	CHECK(w.cert_pem && !strcmp(w.cert_pem, "CERT\n"));
	CHECK(w.key_pem && !strcmp(w.key_pem, "KEY\n"));
	CHECK(w.nusers == 2);
	CHECK(web_config_user(&w, "prometheus") == &w.users[0]);
	CHECK(web_config_user(&w, "other") == &w.users[1]);
	CHECK_STR(w.users[1].hash, HASH_OTHER);
	CHECK(!web_config_user(&w, "nobody"));
	CHECK(!web_config_user(&w, "Prometheus"));
	/* nothing remembered yet; then only the password found right */
	CHECK(!web_user_verified(&w.users[0], "s3cret"));
	CHECK(web_user_remember(&w.users[0], "s3cret"));
	CHECK(web_user_verified(&w.users[0], "s3cret"));
	CHECK(!web_user_verified(&w.users[0], "s3cret "));
	CHECK(!web_user_verified(&w.users[0], "s3cre"));
	CHECK(!web_user_verified(&w.users[0], ""));
	CHECK(!web_user_verified(&w.users[1], "s3cret"));
	web_config_free(&w);
	CHECK(!w.nusers && !w.cert_pem);

	/* nothing in it: plain HTTP, nobody asked for a password */
	path = put("empty.yml", "# nothing\n", 0644);
	CHECK(web_config_load(path, &w, NULL, err, sizeof(err)) && !w.cert_pem && !w.nusers);
	/* basic authentication without TLS, as exporter-toolkit allows */
	path = put("auth.yml", "basic_auth_users:\n  p: " HASH_S3CRET "\n", 0644);
	CHECK(web_config_load(path, &w, NULL, err, sizeof(err)) && !w.cert_pem && w.nusers == 1);
	web_config_free(&w);
	/* in flow style, as YAML allows */
	path = put("flow.yml", "{basic_auth_users: {p: '" HASH_S3CRET "'}}\n", 0644);
	CHECK(web_config_load(path, &w, NULL, err, sizeof(err)) && w.nusers == 1);
	web_config_free(&w);
}

static void refused(void)
{
	CHECK_STR(load_err("tls_server_config:\n  cert_file: 'x\n"),
		  ":3: found unexpected end of stream");
	/* a list where a file name goes: refused at its start, unread */
	CHECK_STR(load_err("tls_server_config:\n  cert_file: [x\n"),
		  ":2: cert_file: want a file name");
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
	/* a padding bit set: libcrypt would never give this hash */
	CHECK_STR(load_err("basic_auth_users:\n  p: $2b$04$2XwrEozG85FPW6sTk/hW5PbpGBf9"
			   "eu7P187qHczVP7moaQTMLWx/a\n"),
		  ":2: basic_auth_users: p: want a bcrypt hash ($2y$..., e.g. from "
		  "htpasswd -nBC 10 p)");
	CHECK_STR(load_err("basic_auth_users:\n  p: $2b$04$2XwrEozG85FPW6sTk/hW5ObpGBf9"
			   "eu7P187qHczVP7moaQTMLWx/b\n"),
		  ":2: basic_auth_users: p: want a bcrypt hash ($2y$..., e.g. from "
		  "htpasswd -nBC 10 p)");
	CHECK_STR(load_err("basic_auth_users:\n  p: $2y$03$MDyGrH.8xN6.oBOH0yLH/ugBJ6LA"
			   "xruvpNEDBvSTJlCJ0q3YsiTu.\n"),
		  ":2: basic_auth_users: p: want a bcrypt hash ($2y$..., e.g. from "
		  "htpasswd -nBC 10 p)");
	CHECK_STR(load_err("basic_auth_users:\n  p: $2y$15$MDyGrH.8xN6.oBOH0yLH/ugBJ6LA"
			   "xruvpNEDBvSTJlCJ0q3YsiTu.\n"),
		  ":2: basic_auth_users: p: bcrypt cost 15 is above 14: each check would "
		  "take seconds of CPU (htpasswd -nBC 12 p)");
	CHECK_STR(load_err("basic_auth_users:\n  p: $2y$31$MDyGrH.8xN6.oBOH0yLH/ugBJ6LA"
			   "xruvpNEDBvSTJlCJ0q3YsiTu.\n"),
		  ":2: basic_auth_users: p: bcrypt cost 31 is above 14: each check would "
		  "take seconds of CPU (htpasswd -nBC 12 p)");
	/* each section once: a second one is refused, not merged (nor a crash) */
	CHECK_STR(load_err("basic_auth_users:\n  p: " HASH_S3CRET "\nbasic_auth_users:\n"
			   "  q: " HASH_OTHER "\n"),
		  ":3: 'basic_auth_users' twice");
	CHECK_STR(load_err("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
			   "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"),
		  ":4: 'tls_server_config' twice");
	CHECK_STR(load_err("tls_server_config:\n  cert_file: server.crt\n  cert_file: server.crt\n"
			   "  key_file: server.key\n"),
		  ":3: tls_server_config: 'cert_file' twice");
	CHECK_STR(load_err("basic_auth_users:\n  p: " HASH_S3CRET "\n---\nbasic_auth_users:\n"),
		  ":3: one YAML document only");
	CHECK_STR(load_err("basic_auth_users:\n  p: &h " HASH_S3CRET "\n  q: *h\n"),
		  ":3: aliases (*h) are not supported");
	CHECK_STR(load_err("basic_auth_users:\n  \"p\\0q\": " HASH_S3CRET "\n"),
		  ":2: a NUL byte in text");
	CHECK_STR(load_err("basic_auth_users:\n  ? [p]\n  : " HASH_S3CRET "\n"),
		  ":2: basic_auth_users: want a user name (no ':')");
	CHECK_STR(load_err("? [tls_server_config]\n: x\n"), ":1: want key: value lines");
	CHECK_STR(load_err("basic_auth_users:\n  p: [" HASH_S3CRET "]\n"),
		  ":2: basic_auth_users: p: want a bcrypt hash ($2y$..., e.g. from "
		  "htpasswd -nBC 10 p)");
	CHECK_STR(load_err("tls_server_config:\n  cert_file: {a: b}\n  key_file: server.key\n"),
		  ":2: cert_file: want a file name");
	CHECK_STR(load_err("- a list\n"), ":1: want tls_server_config and basic_auth_users");
	CHECK(strstr(load_err("tls_server_config:\n  cert_file: none.crt\n"),
		     ":2: cert_file "));
	CHECK(strstr(load_err("tls_server_config:\n  cert_file: none.crt\n"),
		     "/none.crt: No such file or directory"));
}

/* what load_text(text) said on the warning stream; "(refused)" */
static const char *warnings(const char *text)
{
	static char said[1024];
	const char *path = put("warn.yml", text, 0600);
	struct web_config w;
	char err[512];
	FILE *f;
	bool ok;

	memset(said, 0, sizeof(said));
	f = fmemopen(said, sizeof(said) - 1, "w");
	ok = web_config_load(path, &w, f, err, sizeof(err));
	fclose(f);
	web_config_free(&w);
	if (!ok)
		return "(refused)";
	/* from after "pipestat: --web-config PATH" */
	return strstr(said, "warn.yml") ? strstr(said, "warn.yml") + 8 : said;
}

static void warned(void)
{
	CHECK_STR(warnings(""), ": nothing in it: plain HTTP, and no password asked, "
		  "as without --web-config\n");
	CHECK_STR(warnings("basic_auth_users:\n"), ": nothing in it: plain HTTP, and no "
		  "password asked, as without --web-config\n");
	CHECK_STR(warnings("basic_auth_users:\n  p: " HASH_S3CRET "\n"),
		  ":2: basic_auth_users: p: bcrypt cost 4 is weak: a stolen hash is quick "
		  "to crack (htpasswd -nBC 10 p)\n");
	CHECK_STR(warnings("basic_auth_users:\n  p: $2y$10$MDyGrH.8xN6.oBOH0yLH/ugBJ6LA"
			   "xruvpNEDBvSTJlCJ0q3YsiTu.\n"), "");
	CHECK_STR(warnings("basic_auth_users:\n  p: $2y$14$MDyGrH.8xN6.oBOH0yLH/ugBJ6LA"
			   "xruvpNEDBvSTJlCJ0q3YsiTu.\n"), "");
	/* refused: the error alone, no warning before it */
	CHECK_STR(warnings("basic_auth_users:\n  p: " HASH_S3CRET "\n  p: x\n"), "(refused)");
}

/* files and directories others could write */
static void planted(void)
{
	char sub[64], err[512], want[512], path[128];
	struct web_config w;

	put("w.yml", "", 0666);
	snprintf(path, sizeof(path), "%s/w.yml", dir);
	CHECK(!web_config_load(path, &w, NULL, err, sizeof(err)));
	snprintf(want, sizeof(want), "--web-config %s: %s is writable by others "
		 "(mode 0666): they could change or swap the file", path, path);
	CHECK_STR(err, want);
	chmod(path, 0620);
	CHECK(!web_config_load(path, &w, NULL, err, sizeof(err)));

	/* a directory on the way others write, sticky or not */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	mkdir(sub, 0777);
	chmod(sub, 0777);
	put("open/w.yml", "", 0644);
	snprintf(path, sizeof(path), "%s/w.yml", sub);
	CHECK(!web_config_load(path, &w, NULL, err, sizeof(err)));
	snprintf(want, sizeof(want), "--web-config %s: %s is writable by others "
		 "(mode 0777): they could change or swap the file", path, sub);
	CHECK_STR(err, want);
	/* like /tmp: others cannot rename or remove what is ours in it */
	chmod(sub, 01777);
	CHECK(web_config_load(path, &w, NULL, err, sizeof(err)));
	/* the same through a link: refused, wherever it points */
	snprintf(want, sizeof(want), "%s/link.yml", dir);
	CHECK(!symlink(path, want));
	CHECK(!web_config_load(want, &w, NULL, err, sizeof(err)));
	CHECK(strstr(err, ": goes through a symbolic link: give the path it points to"));
	chmod(sub, 0777);
	/* no regular file */
	CHECK(!web_config_load(dir, &w, NULL, err, sizeof(err)));
	CHECK(strstr(err, " is not a regular file"));
	/* someone else's file (as root only: nobody else can chown) */
	if (!geteuid()) {
		chmod(sub, 0755);
		CHECK(!chown(path, 65534, 65534));
		CHECK(!web_config_load(path, &w, NULL, err, sizeof(err)));
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
	warned();
	planted();
	rc = unit_summary("test_web_config");
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	return system(rm) ? 1 : rc;
}
