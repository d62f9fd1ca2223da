#!/usr/bin/env bash
# Also run in the VMs, on their tiers (tests/vm/guest-pipestat.sh, TIER=T):
# nothing here may assume this host's kernel or tier, or what only the
# host has (the guests have no /dev/fd).
#
# pipestat --advise: the bursty pipe gets a ring size, the slow reader's
# pipe is reader-bound with no resize, the slow writer's writer-bound, a
# stream of 1-byte writes chatty, a pipe below the traffic threshold gets
# nothing; bad combinations are refused. The knobs of kernel-patch/: on a
# kernel with them (the VM's patched one), set so that each rule must
# speak (and so that none may), the figures checked against a CSV of the
# same pipes; on a kernel without them, never a knob remark, even with
# knob files planted over /proc/sys/fs. TIER=T runs it on tier T (the VM
# runs it on the function and tracepoint tiers).
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_advise.sh: needs root (BPF)"; exit 1
fi
KNOB_DIR=/proc/sys/fs
KNOBS_WERE=
if [ -e $KNOB_DIR/pipe-prealloc-max ]; then
	KNOBS_WERE="$(cat $KNOB_DIR/pipe-prealloc-max) $(cat $KNOB_DIR/pipe-prealloc-keep) $(cat $KNOB_DIR/pipe-read-batch)"
fi
# knobs MAX KEEP BATCH
knobs() {
	echo "$1" >$KNOB_DIR/pipe-prealloc-max
	echo "$2" >$KNOB_DIR/pipe-prealloc-keep
	echo "$3" >$KNOB_DIR/pipe-read-batch
}
trap '[ -z "$KNOBS_WERE" ] || knobs $KNOBS_WERE; stop_pipestat 2>/dev/null; stop_csv; rm -rf "$TMP"' EXIT
# attach ARGS...: start_pipestat on $TIER if set
attach() { start_pipestat ${TIER:+--tier "$TIER"} "$@"; }

# a CSV of the same pipes beside --advise (started first, stopped last),
# for the figures a remark gives: $TMP/csv
CSV_PID=
start_csv() {
	: >"$TMP/csv.err"
	"$PIPESTAT" ${TIER:+--tier "$TIER"} -k pipe --csv -n pipework >"$TMP/csv" 2>"$TMP/csv.err" &
	CSV_PID=$!
	for _ in $(seq 300); do
		grep -q 'Ctrl-C to end' "$TMP/csv.err" && return 0
		kill -0 "$CSV_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP/csv.err" >&2
	return 1
}
stop_csv() {
	[ -n "$CSV_PID" ] || return 0
	kill -INT "$CSV_PID" 2>/dev/null; wait "$CSV_PID"; CSV_PID=
}

# pct WORD LINE: the percentage after "WORD waited" in a remark
pct() { sed -n "s/.*$1 waited \([0-9]*\)%.*/\1/p" <<<"$2"; }

# bound WHAT PID SIDE: PID's pipe is SIDE-bound (the other side waited
# >= 50% of the interval, SIDE < 5%), with no resize advice
bound() {
	local line busy idle
	line=$(grep "pipework\[$2\] ->" "$TMP/out")
	expect "$1: $3-bound" "$(grep -c ": $3-bound: " <<<"$line")" 1
	expect "$1: no resize advice" "$(grep -c 'grow\|--resize' <<<"$line")" 0
	read -r busy idle <<<"$(sed -n "s/.*: $3-bound: [a-z]* waited \([0-9]*\)% of the interval for [a-z]*, [a-z]* \([0-9]*\)% for .*/\1 \2/p" <<<"$line")"
	if [ -n "$busy" ] && [ -n "$idle" ] && [ "$busy" -ge 50 ] && [ "$idle" -lt 5 ]; then
		ok "$1: the other side waited $busy% >= 50, the $3 $idle% < 5"
	else
		not_ok "$1: the waits in '$line' ($(grep -o 'interval: [0-9.]*s' "$TMP/out"))"
	fi
}

t_advise() {
	local bursty few line name size max w r
	max=$(cat /proc/sys/fs/pipe-max-size)
	attach --advise -n pipework || { not_ok "advise: attach"; return; }
	"$PIPEWORK" bursty 3 >"$TMP/bursty"
	"$PIPEWORK" stream 65536 4 >"$TMP/few"
	stop_pipestat
	bursty=$(pid_of "$(cat "$TMP/bursty")")
	few=$(pid_of "$(cat "$TMP/few")")
	expect "advise: exit status" "$PS_RC" 0
	line=$(grep "pipework\[$bursty\] ->" "$TMP/out")
	expect "bursty pipe named bursty" "$(grep -c ': bursty: writers waited' <<<"$line")" 1
	# 256 KiB bursts in 64 KiB writes: the writes the ring held are the
	# bytes pipework wrote / 65536
	expect "bursty pipe: its writes" "$(sed -n 's/.* of \([0-9]*\) writes).*/\1/p' <<<"$line")" \
		$(( $(sed -n 's/.*bursty=\([0-9]*\).*/\1/p' "$TMP/bursty") / 65536 ))
	w=$(pct writers "$line"); r=$(sed -n 's/.*readers \([0-9]*\)% for data.*/\1/p' <<<"$line")
	if [ -n "$w" ] && [ -n "$r" ] && [ "$w" -ge 5 ] && [ "$r" -ge 5 ]; then
		ok "bursty pipe: both sides waited 5% or more (writers $w%, readers $r%)"
	else
		not_ok "bursty pipe: the waits in '$line'"
	fi
	size=$(sed -n 's/.*grow it to \([0-9]*\) (.*/\1/p' <<<"$line")
	# bursts of 256 KiB: the next power of two pages at or above them
	if [ -n "$size" ] && [ "$size" -ge 262144 ] && [ "$size" -le "$max" ] &&
	   [ $((size & (size - 1))) = 0 ]; then
		ok "bursty pipe: grow it to $size (256 KiB bursts, within pipe-max-size $max)"
	else
		not_ok "bursty pipe: no size in '$line'"
	fi
	# named as --resize takes it: DEV:INO, the device pipefs's (a pipe on
	# stdin: the guests have no /dev/fd for <(...))
	name=$(sed -n 's/^pipe \([0-9:]*\) .*/\1/p' <<<"$line")
	expect "bursty pipe: named DEV:INO on pipefs" "${name%:*}" "$(: | stat -L -c %Hd:%Ld /proc/self/fd/0)"
	expect "bursty pipe: the resize command, by that name" \
		"$(grep -c "pipestat --resize $name=$size\($\|;\)" <<<"$line")" 1
	expect "4 writes: below the threshold, nothing said" \
		"$(grep -c "pipework\[$few\]" "$TMP/out")" 0
	expect "the threshold is said" "$(grep -c 'judged from 16 writes' "$TMP/out")" 1
}

# t_bound SIDE: a slow SIDE (5 s, 50 ms between its calls) in a session of
# its own: the waits are shares of the session, which other workloads
# would stretch in a slow VM (Debian's cloud image under TCG)
t_bound() {
	local pid
	attach --advise -n pipework || { not_ok "$1-bound: attach"; return; }
	"$PIPEWORK" slow-$1 5 50 >"$TMP/slow"
	stop_pipestat
	pid=$(sed -n 's/^writer pid=\([0-9]*\).*/\1/p' "$TMP/slow")
	bound "slow $1" "$pid" "$1"
}

# 1-byte writes as fast as they go: chatty, the rate its writes / the
# interval the heading gives (no "-- COMMAND": the VM has no cgroup2)
t_chatty() {
	local n=100000 pid line rate secs
	attach --advise -n pipework || { not_ok "chatty: attach"; return; }
	"$PIPEWORK" stream 1 $n >"$TMP/chatty"
	stop_pipestat
	expect "chatty: exit status" "$PS_RC" 0
	pid=$(pid_of "$(cat "$TMP/chatty")")
	line=$(grep "pipework\[$pid\] ->" "$TMP/out")
	rate=$(sed -n 's/.*: chatty: \([0-9]*\) writes\/s of 1 byte on average: batching.*/\1/p' <<<"$line")
	secs=$(sed -n 's/.*  interval: \([0-9.]*\)s  .*/\1/p' "$TMP/out")
	# the heading rounds the interval to 10 ms
	if [ -n "$rate" ] && [ "$rate" -ge 10000 ] &&
	   awk -v r="$rate" -v s="$secs" -v n=$n 'BEGIN { exit !(r * (s - 0.005) <= n + 1 && n <= r * (s + 0.005) + 1) }'; then
		ok "chatty: $rate writes/s of 1 byte ($n writes in ${secs}s), >= 10000"
	else
		not_ok "chatty: no rate for $n writes in ${secs}s in '$line'"
	fi
}

# knob_run MAX KEEP BATCH: 64 writes of 64 KiB with the knobs so, under
# --advise and a CSV of the same pipe; sets LINE, INO
knob_run() {
	local pid
	knobs "$@"
	start_csv || { not_ok "knobs $*: CSV attach"; return 1; }
	attach --advise -n pipework || { not_ok "knobs $*: attach"; stop_csv; return 1; }
	"$PIPEWORK" stream 65536 64 >"$TMP/stream"
	stop_pipestat
	stop_csv
	pid=$(pid_of "$(cat "$TMP/stream")")
	LINE=$(grep "pipework\[$pid\] ->" "$TMP/out")
	echo "# knobs $*: ${LINE:-no remark}"
	INO=$(sed -n 's/^pipe [0-9]*:[0-9]*:\([0-9]*\) .*/\1/p' <<<"$LINE")
	[ -n "$INO" ] || INO=$(csv_rows "$TMP/csv" pipe_ino writes=64 | head -1)
}

# csv COLUMN: the stream pipe's field in the CSV beside --advise
csv() { csv_get "$TMP/csv" "$1" pipe_ino "$INO"; }

t_knobs() {
	local per
	# switches off: no prefill, the pages a write lacks in the 2 kept
	# allocated holding the mutex, a section per buffer read
	knob_run 0 2 0 || return
	expect "knobs 0 2 0: the CSV's writes" "$(csv writes)" 64
	expect "knobs 0 2 0: prealloc-max advice with the CSV's pool misses" \
		"$(grep -c "pool misses: [0-9.]* pages per write allocated holding pipe->mutex ($(csv pool_misses) in 64 writes of 65536 bytes on average) with fs.pipe-prealloc-max 0: raise it to 8 (sysctl -w fs.pipe-prealloc-max=8)" <<<"$LINE")" 1
	per=$(awk -v m="$(csv pool_misses)" 'BEGIN { printf "%.1f", m / 64 }')
	expect "knobs 0 2 0: misses per write as the CSV has them" \
		"$(grep -c "pool misses: $per pages per write" <<<"$LINE")" 1
	expect "knobs 0 2 0: read-batch advice with the CSV's sections" \
		"$(grep -c "read copies: [0-9.]* user-access sections per read ($(csv copy_sections) for 1024 buffers in $(csv reads) reads) with fs.pipe-read-batch 0: set it to 1" <<<"$LINE")" 1
	expect "knobs 0 2 0: no keep advice before max" "$(grep -c 'prealloc-keep' <<<"$LINE")" 0
	# the defaults: 2 kept + 8 prefilled, 6 under the mutex per write
	knob_run 8 2 1 || return
	expect "knobs 8 2 1: keep advice with the CSV's pages" \
		"$(grep -c "page churn: [0-9.]* pages allocated per write ($(csv alloc_locked) holding pipe->mutex + $(csv alloc_unlocked) prefilled in 64 writes of 65536 bytes on average; $(csv pool_hits) new buffers from the pool), each freed once read beyond the 2 a pipe keeps (fs.pipe-prealloc-keep): raise it to 8 (sysctl -w fs.pipe-prealloc-keep=8)" <<<"$LINE")" 1
	expect "knobs 8 2 1: no prealloc-max or read-batch advice" \
		"$(grep -c 'prealloc-max\|read-batch' <<<"$LINE")" 0
	CHURN_BEFORE=$(( $(csv alloc_locked) + $(csv alloc_unlocked) ))
	# as advised: nothing more to say, and fewer pages allocated
	knob_run 8 8 1 || return
	expect "knobs 8 8 1: no knob advice" "$(grep -c 'fs\.pipe-\(prealloc\|read-batch\)' <<<"$LINE")" 0
	if [ $(( $(csv alloc_locked) + $(csv alloc_unlocked) )) -lt "$CHURN_BEFORE" ]; then
		ok "keep 8 as advised: pages allocated $CHURN_BEFORE -> $(( $(csv alloc_locked) + $(csv alloc_unlocked) )) in 64 writes"
	else
		not_ok "keep 8 as advised: pages allocated $CHURN_BEFORE -> $(( $(csv alloc_locked) + $(csv alloc_unlocked) ))"
	fi
}

# A kernel without the knobs: knob files planted over /proc/sys/fs (a
# tmpfs in a mount namespace of its own) with the values that make them
# speak on the patched kernel must not be taken for the kernel's
t_no_knobs() {
	: >"$TMP/err"
	unshare -m --propagation private sh -c '
		mount -t tmpfs planted /proc/sys/fs &&
		echo 0 >/proc/sys/fs/pipe-prealloc-max &&
		echo 1 >/proc/sys/fs/pipe-prealloc-keep &&
		echo 0 >/proc/sys/fs/pipe-read-batch &&
		exec "$@"' sh "$PIPESTAT" ${TIER:+--tier "$TIER"} --advise -n pipework \
		>"$TMP/out" 2>"$TMP/err" &
	PS_PID=$!
	wait_attached || { not_ok "planted knobs: attach"; return; }
	"$PIPEWORK" stream 65536 64 >"$TMP/stream"
	stop_pipestat
	expect "planted knobs: exit status" "$PS_RC" 0
	expect "planted knobs: the report made" "$(grep -c 'advice per pipe' "$TMP/out")" 1
	expect "planted knobs: no knob remark" "$(grep -c 'fs\.pipe-\(prealloc\|read-batch\)' "$TMP/out")" 0
}

t_bad() {
	local a
	for a in --csv --json "-k pid" "--hist all"; do
		"$PIPESTAT" --advise $a -d 1 >/dev/null 2>"$TMP/err"
		expect "--advise $a: exit 2" $? 2
		expect "--advise $a: one line" "$(wc -l <"$TMP/err")" 1
	done
}

t_advise
t_bound reader
t_bound writer
t_chatty
if [ -n "$KNOBS_WERE" ]; then
	t_knobs
else
	t_no_knobs
fi
t_bad
summary
