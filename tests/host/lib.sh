# Shared helpers for the host integration tests (sourced).
# Run as root from the repository top; pipestat and pipework must be built.

PIPESTAT=${PIPESTAT:-./pipestat}
# pipestat's table takes its width from COLUMNS: 80 unless a test says
unset COLUMNS
PIPEWORK=${PIPEWORK:-tests/host/pipework}
PIPEWORK32=${PIPEWORK32:-tests/host/pipework32}
PIPETRACE_BENCH=${PIPETRACE_BENCH:-./pipetrace-bench}
TMP=$(mktemp -d /tmp/pipetrace-test.XXXXXX)
passed=0
failed=0
# AT_EXIT: what a suite must undo when it ends, however (a mount below
# $TMP, a sysctl it changed), run before $TMP goes
AT_EXIT=
trap 'stop_pipestat 2>/dev/null; eval "$AT_EXIT"; rm -rf "$TMP"' EXIT

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; }

# expect NAME ACTUAL WANTED: one exact comparison
expect() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', want '$3'"; fi
}

# start_pipestat ARGS...: runs pipestat in the background, waits until
# it has attached, output in $TMP/out, $TMP/err
start_pipestat() {
	: >"$TMP/err"	# not the last run's "attached" line
	"$PIPESTAT" "$@" >"$TMP/out" 2>"$TMP/err" &
	PS_PID=$!
	wait_attached
}

# wait_attached: until pipestat $PS_PID counts, which its "Ctrl-C to end"
# line in $TMP/err says (pipestat(8), WHEN COUNTING STARTS): no guessed sleep
wait_attached() {
	for _ in $(seq 300); do
		grep -q 'Ctrl-C to end' "$TMP/err" 2>/dev/null && return 0
		kill -0 "$PS_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# pipestat did not attach:" >&2
	cat "$TMP/err" >&2
	return 1
}

# stop_pipestat [SIGNAL]: ends it and sets PS_RC to its exit status
stop_pipestat() {
	[ -n "${PS_PID:-}" ] || return 0
	kill -"${1:-INT}" "$PS_PID" 2>/dev/null
	wait "$PS_PID"
	PS_RC=$?
	PS_PID=
}

# csv_rows FILE COLUMN [NAME=VALUE | NAME!=VALUE]...: the field of COLUMN
# in each row where every condition holds, one a line; columns are found
# by their header names (an unknown name fails the test run loudly)
csv_rows() {
	local file=$1 col=$2
	shift 2
	awk -F, -v col="$col" -v conds="$*" '
		NR == 1 {
			for (i = 1; i <= NF; i++) idx[$i] = i
			n = split(conds, c, " ")
			for (k = 1; k <= n; k++) {
				neg[k] = index(c[k], "!=") > 0
				split(c[k], kv, neg[k] ? "!=" : "=")
				name[k] = kv[1]; val[k] = kv[2]
			}
			for (k = 0; k <= n; k++) {
				f = k ? name[k] : col
				if (!(f in idx)) { print "csv_rows: no column " f > "/dev/stderr"; exit 2 }
			}
			next
		}
		{
			for (k = 1; k <= n; k++)
				if (($idx[name[k]] == val[k]) == neg[k]) next
			print $idx[col]
		}' "$file"
}

# csv_sum FILE COLUMN [CONDITION]...: the sum of COLUMN over those rows
# ("" when no row matches)
csv_sum() {
	csv_rows "$@" | awk '{ s += $1; n++ } END { if (n) printf "%.0f\n", s }'
}

# csv_get FILE COLUMN MATCH_COLUMN MATCH_VALUE: csv_sum of one condition
csv_get() { csv_sum "$1" "$2" "$3=$4"; }

# work ARGS...: runs pipework with its report in a file, not a pipe (a
# $(...) capture is a pipe, and the report's write would count), then
# prints the report
work() {
	"$PIPEWORK" "$@" >"$TMP/work" || echo "# pipework $* failed" >&2
	cat "$TMP/work"
}

# vec_work N [KIND...]: pipework vec with each KIND (default: all four)
# and segment sizes 1, 1000, 4096, 5000, N rounds each (1-byte segments:
# 1 KiB rounds, IOV_MAX segments; the others 64 KiB); one line
# "KIND SEG LEN REPORT" each in $TMP/vec
vec_work() {
	local n=$1 k s len
	shift
	[ $# -gt 0 ] || set -- readv preadv2-nowait uring-readv writev
	: >"$TMP/vec"
	for k in "$@"; do
		for s in 1 1000 4096 5000; do
			len=65536
			[ "$s" = 1 ] && len=1024
			echo "$k $s $len $(work vec "$k" $s $len "$n")" >>"$TMP/vec"
		done
	done
}

# pid_of OUTPUT: the pid= word of a pipework result line
pid_of() { sed -n 's/.*pid=\([0-9]*\).*/\1/p' <<<"$1" | tail -1; }

# pipework hold, for the suites that resize its pipe (test_resize.sh,
# test_pipetop.sh)
# start_hold [PREFIX...] -- HOLD_ARGS...: pipework hold in the background
# (PREFIX runs it, e.g. as nobody), its stdin on fd 7; sets HOLD_PID, the
# holding thread HOLD_TID, the pipe's HOLD_DEV (major:minor) and
# HOLD_INO, and the descriptors HOLD_R, HOLD_W from its first line
start_hold() {
	local prefix=()
	while [ "$1" != -- ]; do prefix+=("$1"); shift; done
	shift
	rm -f "$TMP/hin"; mkfifo "$TMP/hin"; : >"$TMP/hold"
	"${prefix[@]}" "$PIPEWORK" hold "$@" <"$TMP/hin" >"$TMP/hold" 2>/dev/null &
	exec 7>"$TMP/hin"
	for _ in $(seq 100); do grep -q ino= "$TMP/hold" && break; sleep 0.05; done
	HOLD_PID=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$TMP/hold")
	HOLD_TID=$(sed -n 's/.* tid=\([0-9]*\).*/\1/p' "$TMP/hold")
	HOLD_DEV=$(sed -n 's/.* dev=\([0-9:]*\).*/\1/p' "$TMP/hold")
	HOLD_INO=$(sed -n 's/.* ino=\([0-9]*\).*/\1/p' "$TMP/hold")
	HOLD_R=$(sed -n 's/.* rfd=\([0-9]*\).*/\1/p' "$TMP/hold")
	HOLD_W=$(sed -n 's/.* wfd=\([0-9]*\).*/\1/p' "$TMP/hold")
}

# hold_size: the holder's own F_GETPIPE_SZ of its pipe, asked now
hold_size() {
	local n
	n=$(grep -c '^size=' "$TMP/hold")
	echo >&7
	for _ in $(seq 100); do
		[ "$(grep -c '^size=' "$TMP/hold")" -gt "$n" ] && break; sleep 0.05
	done
	grep '^size=' "$TMP/hold" | tail -1 | cut -d= -f2
}

stop_hold() { exec 7>&-; wait 2>/dev/null; }

# near NAME GOT WANT BY [SHOWN]: |GOT - WANT| <= BY (percentage points,
# ms, ...); SHOWN: how the message says BY
near() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= p) }'; then
		ok "$1 ($2 vs $3, within ${5:-$4})"
	else
		not_ok "$1: got '$2', want $3 within ${5:-$4}"
	fi
}

# within NAME GOT WANT PCT: |GOT - WANT| <= PCT% of WANT (WANT > 0)
within() {
	near "$1" "$2" "$3" "$(awk -v w="$3" -v p="$4" 'BEGIN { printf "%.3f", (w > 0 ? w * p / 100 : -1) }')" "$4%"
}

# below NAME GOT LIMIT: GOT < LIMIT
below() {
	if awk -v g="$2" -v l="$3" 'BEGIN { exit !(g != "" && g < l) }'; then
		ok "$1 ($2 < $3)"
	else
		not_ok "$1: got '$2', want below $3"
	fi
}

# hardened BIN: what Debian's hardening=+all made of it (readelf): a
# position-independent executable, relocations read-only and bound at
# start, the stack protector and fortified calls linked; one word each
hardened() {
	readelf -h "$1" | grep -q 'Type: *DYN (Position-Independent Executable' && echo pie
	readelf -lW "$1" | grep -q '^ *GNU_RELRO ' && echo relro
	readelf -dW "$1" | grep -qE '\(FLAGS\) .*BIND_NOW' && echo bindnow
	readelf --dyn-syms -W "$1" | grep -q ' __stack_chk_fail\b' && echo stack-protector
	readelf --dyn-syms -W "$1" | grep -qE ' __[a-z_]+_chk\b' && echo fortify
}

summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
