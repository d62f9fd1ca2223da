#!/usr/bin/env bash
# pipestat --graph and the exporter's pipeline page: known shapes (a
# chain, a fan-in into a FIFO, a fan-out by tee), the figures on the
# edges, the bottleneck; DOT read back with Graphviz's gvpr, SVG and PNG
# rendered; the page at / screenshotted in headless Chromium.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_graph.sh: needs root (BPF)"; exit 1
fi

# gv_nodes DOT: "comm|state|bottleneck" per node, sorted
gv_nodes() {
	gvpr 'N { printf("%s|%s|%s\n", $.comm, $.state, $.bottleneck); }' "$1" | sort
}

# gv_edges DOT: "tail head bytes fifo" per edge, sorted
gv_edges() {
	gvpr 'BEG_G { setDflt($G, "E", "fifo", ""); }
	      E { printf("%s %s %s %s\n", $.tail.comm, $.head.comm, $.bytes, $.fifo); }' "$1" |
		sed 's/ *$//' | sort
}

# expect_shape NAME DOT COMMS EDGES: the nodes' commands in one line, the
# edges as gv_edges gives them, each ended by ';'
expect_shape() {
	expect "$1: the processes" "$(gv_nodes "$2" | cut -d'|' -f1 | tr '\n' ' ')" "$3"
	expect "$1: the edges" "$(gv_edges "$2" | tr '\n' ';')" "$4"
}

# graph_of FILE -- COMMAND: pipestat --graph FILE -- COMMAND, its status
graph_of() {
	local file=$1
	shift 2
	"$PIPESTAT" --graph "$file" -- "$@" >"$TMP/out" 2>"$TMP/err"
}

# The chain: 200 MiB through gzip; gzip, compressing, is the bottleneck
# (head waits for room, wc for data).
t_chain() {
	graph_of "$TMP/g.dot" -- sh -c "head -c 200M /dev/zero | gzip -1 | wc -c >$TMP/wc"
	expect "chain: exit status" "$?" 0
	local nodes head_w gzip_w
	nodes=$(gv_nodes "$TMP/g.dot" | tr '\n' ';')
	# (gzip starved where others keep the CPUs busy: on a CPU or waiting
	# for one, it sets the pace either way)
	expect "chain: three processes, gzip the busy bottleneck, wc waits reading" \
		"$(sed 's/head|[a-z ]*|/head|-|/; s/gzip|starved|/gzip|busy|/' <<<"$nodes")" \
		"gzip|busy|true;head|-|false;wc|waits reading|false;"
	# head waits writing, or (two CPUs for head, gzip, wc and pipestat)
	# partly waits for a CPU: then at least it waits writing more than gzip
	read -r head_w gzip_w <<<"$(gvpr 'N [comm == "head" || comm == "gzip"] {
		printf("%s %s\n", $.comm, $.wait_write_pct); }' "$TMP/g.dot" | sort -r |
		awk '{ printf "%s ", $2 }')"
	if grep -q 'head|waits writing|' <<<"$nodes" ||
	   awk -v h="$head_w" -v g="$gzip_w" 'BEGIN { exit !(h > g) }'; then
		ok "chain: head waits writing (or more than gzip: $head_w% > $gzip_w%)"
	else
		not_ok "chain: head neither waits writing nor more than gzip ($nodes $head_w $gzip_w)"
	fi
	expect "chain: two edges, the bytes that moved" "$(gv_edges "$TMP/g.dot" | tr '\n' ';')" \
		"gzip wc $(cat "$TMP/wc");head gzip 209715200;"
	# stable: another run's DOT is the same but for its numbers (and
	# their units: gzip's 0.9 MB is MiB/s in a run under a second, KiB/s
	# in a longer one)
	graph_of "$TMP/g2.dot" -- sh -c "head -c 200M /dev/zero | gzip -1 | wc -c >/dev/null"
	# (files, not <(...): the guests have no /dev/fd)
	# (a process's CPU figures are known only if read before it exited,
	# and its command line too, else its tooltip is comm[pid]; busy or
	# starved is the machine's load, as above)
	for g in g g2; do
		sed -E 's/#d7b4f0/#f4a09c/; s/starved/busy/; s/[0-9.]+/N/g
			s/ CPU N% RUNQ N%//; s/(cpu|runq)_pct="-"/\1_pct=N/
			s/tooltip="[^"]*"/tooltip=T/
			s/N[KMGT]?i?B\/s/NB\/s/g; s/N[kKMG]? (writes|reads)\/s/N \1\/s/g' \
			"$TMP/$g.dot" >"$TMP/$g.masked"
	done
	expect "chain: the DOT stable, sorted" \
		"$(diff "$TMP/g.masked" "$TMP/g2.masked" && echo same)" same
	# the same model, Graphviz's layout: SVG and PNG
	graph_of "$TMP/g.svg" -- sh -c "head -c 20M /dev/zero | gzip -1 | wc -c >/dev/null"
	expect "chain svg: a node titled each process" \
		"$(sed -n 's|^<title>\([a-z]*\)\[[0-9]*\]</title>$|\1|p' "$TMP/g.svg" | sort | tr '\n' ' ')" \
		"gzip head wc "
	expect "chain svg: the edges" "$(grep -c '^<title>.*&#45;&gt;.*</title>$' "$TMP/g.svg")" 2
	graph_of "$TMP/g.png" -- sh -c "head -c 20M /dev/zero | gzip -1 | wc -c >/dev/null"
	expect "chain png: a PNG" "$(head -c 8 "$TMP/g.png" | od -An -tx1 | tr -d ' ')" 89504e470d0a1a0a
	expect "chain png: not empty" "$(($(stat -c %s "$TMP/g.png") > 2000))" 1
}

# Two writers into one FIFO (1 MiB and 2 MiB), its reader late, so the
# writers still hold the FIFO when its path is read: two edges into wc.
t_fan_in() {
	mkfifo "$TMP/fifo"
	graph_of "$TMP/in.dot" -- sh -c "head -c 1M /dev/zero >$TMP/fifo & head -c 2M /dev/zero >$TMP/fifo &
		sleep 0.3; sh -c 'sleep 1.5; exec wc -c' <$TMP/fifo >$TMP/wc; wait"
	expect "fan-in: exit status" "$?" 0
	expect "fan-in: wc read both" "$(cat "$TMP/wc")" 3145728
	# two edges into wc, each writer's bytes, the FIFO named
	expect_shape fan-in "$TMP/in.dot" "head head wc " \
		"head wc 1048576 $TMP/fifo;head wc 2097152 $TMP/fifo;"
	rm -f "$TMP/fifo"
}

# tee into a FIFO and a pipe: one edge into tee, two out of it.
t_fan_out() {
	local size
	size=$(seq 1000000 | wc -c)
	mkfifo "$TMP/fo"
	graph_of "$TMP/out.dot" -- sh -c "sh -c 'sleep 1.5; exec wc -c' <$TMP/fo >$TMP/wc_a &
		seq 1000000 | tee $TMP/fo | wc -c >$TMP/wc_b; wait"
	expect "fan-out: exit status" "$?" 0
	expect "fan-out: both readers read it all" "$(cat "$TMP/wc_a") $(cat "$TMP/wc_b")" "$size $size"
	# one edge into tee, two out, the FIFO named
	expect_shape fan-out "$TMP/out.dot" "seq tee wc wc " \
		"seq tee $size;tee wc $size;tee wc $size $TMP/fo;"
	rm -f "$TMP/fo"
}

# -i: each interval overwrites the file; a process that holds its pipe
# but moved nothing in an interval is drawn idle, not dropped.
t_idle() {
	local state=
	"$PIPESTAT" --graph "$TMP/i.dot" -i 0.5 -- sh -c "{ printf abc; sleep 3; } | cat >/dev/null" \
		>"$TMP/out" 2>"$TMP/err" &
	PS_PID=$!
	for _ in $(seq 50); do
		[ -s "$TMP/i.dot" ] && state=$(gv_nodes "$TMP/i.dot" | tr '\n' ';')
		case $state in *'sh|idle|'*) break ;; esac
		sleep 0.1
	done
	expect "-i: the writer that went quiet is drawn idle" "$state" \
		"cat|waits reading|false;sh|idle|false;"
	wait "$PS_PID"; PS_RC=$?; PS_PID=
	expect "-i: exit status" "$PS_RC" 0
}

# A slow chain for the exporter: sh writes a line every 0.1 s for about
# 12 s, through cat into cat.
TICKS="i=0; while [ \$i -lt 120 ]; do echo tick; sleep 0.1; i=\$((i + 1)); done |
	cat | cat >/dev/null"

# listen_port: the port of the "serving" line
listen_port() {
	sed -n 's|^pipestat: serving https\{0,1\}://.*:\([0-9]*\)/metrics$|\1|p' "$TMP/err"
}

# wait_svg URL [CURL_ARGS...]: until URL serves the picture (an interval
# has been drawn); the SVG on stdout
wait_svg() {
	for _ in $(seq 50); do
		curl -sf "$@" && return
		sleep 0.2
	done
}

# The page at / in headless Chromium: the picture fetched into it, its
# nodes on the screenshot in their fill colours; a Chromium that does not
# start fails the test.
t_page() {
	local url shot=${GRAPH_SHOT_DIR:-$(mktemp -d /tmp/pipetrace-graph-page.XXXXXX)}/page.png
	start_pipestat --listen 127.0.0.1:0 -i 0.5 -- sh -c "$TICKS" ||
		{ not_ok "page: attach"; return; }
	url=http://127.0.0.1:$(listen_port)
	expect "page: /graph.svg, a node per process" \
		"$(wait_svg "$url/graph.svg" | sed -n 's|^<title>\([a-z]*\)\[[0-9]*\]</title>$|\1|p' | sort | tr '\n' ' ')" \
		"cat cat sh "
	expect "page: / is HTML" "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$url/")" \
		"200 text/html; charset=utf-8"
	expect "page: the DOM holds the fetched picture's nodes" \
		"$(timeout 60 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 \
			--dump-dom "$url/" 2>/dev/null | sed -n 's|^<title>\([a-z]*\)\[[0-9]*\]</title>$|\1|p' |
			sort | tr '\n' ' ')" "cat cat sh "
	rm -f "$shot"
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1000,600 --virtual-time-budget=3000 --screenshot="$shot" "$url/" \
		>"$TMP/chromium" 2>&1
	expect "page: Chromium took a screenshot" "$([ -s "$shot" ] && echo yes || cat "$TMP/chromium")" yes
	# the size asked for, then the pixels of the nodes' fills: sh busy
	# (or starved, violet, on a machine whose CPUs others keep busy),
	# each cat waiting to read (a box of label size: thousands of pixels)
	/usr/bin/python3 tests/host/png_colours.py "$shot" f4a09c 9cc3ef d7b4f0 >"$TMP/colours" 2>&1
	expect "page: screenshot 1000x600" "$(sed -n 1p "$TMP/colours")" "1000 600"
	expect "page: a busy or starved node drawn" \
		"$(($(sed -n 2p "$TMP/colours") + $(sed -n 4p "$TMP/colours") > 2000))" 1
	expect "page: waiting nodes drawn" "$(($(sed -n 3p "$TMP/colours") > 4000))" 1
	echo "# the page's screenshot: $shot"
	wait "$PS_PID"; PS_RC=$?; PS_PID=
	expect "page: exit status" "$PS_RC" 0
}

# The page and the picture behind the web-config's basic authentication.
t_page_auth() {
	local url
	printf 'basic_auth_users:\n  viewer: %s\n' "$(htpasswd -nbBC 4 viewer secret | cut -d: -f2)" \
		>"$TMP/web.yml"
	start_pipestat --listen 127.0.0.1:0 --web-config "$TMP/web.yml" -i 0.5 -- sh -c "$TICKS" ||
		{ not_ok "auth: attach"; return; }
	url=http://127.0.0.1:$(listen_port)
	expect "auth: the picture with the password" \
		"$(wait_svg -u viewer:secret "$url/graph.svg" | grep -c '^<title>cat\[[0-9]*\]</title>$')" 2
	expect "auth: /graph.svg without: 401" "$(curl -s -o /dev/null -w '%{http_code}' "$url/graph.svg")" 401
	expect "auth: / without: 401" "$(curl -s -o /dev/null -w '%{http_code}' "$url/")" 401
	expect "auth: / wrong password: 401" \
		"$(curl -s -o /dev/null -w '%{http_code}' -u viewer:wrong "$url/")" 401
	stop_pipestat
	stop_pipestat
}

t_bad_input() {
	local msg rc
	msg=$("$PIPESTAT" --graph "$TMP/g.gif" 2>&1); rc=$?
	expect "--graph .gif: exit 2, one line" "$rc/$(wc -l <<<"$msg")" 2/1
	expect "--graph .gif: says which" \
		"$(grep -c "invalid --graph '$TMP/g.gif': want a file name ending .dot, .svg or .png" <<<"$msg")" 1
	msg=$("$PIPESTAT" --graph "$TMP/g.dot" --no-waits 2>&1); rc=$?
	expect "--graph --no-waits: exit 2" "$rc" 2
	ln -s /etc/passwd-graph-test "$TMP/link.svg"
	msg=$("$PIPESTAT" --graph "$TMP/link.svg" -d 0.2 2>&1); rc=$?
	expect "--graph onto a symlink: refused" "$rc" 1
	expect "--graph onto a symlink: nothing written through it" \
		"$([ -e /etc/passwd-graph-test ] && echo written || echo no)" no
}

t_chain
t_fan_in
t_fan_out
t_idle
t_page
t_page_auth
t_bad_input
summary
