# Helpers for the suites that start Debian's Prometheus server (sourced
# after lib.sh). A Prometheus that cannot start fails the suite.

PROMETHEUS=${PROMETHEUS:-prometheus}
PROM_PID=

# free_port: a loopback TCP port nobody listens on
free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 40000))
		ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
	return 1
}

# listen_port: the port of start_pipestat's "serving" line (--listen ...:0)
listen_port() {
	sed -n 's|^pipestat: serving https\{0,1\}://.*:\([0-9]*\)/metrics$|\1|p' "$TMP/err"
}

# query PROMQL: the value of the query's first sample ("" if none)
query() {
	curl -sf --data-urlencode "query=$1" "http://127.0.0.1:$PROM_PORT/api/v1/query" |
		jq -r '.data.result[0].value[1] // ""'
}

# until_value PROMQL WANT: polls until the query gives WANT (20 s at most);
# prints the last value seen
until_value() {
	local v=
	for _ in $(seq 100); do
		v=$(query "$1")
		[ "$v" = "$2" ] && break
		sleep 0.2
	done
	echo "$v"
}

# start_prometheus CONFIG: the server on a free loopback port (PROM_PORT),
# a fresh database, ready to answer; its log in $TMP/prometheus.log
start_prometheus() {
	command -v "$PROMETHEUS" >/dev/null || { echo "# no $PROMETHEUS" >&2; return 1; }
	PROM_PORT=$(free_port) || return 1
	rm -rf "$TMP/tsdb"
	"$PROMETHEUS" --config.file="$1" --storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMP/prometheus.log" 2>&1 &
	PROM_PID=$!
	for _ in $(seq 150); do
		curl -sf "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null && return 0
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.2
	done
	sed 's/^/# /' "$TMP/prometheus.log" | tail -20 >&2
	return 1
}

stop_prometheus() {
	[ -n "$PROM_PID" ] || return 0
	kill "$PROM_PID" 2>/dev/null
	wait "$PROM_PID" 2>/dev/null
	PROM_PID=
}
