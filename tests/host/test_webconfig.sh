#!/usr/bin/env bash
# pipestat --listen --web-config: Debian's Prometheus server scrapes over
# TLS with basic authentication (a certificate made here with openssl, a
# password hashed by Apache's htpasswd) and the counts come back through
# its HTTP API; a wrong password gets 401; web-configs that are malformed,
# unreadable, others' to change, say a key twice or nest deep are refused
# in one line within a second; password checks run beside the server, so
# a slow one delays no other client and SIGTERM is never kept waiting; a
# flood of wrong passwords never costs the right one a 429; what is
# likely a mistake is said; and the installed unit's user, with its
# credentials, serves TLS from a key only root can read.
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
# again after a 429 (too many checks under way), as Retry-After says
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
	expect "flood: a wrong password meanwhile: 401, or 429 with too many checks under way" \
		"$(grep -cxE '401|429' <<<"$t")" 1
	kill "$flood"
	wait "$flood" 2>/dev/null
	# a flood: hundreds of wrong passwords, more than its address may have
	# checked at a time
	n=$(grep -c 401 "$TMP/flood.codes")
	t=$(grep -c 429 "$TMP/flood.codes")
	echo "# the flood: $n answered 401, $t answered 429"
	expect "flood: 100 or more wrong passwords, some not checked (429)" \
		"$(( n + t >= 100 && t > 0 ))" 1
	stop_pipestat
}

# ms_since T0: milliseconds since T0 (date +%s%N)
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# users WEB-YML USER:COST:PASSWORD...: web.yml with the test certificate
# and these users
users() {
	local f=$1 u name cost pw
	shift
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$f"
	echo 'basic_auth_users:' >>"$f"
	for u in "$@"; do
		IFS=: read -r name cost pw <<<"$u"
		echo "  $name: $(htpasswd -nbBC "$cost" "$name" "$pw" | cut -d: -f2)" >>"$f"
	done
}

# scrape USER:PASSWORD: "STATUS SECONDS" of one request, no retry
scrape() {
	curl -s -o /dev/null --max-time 10 -w '%{http_code} %{time_total}' \
		--cacert "$WEB/server.crt" -u "$1" "$URL"
}

# within STATUS-AND-TIME LIMIT: "STATUS:1" when it took less than LIMIT s
within() { echo "${1% *}:$(awk -v t="${1#* }" -v l="$2" 'BEGIN { print (t < l) }')"; }

# A check of cost 14 (seconds of bcrypt) runs beside the server: a
# scraper whose password was found right before, and one whose password
# needs a check of its own, are answered meanwhile; SIGTERM during such a
# check ends pipestat at once
t_checks() {
	local slow t t0 ms
	users "$WEB/checks.yml" "prometheus:10:$PW" "other:10:other pw" "slow:14:slow pw"
	start_pipestat --listen 127.0.0.1:0 --web-config "$WEB/checks.yml" -n pipework -i 0.2 ||
		{ not_ok "checks: pipestat starts"; return; }
	URL=https://127.0.0.1:$(listen_port)/metrics
	expect "checks: the password, checked" "$(scrape prometheus:"$PW" | cut -d' ' -f1)" 200
	# the slow check on its own, not on the heels of another one
	sleep 2
	scrape "slow:slow pw" >"$TMP/slow" &
	slow=$!
	sleep 0.3
	t=$(scrape prometheus:"$PW")
	expect "checks: during a cost-14 check, a known password answered within 1 s ($t)" \
		"$(within "$t" 1)" 200:1
	t=$(scrape "other:other pw")
	expect "checks: during it, a password checked and answered ($t), before it ends" \
		"${t% *}:$(kill -0 "$slow" 2>/dev/null && echo running)" 200:running
	wait "$slow"
	expect "checks: the cost-14 password ($(cat "$TMP/slow"))" "$(cut -d' ' -f1 "$TMP/slow")" 200
	scrape "slow:wrong" >/dev/null &
	slow=$!
	sleep 0.3
	t0=$(date +%s%N)
	stop_pipestat TERM
	ms=$(ms_since "$t0")
	wait "$slow"
	expect "checks: SIGTERM during a cost-14 check: ended within 1 s (${ms} ms), status 0" \
		"$((ms < 1000)):$PS_RC" 1:0
}

# From a fresh start, nothing remembered: wrong passwords one after
# another, each checked (401, never 429); six at once, then at once the
# right one, answered 200 the first time
t_wrong_then_right() {
	local i t pids codes=
	start_pipestat --listen 127.0.0.1:0 --web-config "$WEB/web.yml" -n pipework -i 0.2 ||
		{ not_ok "wrong then right: pipestat starts"; return; }
	URL=https://127.0.0.1:$(listen_port)/metrics
	for i in $(seq 10); do
		codes="$codes $(scrape prometheus:wrong$i | cut -d' ' -f1)"
	done
	expect "wrong then right: 10 wrong passwords, each 401" "$codes" \
		"$(printf ' 401%.0s' $(seq 10))"
	pids=()
	for i in $(seq 6); do
		scrape prometheus:wrong$i >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	t=$(scrape prometheus:"$PW")
	expect "wrong then right: 6 wrong at once, then the right one: 200 the first time ($t)" \
		"${t% *}" 200
	stop_pipestat
}

# expired_cert: $WEB/old.crt, valid on 1 January 2020 only (openssl ca:
# req -x509 takes no date in the past), its key old.key
expired_cert() {
	local ca=$WEB/ca
	mkdir -p "$ca" && : >"$ca/index.txt" && echo 01 >"$ca/serial" &&
	printf '[ca]\ndefault_ca = d\n[d]\ndatabase = %s\nserial = %s\nnew_certs_dir = %s\n%s\n' \
		"$ca/index.txt" "$ca/serial" "$ca" 'default_md = sha256
policy = p
[p]
commonName = supplied' >"$ca/ca.cnf" &&
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=pipetrace-old -keyout "$WEB/old.key" -out "$ca/old.csr" 2>/dev/null &&
	openssl ca -batch -notext -config "$ca/ca.cnf" -selfsign -keyfile "$WEB/old.key" \
		-in "$ca/old.csr" -startdate 20200101000000Z -enddate 20200102000000Z \
		-out "$WEB/old.crt" >/dev/null 2>&1
}

# What is allowed but likely a mistake is said, and pipestat serves
# all the same: an empty web-config (plain HTTP, no password), an expired
# certificate, a weak bcrypt cost
t_warnings() {
	local f=$WEB/empty.yml
	: >"$f"
	start_pipestat --listen 127.0.0.1:0 --web-config "$f" -n pipework -i 0.2 ||
		{ not_ok "warnings: pipestat starts"; return; }
	expect "warnings: an empty web-config said" "$(grep -c "^pipestat: --web-config $f: \
nothing in it: plain HTTP, and no password asked, as without --web-config\$" "$TMP/err")" 1
	expect "warnings: an empty web-config: plain HTTP, no password" \
		"$(code "http://127.0.0.1:$(listen_port)/metrics")" 200
	stop_pipestat
	expired_cert || { not_ok "warnings: an expired certificate made"; return; }
	f=$WEB/old.yml
	printf 'tls_server_config:\n  cert_file: old.crt\n  key_file: old.key\n' >"$f"
	printf 'basic_auth_users:\n  p: %s\n' "$(htpasswd -nbBC 4 p pw | cut -d: -f2)" >>"$f"
	start_pipestat --listen 127.0.0.1:0 --web-config "$f" -n pipework -i 0.2 ||
		{ not_ok "warnings: pipestat starts"; return; }
	expect "warnings: the expired certificate said" "$(grep -c "^pipestat: --web-config $f:2: \
cert_file: the certificate expired on 2020-01-02 00:00 UTC: clients will refuse it\$" "$TMP/err")" 1
	expect "warnings: the weak cost said" "$(grep -c "^pipestat: --web-config $f:5: \
basic_auth_users: p: bcrypt cost 4 is weak: a stolen hash is quick to crack \
(htpasswd -nBC 10 p)\$" "$TMP/err")" 1
	expect "warnings: served all the same, curl refuses the expired certificate" \
		"$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WEB/old.crt" -u p:pw \
			"https://127.0.0.1:$(listen_port)/metrics"):$(code \
			"https://127.0.0.1:$(listen_port)/metrics" -k -u p:pw)" 000:200
	stop_pipestat
}

# unit_value KEY FILE...: KEY's last value in a unit and its drop-ins
unit_value() {
	local key=$1
	shift
	sed -n "s/^$key=//p" "$@" | tail -1
}

# free_uid: a uid of DynamicUser='s range that no user or process has
free_uid() {
	local u
	for u in $(seq 61184 65519 | shuf -n 50); do
		getent passwd "$u" >/dev/null || ps -e -o uid= | grep -qx " *$u" || { echo "$u"; return; }
	done
	return 1
}

# credentials DIR UID acl|owner ID:FILE...: the files copied into DIR as
# systemd's LoadCredential= does: DIR 0500, each file 0400, root's with an
# ACL that lets UID read (systemd on a file system with ACLs), or UID's
# own (on one without: ramfs, then mounted read-only)
credentials() {
	local dir=$1 uid=$2 how=$3 c
	shift 3
	rm -rf "$dir" && mkdir -p -m 700 "$dir" || return 1
	for c in "$@"; do
		install -m 400 "${c#*:}" "$dir/${c%%:*}" || return 1
		if [ "$how" = acl ]; then
			setfacl -m "u:$uid:r" "$dir/${c%%:*}" || return 1
		else
			chown "$uid:$uid" "$dir/${c%%:*}" || return 1
		fi
	done
	chmod 500 "$dir"
	if [ "$how" = acl ]; then setfacl -m "u:$uid:rx" "$dir"; else chown "$uid:$uid" "$dir"; fi
}

# as_unit COMMAND...: as the unit's user ($AS_UNIT: uid, ambient
# capabilities, bounding set, umask), with $CREDS as its credentials; in
# place of the (sub)shell it is called in, so $! is the command's pid
as_unit() {
	local uid caps bound umask
	read -r uid caps bound umask <<<"$AS_UNIT"
	umask "$umask"
	exec env CREDENTIALS_DIRECTORY="${CREDS:-}" setpriv --reuid="$uid" --regid="$uid" \
		--clear-groups --inh-caps="$caps" --ambient-caps="$caps" --bounding-set="$bound" \
		--no-new-privs "$@"
}

# The installed unit with its web drop-in (pipestat-web.conf), as systemd
# would run it: DynamicUser's own uid and its capabilities (setpriv), and
# the files LoadCredential= names copied into a credentials directory
# for %d. The web-config, certificate and key are root's, mode 0600: the
# unit's user cannot read them itself, but serves TLS with them through
# its credentials, whichever way systemd lets it read those.
t_credentials() {
	local inst=$TMP/inst unit dropin uid caps bound port creds how cmd c files=()
	make -s install DESTDIR="$inst" PREFIX=/usr >"$TMP/install.log" 2>&1 ||
		{ not_ok "credentials: make install"; return; }
	unit=$inst/usr/lib/systemd/system/pipestat.service
	dropin=$inst/usr/share/doc/pipetrace/examples/pipestat-web.conf
	uid=$(free_uid) || { not_ok "credentials: a free uid"; return; }
	chmod 600 "$WEB/web.yml" "$WEB/server.crt" "$WEB/server.key"
	chmod 711 "$TMP"	# the unit's user reaches the installed tree
	expect "credentials: a dynamic user with two capabilities" \
		"$(unit_value DynamicUser "$unit" "$dropin"):$(unit_value AmbientCapabilities \
		"$unit" "$dropin")" "yes:CAP_BPF CAP_PERFMON"
	caps=$(unit_value AmbientCapabilities "$unit" "$dropin" | tr 'A-Z ' 'a-z\n' |
		sed 's/^cap_/+/' | paste -sd,)
	bound=$(unit_value CapabilityBoundingSet "$unit" "$dropin" | tr 'A-Z ' 'a-z\n' |
		sed 's/^cap_/+/' | paste -sd,)
	port=$(free_port)
	cmd=$(unit_value ExecStart "$dropin" | sed "s|^/usr/sbin|$inst/usr/sbin|; \
		s|\[::\]:9432|127.0.0.1:$port|")
	# LoadCredential=ID:/etc/pipetrace/NAME, NAME taken from $WEB
	for c in $(sed -n 's/^LoadCredential=//p' "$dropin"); do
		files+=("${c%%:*}:$WEB/${c##*/}")
	done
	expect "credentials: the drop-in loads web.yml, the certificate and the key" \
		"${#files[@]}:$(grep -c -- '--web-config %d/web.yml$' "$dropin")" 3:1
	AS_UNIT="$uid $caps -all,$bound $(unit_value UMask "$unit")"
	# the same user without credentials: the files are root's alone
	expect "credentials: without them, the web-config cannot be read" \
		"$(as_unit "$inst/usr/sbin/pipestat" --listen 127.0.0.1:0 --web-config "$WEB/web.yml" \
			-d 1 2>&1)" "pipestat: --web-config $WEB/web.yml: Permission denied"
	for how in owner acl; do
		if [ $how = acl ] && ! command -v setfacl >/dev/null; then
			not_ok "credentials: setfacl (Debian's acl) is installed"
			continue
		fi
		creds=$TMP/credentials/pipestat.service
		mkdir -p -m 711 "$TMP/credentials"
		credentials "$creds" "$uid" $how "${files[@]}" ||
			{ not_ok "credentials ($how): the directory made"; continue; }
		PIPESTAT=as_unit CREDS=$creds start_pipestat ${cmd//%d/$creds} ||
			{ not_ok "credentials ($how): pipestat starts as uid $uid"; continue; }
		expect "credentials ($how): runs as uid $uid with CAP_BPF and CAP_PERFMON only" \
			"$(awk '/^Uid:/ { print $2 } /^CapEff:/ { print $2 }' "/proc/$PS_PID/status" |
			paste -sd' ')" "$uid 000000c000000000"
		expect "credentials ($how): serves TLS, the password asked" \
			"$(code "https://127.0.0.1:$port/metrics" --cacert "$WEB/server.crt"):$(code \
			"https://127.0.0.1:$port/metrics" --cacert "$WEB/server.crt" -u prometheus:"$PW")" \
			401:200
		stop_pipestat TERM
		expect "credentials ($how): exit status" "$PS_RC" 0
	done
}

# refused WHAT CONFIG-FILE WANT: one line on stderr, exit 1 after less
# than 1 s of CPU (wall time is the machine's load's as well), nothing
# served
refused() {
	local msg rc t TIMEFORMAT='%3U %3S %3R'
	{ time msg=$(timeout -s KILL 20 "$PIPESTAT" --listen 127.0.0.1:0 --web-config "$2" \
		-d 1 2>&1 >/dev/null); } 2>"$TMP/time"
	rc=$?
	t=$(awk '{ printf "%d %d", ($1 + $2) * 1000, $3 * 1000 }' "$TMP/time")
	expect "webconfig: $1: exit 1, one line, in less than 1 s of CPU (${t% *} ms, \
${t#* } ms in all)" "$rc:$(wc -l <<<"$msg"):$((${t% *} < 1000))" 1:1:1
	expect "webconfig: $1: says why" "$msg" "pipestat: --web-config $2$3"
}

# a key twice (the second basic_auth_users once crashed pipestat), YAML
# nested 100,000 deep (once quadratic: past a minute), a bcrypt cost of
# 31 (once hashed at the start: hours, deaf to SIGTERM)
t_repeated() {
	local f=$1 hash t0 ms
	hash=$(sed -n 's/^  prometheus: //p' "$WEB/web.yml")
	printf 'basic_auth_users:\n  prometheus: %s\nbasic_auth_users:\n  other: %s\n' \
		"$hash" "$hash" >"$f"
	refused "basic_auth_users twice" "$f" ":3: 'basic_auth_users' twice"
	printf 'basic_auth_users:\n  prometheus: %s\n  prometheus: %s\n' "$hash" "$hash" >"$f"
	refused "a user twice" "$f" ":3: basic_auth_users: 'prometheus' twice"
	{ head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; } >"$f"
	refused "nested 100,000 deep" "$f" ":1: want tls_server_config and basic_auth_users"
	{ printf 'basic_auth_users:\n  prometheus: '; head -c 100000 /dev/zero | tr '\0' '{'
	  head -c 100000 /dev/zero | tr '\0' '}'; } >"$f"
	refused "a hash nested 100,000 deep" "$f" ":2: basic_auth_users: prometheus: want a \
bcrypt hash (\$2y\$..., e.g. from htpasswd -nBC 10 prometheus)"
	printf 'basic_auth_users:\n  prometheus: %s\n' "${hash/\$10\$/\$31\$}" >"$f"
	refused "bcrypt cost 31" "$f" ":2: basic_auth_users: prometheus: bcrypt cost 31 is \
above 14: each check would take seconds of CPU (htpasswd -nBC 12 prometheus)"
	# SIGTERM at the start: there is no check to wait for (SIGKILL after 1 s)
	"$PIPESTAT" --listen 127.0.0.1:0 --web-config "$f" >/dev/null 2>&1 &
	sleep 1
	t0=$(date +%s%N)
	kill -TERM $! 2>/dev/null
	for _ in $(seq 10); do kill -0 $! 2>/dev/null && sleep 0.1; done
	kill -KILL $! 2>/dev/null
	wait $!
	ms=$(ms_since "$t0")
	expect "webconfig: SIGTERM 1 s into a start with cost 31: ended within 1 s (${ms} ms)" \
		"$((ms < 1000))" 1
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
	printf "tls_server_config:\n  cert_file: 'server.crt\n" >"$f"
	refused "malformed" "$f" ":3: found unexpected end of stream"
	printf 'tls_server_config:\n  cert_file: [server.crt]\n' >"$f"
	refused "a list for a file name" "$f" ":2: cert_file: want a file name"
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n' >"$f"
	refused "a key not implemented" "$f" \
		":4: tls_server_config: 'client_auth_type' is not supported (pipestat knows cert_file and key_file)"
	t_repeated "$f"
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
t_checks
t_wrong_then_right
t_warnings
t_credentials
summary
