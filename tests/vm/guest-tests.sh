#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Known-answer pipe tests, run INSIDE the test VM (via run-in-vm.sh) as
#   guest-tests.sh PTWORK_BINARY
# Uses tracefs only. On the unpatched kernel only the integrity stress runs
# (and the absence of pipe events is checked). Prints TAP; the exit status
# is the number of failed tests (capped at 100).
set -u
PT=${1:?usage: guest-tests.sh PTWORK_BINARY}
T=/sys/kernel/tracing
KERNEL=${PIPETRACE_KERNEL:-unknown}
OUT=${PIPETRACE_RESULTS:-/tmp}
W=$(mktemp -d)
n=0 failed=0

tap() { # ok|not ok, description
	n=$((n + 1))
	echo "$1 $n - $2" | tee -a "$OUT/tests.tap"
	[ "$1" = ok ] || failed=$((failed + 1))
}
check_eq() { # description got want
	if [ "$2" = "$3" ]; then tap ok "$1 ($2)"; else tap "not ok" "$1: got '$2', want '$3'"; fi
}

trace_reset() {
	echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
	echo 16384 > $T/buffer_size_kb
	echo > $T/trace
}
trace_run() { # name events... -- command...
	local name=$1; shift
	trace_reset
	while [ "$1" != -- ]; do echo 1 > "$T/events/$1/enable"; shift; done
	shift
	echo 1 > $T/tracing_on
	"$@" > "$W/$name.out" 2> "$W/$name.err"
	local rc=$?
	echo 0 > $T/tracing_on
	cat $T/trace > "$W/$name.trace"
	cp "$W/$name.trace" "$W/$name.out" "$OUT/" 2>/dev/null
	check_eq "$name: workload exit status" "$rc" 0
	[ $rc = 0 ] || cat "$W/$name.err"
	# the ring buffer must not have dropped anything
	local e
	e=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' "$W/$name.trace")
	set -- $e
	check_eq "$name: no events lost (entries-in-buffer == entries-written)" "${1:-?}" "${2:-!}"
}
ino_of() { sed -n 's/^ino=//p' "$W/$1.out" | head -1; }
# count lines of EVENT in trace NAME matching all of the given field=value
count() { # name event [field=value ...]
	local name=$1 ev=$2; shift 2
	awk -v ev="$ev:" -v conds="$*" '
		BEGIN { nc = split(conds, c, " ") }
		$0 ~ /^#/ { next }
		{
			found = 0
			for (i = 1; i <= NF; i++) if ($i == ev) { found = 1; break }
			if (!found) next
			for (j = 1; j <= nc; j++) {
				hit = 0
				for (i = 1; i <= NF; i++) if ($i == c[j]) { hit = 1; break }
				if (!hit) next
			}
			cnt++
		}
		END { print cnt + 0 }' "$W/$name.trace"
}
# pipe=<hashed ptr> values seen in copy/eagain events for inode INO
pipes_of_ino() { # name ino
	awk -v ino="ino=$2" '
		/pipe_copy:|pipe_eagain:/ {
			p = ""; m = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^pipe=/) p = $i
				if ($i == ino) m = 1
			}
			if (m && p != "") print p
		}' "$W/$1.trace" | sort -u
}
count_pipe() { # name event pipe=.. [field=value ...]
	count "$@"
}

echo "# guest-tests on $KERNEL kernel $(uname -r), ptwork $PT"
: > "$OUT/tests.tap"

if [ "$KERNEL" = patched ]; then
	for e in pipe_page_get pipe_page_release pipe_copy pipe_eagain; do
		if [ -d $T/events/pipe/$e ]; then tap ok "event pipe:$e exists"
		else tap "not ok" "event pipe:$e missing"; fi
	done

	# 1. N writes of 64 KiB drained by a reader: 16N pages taken, all
	#    with the mutex held, cache hits + allocations == 16N.
	N=64
	trace_run writes pipe -- "$PT" writes $N 65536
	ino=$(ino_of writes)
	p=$(pipes_of_ino writes "$ino")
	check_eq "writes: one pipe object for ino $ino" "$(echo "$p" | grep -c .)" 1
	get=$(count writes pipe_page_get "$p")
	cache=$(count writes pipe_page_get "$p" src=cache locked=1)
	alloc=$(count writes pipe_page_get "$p" src=alloc locked=1)
	check_eq "writes: pages taken for $N x 64 KiB" "$get" $((16 * N))
	check_eq "writes: cache + alloc (mutex held) == taken [cache=$cache alloc=$alloc]" \
		$((cache + alloc)) "$get"
	check_eq "writes: page releases (kept + put)" \
		$(( $(count writes pipe_page_release "$p" fate=kept) + $(count writes pipe_page_release "$p" fate=put) )) $((16 * N))
	check_eq "writes: write copy events of 64 KiB, 16 bufs" \
		"$(count writes pipe_copy "ino=$ino" side=write len=65536 bytes=65536 err=0 bufs=16 sections=16)" $N
	echo "# writes: pages cache=$cache alloc=$alloc"

	# 2. one 64 KiB read of a full default pipe: 16 buffers, 16 sections
	trace_run fullread pipe -- "$PT" fullread
	ino=$(ino_of fullread)
	check_eq "fullread: read events for ino $ino" \
		"$(count fullread pipe_copy "ino=$ino" side=read)" 1
	check_eq "fullread: 64 KiB read: 16 bufs, 16 sections, not batched" \
		"$(count fullread pipe_copy "ino=$ino" side=read len=65536 bytes=65536 err=0 bufs=16 sections=16 batched=0)" 1

	# 3. N nonblocking reads of an empty pipe
	N=100
	trace_run eagain-read pipe -- "$PT" eagain-read $N
	ino=$(ino_of eagain-read)
	check_eq "eagain-read: EAGAIN read/O_NONBLOCK/empty" \
		"$(count eagain-read pipe_eagain "ino=$ino" side=read cause=O_NONBLOCK reason=empty)" $N
	check_eq "eagain-read: all EAGAIN events" "$(count eagain-read pipe_eagain)" $N
	check_eq "eagain-read: read copy events with err=-11" \
		"$(count eagain-read pipe_copy "ino=$ino" side=read bytes=0 err=-11 bufs=0 sections=0)" $N

	# 4. N nonblocking writes to a full pipe
	trace_run eagain-write pipe -- "$PT" eagain-write $N
	ino=$(ino_of eagain-write)
	check_eq "eagain-write: EAGAIN write/O_NONBLOCK/full" \
		"$(count eagain-write pipe_eagain "ino=$ino" side=write cause=O_NONBLOCK reason=full)" $N
	check_eq "eagain-write: all EAGAIN events" "$(count eagain-write pipe_eagain)" $N

	# 5. io_uring reads on N empty pipes: nowait EAGAIN, no io-wq punt
	N=32
	trace_run uring pipe io_uring/io_uring_queue_async_work io_uring/io_uring_poll_arm -- "$PT" uring $N
	check_eq "uring: EAGAIN read/IOCB_NOWAIT/empty" \
		"$(count uring pipe_eagain side=read cause=IOCB_NOWAIT reason=empty)" $N
	check_eq "uring: all EAGAIN events" "$(count uring pipe_eagain)" $N
	check_eq "uring: io_uring_queue_async_work events" "$(count uring io_uring_queue_async_work)" 0
	check_eq "uring: io_uring_poll_arm events" "$(count uring io_uring_poll_arm)" $N
	trace_reset
else
	if [ -d $T/events/pipe ]; then tap "not ok" "unpatched kernel has pipe events"
	else tap ok "unpatched kernel has no pipe events"; fi
fi

# 6. integrity stress (both kernels), pipe events on when they exist
if [ -d $T/events/pipe ]; then
	trace_reset
	echo 1 > $T/events/pipe/enable
	echo 1 > $T/tracing_on
fi
"$PT" stress 4 3 1500 131072 > "$W/stress.out" 2>&1
rc=$?
echo 0 > $T/tracing_on
cat "$W/stress.out"
check_eq "stress: 4 writers x 3 readers, odd records, big writes: no loss or corruption" $rc 0
trace_reset

echo "1..$n"
echo "# $failed of $n failed"
[ $failed -gt 100 ] && failed=100
exit $failed
