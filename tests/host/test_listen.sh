#!/usr/bin/env bash
# pipestat --listen as a user and an attacker see it: which addresses it
# takes and binds, what it answers to other methods, and slow clients
# (slowloris) against its time limits and its 64-connection cap, with
# Debian's Prometheus server scraping through them.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh
. tests/host/prom_lib.sh
TRICKLERS=()
trap 'stop_tricklers; stop_pipestat 2>/dev/null; stop_prometheus; rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_listen.sh: needs root (BPF)"; exit 1
fi

# status URL [CURL ARGS...]: the HTTP status curl gets (000: no answer)
status() {
	local url=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$url"
}

# established PORT: connections to PORT the server holds open
established() { ss -Htn state established "sport = :$1" | wc -l; }

# trickle ID PORT [again]: a slowloris client: sends a request's first
# lines, then a header line every 2 s, never the blank line that ends it;
# "again": connects anew whenever the server drops it, until $TMP/stop.
# Each connection's end is a line in $TMP/trickle.ID.
trickle() {
	trap '' PIPE
	while [ ! -e "$TMP/stop" ]; do
		exec 3<>"/dev/tcp/127.0.0.1/$2" || { sleep 0.2; continue; }
		printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&3
		# read: the 2 s pause, and the server's end of stream
		while printf 'X-Slow: %s\r\n' "$SECONDS" >&3; do
			read -r -t 2 -u 3 _
			[ $? -gt 128 ] || break
		done 2>/dev/null
		exec 3>&-
		echo closed >>"$TMP/trickle.$1"
		[ "${3:-}" = again ] || break
	done
}

stop_tricklers() {
	touch "$TMP/stop"
	[ ${#TRICKLERS[@]} -gt 0 ] || return 0
	kill "${TRICKLERS[@]}" 2>/dev/null
	wait "${TRICKLERS[@]}" 2>/dev/null
	TRICKLERS=()
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

# a client that trickles cannot stretch its time: the request is whole
# within 5 s of connecting, or the connection is closed
t_deadline() {
	local i t0
	start_on 127.0.0.1 || { not_ok "deadline: start"; return; }
	t0=$(date +%s.%N)
	for i in $(seq 10); do trickle "d$i" "$PORT" & TRICKLERS+=($!); done
	sleep 3
	expect "deadline: 10 trickling clients connected at 3 s" "$(established "$PORT")" 10
	sleep 4
	expect "deadline: all closed by the server at 7 s, still trickling" \
		"$(established "$PORT")" 0
	expect "deadline: each client saw its end" "$(cat "$TMP"/trickle.d* 2>/dev/null | wc -l)" 10
	stop_tricklers
	expect "deadline: pipestat still serves" "$(status "http://127.0.0.1:$PORT/metrics")" 200
	stop_pipestat
}

# 64 trickling clients hold every slot, coming back as soon as they are
# dropped; a scraper is still answered within 2 s, every time
t_slowloris() {
	local i n t
	start_on 127.0.0.1 || { not_ok "slowloris: start"; return; }
	rm -f "$TMP/stop"
	for i in $(seq 64); do trickle "s$i" "$PORT" again & TRICKLERS+=($!); done
	for _ in $(seq 50); do [ "$(established "$PORT")" -ge 64 ] && break; sleep 0.1; done
	expect "slowloris: 64 connections held" "$(established "$PORT")" 64
	for i in 1 2 3; do
		t=$(curl -s -o /dev/null --max-time 2 -w '%{http_code} %{time_total}' \
			"http://127.0.0.1:$PORT/metrics")
		n=${t% *}
		if [ "$n" = 200 ]; then ok "slowloris: curl answered in ${t#* } s"
		else not_ok "slowloris: curl got '$n' within 2 s"; fi
		sleep 1
	done
	cat >"$TMP/prometheus.yml" <<-CONF
	global:
	  scrape_interval: 2s
	  scrape_timeout: 2s
	scrape_configs:
	  - job_name: pipetrace
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	CONF
	if start_prometheus "$TMP/prometheus.yml"; then
		work eagain-read 321 >/dev/null
		expect "slowloris: Prometheus scrapes the count" \
			"$(until_value 'sum(pipetrace_eagain_total{comm="pipework",side="read"})' 321)" 321
		sleep 12
		# (one may be between its drop and its return)
		n=$(established "$PORT")
		if [ "$n" -ge 60 ]; then ok "slowloris: $n connections still held"
		else not_ok "slowloris: $n connections held, want 64"; fi
		expect "slowloris: every scrape of 12 s within 2 s" \
			"$(query 'min_over_time(up{job="pipetrace"}[12s])')" 1
		n=$(query 'count_over_time(up{job="pipetrace"}[12s])')
		if [ "${n:-0}" -ge 5 ]; then ok "slowloris: $n scrapes in 12 s"
		else not_ok "slowloris: $n scrapes in 12 s, want 5 or more"; fi
	else
		not_ok "slowloris: Prometheus starts"
	fi
	stop_prometheus
	stop_tricklers
	stop_pipestat
	expect "slowloris: pipestat exit status" "$PS_RC" 0
}

t_refused
t_addresses
t_methods
t_deadline
t_slowloris
summary
