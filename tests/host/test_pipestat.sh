#!/usr/bin/env bash
# pipestat host tests: the front end (keys, filters, JSON, the table,
# signals, stalled and closed outputs, hostile names, messages, bad input)
# on the running kernel's tier (the syscall tier on this workplace's
# kernel). The known-answer workloads on every tier: test_known_answers.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_pipestat.sh: needs root (BPF)"; exit 1
fi

# --csv: each key's header as it was saved (tests/fixtures/csv)
t_csv_header() {
	local k
	for k in total pid comm pipe cgroup; do
		expect "csv -k $k: the header as saved" \
			"$("$PIPESTAT" --csv -d 0.2 -k $k 2>/dev/null | head -1)" \
			"$(cat tests/fixtures/csv/pipestat-k-$k.csv)"
	done
}

# --json: one valid JSON object per row, the CSV's numbers, unknown null
t_json() {
	local n=1000 out pid
	start_pipestat -k pid --json -n pipework || { not_ok "json: attach"; return; }
	out=$(work eagain-read $n); pid=$(pid_of "$out")
	work eagain-write 300 >/dev/null
	stop_pipestat
	expect "json: exit status" "$PS_RC" 0
	expect "json: every line one valid object" "$(jq -c 'type' "$TMP/out" | sort -u)" '"object"'
	expect "json: one line per process" "$(jq -s 'length' "$TMP/out")" 2
	expect "json: eagain_read" "$(jq -r "select(.pid == $pid) | .eagain_read" "$TMP/out")" $n
	expect "json: reads" "$(jq -r "select(.pid == $pid) | .reads" "$TMP/out")" $n
	expect "json: comm" "$(jq -r "select(.pid == $pid) | .comm" "$TMP/out")" pipework
	expect "json: unknown on this tier is null" \
		"$(jq -c "select(.pid == $pid) | [.eagain_empty, .prefill_dropped, .pipe_ino]" "$TMP/out")" \
		"[null,null,null]"
	expect "json: derived is an array" "$(jq -r "select(.pid == $pid) | .derived | type" "$TMP/out")" array
	expect "json: eagain_write of the other process" \
		"$(jq -r "select(.pid != $pid) | .eagain_write" "$TMP/out")" 300
}

# -s COLUMN -r N: the top row by that column only; --rate; positional form
t_operator() {
	local out pid n=1000 r1 r2 w
	start_pipestat -k pid --csv -n pipework -s eagain_read -r 1 || { not_ok "-s -r: attach"; return; }
	work eagain-read 100 >/dev/null
	out=$(work eagain-read 300); pid=$(pid_of "$out")
	work eagain-write 50 >/dev/null
	stop_pipestat
	expect "-s eagain_read -r 1: one row" "$(($(wc -l <"$TMP/out") - 1))" 1
	expect "-s eagain_read -r 1: the 300" "$(csv_get "$TMP/out" eagain_read pid "$pid")" 300
	# -s takes the table's own columns: EAGAIN both ways, by the count
	start_pipestat -k pid --csv -n pipework -s eagain || { not_ok "-s eagain: attach"; return; }
	r1=$(pid_of "$(work eagain-read 100)")
	w=$(pid_of "$(work eagain-write 300)")
	r2=$(pid_of "$(work eagain-read 200)")
	stop_pipestat
	expect "-s eagain: rows by EAGAINs read or written" "$(csv_rows "$TMP/out" pid | paste -sd' ')" \
		"$w $r2 $r1"
	# ... WAIT_W%, by the share: the writer blocked longer first, though
	# it moved less (the default order: bytes)
	start_pipestat -k pid --csv -n yes -s wait_write_pct || { not_ok "-s wait_write_pct: attach"; return; }
	yes | (sleep 0.2; head -c 20M >/dev/null)
	yes | (sleep 0.8; head -c 100K >/dev/null)
	stop_pipestat
	expect "-s wait_write_pct: the writer waiting 0.8 s first, then 0.2 s" \
		"$(csv_rows "$TMP/out" wait_write_ns | awk 'NR == 1 { a = $1 } NR == 2 { b = $1 }
			END { print NR, (a >= 7e8 && b >= 1.5e8 && b < 7e8) ? "ok" : a " " b }')" "2 ok"
	start_pipestat -k pid --json -n pipework --rate || { not_ok "--rate: attach"; return; }
	out=$(work eagain-read $n); pid=$(pid_of "$out")
	sleep 2	# an interval of over 2 s: the rate is under n/2
	stop_pipestat
	# per second of the interval: times the interval gives the count back
	expect "--rate: eagain_read x interval_s" \
		"$(jq -r "select(.pid == $pid) | (.eagain_read * .interval_s + 0.5 | floor)" "$TMP/out")" $n
	expect "--rate: under n/2 per second" \
		"$(jq -r "select(.pid == $pid) | .eagain_read < $n / 2" "$TMP/out")" true
	start_pipestat --csv 0.2 3 || { not_ok "positional: attach"; return; }
	wait "$PS_PID"; PS_RC=$?; PS_PID=
	expect "pipestat --csv 0.2 3: exit status" "$PS_RC" 0
	expect "pipestat --csv 0.2 3: 3 rows" "$(grep -c ',syscall,total,' "$TMP/out")" 3
}

# -k pipe names each pipe's writers and readers
t_pipe_ends() {
	local n=50 out pid
	start_pipestat -k pipe --json -n pipework || { not_ok "pipe ends: attach"; return; }
	out=$(work stream 65536 $n); pid=$(pid_of "$out")
	work jobserver 3 30 >"$TMP/job"
	stop_pipestat
	expect "pipe ends: the stream's writer" \
		"$(jq -c "select(.writes == $n) | .writers | map(del(.args))" "$TMP/out")" \
		"[{\"pid\":$pid,\"comm\":\"pipework\"}]"
	# its command line if it was read while it ran (null: gone first)
	expect "pipe ends: the writer's args, never made up" \
		"$(jq -r "select(.writes == $n) | .writers[0].args | . == null or . == \"$PIPEWORK stream 65536 $n\"" "$TMP/out")" true
	expect "pipe ends: its reader, the child" \
		"$(jq -r "select(.writes == $n) | .readers | map(.comm) | join(\",\")" "$TMP/out")" pipework
	expect "pipe ends: reader is not the writer" \
		"$(jq -r "select(.writes == $n) | .readers | map(select(.pid == $pid)) | length" "$TMP/out")" 0
	# the jobserver: one writer, three readers on one pipe
	expect "pipe ends: jobserver readers" \
		"$(jq -r 'select(.writes == 30) | .readers | length' "$TMP/out")" 3
	expect "pipe ends: jobserver readers named" \
		"$(jq -r 'select(.writes == 30) | .readers | map(.comm) | unique | join(",")' "$TMP/out")" pipework
	start_pipestat -k pid --json -n pipework || { not_ok "pipe ends: attach"; return; }
	work eagain-read 5 >/dev/null
	stop_pipestat
	expect "pipe ends: null when not by pipe" "$(jq -c '[.writers, .readers]' "$TMP/out")" "[null,null]"
}

t_pid_filter() {
	local target other tpid
	coproc W { PIPEWORK_WAIT=1 exec "$PIPEWORK" eagain-read 321; }
	read -r target <&"${W[0]}"
	tpid=${target#ready pid=}
	start_pipestat -k pid --csv -p "$tpid" || { not_ok "pid filter: attach"; return; }
	other=$(work eagain-read 123)
	echo go >&"${W[1]}"
	wait "$W_PID"
	stop_pipestat
	expect "pid filter: target eagain_read" "$(csv_get "$TMP/out" eagain_read pid "$tpid")" 321
	expect "pid filter: other process absent" "$(csv_get "$TMP/out" reads pid "$(pid_of "$other")")" ""
	expect "pid filter: one row only" "$(($(wc -l <"$TMP/out") - 1))" 1
}

t_sigterm_last_interval() {
	local out pid
	start_pipestat -k pid --csv -i 600 -n pipework || { not_ok "sigterm: attach"; return; }
	out=$(work eagain-read 77); pid=$(pid_of "$out")
	stop_pipestat TERM
	expect "sigterm: exit status" "$PS_RC" 0
	expect "sigterm: last interval printed" "$(csv_get "$TMP/out" eagain_read pid "$pid")" 77
}

# a full counter map: what did not fit is reported, exactly
t_map_full() {
	local rows
	start_pipestat -k pid --csv -n pipework --max-keys 2 || { not_ok "map full: attach"; return; }
	for _ in 1 2 3 4; do work eagain-read 100 >/dev/null; done
	stop_pipestat
	rows=$(($(wc -l <"$TMP/out") - 1))
	expect "map full: two processes fit" "$rows" 2
	expect "map full: the other two's 200 reads untracked" \
		"$(csv_rows "$TMP/out" untracked | head -1)" 200
	expect "map full: said on stderr" "$(grep -c '200 events not tracked: counter map full' "$TMP/err")" 1
	# issue 26.5: on the first row only, so the column sums to the interval's
	expect "map full: untracked summed over the rows" \
		"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "untracked") c = i; next } { s += $c } END { print s }' "$TMP/out")" 200
}

# issue 26.6: counting starts by the "Ctrl-C to end" line, as pipestat(8)
# says: a workload started the moment the line is there is counted whole
t_counting_starts() {
	local i out pid
	expect "counting starts: documented" \
		"$(grep -c '^pipestat: \\fITIER\\fR tier .*Ctrl-C to end\.$' man/pipestat.8)" 1
	for i in 1 2 3; do
		start_pipestat -k pid --csv -n pipework || { not_ok "counting starts: attach"; return; }
		out=$(work eagain-read 100); pid=$(pid_of "$out")
		stop_pipestat
		expect "counting starts ($i): all counted" "$(csv_get "$TMP/out" eagain_read pid "$pid")" 100
	done
}

# counts LINE: what a -v tier line lists, counted as the short one says it
# ("6 derived, 5 not known, 17 left out")
counts() {
	sed 's/^pipestat: [a-z]* tier (\(.*\))\. Ctrl-C to end\.$/\1/' <<<"$1" |
		awk -v RS='; ' '{ sub(/\n$/, ""); name = $0; sub(/[:(].*/, "", name)
			sub(/ $/, "", name); n = split(substr($0, index($0, ": ") + 2), c, ", ")
			out = out (out ? ", " : "") n " " name } END { print out }'
}

# issue 41.5: a short tier line (the same prefix, for parsers); -v lists
# what it counts
t_tier_line() {
	local brief full
	timeout 30 "$PIPESTAT" -k pid -d 0.2 >/dev/null 2>"$TMP/err"
	brief=$(grep 'Ctrl-C to end' "$TMP/err")
	expect "tier line: under 120 characters" "$(( ${#brief} < 120 ))" 1
	expect "tier line: the tier, as parsers take it" \
		"$(sed -n 's/^pipestat: \([a-z]*\) tier (.*/\1/p' <<<"$brief")" \
		"$(timeout 30 "$PIPESTAT" --csv -k pid -d 0.2 2>/dev/null | cut -d, -f3 | sed -n 2p)"
	timeout 30 "$PIPESTAT" -v -k pid -d 0.2 >/dev/null 2>"$TMP/err"
	full=$(grep 'Ctrl-C to end' "$TMP/err")
	expect "tier line -v: the table's page columns left out, and why" \
		"$(grep -c 'left out (no column shown needs [^)]*): .*pool_misses' <<<"$full")" 1
	expect "tier line: counts what -v lists" "$brief" \
		"$(sed 's/ (.*//' <<<"$full") ($(counts "$full"); -v lists them). Ctrl-C to end."
}

t_intervals() {
	start_pipestat --csv -i 0.2 -c 3 || { not_ok "intervals: attach"; return; }
	wait "$PS_PID"; PS_RC=$?; PS_PID=
	expect "intervals: exit status" "$PS_RC" 0
	expect "intervals: 3 total rows" "$(grep -c ',syscall,total,' "$TMP/out")" 3
}

# the BPF programs, maps and links a process holds: "prog 12" lines
held_ids() {
	grep -hE '^(prog_id|map_id|link_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		sed 's/_id:[[:space:]]*/ /' | sort -u
}

# which of those ids still exist; the kernel frees a closed program after
# an RCU grace period, so poll
still_there() {
	local left
	for _ in $(seq 50); do
		left=$(while read -r kind id; do
			case $kind in
			prog) bpftool prog show id "$id" >/dev/null 2>&1 && echo "prog $id" ;;
			map) bpftool map show id "$id" >/dev/null 2>&1 && echo "map $id" ;;
			link) bpftool link show id "$id" >/dev/null 2>&1 && echo "link $id" ;;
			esac
		done <"$1")
		[ -z "$left" ] && break
		sleep 0.2
	done
	echo "$left" | grep -c .
}

t_no_leftovers() {
	local sig
	for sig in INT TERM; do
		start_pipestat -i 0.1 || { not_ok "leftovers: attach"; return; }
		held_ids "$PS_PID" >"$TMP/ids"
		# the default table's 5 syscall-tier programs with their links
		# (4 for the calls, sched_switch for its waits: no page or
		# contention program, test_hooks.sh), and the maps
		expect "leftovers ($sig): programs held while running" "$(grep -c '^prog' "$TMP/ids")" 5
		expect "leftovers ($sig): links held while running" "$(grep -c '^link' "$TMP/ids")" 5
		stop_pipestat $sig
		expect "leftovers ($sig): none of them left" "$(still_there "$TMP/ids")" 0
	done
}

t_closed_stdout() {
	local rc
	timeout 30 "$PIPESTAT" --csv -i 0.1 -c 100 2>"$TMP/err" | head -1 >"$TMP/head"
	rc=${PIPESTATUS[0]}
	expect "closed stdout: quiet exit status" "$rc" 0
	expect "closed stdout: header line" "$(cut -d, -f1-3 "$TMP/head")" "time,interval_s,tier"
	expect "closed stdout: nothing on stderr but the tier line" "$(grep -vc 'Ctrl-C to end' "$TMP/err")" 0
}

# issue 26.5: closed descriptors 0-2 stay taken, so none made later (the
# signalfd, a map) becomes stdout; a closed stdout with output due is said
t_closed_std_fds() {
	local rc
	"$PIPESTAT" -d 0.2 >&- 2>"$TMP/err"; rc=$?
	expect "stdout closed: exit 1" "$rc" 1
	expect "stdout closed: says so" "$(cat "$TMP/err")" \
		"pipestat: standard output is closed: nowhere to print (>/dev/null discards it)"
	"$PIPESTAT" --csv -d 0.2 <&- >"$TMP/out" 2>"$TMP/err"; rc=$?
	expect "stdin closed: runs" "$rc/$(grep -c ',syscall,total,' "$TMP/out")" 0/1
	"$PIPESTAT" --csv -d 0.2 >"$TMP/out" 2>&-; rc=$?
	expect "stderr closed: runs" "$rc/$(grep -c ',syscall,total,' "$TMP/out")" 0/1
	"$PIPESTAT" --textfile "$TMP/closed.prom" -d 0.3 >&- 2>"$TMP/err"; rc=$?
	expect "stdout closed, --textfile only: runs" "$rc/$(grep -c '^pipetrace_build_info{' "$TMP/closed.prom")" 0/1
	./pipetrace-bench -R 1 -N 10 pingpong >&- 2>"$TMP/err"; rc=$?
	expect "pipetrace-bench, stdout closed: says so" "$rc/$(cat "$TMP/err")" \
		"1/pipetrace-bench: standard output is closed: nowhere to print (>/dev/null discards it)"
}

# issue 13.1: a tiny interval is refused; the floor still ends at a signal
t_tiny_interval() {
	local msg rc
	msg=$(timeout -s KILL 5 "$PIPESTAT" -i 0.001 2>&1 >/dev/null); rc=$?
	expect "tiny interval: exit 2" "$rc" 2
	expect "tiny interval: says the floor" "$(head -1 <<<"$msg")" "pipestat: invalid interval '0.001': want 0.1 to 10000000 seconds (see pipestat --help)"
	start_pipestat -i 0.1 --csv -k pipe || { not_ok "tiny interval: attach"; return; }
	sleep 0.5
	ends_within "tiny interval: SIGTERM" TERM 1
}

# ends_within WHAT SIGNAL SECONDS: the running pipestat ends that soon
ends_within() {
	local t0 ms
	t0=$(date +%s%N)
	kill -"$2" "$PS_PID"
	for _ in $(seq $(($3 * 20))); do
		kill -0 "$PS_PID" 2>/dev/null || break
		sleep 0.05
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	if kill -0 "$PS_PID" 2>/dev/null; then
		not_ok "$1: still running after ${ms} ms"
		kill -KILL "$PS_PID"
	else
		ok "$1: ended in ${ms} ms"
	fi
	wait "$PS_PID"; PS_RC=$?; PS_PID=
	expect "$1: exit status" "$PS_RC" 0
}

# issue 13.2: an output error other than a closed reader is one line, exit 1
t_disk_full() {
	local rc
	timeout -s KILL 10 "$PIPESTAT" -i 0.2 -c 3 >/dev/full 2>"$TMP/err"; rc=$?
	expect "disk full: exit 1" "$rc" 1
	expect "disk full: says why" "$(grep -v 'Ctrl-C to end' "$TMP/err")" "pipestat: writing output: No space left on device"
	"$PIPESTAT" -i 0.2 -c 3 --csv >/dev/full 2>"$TMP/err"; rc=$?
	expect "disk full (csv header): exit 1" "$rc" 1
}

# output_blocked: until pipestat $PS_PID waits on its output: in a send
# or write (before issue 26.2), or in poll() beside the signals
output_blocked() {
	for _ in $(seq 100); do
		grep -qE 'sock|poll|pipe' "/proc/$PS_PID/wchan" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# fifo_fill PATH: QUEUED/SIZE, the bytes in the FIFO at PATH and its ring
# (asked through a reader of its own that takes nothing)
fifo_fill() {
	python3 -c '
import fcntl, os, struct, sys, termios
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
queued = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, bytes(4)))[0]
print(f"{queued}/{fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)}")' "$1"
}

# stalled WHAT: pipestat $PS_PID waits to write into the full FIFO (between
# reports it waits in sigtimedwait, not in poll)
stalled() {
	if wait_attached && output_blocked; then
		ok "$1: blocked on its output ($(cat "/proc/$PS_PID/wchan"))"
	else
		not_ok "$1: never blocked on its output (waits in '$(cat "/proc/$PS_PID/wchan" 2>/dev/null)')"
	fi
	expect "$1: the FIFO is full" "$(fifo_fill "$TMP/stall")" 65536/65536
}

# issue 13.6: a signal ends the run while stdout is stalled (a full FIFO)
t_stalled_output() {
	local holder
	mkfifo "$TMP/stall"
	sleep 60 <"$TMP/stall" & holder=$!
	head -c 65536 /dev/zero >"$TMP/stall"	# full: the next write blocks
	: >"$TMP/err"
	"$PIPESTAT" --csv >"$TMP/stall" 2>"$TMP/err" &
	PS_PID=$!
	stalled "stalled output (csv header)"
	ends_within "stalled output (csv header)" TERM 1
	: >"$TMP/err"
	"$PIPESTAT" -i 0.1 >"$TMP/stall" 2>"$TMP/err" &
	PS_PID=$!
	stalled "stalled output (table)"
	ends_within "stalled output (table)" INT 1
	kill "$holder"; wait "$holder" 2>/dev/null
}

# issue 26.2: stdout a socket nobody reads (systemd's journal is a socket):
# a signal still ends the run within a second, while a write blocks and
# when the last report is what blocks
t_socket_output() {
	cat >"$TMP/sock.py" <<-'EOS'
		import os, socket, sys
		a, b = socket.socketpair()  # b held open and never read
		a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
		if os.environ.get("FILL"):
		    a.setblocking(False)
		    try:
		        while True:
		            a.send(b"#" * 512)
		    except BlockingIOError:
		        pass
		    a.setblocking(True)
		os.dup2(a.fileno(), 1)
		os.set_inheritable(b.fileno(), True)
		os.execvp(sys.argv[1], sys.argv[1:])
	EOS
	local ps=$PIPESTAT
	PIPESTAT=python3 start_pipestat "$TMP/sock.py" "$ps" --json -k pid -i 0.1 ||
		{ not_ok "socket output: attach"; return; }
	expect "socket output: output blocked" "$(output_blocked && echo yes)" yes
	ends_within "socket output (interval report)" TERM 1
	FILL=1 PIPESTAT=python3 start_pipestat "$TMP/sock.py" "$ps" --json -k pid ||
		{ not_ok "socket output: attach"; return; }
	ends_within "socket output (last report)" TERM 1
}

# issue 26.3: SIGHUP (a closed ssh session) ends a run as SIGTERM does, with
# the last report; started under nohup (SIGHUP ignored) it is ignored
t_sighup() {
	local out pid ps=$PIPESTAT
	PIPESTAT=env start_pipestat --default-signal=HUP "$ps" -k pid --csv -n pipework ||
		{ not_ok "sighup: attach"; return; }
	out=$(work eagain-read 55); pid=$(pid_of "$out")
	stop_pipestat HUP
	expect "sighup: exit status" "$PS_RC" 0
	expect "sighup: last report printed" "$(csv_get "$TMP/out" eagain_read pid "$pid")" 55
	PIPESTAT=env start_pipestat --ignore-signal=HUP "$ps" -k pid --csv -n pipework ||
		{ not_ok "sighup under nohup: attach"; return; }
	out=$(work eagain-read 66); pid=$(pid_of "$out")
	kill -HUP "$PS_PID"
	sleep 0.5
	expect "sighup under nohup: still running" "$(kill -0 "$PS_PID" && echo yes)" yes
	stop_pipestat TERM
	expect "sighup under nohup: counted on" "$(csv_get "$TMP/out" eagain_read pid "$pid")" 66
}

# hostile N: N reads under a command name with an escape sequence, a bell
# and a newline (a process may name itself anything)
hostile() {
	PIPEWORK_COMM=$'E\e[2J\e]0;x\a\nZ' work eagain-read "$1" >/dev/null
}

# issue 13.3: no terminal control bytes from a process name, anywhere
t_hostile_comm() {
	start_pipestat -k comm || { not_ok "hostile comm: attach"; return; }
	hostile 25
	stop_pipestat
	expect "hostile comm (table): no control bytes" "$(tr -d '\n' <"$TMP/out" | tr -d '[:print:]' | wc -c)" 0
	expect "hostile comm (table): shown as ps does" "$(grep -c '^E?\[2J?\]0;x??Z ' "$TMP/out")" 1
	start_pipestat -k comm --csv || { not_ok "hostile comm csv: attach"; return; }
	hostile 25
	stop_pipestat
	expect "hostile comm (csv): no control bytes" "$(tr -d '\n' <"$TMP/out" | tr -d '[:print:]' | wc -c)" 0
	expect "hostile comm (csv): escaped, one row" "$(csv_get "$TMP/out" reads comm 'E\\x1b[2J\\x1b]0;x\\x07\\x0aZ')" 25
	msg=$(timeout 5 "$PIPESTAT" -n $'\e]0;x\a too long a name' 2>&1 >/dev/null)
	expect "hostile -n: no control bytes on stderr" "$(tr -d '\n' <<<"$msg" | tr -d '[:print:]' | wc -c)" 0
}

# issue 26.4: lists of processes split back whatever the names: JSON
# objects, CSV entries parsed back (RFC 4180, then \\ and \xHH), the table
# quoting a name that holds list syntax
t_hostile_lists() {
	local names=('x[1],y' 'sshd[1] -> ' $'a,b;c"d\\e\x01') i out
	start_pipestat -k pipe --csv || { not_ok "hostile lists: attach"; return; }
	for i in 0 1 2; do
		PIPEWORK_COMM=${names[$i]} work stream 4096 $((i + 5)) >"$TMP/w$i"
	done
	stop_pipestat
	cat >"$TMP/lists.py" <<-'EOS'
		import csv, re, sys
		def unescape(s):
		    return re.sub(r"\\(\\|x[0-9a-f]{2})",
		                  lambda m: "\\" if m[1] == "\\" else chr(int(m[1][1:], 16)), s)
		for row in csv.DictReader(open(sys.argv[1], newline="")):
		    if row["writes"] in ("5", "6", "7"):
		        for side in ("writers", "readers"):
		            for e in row[side].split(","):
		                m = re.fullmatch(r"(.*)\[([0-9]+)\]", e)
		                print(row["writes"], side, repr(unescape(m[1])), m[2])
	EOS
	for i in 0 1 2; do
		out=$(python3 "$TMP/lists.py" "$TMP/out" | awk -v w=$((i + 5)) '$1 == w')
		expect "hostile lists (csv): '${names[$i]}' parses back" \
			"$(awk '{ print $2 }' <<<"$out" | sort | tr '\n' ' ')" "readers writers "
		expect "hostile lists (csv): writer '${names[$i]}'" \
			"$(python3 -c 'import sys; print(repr(sys.argv[1]), sys.argv[2])' "${names[$i]}" "$(pid_of "$(cat "$TMP/w$i")")")" \
			"$(awk '$2 == "writers" { $1 = $2 = ""; print substr($0, 3) }' <<<"$out")"
	done
	start_pipestat -k pipe --json || { not_ok "hostile lists json: attach"; return; }
	PIPEWORK_COMM='x[1],y' work stream 4096 5 >"$TMP/w0"
	stop_pipestat
	expect "hostile lists (json): writers [{pid, comm}]" \
		"$(jq -c 'select(.writes == 5) | .writers | map(del(.args))' "$TMP/out")" \
		"[{\"pid\":$(pid_of "$(cat "$TMP/w0")"),\"comm\":\"x[1],y\"}]"
	expect "hostile lists (json): one reader named so" \
		"$(jq -r 'select(.writes == 5) | .readers | map(.comm) | join("|")' "$TMP/out")" 'x[1],y'
	# (one column: room for both names whole, not cut to 80 columns)
	start_pipestat -k pipe -o writes || { not_ok "hostile lists table: attach"; return; }
	PIPEWORK_COMM='x[1],y' work stream 4096 5 >"$TMP/w0"
	stop_pipestat
	expect "hostile lists (table): the name in quotes" \
		"$(grep -cE "  \"x\[1\],y\"\[$(pid_of "$(cat "$TMP/w0")")\] -> \"x\[1\],y\"\[[0-9]+\]$" "$TMP/out")" 1
}

# issue 13.7: in a pid namespace, pids are that namespace's (-p and -k pid),
# pipestat leaves itself out, and processes it cannot see are not counted
t_pid_namespace() {
	cat >"$TMP/ns.sh" <<-'EOS'
		T=$1; PS=$2; PW=$3
		"$PS" -k pid --csv 2>"$T/ns.err" | cat >"$T/ns.out" &
		for _ in $(seq 100); do grep -q Ctrl-C "$T/ns.err" && break; sleep 0.1; done
		"$PW" eagain-read 100 >"$T/ns.work"
		coproc W { PIPEWORK_WAIT=1 "$PW" eagain-read 30; }
		read -r ready <&"${W[0]}"
		"$PS" -p "${ready#ready pid=}" --csv 2>"$T/nsp.err" >"$T/nsp.out" &
		for _ in $(seq 100); do grep -q Ctrl-C "$T/nsp.err" && break; sleep 0.1; done
		echo go >&"${W[1]}"; cat <&"${W[0]}" >"$T/nsp.work"
		"$PW" eagain-read 50 >/dev/null	# not -p's: left out
		kill -INT $(pgrep -x pipestat); wait
	EOS
	unshare -pf --mount-proc bash "$TMP/ns.sh" "$TMP" "$(realpath "$PIPESTAT")" "$(realpath "$PIPEWORK")"
	local pid; pid=$(pid_of "$(cat "$TMP/ns.work")")
	expect "pid namespace: workload has a namespace pid" "$([ -n "$pid" ] && [ "$pid" -lt 100 ] && echo yes)" yes
	expect "pid namespace: -k pid row under that pid" "$(csv_get "$TMP/ns.out" reads pid "$pid")" 100
	expect "pid namespace: pipestat leaves itself out" "$(csv_get "$TMP/ns.out" writes comm pipestat)" ""
	expect "pid namespace: only processes seen there" "$(csv_rows "$TMP/ns.out" pid | awk '$1 >= 1000' | wc -l)" 0
	expect "pid namespace: -p PID counts that process" "$(csv_get "$TMP/nsp.out" reads key_type total)" 30
}

# issue 42.6: a new pid namespace whose /proc is a tmpfs cannot tell its
# namespace: refused, where host processes showed under host pids
t_pid_namespace_masked() {
	local msg rc
	"$PIPEWORK" eagain-read 100000 >/dev/null &
	local work=$!
	msg=$(unshare --pid --fork --mount sh -c 'mount -t tmpfs none /proc &&
		exec "$1" -k pid --csv -d 1' _ "$(realpath "$PIPESTAT")" 2>&1 >"$TMP/masked.out"); rc=$?
	kill "$work" 2>/dev/null; wait "$work" 2>/dev/null
	expect "masked /proc: exit 1" "$rc" 1
	expect "masked /proc: one line saying why" "$msg" \
		"pipestat: cannot tell which pid namespace this is, so whose pids to show: /proc is not a procfs (masked?)"
	expect "masked /proc: no pids shown" "$(wc -c <"$TMP/masked.out")" 0
}

# issue 13.9: each message says what is actually wrong
t_messages() {
	local msg rc
	head -c 4096 /dev/urandom >"$TMP/garbage"
	msg=$(unshare -m sh -c 'mount --bind "$1" /sys/kernel/btf/vmlinux && exec "$2" -d 1' _ "$TMP/garbage" "$PIPESTAT" 2>&1); rc=$?
	expect "corrupt BTF: exit 1" "$rc" 1
	expect "corrupt BTF: one line, says so" "$msg" "pipestat: kernel BTF (/sys/kernel/btf/vmlinux) is there but cannot be parsed: corrupt or not BTF"
	msg=$(ulimit -n 20; "$PIPESTAT" -d 1 2>&1 >/dev/null); rc=$?
	expect "ulimit -n: exit 1" "$rc" 1
	expect "ulimit -n: names the limit" "$msg" "pipestat: cannot load the BPF programs: too many open files (ulimit -n is 20): loading needs more"
	# a soft limit below what loading needs is raised (the hard one allows it)
	msg=$(ulimit -S -n 20; "$PIPESTAT" -d 0.3 2>&1 >/dev/null); rc=$?
	expect "ulimit -S -n 20: soft limit raised, runs" "$rc" 0
	msg=$(ulimit -v 20000; "$PIPESTAT" -d 1 2>&1 >/dev/null); rc=$?
	expect "ulimit -v: exit 1" "$rc" 1
	expect "ulimit -v: names the limit" "$(grep -c '(ulimit -v): loading needs more$' <<<"$msg")" 1
	# issue 42.12: libbpf's ENOMEM under the data limit is not corrupt BTF
	msg=$(ulimit -d 10000; "$PIPESTAT" -d 1 2>&1 >/dev/null); rc=$?
	expect "ulimit -d: exit 1" "$rc" 1
	expect "ulimit -d: one line, names the limit" "$(grep -c '^pipestat: cannot read the kernel.s BTF: out of memory: .*(ulimit -d): loading needs more$' <<<"$msg")/$(wc -l <<<"$msg")" 1/1
	msg=$(timeout 5 "$PIPESTAT" -n make -n cc 2>&1 >/dev/null); rc=$?
	expect "-n twice: exit 2" "$rc" 2
	expect "-n twice: refused" "$(head -1 <<<"$msg")" "pipestat: -n given twice: one command name per run (see pipestat --help)"
	# a PID of no process: a mistake, as pipetop says it too
	timeout 10 "$PIPESTAT" -p $$ -p 4194000 -d 0.2 >"$TMP/out" 2>"$TMP/err"; rc=$?
	expect "-p of no process: exit 2" "$rc" 2
	expect "-p of no process: one line, no report" "$(cat "$TMP/err")/$(wc -c <"$TMP/out")" \
		"pipestat: no such process: 4194000/0"
}

t_bad_input() {
	local rc msg
	for args in "-i 0" "-i abc" "-c 3" "-k bogus" "--csv --json" "--listen 9432" "-s nope" "-r 0" "1 2 3" "--tier nope" "-p 0" "-n 0123456789abcdefg" "--max-keys 0" "--bogus" "extra"; do
		# shellcheck disable=SC2086
		msg=$("$PIPESTAT" $args 2>&1 >/dev/null); rc=$?
		expect "bad input '$args': exit 2" "$rc" 2
		expect "bad input '$args': says why" "$(head -1 <<<"$msg" | grep -c '^pipestat: ')" 1
	done
	msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PIPESTAT" 2>&1); rc=$?
	expect "not root: exit 1" "$rc" 1
	expect "not root: one line" "$msg" "pipestat: needs root, or CAP_BPF and CAP_PERFMON (run with sudo)"
	msg=$("$PIPESTAT" --tier tracepoint 2>&1); rc=$?
	expect "forced tier this kernel lacks: exit 1" "$rc" 1
	expect "forced tier: names the tier" "$(grep -c '^pipestat: tracepoint tier: ' <<<"$msg")" 1
}

t_demo() {
	local rc
	timeout 120 "$PIPESTAT" --demo --csv >"$TMP/out" 2>"$TMP/err"; rc=$?
	expect "demo: exit status" "$rc" 0
	expect "demo: write_bytes" "$(csv_get "$TMP/out" write_bytes comm pt-demo)" $((2048 * 65536 + 2000 * 2))
	expect "demo: eagain_read" "$(csv_get "$TMP/out" eagain_read comm pt-demo)" 1000
}

# the operator's table: 80 columns by default, -o picks columns by name
t_table() {
	local args msg rc out pid
	for args in "" "--waits" "--rate --waits" "-k comm"; do
		# shellcheck disable=SC2086
		timeout 120 "$PIPESTAT" --demo $args >"$TMP/out" 2>"$TMP/err"
		expect "table --demo $args: widest line" \
			"$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 80) }' "$TMP/out")" 1
	done
	expect "table --rate: per-second headings" "$(grep -c '  *r/s  *w/s  *rB/s  *wB/s  *EAGAIN/s  *WAIT_R%\*  *WAIT_W%\*$' \
		<(timeout 120 "$PIPESTAT" --demo --rate --waits 2>/dev/null))" 1
	start_pipestat -k pid -n pipework -o eagain_read,eagain,eof_reads ||
		{ not_ok "-o: attach"; return; }
	out=$(work eagain-read 700); pid=$(pid_of "$out")
	stop_pipestat
	expect "-o: the headings asked for (and room for ARGS)" "$(grep '^PID' "$TMP/out" | tr -s ' ')" \
		"PID COMM EAGAIN_R EAGAIN EOF_READS ARGS"
	expect "-o: their values" "$(awk -v p="$pid" '$1 == p { print $3, $4, $5 }' "$TMP/out")" \
		"700 700 0"
	msg=$("$PIPESTAT" -o reads,nope 2>&1); rc=$?
	expect "-o bad name: exit 2, one line" "$rc/$(wc -l <<<"$msg")" 2/1
	expect "-o bad name: says which" "$(grep -c "invalid column 'nope' in -o 'reads,nope'" <<<"$msg")" 1
	t_table_units
	t_table_widths
}

# issue 41.7: every key's table within 80 columns, real pipelines running:
# dd | cat (their names fit whole), pipework's slow reader in a cgroup
# whose path is longer than its column (names cut to the room left, the
# pids kept; the path's end kept after "..")
t_table_widths() {
	local k dd cat w cg top
	top=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/pt-test-$$-a-cgroup-name-wider-than-its-column
	cg=$top/leaf-$$
	mkdir -p "$cg" || { not_ok "table widths: no cgroup v2 to make $cg in"; return; }
	rm -f "$TMP/dd.pid" "$TMP/cat.pid"
	bash -c 'echo $$ >"$1/dd.pid"; exec dd if=/dev/zero bs=64k status=none' _ "$TMP" |
		bash -c 'echo $$ >"$1/cat.pid"; exec cat >/dev/null' _ "$TMP" &
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" slow-reader 300 100' sh "$cg" "$PIPEWORK" >/dev/null &
	w=$!
	for _ in $(seq 100); do
		[ -s "$TMP/dd.pid" ] && [ -s "$TMP/cat.pid" ] && break
		sleep 0.05
	done
	dd=$(cat "$TMP/dd.pid") cat=$(cat "$TMP/cat.pid")
	for k in total pid comm pipe cgroup; do
		"$PIPESTAT" -k $k -d 1 >"$TMP/out.$k" 2>/dev/null
		expect "table -k $k: widest line within 80 columns (of $(wc -l <"$TMP/out.$k") lines)" \
			"$(awk '{ if (length($0) > m) m = length($0) } END { print (NR > 3 && m <= 80) ? "yes" : m }' "$TMP/out.$k")" yes
	done
	# (their arguments beside them where the line has room)
	expect "table -k pipe: dd -> cat whole" \
		"$(grep -cE "^[0-9]+ .*  dd\[$dd\]( [^ ]+)* -> cat\[$cat\]( [^ ]+)*$" "$TMP/out.pipe")" 1
	expect "table -k pipe: pipework's pair cut to the room left, its pids kept" \
		"$(grep -E "  pipew[a-z]*\[[0-9]+\] -> pipew[a-z]*\[[0-9]+\]$" "$TMP/out.pipe" |
			grep -v "pipework\[[0-9]*\] -> pipework\[" | grep -c "\[$w\]")" 1
	expect "table -k cgroup: the long path's end after .." \
		"$(grep -cE "^\.\.[^ ]*/leaf-$$ +[0-9]" "$TMP/out.cgroup")" 1
	kill "$w" "$dd" "$cat" 2>/dev/null
	wait "$w" "$dd" "$cat" 2>/dev/null
	# (the slow reader's child leaves once it reads the end)
	for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
	rmdir "$top"
}

# units: bytes in Ki/Mi (1024), counts too wide for their column in K
# (1000), as the last line says (and pipetop)
t_table_units() {
	local many few
	start_pipestat -k pid -n pipework -o eagain,write_bytes || { not_ok "units: attach"; return; }
	many=$(pid_of "$(work eagain-read 1234567)")
	few=$(pid_of "$(work stream 65536 24)")
	stop_pipestat
	expect "units: 1234567 EAGAINs in 6 columns" "$(awk -v p="$many" '$1 == p { print $3 }' "$TMP/out")" 1235K
	expect "units: 24 x 64 KiB written" "$(awk -v p="$few" '$1 == p { print $4 }' "$TMP/out")" 1.5Mi
	expect "units: the last line says so" "$(grep -c '; Ki = 1024 bytes, K = 1000$' "$TMP/out")" 1
}

t_csv_header
t_json
t_operator
t_pipe_ends
t_pid_filter
t_sigterm_last_interval
t_map_full
t_counting_starts
t_tier_line
t_intervals
t_no_leftovers
t_closed_stdout
t_closed_std_fds
t_tiny_interval
t_disk_full
t_stalled_output
t_socket_output
t_sighup
t_hostile_comm
t_hostile_lists
t_pid_namespace
t_pid_namespace_masked
t_messages
t_bad_input
t_demo
t_table
summary
