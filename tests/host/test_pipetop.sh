#!/usr/bin/env bash
# pipetop host tests: a real terminal through tmux. A known pipeline runs
# (dd writing 64 KiB blocks into cat); pipetop must show its pipe with
# dd -> cat and the rates, react to its keys, and leave the terminal as
# it found it.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

PIPETOP=${PIPETOP:-./pipetop}
SOCK=$TMP/tmux.sock
COLS=140
ROWS=30
DD=
CAT=
TOP=

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_pipetop.sh: needs root (BPF)"; exit 1
fi
command -v tmux >/dev/null || { echo "tests/host/test_pipetop.sh: needs tmux"; exit 1; }

TM() { tmux -S "$SOCK" "$@"; }

stop_pipeline() {
	[ -n "$DD" ] && kill "$DD" 2>/dev/null
	[ -n "$CAT" ] && kill "$CAT" 2>/dev/null
	wait 2>/dev/null
	DD= CAT=
}
trap 'TM kill-server 2>/dev/null; stop_pipeline; rm -rf "$TMP"' EXIT

# dd | cat, each with a known pid (the shells exec them)
start_pipeline() {
	rm -f "$TMP/dd.pid" "$TMP/cat.pid"
	bash -c 'echo $$ >"$1/dd.pid"; exec dd if=/dev/zero bs=64k status=none' _ "$TMP" |
		bash -c 'echo $$ >"$1/cat.pid"; exec cat >/dev/null' _ "$TMP" &
	for _ in $(seq 100); do
		[ -s "$TMP/dd.pid" ] && [ -s "$TMP/cat.pid" ] && break
		sleep 0.05
	done
	DD=$(cat "$TMP/dd.pid") CAT=$(cat "$TMP/cat.pid")
}

screen() { TM capture-pane -p -t pt >"$TMP/screen" 2>/dev/null; }

# wait_screen ERE [SECONDS]: until a line of the pane matches
wait_screen() {
	for _ in $(seq $((${2:-10} * 10))); do
		screen
		grep -qE "$1" "$TMP/screen" && return 0
		sleep 0.1
	done
	echo "# screen never matched /$1/:" >&2
	sed 's/^/#   /' "$TMP/screen" >&2
	return 1
}

# wait_gone ERE: until no line matches
wait_gone() {
	for _ in $(seq 100); do
		screen
		grep -qE "$1" "$TMP/screen" || return 0
		sleep 0.1
	done
	return 1
}

# start_top ARGS...: pipetop in a fresh COLSxROWS tmux session; the pane
# records the tty mode before and after, and pipetop's exit status.
start_top() {
	TM kill-server 2>/dev/null
	rm -f "$TMP/rc" "$TMP/stty.before" "$TMP/stty.after"
	# the old server may still be going away: retry until a session starts
	for _ in $(seq 20); do
		TM new-session -d -x $COLS -y $ROWS -s pt \
			"stty -g >$TMP/stty.before; $PIPETOP $*; echo \$? >$TMP/rc; stty -g >$TMP/stty.after; exec sleep 600" 2>/dev/null && break
		sleep 0.1
	done
	TOP=
	for _ in $(seq 100); do
		pane=$(TM display -p -t pt '#{pane_pid}' 2>/dev/null) && [ -n "$pane" ] &&
			TOP=$(pgrep -P "$pane" -x pipetop) && break
		sleep 0.05
	done
	wait_screen '^pipes: ' 20
}

# the BPF programs, maps and links pipetop holds open
held() {
	grep -hE '^(prog_id|map_id|link_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		sort -u | tr -d '\t ' >"$TMP/held"
	wc -l <"$TMP/held"
}

# how many of them the kernel still has (freed after an RCU grace period)
still_held() {
	local n
	for _ in $(seq 50); do
		n=0
		while IFS=: read -r what id; do
			case $what in
			prog_id) bpftool prog show id "$id" >/dev/null 2>&1 && n=$((n + 1)) ;;
			map_id) bpftool map show id "$id" >/dev/null 2>&1 && n=$((n + 1)) ;;
			link_id) bpftool link show id "$id" >/dev/null 2>&1 && n=$((n + 1)) ;;
			esac
		done <"$TMP/held"
		[ "$n" = 0 ] && break
		sleep 0.2
	done
	echo "$n"
}

# wait_exit: pipetop's exit status once the pane has it
wait_exit() {
	for _ in $(seq 100); do
		[ -s "$TMP/stty.after" ] && break
		sleep 0.1
	done
	cat "$TMP/rc" 2>/dev/null || echo none
}

# restored WHAT: the terminal is as pipetop found it
restored() {
	expect "$1: exit status" "$(wait_exit)" 0
	expect "$1: tty mode restored" "$(cat "$TMP/stty.after" 2>/dev/null)" "$(cat "$TMP/stty.before")"
	expect "$1: alternate screen left" "$(TM display -p -t pt '#{alternate_on}')" 0
	expect "$1: cursor visible" "$(TM display -p -t pt '#{cursor_flag}')" 1
	expect "$1: BPF programs, maps and links released" "$(still_held)" 0
}

# field N of the line matching ERE in the last screen
field() { awk -v n="$2" -v re="$1" '$0 ~ re { print $n; exit }' "$TMP/screen"; }

# positive NUMBER[K|M|G...]: a rate above zero as the table prints it
positive() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?[KMGTPE]?$ ]] &&
		awk -v v="${1%[KMGTPE]}" 'BEGIN { exit !(v > 0) }'
}

expect_positive() {
	if positive "$2"; then ok "$1 ($2)"; else not_ok "$1: got '$2', want > 0"; fi
}

# number VALUE: a cell as a plain number (K = 1000, Ki = 1024, ...)
number() {
	awk -v s="$1" 'BEGIN { b = 1000; m = 1
		if (s ~ /i$/) { b = 1024; s = substr(s, 1, length(s) - 1) }
		p = index("KMGTPE", substr(s, length(s)))
		if (p) { s = substr(s, 1, length(s) - 1); m = b ^ p }
		printf "%.0f\n", s * m }'
}

# shown_near CELL VALUE: 1 if VALUE rounds to CELL (1.4Gi covers 1.35 to
# 1.45 GiB), give or take 2% for the rates' different samples
shown_near() {
	local unit half
	unit=$(number "$(echo "$1" | sed 's/^[0-9.]*/1/')")
	case $1 in *.*) half=0.05 ;; *) half=0.5 ;; esac
	awk -v c="$(number "$1")" -v u="$unit" -v h="$half" -v v="$2" \
		'BEGIN { print (v >= (c - h * u) * 0.98 && v <= (c + h * u) * 1.02) }'
}

t_pipeline() {
	local row knob want
	start_pipeline
	start_top -i 0.5 -p "$DD" -p "$CAT" || { not_ok "pipeline: pipetop did not start"; return; }
	expect "pipeline: holds BPF objects" "$([ "$(held "$TOP")" -gt 0 ] && echo yes)" yes
	row="dd\\[$DD\\] -> cat\\[$CAT\\]"
	if wait_screen "$row" 10; then ok "pipeline: dd[$DD] -> cat[$CAT] row"; else not_ok "pipeline: no dd -> cat row"; fi
	# PIPE, writer, ->, reader, RD/s, WR/s, B/s, WAIT_R%, WAIT_W%, AVG_WR, ...
	expect_positive "pipeline: reads/s" "$(field "$row" 5)"
	expect_positive "pipeline: writes/s" "$(field "$row" 6)"
	# bytes in IEC units, as pipestat's: dd's 64 KiB writes a second,
	# within 2% beyond the cell's rounding (10^6 bytes would be 4.9% off)
	expect "pipeline: B/s, Ki/Mi/Gi, writes/s x 64 KiB ($(field "$row" 7), $(field "$row" 6) w/s)" \
		"$(shown_near "$(field "$row" 7)" "$(( $(number "$(field "$row" 6)") * 65536 ))")" 1
	expect "pipeline: average write (dd bs=64k)" "$(field "$row" 10)" 64Ki
	expect "pipeline: pipe inode" "$(field "$row" 1)" \
		"$(stat -L -c %i /proc/"$DD"/fd/1)"
	expect "pipeline: pipes and processes" "$(grep -oE 'pipes: [0-9]+  processes: [0-9]+' "$TMP/screen")" \
		"pipes: 1  processes: 2"
	expect "pipeline: header kernel" "$(grep -c "kernel: $(uname -r) " "$TMP/screen")" 1
	expect "pipeline: header interval" "$(grep -c 'interval: 0.5s' "$TMP/screen")" 1
	expect "pipeline: header tier" "$(grep -cE 'tier: (tracepoint|function|syscall) ' "$TMP/screen")" 1
	# the knobs' line only on a kernel with knobs
	if ls /proc/sys/fs/pipe-prealloc-max /proc/sys/fs/pipe-prealloc-keep /proc/sys/fs/pipe-read-batch >/dev/null 2>&1; then
		for knob in pipe-prealloc-max pipe-prealloc-keep pipe-read-batch; do
			want=$(cat /proc/sys/fs/$knob 2>/dev/null || echo -)
			expect "pipeline: knob $knob" "$(grep -oE "fs\\.$knob [-0-9]+" "$TMP/screen")" "fs.$knob $want"
		done
	else
		expect "pipeline: no knobs line on a kernel without knobs" "$(grep -c 'knobs:\|fs\.pipe-' "$TMP/screen")" 0
	fi
	expect "pipeline: own cost shown" "$(grep -cE 'self: [0-9]+\.[0-9]% cpu' "$TMP/screen")" 1
	expect_positive "pipeline: total ops/s" "$(grep -oE 'ops/s [^ ]+' "$TMP/screen" | cut -d' ' -f2)"
	expect "pipeline: total B/s, in IEC units" \
		"$(grep -E '^all: ' "$TMP/screen" | grep -oE ' B/s [^ ]+' | grep -cE ' B/s [0-9.]+[KMG]i$')" 1

	# s, Right and Left move the sort column
	expect "sort: starts at B/s" "$(grep -oE 'sort: [^ ]+' "$TMP/screen")" "sort: B/s"
	cp "$TMP/screen" "$TMP/before"
	TM send-keys -t pt s
	if wait_screen 'sort: readers waiting %'; then ok "sort: s moves to readers waiting %"; else not_ok "sort: s"; fi
	expect "sort: the screen changed" "$(cmp -s "$TMP/before" "$TMP/screen" && echo same || echo changed)" changed
	TM send-keys -t pt Right
	if wait_screen 'sort: writers waiting %'; then ok "sort: Right"; else not_ok "sort: Right"; fi
	TM send-keys -t pt Left Left
	if wait_screen 'sort: B/s'; then ok "sort: Left twice"; else not_ok "sort: Left"; fi

	# p: one row per process
	TM send-keys -t pt p
	if wait_screen 'view: per process'; then ok "per process: p toggles"; else not_ok "per process: p"; fi
	wait_screen "^cat\\[$CAT\\] " >/dev/null
	expect "per process: heading" "$(grep -c '^PROCESS ' "$TMP/screen")" 1
	# its arguments beside its name: three words before the values
	expect "per process: dd with its arguments" \
		"$(grep -c "^dd\\[$DD\\] if=/dev/zero bs=64k status=none " "$TMP/screen")" 1
	expect_positive "per process: dd writes/s" "$(field "^dd\\[$DD\\] " 6)"
	expect "per process: dd reads/s" "$(field "^dd\\[$DD\\] " 5)" 0
	expect_positive "per process: cat reads/s" "$(field "^cat\\[$CAT\\] " 2)"
	expect "per process: cat writes/s (to /dev/null, no pipe)" "$(field "^cat\\[$CAT\\] " 3)" 0
	expect "per process: no ends column" "$(grep -c ' -> ' "$TMP/screen")" 0

	# f: filter by command name
	TM send-keys -t pt f
	wait_screen 'filter \(command name' >/dev/null
	TM send-keys -t pt c a t Enter
	if wait_screen 'filter: cat'; then ok "filter: f cat Enter"; else not_ok "filter: f"; fi
	wait_screen "^cat\\[$CAT\\] " >/dev/null
	expect "filter: dd row gone" "$(grep -c "^dd\\[" "$TMP/screen")" 0
	expect "filter: cat row kept" "$(grep -c "^cat\\[$CAT\\] " "$TMP/screen")" 1
	TM send-keys -t pt f BSpace BSpace BSpace Enter
	if wait_screen 'filter: -'; then ok "filter: cleared"; else not_ok "filter: clear"; fi
	TM send-keys -t pt p
	if wait_screen 'view: per pipe'; then ok "per pipe: p toggles back"; else not_ok "per pipe: p back"; fi

	# space pauses: the screen stays as it is over several intervals
	TM send-keys -t pt Space
	if wait_screen '\[PAUSED\]'; then ok "pause: space"; else not_ok "pause: space"; fi
	sleep 0.3; screen; cp "$TMP/screen" "$TMP/paused"
	sleep 1.6; screen
	expect "pause: screen frozen over 3 intervals" "$(cmp -s "$TMP/paused" "$TMP/screen" && echo same || echo changed)" same
	TM send-keys -t pt Space
	if wait_gone '\[PAUSED\]'; then ok "pause: space resumes"; else not_ok "pause: resume"; fi

	# + and - change the interval
	TM send-keys -t pt +
	if wait_screen 'interval: 1s'; then ok "interval: + to 1s"; else not_ok "interval: +"; fi
	TM send-keys -t pt - -
	if wait_screen 'interval: 0.2s'; then ok "interval: - - to 0.2s"; else not_ok "interval: -"; fi

	# h: help overlay, any key closes it
	TM send-keys -t pt h
	if wait_screen 'pipetop keys'; then ok "help: h"; else not_ok "help: h"; fi
	expect "help: the units, as pipestat's" "$(grep -cE ' Ki = 1024 bytes, K = 1000( |$)' "$TMP/screen")" 1
	TM send-keys -t pt x
	if wait_gone 'pipetop keys'; then ok "help: any key closes"; else not_ok "help: close"; fi

	# resize: small terminals get a message, the table comes back
	TM resize-window -t pt -x 30 -y 5
	if wait_screen 'too small'; then ok "resize: small terminal says so"; else not_ok "resize: small"; fi
	TM resize-window -t pt -x 100 -y 20
	if wait_screen "$row"; then ok "resize: table back at 100x20"; else not_ok "resize: back"; fi
	expect "resize: rows fit the width" "$(awk 'length > 100' "$TMP/screen" | wc -l)" 0
	TM resize-window -t pt -x 55 -y 10
	if wait_screen "^dd\\[$DD\\] -> cat\\[$CAT\\] "; then ok "resize: 55 columns, ends kept, pipe column dropped"; else not_ok "resize: 55 columns"; fi

	TM send-keys -t pt q
	restored "q"
	stop_pipeline
}

t_signals() {
	start_top -i 0.2 || { not_ok "SIGTERM: pipetop did not start"; return; }
	held "$TOP" >/dev/null
	kill -TERM "$TOP"
	restored "SIGTERM"
	start_top -i 0.2 || { not_ok "Ctrl-C: pipetop did not start"; return; }
	held "$TOP" >/dev/null
	TM send-keys -t pt C-c
	restored "Ctrl-C"
}

# CPU ticks (user + system) pid has used since it started
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }

# idle_then_term WHAT: the running pipetop has no busy loop (under 0.5 s
# of CPU in 3 s, counted from its attach: loading the programs, which the
# verifier's time makes dearer on a loaded machine, is not a loop) and
# SIGTERM ends it
idle_then_term() {
	local ticks t0
	held "$TOP" >/dev/null
	t0=$(cpu_ticks "$TOP")
	sleep 3
	ticks=$(($(cpu_ticks "$TOP") - t0))
	expect "$1: under 0.5 s of CPU in 3 s" "$([ "$ticks" -lt $(($(getconf CLK_TCK) / 2)) ] && echo yes || echo "no: $ticks ticks")" yes
	kill -TERM "$TOP"
	restored "$1"
	kill -KILL "$TOP" 2>/dev/null
}

# no keyboard (stdin not a terminal): no busy loop; SIGTERM still ends it
t_no_keyboard() {
	start_top -i 0.2 "</dev/null" || { not_ok "no keyboard: pipetop did not start"; return; }
	idle_then_term "no keyboard"
}

# issue 13.5: keys from a pipe are not keys: no busy loop, signals end it
t_yes_stdin() {
	PIPETOP="yes | $PIPETOP" start_top -i 0.2 || { not_ok "yes | pipetop: did not start"; return; }
	idle_then_term "yes | pipetop"
}

# issue 13.6: a stopped terminal (Ctrl-S) does not keep a signal out
t_stopped_terminal() {
	local gone=no
	start_top -i 0.2 || { not_ok "Ctrl-S: pipetop did not start"; return; }
	TM send-keys -t pt C-s
	sleep 1.5	# several refreshes: the next draw blocks
	kill -TERM "$TOP"
	for _ in $(seq 20); do
		kill -0 "$TOP" 2>/dev/null || { gone=yes; break; }
		sleep 0.05
	done
	expect "Ctrl-S: SIGTERM ends it within a second" "$gone" yes
	kill -KILL "$TOP" 2>/dev/null
	TM send-keys -t pt C-q
	expect "Ctrl-S: exit status" "$(wait_exit)" 0
	expect "Ctrl-S: tty mode restored" "$(cat "$TMP/stty.after" 2>/dev/null)" "$(cat "$TMP/stty.before")"
}

# issue 13.3: a process name cannot draw on the screen or split a row
t_hostile_comm() {
	local w
	start_top -i 0.3 || { not_ok "hostile comm: pipetop did not start"; return; }
	PIPEWORK_COMM=$'E\e[2J\e]0;x\a\nZ' "$PIPEWORK" stream 4096 2000000 >/dev/null & w=$!
	# in quotes: the name holds '[' and ']' (issue 26.4)
	if wait_screen '"E\?\[2J\?\]0;x\?\?Z"\[[0-9]+\]' 5; then
		ok "hostile comm: shown with ? for control bytes, on one row"
	else
		not_ok "hostile comm: row not shown escaped"
	fi
	kill "$w"; wait "$w" 2>/dev/null
	# issue 26.4: a name made of list syntax is quoted, not a fake pair
	PIPEWORK_COMM='sshd[1] -> ' "$PIPEWORK" stream 4096 2000000 >/dev/null & w=$!
	if wait_screen " \"sshd\[1\] -> \"\[$w\] -> \"sshd\[1\] -> \"\[[0-9]+\] " 5; then
		ok "hostile comm: a name like 'sshd[1] -> ' shown in quotes"
	else
		not_ok "hostile comm: 'sshd[1] -> ' not marked"
	fi
	kill "$w"; wait "$w" 2>/dev/null
	TM send-keys -t pt q
	expect "hostile comm: exit status" "$(wait_exit)" 0
}

t_rows() {
	local n ws=()
	start_top -r 1 -n pipework || { not_ok "rows: pipetop did not start"; return; }
	# three pipework streams: three pipes, one row shown
	for _ in 1 2 3; do
		"$PIPEWORK" stream 4096 2000000 >/dev/null &
		ws+=($!)
	done
	wait_screen 'pipes: 3 ' >/dev/null
	n=$(awk '/^PIPE /{t=1; next} t && /pipework\[/ {n++} END {print n+0}' "$TMP/screen")
	expect "rows: -r 1 shows one of 3 pipes" "$n" 1
	kill "${ws[@]}" 2>/dev/null
	wait "${ws[@]}" 2>/dev/null
	TM send-keys -t pt q
	expect "rows: exit status" "$(wait_exit)" 0
}

# a writer blocked behind a reader that sleeps 100 ms per 64 KiB: WAIT_W%
# names the blocked side; Enter opens the detail pane with its sleeps
t_waits() {
	local w
	start_top -n pipework -i 1 || { not_ok "waits: pipetop did not start"; return; }
	"$PIPEWORK" slow-reader 6 100 >/dev/null &
	w=$!
	wait_screen 'pipework\[[0-9]+\] -> pipework' >/dev/null
	sleep 2.5
	screen
	# WAIT_W% is the last heading at this width; WAIT_R% the one before
	expect "waits: the writer waits most of the interval (WAIT_W% >= 80)" \
		"$(awk '/^PIPE / { for (i = 1; i <= NF; i++) if ($i ~ /^WAIT_W%/) c = i - NF; next }
			c && /pipework\[/ { print ($(NF + c) >= 80) ? "yes" : "no: " $(NF + c); exit }' "$TMP/screen")" yes
	expect "waits: the reader hardly waits (WAIT_R% < 5)" \
		"$(awk '/^PIPE / { for (i = 1; i <= NF; i++) if ($i ~ /^WAIT_R%/) c = i - NF; next }
			c && /pipework\[/ { print ($(NF + c) < 5) ? "yes" : "no: " $(NF + c); exit }' "$TMP/screen")" yes
	TM send-keys -t pt Enter
	expect "waits: Enter opens the detail pane with the writer's sleeps" \
		"$(wait_screen '(^|  )writer sleeps( |$)' >/dev/null && echo yes)" yes
	expect "waits: and its write sizes, 64 KiB each" \
		"$(grep -c '^ *64Ki+ ' "$TMP/screen" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	# 100 ms a read: the writer's sleeps from 67.1 ms (2^26 ns) on
	expect "waits: the writer's sleeps as durations" \
		"$(grep -cE '(33\.6|67\.1)ms\+ +[0-9]+ \|\*' "$TMP/screen" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	TM send-keys -t pt Enter
	expect "waits: Enter again closes it" \
		"$(wait_gone 'writer sleeps' >/dev/null && echo yes)" yes
	TM send-keys -t pt q
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
}

# a: the advice pane says what pipestat --advise says of pipetrace-bench's bursts
# (its lines wrapped at spaces: joined by one)
t_advice() {
	local w
	start_top -n pipework -i 1 || { not_ok "advice: pipetop did not start"; return; }
	"$PIPEWORK" bursty 8 >/dev/null &
	w=$!
	wait_screen 'pipework\[[0-9]+\] -> pipework' >/dev/null
	TM send-keys -t pt a
	expect "advice: a opens the pane with the threshold" \
		"$(wait_screen '^advice per pipe \(a pipe is judged from 16 writes' >/dev/null && echo yes)" yes
	expect "advice: the bursty pipe named, with the ring to grow to" \
		"$(wait_screen '^pipe [0-9]+:[0-9]+:[0-9]+ pipework\[[0-9]+\] -> pipework\[[0-9]+\]: bursty: writers waited' >/dev/null &&
		   tr '\n' ' ' <"$TMP/screen" | tr -s ' ' | grep -qE 'grow it to [0-9]+ \([0-9]+ slots\): pipestat --resize [0-9]+:[0-9]+:[0-9]+=' && echo yes)" yes
	TM send-keys -t pt a
	expect "advice: a again closes it" "$(wait_gone '^advice per pipe' >/dev/null && echo yes)" yes
	TM send-keys -t pt q
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
}

# R: a live pipe of pipework hold (its one write of 20000 bytes seen, the
# display paused to keep the row) resized from pipetop; the holder sees
# the new size with F_GETPIPE_SZ (hold_size)
t_resize_key() {
	local pid pipe
	start_top -n pipework -i 2 || { not_ok "resize key: pipetop did not start"; return; }
	start_hold -- 20000
	pid=$HOLD_PID pipe=$HOLD_DEV:$HOLD_INO
	wait_screen "^ *$HOLD_INO +pipework\\[$pid\\] -> " >/dev/null
	TM send-keys -t pt Space
	TM send-keys -t pt R
	expect "resize key: R asks, the ring seen pre-filled" \
		"$(wait_screen "^resize pipe $pipe to \\(bytes; k, M, G; Enter, Esc cancels\\): 65536_" >/dev/null && echo yes)" yes
	TM send-keys -t pt BSpace BSpace BSpace BSpace BSpace 1 M Enter
	expect "resize key: Enter asks to confirm" \
		"$(wait_screen "^resize pipe $pipe to 1048576 bytes\\? y resizes" >/dev/null && echo yes)" yes
	TM send-keys -t pt y
	expect "resize key: y resizes, the status line says so" \
		"$(wait_screen "^resized pipe $pipe \\(pid $pid fd [0-9]+, pidfd_getfd\\): 65536 -> 1048576 bytes \\(16 -> 256 slots\\), confirmed by F_GETPIPE_SZ" >/dev/null && echo yes)" yes
	expect "resize key: the holder sees 1 MiB" "$(hold_size)" 1048576
	# n at the confirmation, Esc while typing: nothing done
	TM send-keys -t pt R
	wait_screen "^resize pipe $pipe to " >/dev/null
	TM send-keys -t pt BSpace BSpace BSpace BSpace BSpace BSpace BSpace 6 4 k Enter
	wait_screen "^resize pipe $pipe to 65536 bytes\\?" >/dev/null
	TM send-keys -t pt n
	expect "resize key: n cancels" "$(wait_gone '^resize pipe' >/dev/null && echo yes)" yes
	TM send-keys -t pt R
	wait_screen "^resize pipe $pipe to " >/dev/null
	TM send-keys -t pt Escape
	expect "resize key: Esc cancels" "$(wait_gone '^resize pipe' >/dev/null && echo yes)" yes
	expect "resize key: cancelled, the holder still sees 1 MiB" "$(hold_size)" 1048576
	# refusals: one line on the status line, the size kept
	TM send-keys -t pt R BSpace BSpace BSpace BSpace BSpace BSpace BSpace 4 0 9 6 Enter y
	expect "resize key: below the data, refused in one line" \
		"$(wait_screen "^resize: will not shrink pipe $pipe to 4096 bytes: its ring holds 20000 bytes of data" >/dev/null && echo yes)" yes
	TM send-keys -t pt R BSpace BSpace BSpace BSpace BSpace BSpace BSpace x Enter
	expect "resize key: not a size, refused in one line" \
		"$(wait_screen "^resize: invalid size 'x': bytes up to 2G" >/dev/null && echo yes)" yes
	expect "resize key: refused, the holder still sees 1 MiB" "$(hold_size)" 1048576
	TM send-keys -t pt q
	expect "resize key: exit status" "$(wait_exit)" 0
	stop_hold
}

# R on another user's pipe: the status line says whose quota the pages
# are charged to, before the rest (pipestat --resize's second line; its
# end, "its new pipes still get 16 slots", is past the pane's 140 columns
# once pipefs's inode numbers have 7 digits)
t_resize_charge() {
	local pipe
	start_top -n pipework -i 2 || { not_ok "resize charge: pipetop did not start"; return; }
	start_hold setpriv --reuid=65534 --regid=65534 --clear-groups -- 20000
	pipe=$HOLD_DEV:$HOLD_INO
	wait_screen "^ *$HOLD_INO +pipework\\[$HOLD_PID\\] -> " >/dev/null
	TM send-keys -t pt Space R BSpace BSpace BSpace BSpace BSpace 1 M Enter y
	expect "resize charge: nobody's quota on the status line" \
		"$(wait_screen "^resized pipe $pipe: uid 65534 is charged 240 more pipe pages, within fs.pipe-user-pages-soft \\($(cat /proc/sys/fs/pipe-user-pages-soft)\\)" >/dev/null && echo yes)" yes
	expect "resize charge: the holder sees 1 MiB" "$(hold_size)" 1048576
	TM send-keys -t pt q
	expect "resize charge: exit status" "$(wait_exit)" 0
	stop_hold
}

t_not_a_terminal() {
	local rc
	"$PIPETOP" >"$TMP/out" 2>"$TMP/err"; rc=$?
	expect "not a terminal: exit 1" "$rc" 1
	expect "not a terminal: nothing on stdout" "$(wc -c <"$TMP/out")" 0
	expect "not a terminal: points at pipestat -i" "$(grep -c "^pipetop: standard output is not a terminal; .*'pipestat -i 1'" "$TMP/err")" 1
	"$PIPETOP" -i 2 2>&1 >/dev/null | grep -q "'pipestat -i 2'" && ok "not a terminal: /dev/null, with the interval" ||
		not_ok "not a terminal: /dev/null"
}

# g: the pipeline view at 80 columns. dd | gzip | cat | cat, each with a
# known pid: four stages, three fit 80 columns, the fourth folds onto a
# second band; gzip, compressing, is the highlighted bottleneck.
t_pipeline_view() {
	local pids=() p name
	rm -f "$TMP"/stage*.pid
	bash -c 'echo $$ >"$1/stage1.pid"; exec dd if=/dev/zero bs=64k status=none' _ "$TMP" |
		bash -c 'echo $$ >"$1/stage2.pid"; exec gzip -1' _ "$TMP" |
		bash -c 'echo $$ >"$1/stage3.pid"; exec cat' _ "$TMP" |
		bash -c 'echo $$ >"$1/stage4.pid"; exec cat >/dev/null' _ "$TMP" &
	for p in 1 2 3 4; do
		for _ in $(seq 100); do [ -s "$TMP/stage$p.pid" ] && break; sleep 0.05; done
		pids+=("$(cat "$TMP/stage$p.pid")")
	done
	COLS=80 start_top -i 0.5 -p "${pids[0]}" -p "${pids[1]}" -p "${pids[2]}" -p "${pids[3]}" ||
		{ not_ok "pipeline view: pipetop did not start"; kill "${pids[@]}"; return; }
	held "$TOP" >/dev/null	# what restored checks is released
	TM send-keys -t pt g
	if wait_screen "^pipetop: the pipeline" 10 && wait_screen "│cat\\[${pids[3]}\\]" 10; then
		ok "pipeline view: g shows it"
	else
		not_ok "pipeline view: g"
	fi
	# the first band: dd -> gzip -> cat, figures on the edges
	expect "pipeline view: three stages on the first band" \
		"$(grep -cE "^┌─+┐ +[0-9.]+[KMG]iB/s +┌─+┐ +[0-9.]+[KMG]?i?B/s +┌─+┐$" "$TMP/screen")" 1
	expect "pipeline view: dd -> gzip -> cat, arrows between" \
		"$(grep -cE "^│dd\\[${pids[0]}\\] *│─+▶│gzip\\[${pids[1]}\\] *│─+▶│cat\\[${pids[2]}\\] *│─+▶$" "$TMP/screen")" 1
	# (an interval on a busy machine may see dd busy too: the next one;
	# and gzip waiting for a CPU more than it runs: starved)
	if wait_screen "^│waits wr [0-9]+% *│ +[0-9.]+k? w/s +│(BOTTLENECK|STARVED: CPU) *│ +[0-9.]+k? w/s +│waits rd [0-9]+% *│$" 10; then
		ok "pipeline view: dd waits writing, gzip the bottleneck, cat waits reading"
	else
		not_ok "pipeline view: dd waits writing, gzip the bottleneck, cat waits reading"
	fi
	# the fourth stage folded below, its edge coming in from the left
	expect "pipeline view: the fourth stage folded onto a second band" \
		"$(grep -cE "^─+▶│cat\\[${pids[3]}\\] *│$" "$TMP/screen")" 1
	# highlighted: the bottleneck's box in reverse video
	name=$(TM capture-pane -p -e -t pt | grep -F "gzip[${pids[1]}]")
	expect "pipeline view: the bottleneck in reverse video" \
		"$(grep -c $'\e\\[[0-9;]*7[0-9;]*m│gzip' <<<"$name")" 1
	TM send-keys -t pt h
	if wait_screen "^ *g +the pipeline" 10; then ok "pipeline view: g in the help"; else not_ok "pipeline view: help"; fi
	TM send-keys -t pt Escape g
	if wait_screen '^pipes: ' 10; then ok "pipeline view: g again, the table"; else not_ok "pipeline view: back"; fi
	TM send-keys -t pt q
	restored "pipeline view"
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
}

# wide: the last screen's lines wider than 80 columns (characters: the
# pipeline's boxes are UTF-8)
wide() {
	local LC_ALL=C.UTF-8 line n=0
	while IFS= read -r line; do
		[ ${#line} -gt 80 ] && n=$((n + 1))
	done <"$TMP/screen"
	echo "$n"
}

# joined ERE_FROM ERE_TO: the screen's lines from the one matching FROM to
# the one before TO, joined by one space (a word cut by a wrap shows)
joined() {
	awk -v a="$1" -v b="$2" 'on && $0 ~ b { exit } $0 ~ a { on = 1 } on' "$TMP/screen" |
		tr '\n' ' ' | tr -s ' ' | sed 's/^ //; s/ $//'
}

# issue 41.7: every screen at 80x24 in 80 columns and 24 lines, text
# wrapped at spaces, never inside a word: the table, the help, the detail
# and advice panes, the pipeline. A slow reader (the writer waits) and
# pipework's bursts (advice to grow the ring) run, each named for the
# filter (f) to pick it, for longer than the test (then killed).
t_80x24() {
	local w b keys k what got
	COLS=80 ROWS=24 start_top -i 1 || { not_ok "80x24: pipetop did not start"; return; }
	held "$TOP" >/dev/null	# what restored checks is released
	PIPEWORK_COMM=pt80slow "$PIPEWORK" slow-reader 600 100 >/dev/null & w=$!
	PIPEWORK_COMM=pt80burst "$PIPEWORK" bursty 60 >/dev/null & b=$!
	TM send-keys -t pt f p t 8 0 Enter
	wait_screen 'pt80slow\[[0-9]+\] -> pt80slow' >/dev/null
	wait_screen 'pt80burst\[[0-9]+\] -> pt80burst' >/dev/null
	sleep 1.5
	screen
	expect "80x24 table: no line over 80 columns" "$(wide)" 0
	expect "80x24 table: 24 lines" "$(wc -l <"$TMP/screen")" 24
	expect "80x24 header: EAGAIN/s and its value" \
		"$(grep -cE '(^all: .*  |^)EAGAIN/s [0-9.]+[KMGT]?(  |$)' "$TMP/screen")" 1
	if ! ls /proc/sys/fs/pipe-prealloc-max /proc/sys/fs/pipe-prealloc-keep /proc/sys/fs/pipe-read-batch >/dev/null 2>&1; then
		expect "80x24 header: no knobs line (this kernel has none)" "$(grep -c 'knobs' "$TMP/screen")" 0
	fi
	expect "80x24 header: every part whole (sort:, self:)" \
		"$(grep -cE '(^|  )sort: B/s(  |$)' "$TMP/screen")/$(grep -cE '(^|  )self: [0-9.]+% cpu$' "$TMP/screen")" 1/1
	expect "80x24 key bar: whole keys, help last" \
		"$(tail -1 "$TMP/screen" | grep -cE '^q quit  s/<-/-> sort  .*  h help$')" 1

	# help: each key's text, wrapped in the box, is --help's whole
	TM send-keys -t pt h
	wait_screen 'pipetop keys' >/dev/null
	wait_screen 'Ki = 1024 bytes, K = 1000' >/dev/null
	expect "80x24 help: no line over 80 columns" "$(wide)" 0
	"$PIPETOP" --help | sed -n '/^Keys:/,/^$/p' | grep '^  [^ ]' >"$TMP/keys"
	keys=0
	while IFS= read -r k; do
		what=${k:18}
		got=$(awk -v n="${k:2:16}" '
			on && substr($0, 3, 16) ~ /[^ ]/ { exit }
			substr($0, 3, 16) == n { on = 1 }
			on { print substr($0, 19) }' "$TMP/screen" | tr '\n' ' ' | tr -s ' ' | sed 's/ $//')
		[ "$got" = "$what" ] && keys=$((keys + 1)) || echo "# help: '${k:2:16}': got '$got'" >&2
	done <"$TMP/keys"
	expect "80x24 help: every key's text whole, wrapped at spaces ($(wc -l <"$TMP/keys") keys)" \
		"$keys" "$(wc -l <"$TMP/keys")"
	TM send-keys -t pt x
	wait_gone 'pipetop keys' >/dev/null

	# detail: the slow reader's pipe (its writer waits), durations with units
	TM send-keys -t pt f BSpace BSpace BSpace BSpace BSpace p t 8 0 s Enter
	wait_gone 'pt80burst\[' >/dev/null
	TM send-keys -t pt Enter
	wait_screen 'waited: readers' >/dev/null
	wait_screen '(^|  )writer sleeps( |$)' >/dev/null
	expect "80x24 detail: no line over 80 columns" "$(wide)" 0
	got=$(joined 'waited: readers' '^$|size|sleeps')
	expect "80x24 detail: the waits in s/ms/us/ns ($got)" \
		"$(grep -cE 'waited: readers ([0-9.]+(ns|us|ms|s)|-), writers [0-9.]+(ns|us|ms|s), for the lock ([0-9.]+(ns|us|ms|s)|-) \(Enter closes\)$' <<<"$got")" 1
	expect "80x24 detail: the writer waited most of the second" \
		"$(grep -cE 'writers (0\.[5-9][0-9]|1\.[0-9][0-9])s,' <<<"$got")" 1
	TM send-keys -t pt Enter
	wait_gone 'waited: readers' >/dev/null

	# advice: the bursty pipe's remark, wrapped at spaces
	TM send-keys -t pt f BSpace BSpace BSpace BSpace BSpace BSpace p t 8 0 b Enter
	wait_gone 'pt80slow\[' >/dev/null
	TM send-keys -t pt a
	wait_screen '^advice per pipe' >/dev/null
	wait_screen ': bursty: writers waited' >/dev/null
	expect "80x24 advice: no line over 80 columns" "$(wide)" 0
	expect "80x24 advice: its words whole across the wraps" \
		"$(joined ': bursty: writers waited' '^pipe |^q quit' |
			grep -cE 'grow it to [0-9]+ \([0-9]+ slots\): pipestat --resize [0-9]+:[0-9]+:[0-9]+=[0-9]+')" 1
	TM send-keys -t pt a
	wait_gone '^advice per pipe' >/dev/null

	# g: the pipeline
	TM send-keys -t pt g
	wait_screen '^pipetop: the pipeline' >/dev/null
	wait_screen '│pt80burst\[' >/dev/null
	expect "80x24 pipeline: no line over 80 columns" "$(wide)" 0
	expect "80x24 pipeline: key bar whole" "$(tail -1 "$TMP/screen" | grep -cE '^q quit  .*  h help$')" 1
	TM send-keys -t pt q
	restored "80x24"
	kill "$w" "$b" 2>/dev/null
	wait "$w" "$b" 2>/dev/null
}

# a stage sharing its CPU with two spinners: the pipeline view says it
# waits for the CPU, read once the view is up (its first interval not)
t_starved_view() {
	taskset -c 0 sh -c 'yes >/dev/null & a=$!; yes >/dev/null & b=$!
		timeout 8 yes | sha256sum >/dev/null; kill $a $b' &
	start_top -i 1 -n sha256sum || { not_ok "starved view: pipetop did not start"; wait; return; }
	held "$TOP" >/dev/null	# what restored checks is released
	TM send-keys -t pt g
	if wait_screen "^│STARVED: CPU *│$" 6; then
		ok "starved view: sha256sum waits for the CPU"
	else
		not_ok "starved view: sha256sum not shown starved"
	fi
	TM send-keys -t pt q
	restored "starved view"
	wait 2>/dev/null
}

t_bad_input() {
	local rc msg
	for args in "-i 0" "-i abc" "-r 0" "--tier nope" "-p 0" "-n 0123456789abcdefg" "--bogus" "extra"; do
		# shellcheck disable=SC2086
		msg=$("$PIPETOP" $args 2>&1 >/dev/null); rc=$?
		expect "bad input '$args': exit 2" "$rc" 2
		expect "bad input '$args': says why" "$(head -1 <<<"$msg" | grep -c '^pipetop: ')" 1
	done
	expect "--help: usage" "$("$PIPETOP" --help | head -1 | cut -c1-15)" "Usage: pipetop "
	# about pipetop: its options and keys; the tiers are pipestat's to tell
	"$PIPETOP" --help >"$TMP/help"
	expect "--help: under 50 lines" "$(($(wc -l <"$TMP/help") <= 50))" 1
	expect "--help: every key of the key table" "$(sed -n '/^Keys:/,/^$/p' "$TMP/help" | grep -c '^  [^ ]')" \
		"$(grep -c '^	{ "' src/pipetop/keys.c)"
	expect "--help: no tier matrix, pipestat(8) has it" \
		"$(grep -c 'exact:' "$TMP/help")/$(grep -c 'pipestat(8), TIERS' "$TMP/help")" 0/1
	expect "--help: the units" "$(grep -c 'Units: Ki = 1024 bytes, K = 1000' "$TMP/help")" 1
	expect "--version" "$("$PIPETOP" --version)" "pipetop $(sed -n 's/^VERSION *:= *//p' Makefile)"
	msg=$(script -qec "setpriv --reuid=65534 --regid=65534 --clear-groups $PIPETOP" /dev/null </dev/null 2>&1 | tr -d '\r'); rc=$?
	expect "not root: one line" "$msg" "pipetop: needs root, or CAP_BPF and CAP_PERFMON (run with sudo)"
	msg=$(script -qec "TERM=no-such-term $PIPETOP" /dev/null </dev/null 2>&1 | tr -d '\r')
	expect "unknown TERM: one line" "$msg" "pipetop: cannot drive terminal type 'no-such-term'; for plain reports use 'pipestat -i 1'"
	msg=$(timeout -s KILL 10 script -qec "TERM=dumb $PIPETOP" /dev/null </dev/null 2>&1 | tr -d '\r')
	expect "TERM=dumb: refused, one line" "$msg" "pipetop: cannot drive terminal type 'dumb'; for plain reports use 'pipestat -i 1'"
	# a PID of no process: said before the screen is taken (on a terminal)
	msg=$(timeout -s KILL 10 script -qec "$PIPETOP -p $$ -p 4194000" /dev/null </dev/null 2>&1 | tr -d '\r')
	expect "-p of no process: one line, before the screen" "$msg" "pipetop: no such process: 4194000"
	"$PIPETOP" -p 4194000 >/dev/null 2>&1
	expect "-p of no process: exit 2" "$?" 2
}

# issue 41: a reader asleep in read(2) since before pipetop started (cat on
# a FIFO its writer, sleep, holds open and never writes): its pipe is
# shown with both ends named (the idle writer from /proc), the reader
# waiting all of each interval
t_blocked() {
	local w r
	mkfifo "$TMP/blocked"
	sleep 600 >"$TMP/blocked" & w=$!
	cat "$TMP/blocked" >/dev/null & r=$!
	sleep "${BLOCKED_S:-2}"
	start_top -p "$r" -i 1 || { not_ok "blocked: pipetop did not start"; kill $w $r; return; }
	expect "blocked: both ends named" \
		"$(wait_screen "sleep\\[$w\\] -> cat\\[$r\\]" 5 >/dev/null && echo yes)" yes
	sleep 1.2
	screen
	expect "blocked: the reader waits all of the interval (WAIT_R% 100.0)" \
		"$(awk -v re="cat\\[$r\\]" '/^PIPE / { for (i = 1; i <= NF; i++) if ($i ~ /^WAIT_R%/) c = i - NF; next }
			c && $0 ~ re { print $(NF + c); exit }' "$TMP/screen")" 100.0
	TM send-keys -t pt q
	kill $w $r 2>/dev/null
	wait $w $r 2>/dev/null
}

t_pipeline
t_signals
t_no_keyboard
t_yes_stdin
t_stopped_terminal
t_hostile_comm
t_rows
t_waits
t_advice
t_resize_key
t_resize_charge
t_not_a_terminal
t_pipeline_view
t_80x24
t_starved_view
t_bad_input
t_blocked
summary
