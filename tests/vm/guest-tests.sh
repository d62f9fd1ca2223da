#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Known-answer pipe tests, run INSIDE the test VM (via run-in-vm.sh) as
#   guest-tests.sh PTWORK_BINARY
# Uses tracefs, plus the BPF smoke test if BINDIR (second argument, with
# bpfsmoke and <kernel>/bpfsmoke.bpf.o) is given. On the unpatched kernel only the integrity stress runs
# (and the absence of pipe events is checked). Prints TAP; the exit status
# is the number of failed tests (capped at 100).
set -u
PT=${1:?usage: guest-tests.sh PTWORK_BINARY [BINDIR]}
BIN=${2:-}
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
# fold lines of EVENT in trace NAME that match all of the given
# field=value: OP is count (lines), sum or max (of FIELD, 0 if none)
fold_events() { # op name event field [field=value ...]
	local op=$1 name=$2 ev=$3 f=$4; shift 4
	awk -v op="$op" -v ev="$ev:" -v f="$f=" -v conds="$*" '
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
			n++
			for (i = 1; i <= NF; i++) {
				if (index($i, f) != 1) continue
				v = substr($i, length(f) + 1) + 0
				sum += v
				if (v > m) m = v
			}
		}
		END { print (op == "count" ? n : op == "sum" ? sum : m) + 0 }' "$W/$name.trace"
}
# count lines of EVENT in trace NAME matching all of the given field=value
count() { local name=$1 ev=$2; shift 2; fold_events count "$name" "$ev" "" "$@"; }
# sum / largest of FIELD over lines of EVENT in trace NAME matching the conditions
sumf() { fold_events sum "$@"; }
maxf() { fold_events max "$@"; }
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

# the A/B switches (0005, CONFIG_PIPE_AB_SWITCHES); absent without them
K=/proc/sys/fs
have_knobs() { [ -f $K/pipe-prealloc-max ] && [ -f $K/pipe-read-batch ]; }
knobs() { # max keep batch
	echo "$1" > $K/pipe-prealloc-max && echo "$2" > $K/pipe-prealloc-keep &&
		echo "$3" > $K/pipe-read-batch
}
# page balance of everything traced (all pipes created and freed inside
# the window): pages in (allocated) == pages out (freed)
page_balance() { # name -> "in out"
	local name=$1 in out
	in=$(( $(count "$name" pipe_page_get src=alloc) + $(sumf "$name" pipe_prefill allocated) ))
	out=$(( $(count "$name" pipe_page_release fate=put) + $(sumf "$name" pipe_prefill dropped) +
		$(sumf "$name" pipe_trim before) - $(sumf "$name" pipe_trim after) ))
	echo "$in $out"
}

# Pool, batched read and A/B switches (patches 0003, 0004, 0005).
guest_pool_tests() {
	local N=64 p ino

	# bad values are rejected, good ones accepted
	for kv in pipe-prealloc-max=9 pipe-prealloc-max=-1 pipe-prealloc-max=abc \
		  pipe-prealloc-keep=9 pipe-read-batch=2 pipe-read-batch=-1; do
		check_eq "knob ${kv%%=*} = ${kv#*=} rejected" "$("$PT" wr $K/${kv%%=*} ${kv#*=})" EINVAL
	done
	for kv in pipe-prealloc-max=0 pipe-prealloc-max=8 pipe-prealloc-keep=0 \
		  pipe-prealloc-keep=8 pipe-read-batch=0 pipe-read-batch=1; do
		check_eq "knob ${kv%%=*} = ${kv#*=} accepted" "$("$PT" wr $K/${kv%%=*} ${kv#*=})" OK
	done

	# N writes of 64 KiB, the defaults: a write takes the pool's kept
	# pages and the 8 it prefilled, at most 6 more under the mutex
	knobs 8 2 1
	trace_run pool-writes pipe -- "$PT" writes $N 65536
	ino=$(ino_of pool-writes)
	p=$(pipes_of_ino pool-writes "$ino")
	local pool alloc kept pushed trimmed
	pool=$(count pool-writes pipe_page_get "$p" src=pool)
	alloc=$(count pool-writes pipe_page_get "$p" src=alloc)
	kept=$(count pool-writes pipe_page_release "$p" fate=kept)
	pushed=$(( $(sumf pool-writes pipe_prefill allocated "$p") - $(sumf pool-writes pipe_prefill dropped "$p") ))
	trimmed=$(( $(sumf pool-writes pipe_trim before "$p") - $(sumf pool-writes pipe_trim after "$p") ))
	check_eq "pool on: pages taken (pool + under the mutex) [pool=$pool alloc=$alloc]" \
		$((pool + alloc)) $((16 * N))
	check_eq "pool on: pages allocated under the mutex <= 8 per write (past the burst)" \
		"$(( alloc <= 8 * N ))" 1
	check_eq "pool on: pages from the pool >= 8 per write" "$(( pool >= 8 * N ))" 1
	check_eq "pool on: pushed + kept == served + trimmed [pushed=$pushed kept=$kept trimmed=$trimmed]" \
		$((pushed + kept)) $((pool + trimmed))
	check_eq "pool on: a prefill allocates <= 8" "$(maxf pool-writes pipe_prefill allocated "$p")" 8
	check_eq "pool on: a write wants <= its 16 pages" "$(maxf pool-writes pipe_prefill wanted "$p")" 16
	check_eq "pool on: reads never trim, write trims leave <= keep (2)" \
		"$(count pool-writes pipe_trim "$p" side=read) $(( $(maxf pool-writes pipe_trim after "$p" side=write) <= 2 ))" "0 1"
	check_eq "pool on: pool never above 10 (largest trim before <= 2 + 8)" \
		"$(( $(maxf pool-writes pipe_trim before "$p") <= 10 ))" 1
	set -- $(page_balance pool-writes)
	check_eq "pool on: page balance (allocated == freed)" "$1" "$2"
	echo "# pool on: served=$pool pushed=$pushed kept=$kept trimmed=$trimmed prefills=$(count pool-writes pipe_prefill "$p")"

	# max 2, keep 8: prefills of 2 at most, an idle pipe keeps up to 8
	knobs 2 8 1
	trace_run pool-small pipe -- "$PT" writes 16 65536
	check_eq "max 2 keep 8: prefills allocate <= 2" "$(( $(maxf pool-small pipe_prefill allocated) <= 2 ))" 1
	check_eq "max 2 keep 8: trims leave <= 8, pool at free <= 8" \
		"$(( $(maxf pool-small pipe_trim after side=write) <= 8 && $(maxf pool-small pipe_trim before side=free) <= 8 ))" 1
	set -- $(page_balance pool-small)
	check_eq "max 2 keep 8: page balance (allocated == freed)" "$1" "$2"

	# a splice drain leaves at most keep pages, like a read
	knobs 8 2 1
	trace_run splicedrain pipe -- "$PT" splicedrain
	check_eq "splice drain: pool at free <= keep (2)" \
		"$(( $(maxf splicedrain pipe_trim before side=free) <= 2 ))" 1
	check_eq "splice drain: released pages kept (2) + put (14)" \
		"$(count splicedrain pipe_page_release fate=kept) $(count splicedrain pipe_page_release fate=put)" "2 14"

	# writes that move no byte allocate nothing (the 64 KiB fill takes 16)
	for w in "eagain-write 50 65536" "nowait-write 50 65536" "epipe 50 65536" "sigwrite 3 65536"; do
		set -- $w
		trace_run "nb-$1" pipe kmem/mm_page_alloc -- "$PT" $w
		local fill=16
		[ "$1" = epipe ] && fill=0
		check_eq "$1: pages for the fill only (page_get alloc + prefill allocated)" \
			$(( $(count "nb-$1" pipe_page_get src=alloc) + $(sumf "nb-$1" pipe_prefill allocated) )) $fill
	done
	check_eq "nowait-write: EAGAIN write/IOCB_NOWAIT/full" \
		"$(count nb-nowait-write pipe_eagain side=write cause=IOCB_NOWAIT reason=full)" 50
	check_eq "sigwrite: one wait per interrupted write (begin, end)" \
		"$(count nb-sigwrite pipe_wait_begin side=write) $(count nb-sigwrite pipe_wait_end side=write)" "3 3"

	# 1-byte writes (jobserver style): no prefill, either setting
	for m in 8 0; do
		knobs $m 2 1
		trace_run small-$m pipe -- "$PT" writes 200 1
		check_eq "1-byte writes, prealloc-max=$m: prefill events" "$(count small-$m pipe_prefill)" 0
		check_eq "1-byte writes, prealloc-max=$m: write events" "$(count small-$m pipe_copy side=write len=1 bytes=1)" 200
	done

	# 64 KiB read of a full default pipe: 1 copy batched, 16 not
	knobs 8 2 1
	trace_run batch-1 pipe -- "$PT" fullread
	ino=$(ino_of batch-1)
	check_eq "batch on: 64 KiB read: 16 bufs in 1 copy, batched" \
		"$(count batch-1 pipe_copy "ino=$ino" side=read len=65536 bytes=65536 err=0 bufs=16 copies=1 batched=1)" 1
	knobs 8 2 0
	trace_run batch-off pipe -- "$PT" fullread
	ino=$(ino_of batch-off)
	check_eq "batch off: 64 KiB read: 16 bufs in 16 copies" \
		"$(count batch-off pipe_copy "ino=$ino" side=read len=65536 bytes=65536 err=0 bufs=16 copies=16 batched=0)" 1

	# fault in the middle of a batched read: same result as per-buffer
	for b in 1 0; do
		knobs 8 2 $b
		trace_run fault-$b pipe -- "$PT" faultread
		check_eq "fault, batch=$b: first read stops at the fault, rest intact" \
			"$(grep -E '^(first|rest)=' "$W/fault-$b.out" | tr '\n' ' ')" "first=36864 rest=28672 "
	done
	ino=$(ino_of fault-1)
	check_eq "fault, batch on: faulting read: failed batch + 10 per-buffer copies, not batched" \
		"$(count fault-1 pipe_copy "ino=$ino" side=read len=65536 bytes=36864 bufs=10 copies=11 batched=0)" 1
	knobs 8 2 1
}

# An injected fault in the batched read copy (fail_usercopy, only for
# pipe_read_batch_copy()'s stack, only for ptwork: make-it-fail) counts
# as a fault of the batch, as a real one does: the 64 KiB read completes
# buffer by buffer and the batch is tried once in the call (one fault
# injected, not one per buffer left).
batch_injected_fault() {
	local F=/sys/kernel/debug/fail_usercopy range ino left
	[ -d $F ] || mount -t debugfs debugfs /sys/kernel/debug
	# the function's start and the next symbol's (its end): vmlinux's
	# symbols come in address order, and the read stops there
	range=$(awk '
		found { print "0x" $1; exit }
		$3 ~ /^pipe_read_batch_copy($|[.])/ { printf "0x%s ", $1; found = 1 }' /proc/kallsyms)
	check_eq "fail_usercopy and pipe_read_batch_copy() there" \
		"$([ -d $F ] && [ "$(echo "$range" | wc -w)" = 2 ] && echo yes)" yes
	set -- $range
	echo 0 > $F/verbose
	echo "${1:-0}" > $F/require-start
	echo "${2:-0}" > $F/require-end
	echo 32 > $F/stacktrace-depth
	echo Y > $F/task-filter
	echo 100 > $F/times
	echo 100 > $F/probability
	knobs 8 2 1
	# shellcheck disable=SC2016
	trace_run injected pipe -- sh -c 'echo 1 > /proc/self/make-it-fail && exec "$0" fullread' "$PT"
	left=$(cat $F/times)
	echo 0 > $F/probability
	ino=$(ino_of injected)
	check_eq "injected fault in the batched copy: the 64 KiB read completes, 16 bufs in 16 copies, not batched" \
		"$(count injected pipe_copy "ino=$ino" side=read len=65536 bytes=65536 err=0 bufs=16 copies=16 batched=0)" 1
	check_eq "injected fault in the batched copy: faults injected (the batch tried once in the call)" \
		"$((100 - left))" 1
}

echo "# guest-tests on $KERNEL kernel $(uname -r), ptwork $PT"
: > "$OUT/tests.tap"

if [ "$KERNEL" = patched ]; then
	for e in pipe_page_get pipe_page_release pipe_copy pipe_eagain pipe_wait_begin pipe_wait_end; do
		if [ -d $T/events/pipe/$e ]; then tap ok "event pipe:$e exists"
		else tap "not ok" "event pipe:$e missing"; fi
	done

	# The first tests run with the switches off: no prefill, no batch.
	if have_knobs; then
		check_eq "switches present, their defaults (max keep batch)" \
			"$(cat $K/pipe-prealloc-max) $(cat $K/pipe-prealloc-keep) $(cat $K/pipe-read-batch)" "8 2 1"
		knobs 0 2 0
	fi

	# 1. N writes of 64 KiB drained by a reader: 16N pages taken, all
	#    with the mutex held, pool hits + allocations == 16N.
	N=64
	trace_run writes pipe -- "$PT" writes $N 65536
	ino=$(ino_of writes)
	p=$(pipes_of_ino writes "$ino")
	check_eq "writes: one pipe object for ino $ino" "$(echo "$p" | grep -c .)" 1
	get=$(count writes pipe_page_get "$p")
	pool=$(count writes pipe_page_get "$p" src=pool)
	alloc=$(count writes pipe_page_get "$p" src=alloc)
	check_eq "writes: pages taken for $N x 64 KiB" "$get" $((16 * N))
	check_eq "writes: pool + alloc (mutex held) == taken [pool=$pool alloc=$alloc]" \
		$((pool + alloc)) "$get"
	check_eq "writes: page releases (kept + put)" \
		$(( $(count writes pipe_page_release "$p" fate=kept) + $(count writes pipe_page_release "$p" fate=put) )) $((16 * N))
	check_eq "writes: write copy events of 64 KiB, 16 bufs" \
		"$(count writes pipe_copy "ino=$ino" side=write len=65536 bytes=65536 err=0 bufs=16 copies=16)" $N
	echo "# writes: pages pool=$pool alloc=$alloc"
	check_eq "writes: wait begin == wait end, per side" \
		"$(count writes pipe_wait_begin side=read) $(count writes pipe_wait_begin side=write)" \
		"$(count writes pipe_wait_end side=read) $(count writes pipe_wait_end side=write)"

	# 2. one 64 KiB read of a full default pipe: 16 buffers, 16 copies
	trace_run fullread pipe -- "$PT" fullread
	ino=$(ino_of fullread)
	check_eq "fullread: read events for ino $ino" \
		"$(count fullread pipe_copy "ino=$ino" side=read)" 1
	check_eq "fullread: 64 KiB read: 16 bufs, 16 copies, not batched" \
		"$(count fullread pipe_copy "ino=$ino" side=read len=65536 bytes=65536 err=0 bufs=16 copies=16 batched=0)" 1

	# 3. N nonblocking reads of an empty pipe
	N=100
	trace_run eagain-read pipe -- "$PT" eagain-read $N
	ino=$(ino_of eagain-read)
	check_eq "eagain-read: EAGAIN read/O_NONBLOCK/empty" \
		"$(count eagain-read pipe_eagain "ino=$ino" side=read cause=O_NONBLOCK reason=empty)" $N
	check_eq "eagain-read: all EAGAIN events" "$(count eagain-read pipe_eagain)" $N
	check_eq "eagain-read: no waits" "$(count eagain-read pipe_wait_begin)" 0
	check_eq "eagain-read: read copy events with err=-11" \
		"$(count eagain-read pipe_copy "ino=$ino" side=read bytes=0 err=-11 bufs=0 copies=0)" $N

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

	# 6. vectored copies: one copy call per buffer on both sides (a
	#    multi-segment iovec is never batched)
	N=64
	for k in readv preadv2-nowait uring-readv writev; do
		for s in 1 1000 4096 5000; do
			len=65536
			[ $s = 1 ] && len=1024	# 1024 segments: IOV_MAX
			trace_run "vec-$k-$s" pipe -- "$PT" vec $k $s $len $N
			ino=$(ino_of "vec-$k-$s")
			for side in read write; do
				check_eq "vec $k, $s-byte segments: $side copies == buffers" \
					"$(sumf "vec-$k-$s" pipe_copy copies "ino=$ino" side=$side)" \
					$((N * ((len + 4095) / 4096)))
			done
		done
	done
	trace_reset
	if have_knobs; then
		if [ -d $T/events/pipe/pipe_prefill ] && [ -d $T/events/pipe/pipe_trim ]; then
			tap ok "events pipe:pipe_prefill and pipe:pipe_trim exist"
		else
			tap "not ok" "events pipe:pipe_prefill / pipe:pipe_trim missing"
		fi
		check_eq "knobs off: no prefill events in writes" "$(count writes pipe_prefill)" 0
		check_eq "knobs off: trims only at free, pool <= keep (2)" \
			"$(count writes pipe_trim side=read) $(count writes pipe_trim side=write) $(( $(maxf writes pipe_trim before) <= 2 ))" "0 0 1"
		set -- $(page_balance writes)
		check_eq "knobs off: writes page balance (allocated == freed)" "$1" "$2"
		guest_pool_tests
	fi
elif [ "$KERNEL" = debug ]; then
	# KASAN + lockdep kernel: the integrity stress below (knobs flipped
	# while it runs; run-in-vm.sh fails the run on any splat) and the
	# injected fault, which needs fail_usercopy (config-debug)
	check_eq "debug kernel: lock dependency validator on, knobs present" \
		"$([ -e /proc/lockdep ] && have_knobs && echo yes)" yes
	batch_injected_fault
else
	if [ -d $T/events/pipe ]; then tap "not ok" "unpatched kernel has pipe events"
	else tap ok "unpatched kernel has no pipe events"; fi
fi

# free pages including the per-cpu page lists (pcp pages are free but not
# in nr_free_pages)
free_pages() {
	sync; echo 3 > /proc/sys/vm/drop_caches
	awk '$1 == "nr_free_pages" { f = $2 } $1 == "count:" { p += $2 }
	     END { print f + p }' /proc/vmstat /proc/zoneinfo
}

# 7. knob flipper for the stress run: all combinations, fast
flipper() {
	local i=0
	while :; do
		knobs $((i % 3 == 0 ? 0 : (i % 9) )) $((i % 9)) $((i % 2)) 2>/dev/null
		i=$((i + 1))
		sleep 0.0$((i % 7 + 1))
	done
}

# BPF smoke: tp_btf on the pipe events (patched), fentry on pipe_read (both)
if [ -n "$BIN" ] && [ -f "$BIN/$KERNEL/bpfsmoke.bpf.o" ]; then
	trace_reset
	"$BIN/bpfsmoke" "$BIN/$KERNEL/bpfsmoke.bpf.o" 20 > "$W/bpf.out" 2>&1
	rc=$?
	cat "$W/bpf.out"
	check_eq "bpf: load and attach" $rc 0
	if [ "$KERNEL" = patched ]; then
		check_eq "bpf: tp_btf counts (20 EAGAIN, 21 copies, page_get deref ok, 20 fentry)" \
			"$(grep '^eagain=' "$W/bpf.out")" "eagain=20 copy=21 pageget_ok=1 fentry=20"
	else
		check_eq "bpf: fentry/pipe_read count" \
			"$(grep '^eagain=' "$W/bpf.out")" "eagain=0 copy=0 pageget_ok=0 fentry=20"
	fi
fi

# 6. integrity stress (both kernels), pipe events on when they exist
if [ -d $T/events/pipe ]; then
	trace_reset
	echo 1 > $T/events/pipe/enable
	echo 1 > $T/tracing_on
fi
if have_knobs; then
	flipper &
	fpid=$!
fi
"$PT" stress 4 3 1500 131072 > "$W/stress.out" 2>&1
rc=$?
echo 0 > $T/tracing_on
cat "$W/stress.out"
if have_knobs; then
	kill $fpid; wait $fpid 2>/dev/null
	knobs 8 2 1
	check_eq "stress, knobs flipped while running: no loss or corruption" $rc 0
	cat $T/trace > "$W/stress.trace"
	e=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' "$W/stress.trace")
	set -- $e
	check_eq "stress: no events lost" "${1:-?}" "${2:-!}"
	set -- $(page_balance stress)
	check_eq "stress: no page leak (pages allocated == pages freed, from events)" "$1" "$2"
	echo "# stress: $(count stress pipe_prefill) prefills, $(count stress pipe_trim) trims, $(count stress pipe_copy batched=1) batched reads"
	trace_reset
	# again untraced (tracing itself allocates), counting free pages
	free0=$(free_pages)
	flipper &
	fpid=$!
	"$PT" stress 4 3 1500 131072 > "$W/stress2.out" 2>&1
	rc=$?
	kill $fpid; wait $fpid 2>/dev/null
	knobs 8 2 1
	check_eq "stress, untraced, knobs flipped: no loss or corruption" $rc 0
	free1=$(free_pages)
	d=$((free0 - free1))
	echo "# free pages (incl. pcp) before $free0 after $free1 (diff $d)"
	if [ "$KERNEL" = debug ]; then
		echo "# debug kernel: the address sanitizer's quarantine holds freed slab memory, free page count not checked"
	elif [ $d -lt 256 ]; then tap ok "stress: free pages back within 1 MiB (diff $d pages)"
	else tap "not ok" "stress: $d pages fewer free after the stress"; fi
else
	check_eq "stress: 4 writers x 3 readers, odd records, big writes: no loss or corruption" $rc 0
fi
trace_reset

echo "1..$n"
echo "# $failed of $n failed"
[ $failed -gt 100 ] && failed=100
exit $failed
