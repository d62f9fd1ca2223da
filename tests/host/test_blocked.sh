#!/usr/bin/env bash
# Also run in the VMs, on their tiers (tests/vm/guest-pipestat.sh, TIER=T):
# nothing here may assume this host's kernel or tier, or what only the
# host has (the guests have no /dev/fd).
#
# pipestat host tests for waits that began before it attached (issue 41):
# a reader and a writer asleep in a pipe call BLOCKED_S seconds (default
# 3) before pipestat starts are shown blocked, both ends named, their
# waits 100% of every interval, and a seeded wait ends when its call does.
# TIER=T: on that tier (the function and tracepoint tiers end a seeded
# wait in their own programs: a VM's to test).
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_blocked.sh: needs root (BPF)"; exit 1
fi
BLOCKED_S=${BLOCKED_S:-3}
KIDS=
AT_EXIT='[ -z "$KIDS" ] || kill $KIDS 2>/dev/null'

# pairs COL1 COL2 PID: PID's rows of $TMP/out as COL1,COL2 lines (a
# file between them, not <(...): the guests have no /dev/fd)
pairs() {
	csv_rows "$TMP/out" "$2" pid="$3" >"$TMP/col"
	csv_rows "$TMP/out" "$1" pid="$3" | paste -d, - "$TMP/col"
}

# full_waits NAME PID COLUMN: every interval's COLUMN of PID is its whole
# length (within 1%), in at least 3 intervals
full_waits() {
	local rows
	rows=$(pairs interval_s "$3" "$2")
	if [ "$(wc -l <<<"$rows")" -ge 3 ] && awk -F, '{ p = $2 / ($1 * 1e7); if (p < 99 || p > 101) exit 1 }' <<<"$rows"; then
		ok "$1: $3 is 100% of every interval ($(tr '\n' ' ' <<<"$rows"))"
	else
		not_ok "$1: $3 per interval: $(tr '\n' ' ' <<<"$rows")"
	fi
}

# since NAME PID T0 T1: every row of PID has one blocked_since, the
# attach: from T0 (epoch s, just before pipestat started) to its first
# interval's start, at least the 1.5 s of its intervals before T1 (when
# it had ended). (Attaching the function tier takes seconds in a VM.)
since() {
	local v
	v=$(csv_rows "$TMP/out" blocked_since pid="$2" | sort -u | tr '\n' ' ')
	if [[ $v =~ ^[0-9]+\ $ ]] && [ ${v% } -ge "$3" ] && [ ${v% } -le $(($4 - 1)) ]; then
		ok "$1: blocked_since is the attach in every row ($v)"
	else
		not_ok "$1: blocked_since '$v', want one from $3 to $(($4 - 1)) in every row"
	fi
}

# blocked_run NAME PID COLUMN: pipestat on PID, BLOCKED_S s after it went
# to sleep: 3 intervals of 100% waits, blocked_since the attach
blocked_run() {
	local t0
	sleep "$BLOCKED_S"
	t0=$(date +%s)
	"$PIPESTAT" ${TIER:+--tier "$TIER"} -k pid --csv -i 0.5 -c 3 -p "$2" >"$TMP/out" 2>"$TMP/err"
	expect "$1: exit status" "$?" 0
	full_waits "$1 blocked ${BLOCKED_S}s before attach" "$2" "$3"
	since "$1" "$2" "$t0" "$(date +%s)"
}

# named NAME PATTERN: pipestat's stderr has a line matching PATTERN
named() {
	if grep -q -- "$2" "$TMP/err"; then ok "$1"; else not_ok "$1: no '$2' in: $(cat "$TMP/err")"; fi
}

# A reader: cat on a FIFO whose writer (sleep) holds it open.
mkfifo "$TMP/rd"
sleep 600 >"$TMP/rd" & W=$!
cat "$TMP/rd" >/dev/null & R=$!
KIDS="$W $R"
INO=$(stat -c %i "$TMP/rd")
blocked_run reader "$R" wait_read_ns
named "reader: named blocked, with its writer" \
	"cat\[$R\] blocked reading pipe:\[$INO\] since before attach (>[0-9:]*); writers: sleep\[$W\]$"
"$PIPESTAT" -k pid -o wait_read_pct,blocked_since -i 0.5 -c 1 -p "$R" >"$TMP/out" 2>/dev/null
expect "reader: the table's BLOCKED column" \
	"$(awk -v p="$R" '$1 == p { print $3, ($4 ~ /^>[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/) }' "$TMP/out")" "100.0 1"
kill $W $R; wait $W $R 2>/dev/null

# A writer: yes into a full pipe whose reader (sleep) never reads.
mkfifo "$TMP/wr"
sleep 600 <"$TMP/wr" & S=$!
yes >"$TMP/wr" & Y=$!
KIDS="$S $Y"
INO=$(stat -c %i "$TMP/wr")
blocked_run writer "$Y" wait_write_ns
named "writer: named blocked, with its reader" \
	"yes\[$Y\] blocked writing pipe:\[$INO\] since before attach (>[0-9:]*); readers: sleep\[$S\]$"
kill $S $Y; wait $S $Y 2>/dev/null

# The seeded wait ends with its call: a reader woken about 1 s after
# attach (then asleep in no pipe) waits no more in the 1.6 s after (a
# wait left seeded would count them too). Counted from the first
# interval's start (its row's time less its length) to the write (each
# step here can take 0.5 s in a guest under TCG: times are measured).
ms() { echo $(($(date +%s%N) / 1000000)); }
mkfifo "$TMP/end"
sh -c 'read -r x; exec sleep 600' <"$TMP/end" & R=$!
exec 7>"$TMP/end"
KIDS=$R
sleep 1
start_pipestat ${TIER:+--tier "$TIER"} -k pid --csv -i 0.5 -p "$R" || not_ok "end: attach"
sleep 1
t_wake=$(ms)
echo x >&7
t_woken=$(ms)
sleep 1.6
stop_pipestat
exec 7>&-
waited=$(($(csv_sum "$TMP/out" wait_read_ns pid="$R") / 1000000))
from=$(pairs time interval_s "$R" | awk -F, 'NR == 1 { printf "%.0f", ($1 - $2) * 1000 }')
# (ms in the CSV: 1 either way; the reader runs within 0.3 s of the write)
below "end: no wait counted after the wake (ms)" "$waited" $((t_woken - from + 300))
below "end: the wait counted up to the wake (ms)" $((t_wake - from - 2)) "$waited"
expect "end: the seeded wait counted once" "$(csv_sum "$TMP/out" waits_read pid="$R")" 1
expect "end: no blocked_since where it ended" \
	"$(csv_rows "$TMP/out" blocked_since pid="$R" waits_read=1)" ""
kill $R; wait $R 2>/dev/null
KIDS=

summary
