#!/usr/bin/env bash
# pipestat --listen as a user and an attacker see it: which addresses it
# takes and binds, what it answers to other methods.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh
. tests/host/prom_lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_listen.sh: needs root (BPF)"; exit 1
fi

# status URL [CURL ARGS...]: the HTTP status curl gets (000: no answer)
status() {
	local url=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$url"
}

# listening PORT: the local addresses listening on PORT, as ss prints them
listening() { ss -Hltn "sport = :$1" | awk '{print $4}' | sort | tr '\n' ' '; }

t_refused() {
	local msg rc
	msg=$("$PIPESTAT" --listen :9432 2>&1); rc=$?
	expect "listen: port alone refused: exit 2" "$rc" 2
	expect "listen: port alone: says what to give" "$msg" \
		"pipestat: --listen ':9432' has no address: give 127.0.0.1:9432 for this host only, or [::]:9432 for every interface (see pipestat --help)"
	msg=$("$PIPESTAT" --listen '127.0.0.1: 19441' 2>&1); rc=$?
	expect "listen: a space before the port refused" "$rc:$(wc -l <<<"$msg")" 2:1
	msg=$("$PIPESTAT" --listen 'no-such-host.invalid:9432' -d 1 2>&1); rc=$?
	expect "listen: a name that does not resolve: exit 1, one line" \
		"$rc:$(grep -c '^pipestat: --listen no-such-host.invalid:9432: ' <<<"$msg")" 1:1
}

# ADDR: pipestat --listen ADDR:0; the port it got in PORT, its line in LINE
start_on() {
	PORT= LINE=
	start_pipestat --listen "$1:0" -n pipework -i 0.2 || return 1
	LINE=$(grep '^pipestat: serving ' "$TMP/err")
	PORT=$(listen_port)
	[ -n "$PORT" ] && [ "$PORT" != 0 ]
}

t_addresses() {
	start_on 127.0.0.1 || { not_ok "listen: 127.0.0.1:0 starts"; return; }
	ok "listen: port 0 picks port $PORT and says so"
	expect "listen: 127.0.0.1: bound there only" "$(listening "$PORT")" "127.0.0.1:$PORT "
	expect "listen: 127.0.0.1: answers" "$(status "http://127.0.0.1:$PORT/metrics")" 200
	stop_pipestat

	start_on localhost || { not_ok "listen: localhost:0 starts"; return; }
	expect "listen: localhost resolves (IPv4 first)" "$LINE" \
		"pipestat: serving http://127.0.0.1:$PORT/metrics"
	stop_pipestat

	# every interface, asked for by name: IPv4 and IPv6 on one socket
	start_on '[::]' || { not_ok "listen: [::]:0 starts"; return; }
	expect "listen: [::] line" "$LINE" "pipestat: serving http://[::]:$PORT/metrics"
	expect "listen: [::] bound once" "$(listening "$PORT")" "*:$PORT "
	expect "listen: [::] answers IPv4" "$(status "http://127.0.0.1:$PORT/metrics")" 200
	expect "listen: [::] answers IPv6" "$(status "http://[::1]:$PORT/metrics")" 200
	stop_pipestat

	start_on '[::1]' || { not_ok "listen: [::1]:0 starts"; return; }
	expect "listen: [::1] answers IPv6" "$(status "http://[::1]:$PORT/metrics")" 200
	expect "listen: [::1] not IPv4" "$(status "http://127.0.0.1:$PORT/metrics")" 000
	stop_pipestat
	expect "listen: exit status" "$PS_RC" 0
}

t_methods() {
	start_on 127.0.0.1 || { not_ok "listen: 127.0.0.1:0 starts"; return; }
	curl -s -o /dev/null -D "$TMP/h" -X POST "http://127.0.0.1:$PORT/metrics"
	expect "listen: POST is 405" "$(head -1 "$TMP/h" | tr -d '\r')" "HTTP/1.1 405 Method Not Allowed"
	expect "listen: 405 says Allow" "$(grep -i '^allow:' "$TMP/h" | tr -d '\r')" "Allow: GET, HEAD"
	expect "listen: HEAD is 200" "$(status "http://127.0.0.1:$PORT/metrics" -I)" 200
	stop_pipestat
}

t_refused
t_addresses
t_methods
summary
