#!/usr/bin/env bash
# pipestat --listen --web-config: Debian's Prometheus server scrapes over
# TLS with basic authentication (a certificate made here with openssl, a
# password hashed by Apache's htpasswd) and the counts come back through
# its HTTP API; a wrong password gets 401; web-configs that are malformed,
# unreadable or others' to change are refused in one line.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh
. tests/host/prom_lib.sh
trap 'stop_pipestat 2>/dev/null; stop_prometheus; rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_webconfig.sh: needs root (BPF)"; exit 1
fi
WEB=$TMP/web
PW='s3cret pw'

make_config() {
	mkdir -m 700 "$WEB" &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=pipetrace-test -addext subjectAltName=IP:127.0.0.1 \
		-keyout "$WEB/server.key" -out "$WEB/server.crt" 2>/dev/null &&
	local hash && hash=$(htpasswd -nbBC 10 prometheus "$PW" | cut -d: -f2) &&
	cat >"$WEB/web.yml" <<-CONF
	tls_server_config:
	  cert_file: server.crt
	  key_file: server.key
	basic_auth_users:
	  prometheus: $hash
	CONF
}

# code URL [CURL ARGS...]: the HTTP status (000: no HTTP answer); asked
# again after a 429 (bcrypt's share of time used up), as Retry-After says
code() {
	local url=$1 c
	shift
	for _ in $(seq 10); do
		c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$url")
		[ "$c" = 429 ] || break
		sleep 1
	done
	echo "$c"
}

t_scrape() {
	local url v sel='comm="pipework",job="pipetrace"'
	make_config || { not_ok "webconfig: certificate and password made"; return; }
	start_pipestat --listen 127.0.0.1:0 --web-config "$WEB/web.yml" -n pipework -i 0.2 ||
		{ not_ok "webconfig: pipestat starts"; return; }
	PORT=$(listen_port)
	url=https://127.0.0.1:$PORT/metrics
	expect "webconfig: serves https" "$(grep -c "^pipestat: serving $url\$" "$TMP/err")" 1
	expect "webconfig: no password: 401" "$(code "$url" --cacert "$WEB/server.crt")" 401
	expect "webconfig: wrong password: 401" \
		"$(code "$url" --cacert "$WEB/server.crt" -u prometheus:wrong)" 401
	expect "webconfig: unknown user: 401" \
		"$(code "$url" --cacert "$WEB/server.crt" -u nobody:"$PW")" 401
	expect "webconfig: 401 asks for basic authentication" \
		"$(curl -s -o /dev/null -D - --cacert "$WEB/server.crt" "$url" |
			grep -ic '^www-authenticate: basic realm="pipetrace"')" 1
	expect "webconfig: no 404 without a password" \
		"$(code "https://127.0.0.1:$PORT/" --cacert "$WEB/server.crt")" 401
	expect "webconfig: the password: 200" \
		"$(code "$url" --cacert "$WEB/server.crt" -u prometheus:"$PW")" 200
	expect "webconfig: no plain HTTP" "$(code "http://127.0.0.1:$PORT/metrics")" 000
	expect "webconfig: no TLS 1.1" \
		"$(code "$url" --cacert "$WEB/server.crt" -u prometheus:"$PW" --tls-max 1.1)" 000

	cat >"$TMP/prometheus.yml" <<-CONF
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: pipetrace
	    scheme: https
	    tls_config:
	      ca_file: $WEB/server.crt
	    basic_auth:
	      username: prometheus
	      password: '$PW'
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	  - job_name: wrong_password
	    scheme: https
	    tls_config:
	      ca_file: $WEB/server.crt
	    basic_auth:
	      username: prometheus
	      password: wrong
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	CONF
	if ! start_prometheus "$TMP/prometheus.yml"; then
		not_ok "webconfig: Prometheus starts"
		stop_pipestat
		return
	fi
	expect "webconfig: Prometheus: target up over TLS" "$(until_value 'up{job="pipetrace"}' 1)" 1
	work eagain-read 555 >/dev/null
	expect "webconfig: Prometheus: the count" \
		"$(until_value "sum(pipetrace_eagain_total{$sel,side=\"read\"})" 555)" 555
	expect "webconfig: Prometheus: wrong password down" \
		"$(until_value 'up{job="wrong_password"}' 0)" 0
	# (or 429 while the right password's first check is under way)
	for _ in $(seq 20); do
		v=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/targets" | jq -r \
			'.data.activeTargets[] | select(.labels.job=="wrong_password") | .lastError')
		[ "$v" = "server returned HTTP status 401 Unauthorized" ] && break
		sleep 0.5
	done
	expect "webconfig: Prometheus: says 401" "$v" "server returned HTTP status 401 Unauthorized"
	stop_prometheus
	stop_pipestat
	expect "webconfig: exit status" "$PS_RC" 0
}

# 32 clients sending wrong passwords as fast as they can (each a bcrypt
# of cost 10) cannot starve the scraper, whose password was found right
# before: its every request answered within 2 s
t_flood() {
	local url i t n=0 flood
	start_pipestat --listen 127.0.0.1:0 --web-config "$WEB/web.yml" -n pipework -i 0.2 ||
		{ not_ok "flood: pipestat starts"; return; }
	url=https://127.0.0.1:$(listen_port)/metrics
	expect "flood: the password: 200" \
		"$(code "$url" --cacert "$WEB/server.crt" -u prometheus:"$PW")" 200
	# one curl, 32 connections at a time, 100000 requests
	for i in $(seq 100000); do echo "url = \"$url\""; echo 'output = "/dev/null"'; done \
		>"$TMP/flood.curl"
	curl -s --no-progress-meter --parallel --parallel-max 32 --cacert "$WEB/server.crt" \
		-u prometheus:wrong -w '%{stderr}%{http_code}\n' -K "$TMP/flood.curl" 2>"$TMP/flood.codes" &
	flood=$!
	sleep 3
	for i in $(seq 5); do
		t=$(curl -s -o /dev/null --max-time 2 -w '%{http_code} %{time_total}' \
			--cacert "$WEB/server.crt" -u prometheus:"$PW" "$url")
		[ "${t% *}" = 200 ] && n=$((n + 1))
		echo "# scrape under the flood: $t"
		sleep 0.5
	done
	expect "flood: 5 of 5 scrapes answered within 2 s" "$n" 5
	t=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$WEB/server.crt" \
		-u prometheus:wrong2 "$url")
	expect "flood: a wrong password meanwhile: 401, or 429 when bcrypt's share is used up" \
		"$(grep -cxE '401|429' <<<"$t")" 1
	kill "$flood"
	wait "$flood" 2>/dev/null
	# a flood: hundreds of wrong passwords, more than bcrypt's share could check
	n=$(grep -c 401 "$TMP/flood.codes")
	t=$(grep -c 429 "$TMP/flood.codes")
	echo "# the flood: $n answered 401, $t answered 429"
	expect "flood: 100 or more wrong passwords, some not checked (429)" \
		"$(( n + t >= 100 && t > 0 ))" 1
	stop_pipestat
}

# refused WHAT CONFIG-FILE WANT: one line on stderr, exit 1, nothing served
refused() {
	local msg rc
	msg=$("$PIPESTAT" --listen 127.0.0.1:0 --web-config "$2" -d 1 2>&1 >/dev/null); rc=$?
	expect "webconfig: $1: exit 1, one line" "$rc:$(wc -l <<<"$msg")" 1:1
	expect "webconfig: $1: says why" "$msg" "pipestat: --web-config $2$3"
}

t_refused() {
	local f=$WEB/bad.yml msg
	cp "$WEB/web.yml" "$f"
	chmod 666 "$f"
	refused "writable by others" "$f" \
		": $f is writable by others (mode 0666): they could change or swap the file"
	chmod 644 "$f"
	chown nobody "$f"
	refused "someone else's" "$f" ": $f belongs to uid 65534 (neither root nor us)"
	chown root "$f"
	mkdir -m 777 "$TMP/open" && cp "$WEB/web.yml" "$TMP/open/web.yml"
	refused "in a directory others write" "$TMP/open/web.yml" \
		": $TMP/open is writable by others (mode 0777): they could change or swap the file"
	refused "missing" "$WEB/none.yml" ": No such file or directory"
	ln -s "$WEB/web.yml" "$TMP/link.yml"
	refused "a symbolic link" "$TMP/link.yml" \
		": goes through a symbolic link: give the path it points to"
	ln -s "$WEB" "$TMP/linkdir"
	refused "a directory reached through a link" "$TMP/linkdir/web.yml" \
		": goes through a symbolic link: give the path it points to"
	printf 'tls_server_config:\n  cert_file: [server.crt\n' >"$f"
	refused "malformed" "$f" ":3: did not find expected ',' or ']'"
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n' >"$f"
	refused "a key not implemented" "$f" \
		":4: tls_server_config: 'client_auth_type' is not supported (pipestat knows cert_file and key_file)"
	printf 'basic_auth_users:\n  prometheus: %s\n' "$PW" >"$f"
	refused "a password not hashed" "$f" \
		":2: basic_auth_users: prometheus: want a bcrypt hash (\$2y\$..., e.g. from htpasswd -nBC 10 prometheus)"
	openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out "$WEB/other.key" 2>/dev/null
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n' >"$f"
	refused "a key that is not the certificate's" "$f" \
		": GnuTLS failed to setup x509 certificate/key: The certificate and the given key do not match."
	msg=$("$PIPESTAT" --web-config "$WEB/web.yml" -d 1 2>&1)
	expect "webconfig: without --listen" "$msg" \
		"pipestat: --web-config is for --listen: give both (see pipestat --help)"
}

t_scrape
t_flood
t_refused
summary
