#!/usr/bin/env bash
# pipestat --listen scraped by Debian's real Prometheus server, and
# --textfile: known-answer workloads, exact counters read back through
# Prometheus's HTTP API. A Prometheus that cannot start fails the suite.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_prometheus.sh: needs root (BPF)"; exit 1
fi
. tests/host/prom_lib.sh
trap 'stop_pipestat 2>/dev/null; stop_prometheus; rm -rf "$TMP"' EXIT

# pipestat on a port of its choosing, Prometheus scraping it every second
start_scraped() {
	cat >"$TMP/prometheus.yml" <<-CONF
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	rule_files: ['$PWD/packaging/pipetrace-alerts.yml']
	scrape_configs:
	  - job_name: pipetrace
	    static_configs:
	      - targets: ['127.0.0.1:$PS_PORT']
	CONF
	start_prometheus "$TMP/prometheus.yml"
}

# --hist: Prometheus histograms, cumulative across scrapes
t_scraped_hist() {
	local s='comm="pwhist",side="write"' w='comm="pwwait",side="read"'
	PIPEWORK_COMM=pwhist work stream 65536 3 "$TMP/fifo-hist" >/dev/null
	expect "hist: count" "$(until_value "pipetrace_call_size_bytes_count{$s}" 3)" 3
	PIPEWORK_COMM=pwhist work stream 65536 5 "$TMP/fifo-hist" >/dev/null
	expect "hist: count, a scrape later" "$(until_value "pipetrace_call_size_bytes_count{$s}" 8)" 8
	expect "hist: sum in bytes" "$(query "pipetrace_call_size_bytes_sum{$s}")" 524288
	expect "hist: 64 KiB writes not at or below 65535" \
		"$(query "pipetrace_call_size_bytes_bucket{$s,le=\"65535\"}")" 0
	expect "hist: at or below 131071" "$(query "pipetrace_call_size_bytes_bucket{$s,le=\"131071\"}")" 8
	expect "hist: +Inf" "$(query "pipetrace_call_size_bytes_bucket{$s,le=\"+Inf\"}")" 8
	# the reader of a writer that sleeps 100 ms per chunk: its sleeps, in seconds
	PIPEWORK_COMM=pwwait work slow-writer 1 100 >/dev/null
	expect "hist: the reader's sleeps" \
		"$(until_value "pipetrace_wait_duration_seconds_count{$w} >= bool 5" 1)" 1
	expect "hist: one count per sleep" \
		"$(query "pipetrace_wait_duration_seconds_count{$w} - pipetrace_waits_total{$w}")" 0
	# a sleep counts in wait_seconds_total while it lasts, in the histogram
	# when it ends: equal once a scrape after the workload's end is in
	expect "hist: sum in seconds" \
		"$(until_value "pipetrace_wait_duration_seconds_sum{$w} - pipetrace_wait_seconds_total{$w}" 0)" 0
	expect "hist: 100 ms sleeps between 67 and 134 ms" \
		"$(until_value "pipetrace_wait_duration_seconds_bucket{$w,le=\"0.134217727\"} - ignoring (le)
			pipetrace_wait_duration_seconds_bucket{$w,le=\"0.067108863\"} >= bool 5" 1)" 1
}

t_scraped() {
	local sel='comm="pipework",job="pipetrace"' v
	start_pipestat --listen 127.0.0.1:0 --hist all -i 0.2 ||
		{ not_ok "prometheus: pipestat --listen attach"; return; }
	PS_PORT=$(listen_port)
	if ! start_scraped; then
		not_ok "prometheus: the server starts ($PROMETHEUS)"
		stop_pipestat
		return
	fi
	ok "prometheus: the server starts"
	expect "prometheus: target up" "$(until_value 'up{job="pipetrace"}' 1)" 1
	work eagain-read 1000 >/dev/null
	work eagain-read 234 >/dev/null
	work eagain-write 700 >/dev/null
	PIPEWORK_COMM=$'pw\xff' work eagain-read 5 >/dev/null
	PIPEWORK_COMM='pw\xff' work eagain-read 7 >/dev/null
	# counters since the start, over three processes of one command
	expect "prometheus: eagain_read" \
		"$(until_value "sum(pipetrace_eagain_total{$sel,side=\"read\"})" 1234)" 1234
	expect "prometheus: read EAGAIN cause" \
		"$(query "pipetrace_eagain_total{$sel,side=\"read\",cause=\"nonblock\"}")" 1234
	expect "prometheus: reads" "$(until_value "pipetrace_calls_total{$sel,side=\"read\"}" 1234)" 1234
	expect "prometheus: eagain_write" \
		"$(until_value "sum(pipetrace_eagain_total{$sel,side=\"write\"})" 700)" 700
	# the writer's first write filled the fresh pipe: 16 pages, 64 KiB
	expect "prometheus: writes" "$(until_value "pipetrace_calls_total{$sel,side=\"write\"}" 701)" 701
	expect "prometheus: write_bytes" \
		"$(until_value "pipetrace_bytes_total{$sel,side=\"write\"}" 65536)" 65536
	expect "prometheus: pool_misses" "$(until_value "pipetrace_pool_misses_total{$sel}" 16)" 16
	expect "prometheus: pages allocated under the mutex" \
		"$(query "pipetrace_pages_allocated_total{$sel,mutex=\"held\"}")" 16
	expect "prometheus: tier label" \
		"$(query "count(pipetrace_calls_total{$sel,tier=\"syscall\"})")" 2
	# a byte of the name and the text that names it: two label sets
	expect "prometheus: comm with the byte 0xff" \
		"$(until_value 'pipetrace_calls_total{comm="pw\\xff",side="read"}' 5)" 5
	expect "prometheus: comm with the text \\xff" \
		"$(until_value 'pipetrace_calls_total{comm="pw\\\\xff",side="read"}' 7)" 7
	t_scraped_hist
	expect "prometheus: the scrapes have no error" \
		"$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/targets" |
			jq -r '.data.activeTargets[0] | .health + " [" + .lastError + "]"')" "up []"
	# the example alerting rules, evaluated on what pipestat serves
	local rules
	rules=$(grep -c '^ *- alert:' packaging/pipetrace-alerts.yml)
	for _ in $(seq 50); do
		v=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/rules" |
			jq -r '[.data.groups[].rules[] | select(.health == "ok")] | length')
		[ "$v" = "$rules" ] && break
		sleep 0.2
	done
	expect "prometheus: the $rules alerting rules evaluate without error" "$v" "$rules"
	expect "prometheus: untracked" "$(query 'pipetrace_untracked_events_total{job="pipetrace"}')" 0
	expect "prometheus: build info" \
		"$(query "pipetrace_build_info{version=\"$("$PIPESTAT" -V | cut -d' ' -f2)\",tier=\"syscall\"}")" 1
	# unknown on this tier: no series at all, never a 0
	expect "prometheus: EAGAIN reasons absent" "$(query 'count(pipetrace_eagain_reason_total)')" ""
	# what the server was asked for and said
	v=$(curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' -D "$TMP/headers" \
		"http://127.0.0.1:$PS_PORT/metrics" | tail -1)
	expect "prometheus: OpenMetrics ends in # EOF" "$v" "# EOF"
	expect "prometheus: OpenMetrics content type" \
		"$(grep -ic '^content-type: application/openmetrics-text; version=1.0.0' "$TMP/headers")" 1
	expect "prometheus: only /metrics and the pipeline (/, /graph.svg)" \
		"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PS_PORT/other")" 404
	stop_prometheus
	stop_pipestat
	expect "prometheus: pipestat exit status" "$PS_RC" 0
}

# --textfile: the same text, replaced whole each interval; -k pid capped
t_textfile() {
	local f=$TMP/pipetrace.prom out1 out2 pid1 pid2
	start_pipestat --textfile "$f" -k pid --max-series 1 -n pipework -i 0.2 ||
		{ not_ok "textfile: attach"; return; }
	out1=$(work eagain-read 77); pid1=$(pid_of "$out1")
	out2=$(work eagain-read 55); pid2=$(pid_of "$out2")
	for _ in $(seq 50); do
		grep -q '^pipetrace_eagain_total{.*overflow="true",side="read",cause="nonblock"} 55$' \
			"$f" 2>/dev/null && break
		sleep 0.2
	done
	stop_pipestat
	expect "textfile: first process its own series" \
		"$(grep -c "^pipetrace_eagain_total{tier=\"syscall\",pid=\"$pid1\",comm=\"pipework\",side=\"read\",cause=\"nonblock\"} 77\$" "$f")" 1
	expect "textfile: past --max-series 1, the overflow series" \
		"$(grep -c '^pipetrace_eagain_total{tier="syscall",overflow="true",side="read",cause="nonblock"} 55$' "$f")" 1
	expect "textfile: no series for the second pid" "$(grep -c "pid=\"$pid2\"" "$f")" 0
	expect "textfile: text format, no # EOF" "$(grep -c '^# EOF' "$f")" 0
	expect "textfile: no temporary file left" "$(ls -A "$TMP" | grep -c '^\.pipetrace\.prom\.')" 0
	expect "textfile: nothing on stdout" "$(wc -c <"$TMP/out")" 0
	# what node_exporter's textfile collector makes of it
	local port v
	port=$(free_port)
	mkdir "$TMP/tf" && cp "$f" "$TMP/tf/"
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$TMP/tf" --web.listen-address="127.0.0.1:$port" \
		>"$TMP/ne.log" 2>&1 &
	local ne=$!
	for _ in $(seq 50); do
		v=$(curl -sf "http://127.0.0.1:$port/metrics") && break
		sleep 0.2
	done
	kill "$ne"; wait "$ne" 2>/dev/null
	expect "node_exporter: reads the file without error" \
		"$(sed -n 's/^node_textfile_scrape_error //p' <<<"$v")" 0
	# it sorts the labels and gives every series of a family the same names
	# (an empty value is no label to Prometheus)
	expect "node_exporter: the counter" "$(grep -c \
		"^pipetrace_eagain_total{cause=\"nonblock\",comm=\"pipework\",overflow=\"\",pid=\"$pid1\",side=\"read\",tier=\"syscall\"} 77\$" \
		<<<"$v")" 1
	expect "node_exporter: the overflow series" "$(grep -c \
		'^pipetrace_eagain_total{cause="nonblock",comm="",overflow="true",pid="",side="read",tier="syscall"} 55$' <<<"$v")" 1
}

# an operator's set-up: not root, only CAP_BPF and CAP_PERFMON
t_capabilities() {
	local port v
	port=$(free_port)
	chmod 711 "$TMP"
	install -m 755 "$PIPESTAT" "$TMP/pipestat-nobody"
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups %s %s "$@"\n' \
		'--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon' "$TMP/pipestat-nobody" \
		>"$TMP/pipestat-caps"
	chmod 755 "$TMP/pipestat-caps"
	PIPESTAT=$TMP/pipestat-caps start_pipestat --listen "127.0.0.1:$port" -n pipework -i 0.2 ||
		{ not_ok "capabilities: attach as nobody with CAP_BPF, CAP_PERFMON"; return; }
	ok "capabilities: attached as nobody with CAP_BPF, CAP_PERFMON"
	work eagain-read 42 >/dev/null
	for _ in $(seq 50); do
		v=$(curl -sf "http://127.0.0.1:$port/metrics" |
			sed -n 's/^pipetrace_eagain_total{tier="syscall",comm="pipework",side="read",cause="nonblock"} //p')
		[ "$v" = 42 ] && break
		sleep 0.2
	done
	expect "capabilities: counted" "$v" 42
	expect "capabilities: runs as nobody" "$(ps -o user= -p "$PS_PID" | tr -d ' ')" nobody
	stop_pipestat
}

t_listen_errors() {
	local rc msg port
	port=$(free_port)
	# someone else on the port: one line, exit 1
	"$PIPESTAT" --listen "127.0.0.1:$port" -i 0.2 >/dev/null 2>&1 &
	local first=$!
	for _ in $(seq 50); do ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
	msg=$("$PIPESTAT" --listen "127.0.0.1:$port" 2>&1 >/dev/null); rc=$?
	kill -INT "$first"; wait "$first"
	expect "listen: port in use: exit 1" "$rc" 1
	expect "listen: port in use: says so" "$(grep -c "^pipestat: --listen 127.0.0.1:$port: " <<<"$msg")" 1
}

# fetch PORT FILE: both formats of /metrics into FILE.txt and FILE.om
fetch() {
	curl -sf -o "$2.txt" "http://127.0.0.1:$1/metrics" &&
		curl -sf -o "$2.om" -H 'Accept: application/openmetrics-text; version=1.0.0' \
			"http://127.0.0.1:$1/metrics"
}

# check_formats NAME FILE: the text format by Debian's promtool (parse and
# lint), OpenMetrics by the Python client's strict parser
check_formats() {
	local msg
	msg=$(promtool check metrics <"$2.txt" 2>&1)
	expect "$1: promtool check metrics (text 0.0.4)" "$?${msg:+: $msg}" 0
	msg=$(/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
n = sum(len(f.samples) for f in parse(open(sys.argv[1]).read()))
print("ok" if n else "no samples")' "$2.om" 2>&1 | tail -1)
	expect "$1: OpenMetrics parses" "$msg" ok
}

# every option on, every key: what the exposition linters say
t_lint() {
	local key port
	for key in comm pid pipe cgroup; do
		start_pipestat --listen 127.0.0.1:0 --waits --hist all -k "$key" -i 0.2 ||
			{ not_ok "lint -k $key: attach"; continue; }
		port=$(listen_port)
		work stream 65536 4 >/dev/null
		work eagain-read 3 >/dev/null
		PIPEWORK_COMM=$'pw\xff\\"\n' work eagain-read 3 >/dev/null
		sleep 0.5
		if fetch "$port" "$TMP/lint"; then
			check_formats "lint -k $key" "$TMP/lint"
		else
			not_ok "lint -k $key: fetch /metrics"
		fi
		stop_pipestat
	done
}

# two FIFOs with one inode number on two file systems: two label sets
t_pipes() {
	local a=$TMP/fs1 b=$TMP/fs2 f=$TMP/pipes.prom ia ib da db
	mkdir "$a" "$b"
	mount -t tmpfs none "$a" && mount -t tmpfs none "$b" ||
		{ not_ok "pipes: mount two tmpfs"; return; }
	mkfifo "$a/fifo" "$b/fifo"
	ia=$(stat -c %i "$a/fifo"); ib=$(stat -c %i "$b/fifo")
	da=$(stat -c %Hd:%Ld "$a/fifo"); db=$(stat -c %Hd:%Ld "$b/fifo")
	expect "pipes: one inode number" "$ia" "$ib"
	start_pipestat --textfile "$f" -k pipe -n pipework -i 0.2 ||
		{ not_ok "pipes: attach"; umount "$a" "$b"; return; }
	work stream 65536 3 "$a/fifo" >/dev/null
	work stream 65536 5 "$b/fifo" >/dev/null
	sleep 0.5
	stop_pipestat
	expect "pipes: the first FIFO's writes" "$(sed -n \
		"s/^pipetrace_calls_total{tier=\"syscall\",pipe_dev=\"$da\",pipe_ino=\"$ia\",side=\"write\"} //p" "$f")" 3
	expect "pipes: the second FIFO's writes" "$(sed -n \
		"s/^pipetrace_calls_total{tier=\"syscall\",pipe_dev=\"$db\",pipe_ino=\"$ib\",side=\"write\"} //p" "$f")" 5
	# the CSV names them apart too: pipe_dev beside pipe_ino
	start_pipestat --csv -k pipe -n pipework || { not_ok "pipes: csv attach"; umount "$a" "$b"; return; }
	work stream 65536 3 "$a/fifo" >/dev/null
	work stream 65536 5 "$b/fifo" >/dev/null
	stop_pipestat
	expect "pipes: CSV, the first FIFO's writes" "$(csv_get "$TMP/out" writes pipe_dev "$da")" 3
	expect "pipes: CSV, the second FIFO's writes" "$(csv_get "$TMP/out" writes pipe_dev "$db")" 5
	expect "pipes: CSV, one pipe_ino" "$(csv_get "$TMP/out" writes pipe_ino "$ia")" 8
	umount "$a" "$b"
}

# metric PID FAMILY LABELS: its value in $TMP/ttl.prom (a /metrics
# fetched), "" if it has no such series
metric() {
	sed -n "s/^pipetrace_$2{tier=\"syscall\",pid=\"$1\",comm=\"pipework\",$3} //p" \
		"$TMP/ttl.prom"
}

# --series-ttl 2, scraped by Prometheus: a process that ran and exited
# has its series on /metrics, gone 2 s after its last events (Prometheus
# marks them stale), while a process reading a block every 0.5 s keeps
# its series, its bytes growing to exactly what was written
t_series_ttl() {
	local fifo=$TMP/fifo-live live once out t0= t1= v last=0 seen=0 missing=0 down=0 w=1
	local rd='side="read"'
	start_pipestat --listen 127.0.0.1:0 -k pid -n pipework --series-ttl 2 -i 0.2 ||
		{ not_ok "series-ttl: attach"; return; }
	PS_PORT=$(listen_port)
	start_scraped || { not_ok "series-ttl: the server starts"; stop_pipestat; return; }
	expect "series-ttl: target up" "$(until_value 'up{job="pipetrace"}' 1)" 1
	mkfifo "$fifo"
	"$PIPEWORK" get 4096 <"$fifo" 2>"$TMP/live" &
	live=$!
	exec 8>"$fifo"
	head -c 4096 /dev/zero >&8
	for _ in $(seq 50); do
		curl -sf -o "$TMP/ttl.prom" "http://127.0.0.1:$PS_PORT/metrics"
		[ -n "$(metric "$live" bytes_total "$rd")" ] && break
		sleep 0.1
	done
	out=$(work eagain-read 9); once=$(pid_of "$out")
	# every 0.1 s a /metrics, every 0.5 s a block for the reader, 8 s in all
	for i in $(seq 80); do
		curl -sf -o "$TMP/ttl.prom" "http://127.0.0.1:$PS_PORT/metrics" || : >"$TMP/ttl.prom"
		if [ -n "$(metric "$once" eagain_total "$rd,cause=\"nonblock\"")" ]; then
			[ -n "$t0" ] || t0=$(date +%s.%N)
			[ -z "$t1" ] || t1=back
		elif [ -n "$t0" ] && [ -z "$t1" ]; then
			t1=$(date +%s.%N)
		fi
		v=$(metric "$live" bytes_total "$rd")
		if [ -z "$v" ]; then
			missing=$((missing + 1))
		else
			[ "$v" -lt "$last" ] && down=$((down + 1))
			[ "$v" -gt "$last" ] && seen=$((seen + 1))
			last=$v
		fi
		if [ $((i % 5)) = 0 ]; then
			head -c 4096 /dev/zero >&8
			w=$((w + 1))
		fi
		sleep 0.1
	done
	expect "series-ttl: the exited process's series shown" "${t0:+yes}" yes
	expect "series-ttl: then gone for good" "$([[ $t1 =~ ^[0-9.]+$ ]] && echo yes)" yes
	expect "series-ttl: gone 1 to 5 s after first shown (--series-ttl 2)" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { d = b - a; print (d >= 1 && d < 5) ? "yes" : d }')" yes
	expect "series-ttl: the active reader's series on every /metrics" "$missing" 0
	expect "series-ttl: its bytes never went down" "$down" 0
	expect "series-ttl: its bytes grew, scrape after scrape" "$([ "$seen" -ge $((w / 2)) ] && echo yes)" yes
	for _ in $(seq 50); do
		curl -sf -o "$TMP/ttl.prom" "http://127.0.0.1:$PS_PORT/metrics"
		[ "$(metric "$live" bytes_total "$rd")" = $((w * 4096)) ] && break
		sleep 0.1
	done
	expect "series-ttl: the reader's bytes, all $w blocks" "$(metric "$live" bytes_total "$rd")" $((w * 4096))
	# what Prometheus made of it
	local lsel="pid=\"$live\",$rd" osel="pid=\"$once\",$rd,cause=\"nonblock\""
	expect "series-ttl: prometheus has the reader's bytes" \
		"$(until_value "pipetrace_bytes_total{$lsel}" $((w * 4096)))" $((w * 4096))
	expect "series-ttl: prometheus saw no counter reset" \
		"$(query "resets(pipetrace_bytes_total{$lsel}[5m])")" 0
	expect "series-ttl: prometheus scraped the exited process's count" \
		"$(query "max_over_time(pipetrace_eagain_total{$osel}[5m])")" 9
	expect "series-ttl: prometheus marked it stale" "$(query "pipetrace_eagain_total{$osel}")" ""
	expect "series-ttl: target still up" "$(query 'up{job="pipetrace"}')" 1
	expect "series-ttl: the scrapes have no error" \
		"$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/targets" |
			jq -r '.data.activeTargets[0] | .health + " [" + .lastError + "]"')" "up []"
	exec 8>&-
	wait "$live"
	expect "series-ttl: the reader read what was written" "$(cat "$TMP/live")" \
		"pid=$live get=$((w * 4096))"
	stop_prometheus
	stop_pipestat
}

t_scraped
t_series_ttl
t_lint
t_pipes
t_textfile
t_capabilities
t_listen_errors
summary
