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

# a pipeline of two known-answer processes: N writes of 64 KiB, read to EOF
N=100
PIPELINE="PIPEWORK_COMM=pt-put $PIPEWORK put 65536 $N 2>$TMP/a |
	PIPEWORK_COMM=pt-get $PIPEWORK get 65536 2>$TMP/b"

# pipestat ARGS...: runs it to the end, output in $TMP/out and $TMP/err
pipestat() {
	"$PIPESTAT" "$@" >"$TMP/out" 2>"$TMP/err"
	PS_RC=$?
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
	pipestat -k pid --csv -- sh -c "$PIPELINE; exit 7"
	a=$(pid_of "$(cat "$TMP/a")"); b=$(pid_of "$(cat "$TMP/b")")
	expect "-k pid: the command's exit status" "$PS_RC" 7
	expect "-k pid: both ends ran" "$(cat "$TMP/a") $(cat "$TMP/b")" \
		"pid=$a put=$((N * 65536)) pid=$b get=$((N * 65536))"
	pipeline_checks "-k pid" pid "$a" "$b"
	expect "-k pid: says how it ended" "$(grep -c '^pipestat: sh exited with status 7 after' \
		"$TMP/err")" 1
	expect "-k pid: its cgroup removed" "$(ls -d /sys/fs/cgroup/pipestat-* 2>/dev/null |
		grep -c .)" 0
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
	"$PIPESTAT" -k pid --csv -- sh -c "sleep 0.6; $PIPELINE" >"$TMP/out" 2>"$TMP/err" &
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
	pipestat -i 0.4 --csv -- sh -c "sleep 1; $PIPELINE"
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
	expect "not found: one line" "$(grep -c '^pipestat: /nonexistent/command: No such file' \
		"$TMP/err")" 1
}

# SIGTERM to pipestat alone goes on to the command; its status, a report
t_sigterm() {
	rm -f "$TMP/b"
	"$PIPESTAT" -k comm --csv -- sh -c "$PIPELINE; exec sleep 30" >"$TMP/out" 2>"$TMP/err" &
	PS_PID=$!
	for _ in $(seq 50); do [ -s "$TMP/b" ] && break; sleep 0.1; done
	stop_pipestat TERM
	expect "SIGTERM: the command's status 128+15" "$PS_RC" 143
	pipeline_checks "SIGTERM" comm pt-put pt-get
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
t_sigterm
t_bad_input
summary
