#!/usr/bin/env bash
# Processes told apart (issue 41.6): each process's arguments beside its
# name (-k pid's CSV and table, -k pipe's ends in JSON and the table),
# -k pipe's rows upstream first whatever the pipes' inode numbers, and
# -k comm's writers and readers of one command name as rows of their
# own, each with its own waits. Every workload runs as pipestat's
# -- COMMAND, so nothing else running on the host is counted.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_procs.sh: needs root (BPF)"; exit 1
fi

# source -> FIFO ab -> cat -n -> FIFO bc -> tr a-z A-Z, the FIFOs made bc
# first so their inodes run against the flow; the source writes a line
# every 50 ms for a second: every stage counted while it runs
SRC='for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo line; sleep 0.05; done'
cat >"$TMP/flow.sh" <<EOF2
tr a-z A-Z <"\$1/bc" >/dev/null &
cat -n <"\$1/ab" >"\$1/bc" &
sh -c '$SRC' source >"\$1/ab"
wait
EOF2
mkfifo "$TMP/bc" "$TMP/ab"
AB=$(stat -c %i "$TMP/ab") BC=$(stat -c %i "$TMP/bc")

# flow ARGS...: pipestat ARGS over the flow, its report in $TMP/out
flow() {
	"$PIPESTAT" "$@" --output "$TMP/out" -- bash "$TMP/flow.sh" "$TMP" 2>"$TMP/err" ||
		echo "# pipestat $* failed: $(cat "$TMP/err")" >&2
}

# a 3-stage pipeline: every process with its own arguments
t_args() {
	flow -k pid --csv
	expect "args: a row per stage" "$(csv_rows "$TMP/out" comm | sort | tr '\n' ' ')" "cat sh tr "
	expect "args: the source's command line" "$(csv_rows "$TMP/out" args comm=sh)" "sh -c $SRC source"
	expect "args: cat's" "$(csv_rows "$TMP/out" args comm=cat)" "cat -n"
	expect "args: tr's" "$(csv_rows "$TMP/out" args comm=tr)" "tr a-z A-Z"
	expect "args: cat's 20 lines written" "$(csv_rows "$TMP/out" writes comm=cat)" 20
	# the table: ARGS where the line has room (a 120-column terminal)
	COLUMNS=120 flow -k pid
	expect "args table: ARGS heading" "$(grep -c '^PID .*WAIT_W%\*  ARGS$' "$TMP/out")" 1
	expect "args table: cat's" "$(grep -cE '^[0-9]+ +cat .*  -n$' "$TMP/out")" 1
	expect "args table: tr's" "$(grep -cE '^[0-9]+ +tr .*  a-z A-Z$' "$TMP/out")" 1
	expect "args table: within 120 columns" "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 120) }' "$TMP/out")" 1
	# a file: 80 columns, no room for them
	flow -k pid
	expect "args table: no ARGS in 80 columns" "$(grep -c ARGS "$TMP/out")/$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 80) }' "$TMP/out")" 0/1
}

# a | b | c: the pipe into b first though its inode is the later one
t_order() {
	expect "order: the FIFOs' inodes against the flow" "$([ "$BC" -lt "$AB" ] && echo yes)" yes
	flow -k pipe --json
	expect "order: upstream first" "$(jq -r .pipe_ino "$TMP/out" | tr '\n' ' ')" "$AB $BC "
	expect "order: ab's ends with their args" \
		"$(jq -r "select(.pipe_ino == $AB) | [.writers[].args, .readers[].args] | join(\" -> \")" "$TMP/out")" \
		"sh -c $SRC source -> cat -n"
	expect "order: bc's ends" \
		"$(jq -r "select(.pipe_ino == $BC) | [.writers[].comm, .readers[].comm] | join(\" -> \")" "$TMP/out")" \
		"cat -> tr"
	flow -k pipe
	expect "order: the table's rows upstream first, in 80 columns" \
		"$(awk '/^[0-9]+ / { printf "%s ", $1 }' "$TMP/out")/$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 80) }' "$TMP/out")" "$AB $BC /1"
	# (80 columns leave the ends 24: args only with short pids)
	COLUMNS=100 flow -k pipe
	expect "order: cat's args beside it, in 100 columns" \
		"$(grep -cE "^$BC .*  cat\[[0-9]+\] -n -> tr\[[0-9]+\] a-z A-Z$" "$TMP/out")/$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100) }' "$TMP/out")" 1/1
}

# two processes of one name on the two sides of a pipe: two rows
t_comm_sides() {
	local n=2000
	# ping-pong: each process writes one pipe and reads the other
	"$PIPESTAT" -k comm --csv --output "$TMP/out" -- "$PIPEWORK" pingpong $n >/dev/null 2>&1
	expect "comm sides: two rows" "$(csv_rows "$TMP/out" side comm=pipework | sort | tr '\n' ' ')" "read write "
	expect "comm sides: the writers' calls" \
		"$(csv_rows "$TMP/out" writes side=write)/$(csv_rows "$TMP/out" reads side=write)" "$((2 * n))/0"
	expect "comm sides: the readers' calls" \
		"$(csv_rows "$TMP/out" reads side=read)/$(csv_rows "$TMP/out" writes side=read)" "$((2 * n))/0"
	expect "comm sides: readers wait reading" \
		"$(csv_rows "$TMP/out" waits_read side=read | awk '{ print ($1 > 0) }')/$(csv_rows "$TMP/out" wait_write_ns side=read)" 1/0
	expect "comm sides: writers never wait reading" "$(csv_rows "$TMP/out" wait_read_ns side=write)" 0
	# a writer that fills the pipe before its reader starts (0.5 s later)
	"$PIPESTAT" -k comm --csv --output "$TMP/out" -- sh -c \
		'"$0" put 65536 16 2>/dev/null | (sleep 0.5; exec "$0" get 65536 2>/dev/null)' \
		"$PIPEWORK" 2>"$TMP/err"
	expect "comm sides: the writer's 16 writes" \
		"$(csv_rows "$TMP/out" writes side=write)/$(csv_rows "$TMP/out" write_bytes side=write)" 16/1048576
	expect "comm sides: the writer waits writing, not reading" \
		"$(csv_rows "$TMP/out" wait_write_ns side=write | awk '{ print ($1 > 300000000) }')/$(csv_rows "$TMP/out" wait_read_ns side=write)" 1/0
	expect "comm sides: the reader's bytes, no write waits" \
		"$(csv_rows "$TMP/out" read_bytes side=read)/$(csv_rows "$TMP/out" wait_write_ns side=read)" 1048576/0
	"$PIPESTAT" -k comm --output "$TMP/out" -- "$PIPEWORK" pingpong $n >/dev/null 2>&1
	expect "comm sides: the table's SIDE" \
		"$(awk '/^pipework / { printf "%s ", $2 }' "$TMP/out")" "write read "
}

t_args
t_order
t_comm_sides
summary
