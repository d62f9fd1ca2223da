#!/usr/bin/env bash
# pipestat -- COMMAND: a pipeline run under pipestat, counted from its
# first call, every process it starts and nothing else; its exit status
# passed through.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_pipestat_command.sh: needs root (BPF, cgroups)"; exit 1
fi
# the commands' cgroups are made in pipestat's own, this script's
MNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
OWN=$(sed -n 's/^0:://p' /proc/self/cgroup)
# a command's first step: its cgroup (below the mount) into $TMP/cg
SAY_CG="sed -n 's/^0:://p' /proc/self/cgroup >$TMP/cg"

# a pipeline of two known-answer processes: N writes of 64 KiB, read to EOF
N=100
PIPELINE="PIPEWORK_COMM=pt-put $PIPEWORK put 65536 $N 2>$TMP/a |
	PIPEWORK_COMM=pt-get $PIPEWORK get 65536 2>$TMP/b"

# pipestat ARGS...: runs it to the end, the report in $TMP/out (--output),
# stdout in $TMP/stdout, stderr in $TMP/err
pipestat() {
	"$PIPESTAT" --output "$TMP/out" "$@" >"$TMP/stdout" 2>"$TMP/err"
	PS_RC=$?
}

# wait_written FILE: until FILE has something (a command writes it once
# it runs, after pipestat attached)
wait_written() {
	for _ in $(seq 100); do [ -s "$1" ] && return; sleep 0.1; done
}

# pipeline_checks WHAT KEYCOL A_KEY B_KEY: exact counts of both ends
pipeline_checks() {
	local what=$1 col=$2 a=$3 b=$4
	expect "$what: writer's writes" "$(csv_get "$TMP/out" writes "$col" "$a")" $N
	expect "$what: writer's write_bytes" "$(csv_get "$TMP/out" write_bytes "$col" "$a")" \
		$((N * 65536))
	expect "$what: writer's reads" "$(csv_get "$TMP/out" reads "$col" "$a")" 0
	expect "$what: reader's read_bytes" "$(csv_get "$TMP/out" read_bytes "$col" "$b")" \
		$((N * 65536))
	expect "$what: reader's eof_reads" "$(csv_get "$TMP/out" eof_reads "$col" "$b")" 1
	expect "$what: reader's writes" "$(csv_get "$TMP/out" writes "$col" "$b")" 0
	expect "$what: no other rows (sh does no pipe I/O)" "$(($(wc -l <"$TMP/out") - 1))" 2
}

t_pipeline_by_pid() {
	local a b
	pipestat -k pid --csv -- sh -c "$SAY_CG; $PIPELINE; exit 7"
	a=$(pid_of "$(cat "$TMP/a")"); b=$(pid_of "$(cat "$TMP/b")")
	expect "-k pid: the command's exit status" "$PS_RC" 7
	expect "-k pid: both ends ran" "$(cat "$TMP/a") $(cat "$TMP/b")" \
		"pid=$a put=$((N * 65536)) pid=$b get=$((N * 65536))"
	pipeline_checks "-k pid" pid "$a" "$b"
	expect "-k pid: says how it ended" "$(grep -c '^pipestat: sh exited with status 7 after' \
		"$TMP/err")" 1
	cgroup_checks "-k pid"
}

# cgroup_checks WHAT: the command ran in a cgroup of its own in pipestat's
# (named in $TMP/cg), removed at the end
cgroup_checks() {
	local cg
	cg=$(cat "$TMP/cg")
	expect "$1: the command's cgroup in pipestat's" \
		"$(grep -cE "^${OWN%/}/pipestat-[0-9]+-[0-9a-f]+\$" <<<"$cg")" 1
	expect "$1: its cgroup removed" "$(ls -d "$MNT$cg" 2>/dev/null)" ""
}

t_pipeline_json_comm() {
	pipestat -k comm --json -- sh -c "$PIPELINE"
	expect "--json -k comm: exit status" "$PS_RC" 0
	expect "--json -k comm: both ends" "$(jq -c 'select(.comm == "pt-put") |
		[.writes, .write_bytes]' "$TMP/out")/$(jq -c 'select(.comm == "pt-get") |
		[.read_bytes, .eof_reads]' "$TMP/out")" \
		"[$N,$((N * 65536))]/[$((N * 65536)),1]"
}

# a process outside the command is not counted, even while it runs
t_only_the_command() {
	local out pid
	"$PIPESTAT" -k pid --csv --output "$TMP/out" -- sh -c "sleep 0.6; $PIPELINE" \
		>/dev/null 2>"$TMP/err" &
	PS_PID=$!
	sleep 0.2
	out=$(work eagain-read 300); pid=$(pid_of "$out")
	wait "$PS_PID"; PS_RC=$?; PS_PID=
	expect "outside: exit status" "$PS_RC" 0
	expect "outside: not counted" "$(csv_get "$TMP/out" reads pid "$pid")" ""
	expect "outside: the command's rows" "$(($(wc -l <"$TMP/out") - 1))" 2
}

# -i: reports while it runs and one when it exits
t_intervals() {
	pipestat -i 0.4 -k total --csv -- sh -c "sleep 1; $PIPELINE"
	expect "-i: exit status" "$PS_RC" 0
	expect "-i: two reports while it ran, one at its end" "$(($(wc -l <"$TMP/out") - 1))" 3
	expect "-i: the writes over the intervals" "$(csv_get "$TMP/out" writes key_type total)" $N
}

# --waits: a reader blocked 1 s shows as waiting about 1 s
t_waits() {
	local ns
	pipestat --waits -k comm --csv -- sh -c '(sleep 1; echo x) | cat >/dev/null'
	ns=$(csv_get "$TMP/out" wait_read_ns comm cat)
	expect "--waits: cat waited 0.9 to 1.3 s" \
		"$([ "${ns:-0}" -ge 900000000 ] && [ "$ns" -le 1300000000 ] && echo yes)" yes
}

# --hist: the writer's 100 writes of 64 KiB in one slot
t_hist() {
	pipestat --hist write_size -k comm -- sh -c "$PIPELINE"
	expect "--hist: exit status" "$PS_RC" 0
	expect "--hist: 64 KiB slot" "$(grep -A3 '^comm pt-put' "$TMP/out" |
		awk '$1 == 65536 { print $5 }')" $N
}

t_status() {
	pipestat -- sh -c 'kill -USR1 $$'
	expect "killed by SIGUSR1: 128+10" "$PS_RC" 138
	pipestat -- /nonexistent/command
	expect "not found: 127" "$PS_RC" 127
	expect "not found: one line" "$(cat "$TMP/err")" \
		"pipestat: /nonexistent/command: No such file or directory"
	expect "not found: no report in --output's file" "$(wc -c <"$TMP/out")" 0
}

# a command that cannot start: one line as a shell's, its status, and no
# report at all (its child's own failed calls made no row before: issue 41)
t_cannot_start() {
	local args
	printf 'echo not run\n' >"$TMP/noexec"
	chmod 644 "$TMP/noexec"
	for args in "--csv" "-k pid" "--json -k pipe"; do
		# shellcheck disable=SC2086
		"$PIPESTAT" $args -- nosuchcmd-$$ a b >"$TMP/stdout" 2>"$TMP/err"
		expect "nosuchcmd ($args): 127" "$?" 127
		expect "nosuchcmd ($args): one line, no tier line or report" "$(cat "$TMP/err")" \
			"pipestat: nosuchcmd-$$: No such file or directory"
		expect "nosuchcmd ($args): nothing on stdout" "$(wc -c <"$TMP/stdout")" 0
	done
	"$PIPESTAT" -- "$TMP/noexec" >"$TMP/stdout" 2>"$TMP/err"
	expect "not executable: 126" "$?" 126
	expect "not executable: one line" "$(cat "$TMP/err")" \
		"pipestat: $TMP/noexec: Permission denied"
	expect "not executable: nothing on stdout" "$(wc -c <"$TMP/stdout")" 0
	"$PIPESTAT" -- "$TMP" >/dev/null 2>"$TMP/err"
	expect "a directory: 126, one line" "$?/$(cat "$TMP/err")" "126/pipestat: $TMP: Permission denied"
}

# the CSV rows of a report mixed with pipestat's own lines on stderr
csv_of() { grep -v '^pipestat: ' "$1"; }

# issue 41: as perf stat, per process by default, the report on stderr:
# the command's stdout is its own, byte for byte
t_stdout_clean() {
	local seq cat
	"$PIPESTAT" --csv -- sh -c "sh -c 'echo \$\$ >$TMP/seq; exec seq 3' |
		sh -c 'echo \$\$ >$TMP/cat; exec cat'" >"$TMP/stdout" 2>"$TMP/err"
	expect "stdout clean: exit status" "$?" 0
	seq=$(cat "$TMP/seq"); cat=$(cat "$TMP/cat")
	expect "stdout clean: stdout is the command's alone" "$(od -An -c "$TMP/stdout" | tr -s ' ')" \
		" 1 \n 2 \n 3 \n"
	csv_of "$TMP/err" >"$TMP/report"
	expect "stdout clean: the CSV header on stderr" "$(head -1 "$TMP/report" | cut -d, -f1-5)" \
		"time,interval_s,tier,key_type,pid"
	expect "stdout clean: per process by default, a row for each" \
		"$(csv_rows "$TMP/report" pid key_type=pid | sort -n | paste -sd' ')" \
		"$(printf '%s\n' "$seq" "$cat" | sort -n | paste -sd' ')"
	expect "stdout clean: seq's writes, bytes, comm" \
		"$(csv_rows "$TMP/report" writes pid="$seq")/$(csv_rows "$TMP/report" write_bytes \
		pid="$seq")/$(csv_rows "$TMP/report" comm pid="$seq")" "1/6/seq"
	expect "stdout clean: cat's read_bytes, eof_reads, writes, comm" \
		"$(csv_rows "$TMP/report" read_bytes pid="$cat")/$(csv_rows "$TMP/report" eof_reads \
		pid="$cat")/$(csv_rows "$TMP/report" writes pid="$cat")/$(csv_rows "$TMP/report" comm \
		pid="$cat")" "6/1/0/cat"
	expect "stdout clean: then its status" "$(tail -1 "$TMP/err" | sed 's/ after .*//')" \
		"pipestat: sh exited with status 0"
}

# --output FILE: the report there, nowhere else; never through a symlink
t_output() {
	(umask 022; exec "$PIPESTAT" --csv --output "$TMP/r.csv" -- sh -c 'seq 3 | cat') \
		>"$TMP/stdout" 2>"$TMP/err"
	expect "--output: exit status" "$?" 0
	expect "--output: stdout is the command's" "$(paste -sd' ' "$TMP/stdout")" "1 2 3"
	expect "--output: stderr has pipestat's lines only" "$(csv_of "$TMP/err")" ""
	expect "--output: the file's rows: seq's write_bytes, cat's read_bytes" \
		"$(csv_rows "$TMP/r.csv" write_bytes comm=seq)/$(csv_rows "$TMP/r.csv" read_bytes comm=cat)" \
		"6/6"
	expect "--output: mode 0644" "$(stat -c %a "$TMP/r.csv")" 644
	# without a command: not on stdout either, and emptied first
	"$PIPESTAT" --csv -d 0.2 -n pt-none --output "$TMP/r.csv" >"$TMP/stdout" 2>/dev/null
	expect "--output, no command: exit status, stdout empty" "$?/$(wc -c <"$TMP/stdout")" 0/0
	expect "--output, no command: the file emptied, then a header and a row" \
		"$(cut -d, -f1 "$TMP/r.csv" | sed 1d | grep -c .)/$(head -1 "$TMP/r.csv" | cut -d, -f1-3)" \
		"1/time,interval_s,tier"
	echo keep >"$TMP/target"
	ln -s "$TMP/target" "$TMP/link"
	"$PIPESTAT" --csv --output "$TMP/link" -- true >"$TMP/stdout" 2>"$TMP/err"
	expect "--output onto a symlink: exit 2" "$?" 2
	expect "--output onto a symlink: one line" "$(cat "$TMP/err")" \
		"pipestat: --output $TMP/link: a symbolic link: refused"
	expect "--output onto a symlink: its target untouched" "$(cat "$TMP/target")" keep
	mkfifo "$TMP/fifo"
	timeout 10 "$PIPESTAT" --output "$TMP/fifo" -- true 2>"$TMP/err"
	expect "--output onto a FIFO nobody reads: exit 2 at once, says why" "$?/$(cat "$TMP/err")" \
		"2/pipestat: --output $TMP/fifo: a FIFO nobody reads"
	"$PIPESTAT" --output "$TMP/no/such/dir/f" -- true 2>"$TMP/err"
	expect "--output in no directory: exit 2, says why" "$?/$(cat "$TMP/err")" \
		"2/pipestat: --output $TMP/no/such/dir/f: No such file or directory"
}

# SIGTERM to pipestat alone goes on to the command; its status, a report
t_sigterm() {
	rm -f "$TMP/b"
	"$PIPESTAT" -k comm --csv --output "$TMP/out" -- sh -c "$PIPELINE; exec sleep 30" \
		>/dev/null 2>"$TMP/err" &
	PS_PID=$!
	wait_written "$TMP/b"
	stop_pipestat TERM
	expect "SIGTERM: the command's status 128+15" "$PS_RC" 143
	pipeline_checks "SIGTERM" comm pt-put pt-get
}

# in_cgroup DIR ARGS...: runs ARGS in cgroup DIR, as from a shell there
in_cgroup() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$@"
}

# issue 42: from a limited cgroup the command runs below it, its limits
# applying (pids.max where cgroup2 has the pids controller)
t_caller_cgroup() {
	local cg=$MNT/pt-limited-$$
	if ! mkdir "$cg"; then
		not_ok "caller's cgroup: cannot make $cg"; return
	fi
	in_cgroup "$cg" "$PIPESTAT" -- sh -c "$SAY_CG" >"$TMP/out" 2>"$TMP/err"
	expect "caller's cgroup: exit status" "$?" 0
	OWN=/pt-limited-$$ cgroup_checks "caller's cgroup"
	if [ -e "$cg/pids.max" ]; then
		echo 8 >"$cg/pids.max"
		# pipestat (the shell exec()s it) and the command's sh: room for
		# 6 of 12 sleeps
		in_cgroup "$cg" "$PIPESTAT" -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			sleep 1 & done; wait' >/dev/null 2>&1
		expect "caller's cgroup: its pids.max refused the command's forks" \
			"$(awk '$1 == "max" { print ($2 > 0) }' "$cg/pids.events")" 1
	else
		echo "# skip: no pids controller on cgroup2 here: pids.max not tried"
	fi
	# sleeps a refused fork left running were moved to it
	for _ in $(seq 30); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
}

# a command in a threaded cgroup: its own made threaded too
t_threaded() {
	local cg=$MNT/pt-threaded-$$
	mkdir -p "$cg/t" && echo threaded >"$cg/t/cgroup.type" ||
		{ not_ok "threaded: cannot make $cg/t"; return; }
	in_cgroup "$cg/t" "$PIPESTAT" -- sh -c "$SAY_CG; cat $MNT\$(cat $TMP/cg)/cgroup.type \
		>$TMP/type" >"$TMP/out" 2>"$TMP/err"
	expect "threaded: exit status" "$?" 0
	expect "threaded: its cgroup's type" "$(cat "$TMP/type")" threaded
	OWN=/pt-threaded-$$/t cgroup_checks "threaded"
	rmdir "$cg/t" "$cg"
}

# what the command leaves running is moved to pipestat's cgroup, its own
# removed; so is the command itself after a second signal
t_leftovers() {
	local pid
	pipestat -- sh -c "$SAY_CG; sleep 30 >/dev/null 2>&1 & echo \$! >$TMP/left"
	pid=$(cat "$TMP/left")
	expect "daemon: exit status" "$PS_RC" 0
	expect "daemon: moved to pipestat's cgroup" "$(sed -n 's/^0:://p' /proc/"$pid"/cgroup)" "$OWN"
	expect "daemon: said so" "$(grep -c "^pipestat: what the command left running was moved to \
${MNT}${OWN%/}, pipestat's own cgroup\$" "$TMP/err")" 1
	cgroup_checks "daemon"
	kill "$pid"
	rm -f "$TMP/left"
	"$PIPESTAT" -- sh -c "$SAY_CG; echo \$\$ >$TMP/left; trap '' INT TERM; exec sleep 30" \
		>/dev/null 2>"$TMP/err" &
	PS_PID=$!
	wait_written "$TMP/left"
	pid=$(cat "$TMP/left")
	# two signals, not one twice: pending, those two would be one
	kill -INT "$PS_PID"
	stop_pipestat TERM
	expect "second signal: pipestat's status 128+2 (the first)" "$PS_RC" 130
	expect "second signal: the command moved to pipestat's cgroup" \
		"$(sed -n 's/^0:://p' /proc/"$pid"/cgroup)" "$OWN"
	cgroup_checks "second signal"
	kill -KILL "$pid"
}

# a SIGKILLed pipestat's cgroup is removed by the next one, once empty;
# cgroups another pipestat holds, not empty or not named as pipestat's stay
t_sigkill() {
	local cg keep=("$MNT$OWN/pipestat-99999-abc" "$MNT$OWN/pipestat-99998-abc"
		"$MNT$OWN/pipestat-x1") held busy
	rm -f "$TMP/cg"
	"$PIPESTAT" -- sh -c "$SAY_CG; exec sleep 1" >/dev/null 2>&1 &
	PS_PID=$!
	wait_written "$TMP/cg"
	kill -KILL "$PS_PID"; wait "$PS_PID" 2>/dev/null; PS_PID=
	cg=$MNT$(cat "$TMP/cg")
	for _ in $(seq 30); do
		grep -q 'populated 0' "$cg/cgroup.events" 2>/dev/null && break; sleep 0.1
	done
	expect "SIGKILL: its cgroup left" "$(ls -d "$cg" 2>/dev/null)" "$cg"
	mkdir "${keep[@]}"
	flock "${keep[0]}" sleep 30 &
	held=$!
	for _ in $(seq 100); do flock -n "${keep[0]}" true || break; sleep 0.05; done
	sleep 30 &
	busy=$!
	echo "$busy" >"${keep[1]}/cgroup.procs"
	pipestat -- true
	expect "SIGKILL: the next pipestat's status" "$PS_RC" 0
	expect "SIGKILL: the next pipestat removed it" "$(ls -d "$cg" 2>/dev/null)" ""
	expect "SIGKILL: a held one, a busy one, another name stay" \
		"$(ls -d "${keep[@]}" 2>/dev/null | grep -c .)" 3
	kill "$held" "$busy"; wait "$held" "$busy" 2>/dev/null
	rmdir "${keep[@]}"
}

# a pid's leftover of the old name (pipestat-PID), and pipestats in two pid
# namespaces (both pid 1): "File exists" before
t_names() {
	sh -c 'mkdir "$1/pipestat-$$" && exec "$2" -- true' sh "$MNT$OWN" "$PIPESTAT" \
		>/dev/null 2>"$TMP/err"
	expect "reused pid: exit status" "$?/$(grep -c 'File exists' "$TMP/err")" 0/0
	unshare -pf --mount-proc "$PIPESTAT" -- sh -c "$SAY_CG; sleep 0.5" >/dev/null 2>&1 &
	unshare -pf --mount-proc "$PIPESTAT" -- sh -c "${SAY_CG}2; sleep 0.5" >/dev/null 2>&1
	expect "pid namespaces: the second's status" "$?" 0
	wait $!
	expect "pid namespaces: the first's status" "$?" 0
	expect "pid namespaces: two cgroups of pid 1" "$(cat "$TMP/cg" "$TMP/cg2" |
		sed 's/.*\(pipestat-1-\).*/\1/' | uniq -c | awk '{ print $1, $2 }')" "2 pipestat-1-"
}

# 30,000 processes (a big make's worth), each one write to a pipe: counted
# exactly in the -k total view, in one report
t_many_processes() {
	local n=15000
	pipestat -k total --csv -o writes,write_bytes,read_bytes -- sh -c "loop() { i=0
		while [ \$i -lt $n ]; do (echo x); i=\$((i + 1)); done; }
		{ loop & loop; wait; } | cat >/dev/null"
	expect "30,000 processes: exit status" "$PS_RC" 0
	expect "30,000 processes: one report's writes, bytes, untracked" \
		"$(for c in writes write_bytes read_bytes untracked; do csv_rows "$TMP/out" $c; done |
		paste -sd' ')" "$((2 * n)) $((4 * n)) $((4 * n)) 0"
	expect "30,000 processes: nothing said untracked" "$(grep -c 'not tracked' "$TMP/err")" 0
}

t_bad_input() {
	local msg rc args
	for args in "--" "-d 1 -- true" "-i 1 -c 2 -- true" "-p 1 -- true" "--demo -- true"; do
		# shellcheck disable=SC2086
		msg=$("$PIPESTAT" $args 2>&1); rc=$?
		expect "bad: pipestat $args: exit 2, one line" "$rc/$(wc -l <<<"$msg")" 2/1
	done
}

t_pipeline_by_pid
t_pipeline_json_comm
t_only_the_command
t_intervals
t_waits
t_hist
t_status
t_cannot_start
t_stdout_clean
t_output
t_sigterm
t_caller_cgroup
t_threaded
t_leftovers
t_sigkill
t_names
t_many_processes
t_bad_input
summary
