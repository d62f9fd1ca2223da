#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pipestat inside the test VM (run by vmtest.sh through run-in-vm.sh):
#   guest-pipestat.sh PTWORK_BINARY
# cwd: the repository top (the host root is the guest's root, so the
# host-built ./pipestat and tests/host/pipework run unchanged).
#
# Checks the tier chosen (patched kernel: tracepoint; unpatched and Debian's
# 6.1 images: function), that --tier fails clearly where a tier cannot
# attach, and runs the same known-answer workloads under the chosen tier
# and under --tier syscall (which 6.1 refuses: there, the function tier's
# kprobe fallback instead), asserting exact figures (with every knob
# setting where the kernel has the knobs). Prints "ok - ..." / "not ok - ..." lines (the console log keeps
# them); exit status 0 only if all passed.
set -u
PTWORK=${1:?usage: guest-pipestat.sh PTWORK_BINARY}
cd "$(dirname "$0")/../.."
. tests/host/lib.sh
KERNEL=${PIPETRACE_KERNEL:-unknown}

# SYSCALL=0: the kernel predates the syscall tier's kfunc (Linux 6.2);
# NOWAIT=0: its pipes refuse RWF_NOWAIT (EOPNOTSUPP); VIA: how the
# function tier attaches (PREEMPT_RT: kprobes, its trampoline programs can
# be preempted and miss calls); LOCK_PER: bytes per writer in the
# contention test (default: the waits suite's own); RING=0: test_ring.sh
# did not finish there (PREEMPT_RT: over 5 minutes, the VM timed out)
SYSCALL=1 NOWAIT=1 VIA=fentry/fexit LOCK_PER= RING=1 WAITS_ONLY=
case "$KERNEL" in
patched) BEST=tracepoint;;
unpatched) BEST=function;;
debian-cloud) BEST=function SYSCALL=0 NOWAIT=0;;
debian-rt) BEST=function SYSCALL=0 NOWAIT=0 VIA=kprobes LOCK_PER=8000 RING=0
	# the interval-split tests did not finish within 10 minutes there
	WAITS_ONLY="t_slow_reader t_slow_writer t_lock t_hist_sizes t_jobserver_waits";;
*) echo "not ok - unknown kernel flavour '$KERNEL'"; exit 1;;
esac
KNOBS=0
[ -e /proc/sys/fs/pipe-prealloc-max ] && KNOBS=1

# knobs MAX KEEP BATCH (no-op on a kernel without them)
knobs() {
	[ $KNOBS = 1 ] || return 0
	echo "$1" >/proc/sys/fs/pipe-prealloc-max
	echo "$2" >/proc/sys/fs/pipe-prealloc-keep
	echo "$3" >/proc/sys/fs/pipe-read-batch
}

# col COLUMN MATCH_COLUMN MATCH_VALUE: the raw field(s) of matching rows,
# joined by spaces ("" for an empty field: a metric the tier cannot know)
col() { csv_rows "$TMP/out" "$1" "$2=$3" | paste -sd' '; }
sum() { csv_get "$TMP/out" "$@"; }

exact_tier() { [ "$1" != syscall ]; }

# --- tier choice ---------------------------------------------------------
t_choice() {
	local out pid
	start_pipestat -v -k pid --csv -n pipework || { not_ok "auto: attach"; return; }
	out=$(work eagain-read 10); pid=$(pid_of "$out")
	stop_pipestat
	expect "auto: exit status" "$PS_RC" 0
	expect "auto: tier announced on stderr" \
		"$(sed -n 's/^pipestat: \([a-z]*\) tier (.*/\1/p' "$TMP/err")" $BEST
	expect "auto: tier column" "$(col tier pid "$pid")" $BEST
	if [ $BEST = function ]; then
		expect "auto: why not tracepoint" \
			"$(grep -c '^tracepoint tier not used: kernel has no pipe:\* tracepoints' "$TMP/err")" 1
		expect "auto: function tier uses $VIA" \
			"$(grep -c "^pipestat: function tier via $VIA on pipe_read/pipe_write" "$TMP/err")" 1
		# the session layer says which front end speaks
		./pipetrace-bench -v --tier function -N 10 -R 1 pingpong >/dev/null 2>"$TMP/bench.err"
		expect "pipetrace-bench -v: its own name on the tier line" \
			"$(grep -c "^pipetrace-bench: function tier via $VIA" "$TMP/bench.err")" 1
		"$PIPESTAT" --tier tracepoint -d 1 >/dev/null 2>"$TMP/forced"
		expect "--tier tracepoint fails" $? 1
		expect "--tier tracepoint says why" "$(cat "$TMP/forced")" \
			"pipestat: tracepoint tier: kernel has no pipe:* tracepoints (see kernel-patch/)"
	fi
	if [ $SYSCALL = 0 ]; then
		"$PIPESTAT" --tier syscall -d 1 >/dev/null 2>"$TMP/forced"
		expect "--tier syscall fails" $? 1
		expect "--tier syscall says why, in one line" "$(cat "$TMP/forced")" \
			"pipestat: syscall tier: needs the bpf_rdonly_cast kfunc (Linux 6.2 or later)"
	fi
	local t
	for t in tracepoint function syscall; do
		[ $BEST = function ] && [ $t = tracepoint ] && continue
		[ $SYSCALL = 0 ] && [ $t = syscall ] && continue
		start_pipestat --tier $t --csv -n pipework || { not_ok "--tier $t: attach"; continue; }
		work eagain-read 3 >/dev/null
		stop_pipestat
		expect "--tier $t: attaches, tier column" "$(col tier key_type total)" $t
	done
}

# --- known answers -------------------------------------------------------
t_eagain_read() { # tier
	local t=$1 n=200 out pid
	start_pipestat --tier $t -k pid --csv -n pipework || { not_ok "$t eagain-read: attach"; return; }
	out=$(work eagain-read $n); pid=$(pid_of "$out")
	stop_pipestat
	expect "$t eagain-read: workload" "$out" "pid=$pid eagain-read=$n"
	expect "$t eagain-read: reads" "$(sum reads pid "$pid")" $n
	expect "$t eagain-read: eagain_read" "$(sum eagain_read pid "$pid")" $n
	expect "$t eagain-read: eagain_nonblock" "$(sum eagain_nonblock pid "$pid")" $n
	expect "$t eagain-read: eagain_nowait" "$(sum eagain_nowait pid "$pid")" 0
	expect "$t eagain-read: read_bytes" "$(sum read_bytes pid "$pid")" 0
	if exact_tier $t; then
		expect "$t eagain-read: eagain_empty" "$(col eagain_empty pid "$pid")" $n
		expect "$t eagain-read: eagain_full" "$(col eagain_full pid "$pid")" 0
	else
		expect "$t eagain-read: eagain_empty unknown" "$(col eagain_empty pid "$pid")" ""
	fi
}

t_nowait_read() { # tier
	local t=$1 n=100 out pid
	if [ $NOWAIT = 0 ]; then
		start_pipestat --tier $t -k comm --csv -n pipework || { not_ok "$t nowait-read: attach"; return; }
		"$PIPEWORK" nowait-read $n >"$TMP/work" 2>&1
		stop_pipestat
		expect "$t nowait-read: this kernel's pipes refuse RWF_NOWAIT" "$(head -1 "$TMP/work")" \
			"FAIL: call 0 did not fail as wanted (returned -1, Operation not supported)"
		expect "$t nowait-read: so no read reaches the pipe" "$(sum reads comm pipework)" ""
		return
	fi
	start_pipestat --tier $t -k pid --csv -n pipework || { not_ok "$t nowait-read: attach"; return; }
	out=$(work nowait-read $n); pid=$(pid_of "$out")
	stop_pipestat
	expect "$t nowait-read: eagain_read" "$(sum eagain_read pid "$pid")" $n
	expect "$t nowait-read: eagain_nowait" "$(sum eagain_nowait pid "$pid")" $n
	expect "$t nowait-read: eagain_nonblock" "$(sum eagain_nonblock pid "$pid")" 0
	exact_tier $t && expect "$t nowait-read: eagain_empty" "$(col eagain_empty pid "$pid")" $n
}

t_eagain_write() { # tier max
	local t=$1 max=$2 n=100 out pid hits misses
	start_pipestat --tier $t -k pid --csv -n pipework || { not_ok "$t eagain-write: attach"; return; }
	out=$(work eagain-write $n); pid=$(pid_of "$out")
	stop_pipestat
	expect "$t eagain-write: eagain_write" "$(sum eagain_write pid "$pid")" $n
	expect "$t eagain-write: writes" "$(sum writes pid "$pid")" $((n + 1))
	expect "$t eagain-write: write_bytes" "$(sum write_bytes pid "$pid")" 65536
	hits=$(sum pool_hits pid "$pid"); misses=$(sum pool_misses pid "$pid")
	exact_tier $t || [ "$max" -le 0 ] &&
		expect "$t eagain-write: pool_hits + pool_misses == 16" $((hits + misses)) 16
	if exact_tier $t; then
		expect "$t eagain-write: eagain_full" "$(col eagain_full pid "$pid")" $n
		# a fresh pipe: every page allocated; with prefill on, the first
		# 8 (the burst) before the mutex, the other 8 under it; the
		# EAGAIN writes allocate nothing
		if [ "$max" -gt 0 ]; then
			expect "$t eagain-write (prealloc $max): alloc_locked" "$(col alloc_locked pid "$pid")" 8
			expect "$t eagain-write (prealloc $max): alloc_unlocked" "$(col alloc_unlocked pid "$pid")" 8
		else
			expect "$t eagain-write: alloc_locked" "$(col alloc_locked pid "$pid")" 16
			expect "$t eagain-write: alloc_unlocked" "$(col alloc_unlocked pid "$pid")" 0
		fi
	elif [ "$max" -le 0 ]; then
		expect "$t eagain-write: alloc_locked" "$(col alloc_locked pid "$pid")" 16
	fi
}

t_stream() { # tier max
	local t=$1 max=$2 n=64 out pid hits misses locked
	start_pipestat --tier $t -k pid --csv -n pipework || { not_ok "$t stream: attach"; return; }
	out=$(work stream 65536 $n); pid=$(pid_of "$out")
	stop_pipestat
	local what="$t stream (prealloc ${max})"
	expect "$what: workload moved" "$out" "pid=$pid stream=$((n * 65536))"
	expect "$what: writes" "$(sum writes pid "$pid")" $n
	expect "$what: write_bytes" "$(sum write_bytes pid "$pid")" $((n * 65536))
	hits=$(sum pool_hits pid "$pid"); misses=$(sum pool_misses pid "$pid")
	if exact_tier $t || [ "$max" -le 0 ]; then
		expect "$what: pool_hits + pool_misses == 16N" $((hits + misses)) $((16 * n))
	fi
	# (syscall tier with prefill on: misses are all pages allocated, prefill
	# included, so hits + misses can exceed the new buffers)
	locked=$(col alloc_locked pid "$pid")
	if [ "$max" -gt 0 ]; then
		if exact_tier $t; then
			# the burst comes from the pool, at most the other 8
			# pages of each write are allocated under the mutex
			expect "$what: alloc_locked <= 8N" "$(( ${locked:-999999} <= 8 * n ))" 1
		else
			expect "$what: alloc_locked unknown" "$locked" ""
		fi
	else
		expect "$what: alloc_locked == pool_misses" "$locked" "$misses"
	fi
	expect "$what: reader read_bytes" "$(csv_sum "$TMP/out" read_bytes comm=pipework pid!="$pid")" $((n * 65536))
	expect "$what: reader copy_buffers" "$(csv_sum "$TMP/out" copy_buffers comm=pipework pid!="$pid")" $((16 * n))
}

t_fullread() { # tier batch
	local t=$1 batch=$2 k=8 secs
	start_pipestat --tier $t --csv -n ptwork || { not_ok "$t fullread: attach"; return; }
	for _ in $(seq $k); do "$PTWORK" fullread >/dev/null || not_ok "$t fullread: ptwork"; done
	stop_pipestat
	local what="$t fullread x$k (batch $batch)"
	expect "$what: reads" "$(sum reads key_type total)" $k
	expect "$what: read_bytes" "$(sum read_bytes key_type total)" $((k * 65536))
	expect "$what: copy_buffers" "$(sum copy_buffers key_type total)" $((16 * k))
	secs=$(col copy_sections key_type total)
	if [ "$batch" -gt 0 ]; then
		if [ $t = tracepoint ]; then
			expect "$what: copy_sections == reads" "$secs" $k
		else
			expect "$what: copy_sections unknown with batching on" "$secs" ""
		fi
	else
		expect "$what: copy_sections == 16 per read" "$secs" $((16 * k))
	fi
}

# io_uring on a kernel whose pipes refuse IOCB_NOWAIT: each read goes to an
# io-wq worker (iou-wrk-*) at once and blocks there until its byte comes
iou() { # COLUMN: its sum over the io-wq workers' rows ("" if none)
	local c s=
	for c in $(csv_rows "$TMP/out" comm | grep '^iou-wrk-' | sort -u); do
		s=$((${s:-0} + $(csv_get "$TMP/out" "$1" comm "$c")))
	done
	echo "$s"
}
t_uring_punted() { # tier
	local t=$1 n=16
	start_pipestat --tier $t -k comm --csv || { not_ok "$t uring: attach"; return; }
	"$PTWORK" uring $n >/dev/null || not_ok "$t uring: ptwork"
	stop_pipestat
	expect "$t uring (punted to io-wq): reads" "$(iou reads)" $n
	expect "$t uring (punted to io-wq): read_bytes" "$(iou read_bytes)" $n
	expect "$t uring (punted to io-wq): no EAGAIN at all" "$(csv_sum "$TMP/out" eagain_read)" 0
	expect "$t uring (punted to io-wq): no IOCB_NOWAIT EAGAIN" "$(csv_sum "$TMP/out" eagain_nowait)" 0
}

t_uring() { # tier
	local t=$1 n=16
	[ $NOWAIT = 1 ] || { t_uring_punted $t; return; }
	start_pipestat --tier $t --csv -n ptwork || { not_ok "$t uring: attach"; return; }
	"$PTWORK" uring $n >/dev/null || not_ok "$t uring: ptwork"
	stop_pipestat
	expect "$t uring: eagain_nowait" "$(sum eagain_nowait key_type total)" $n
	expect "$t uring: eagain_read" "$(sum eagain_read key_type total)" $n
	expect "$t uring: eagain_empty" "$(col eagain_empty key_type total)" $n
}

# reads of 0 bytes are no end of file, writer or not: one EOF (issue 26.1);
# the pipe tiers never see them (pipe_read() returns at once, untraced)
t_zero_read() { # tier
	local t=$1 n=50 out
	start_pipestat --tier $t -k comm --csv -n ptwork || { not_ok "$t zero-read: attach"; return; }
	out=$("$PTWORK" zero-read $n) || not_ok "$t zero-read: ptwork"
	stop_pipestat
	expect "$t zero-read: workload" "$(tail -1 <<<"$out")" "zero-reads=$((6 * n)) eof=1"
	expect "$t zero-read: eof_reads" "$(sum eof_reads comm ptwork)" 1
	if [ $t = syscall ]; then
		expect "$t zero-read: reads" "$(sum reads comm ptwork)" $((6 * n + 2))
	else
		expect "$t zero-read: reads" "$(sum reads comm ptwork)" 2
	fi
}

t_pingpong() { # tier batch
	local t=$1 batch=$2 n=1000 out pid hits misses
	start_pipestat --tier $t -k pid --csv -n pipework || { not_ok "$t pingpong: attach"; return; }
	out=$(work pingpong $n); pid=$(pid_of "$out")
	stop_pipestat
	expect "$t pingpong: writes" "$(sum writes pid "$pid")" $n
	expect "$t pingpong: reads" "$(sum reads pid "$pid")" $n
	hits=$(sum pool_hits pid "$pid"); misses=$(sum pool_misses pid "$pid")
	# every 1-byte write lands in an empty pipe: one new buffer each
	exact_tier $t || [ "$batch" -le 0 ] &&
		expect "$t pingpong: new buffers" $((hits + misses)) $n
	if [ $t = function ] && [ "$batch" -gt 0 ]; then
		expect "$t pingpong: copy_buffers unknown with batching on" "$(col copy_buffers pid "$pid")" ""
	else
		expect "$t pingpong: copy_buffers" "$(col copy_buffers pid "$pid")" $n
	fi
}

# make's jobserver: blocked 1-byte readers, each copies exactly its tokens
t_jobserver() { # tier batch
	local t=$1 batch=$2 tokens=600 out pid n
	[ $t = function ] && [ "$batch" -gt 0 ] && return 0
	start_pipestat --tier $t -k pid --csv -n pipework || { not_ok "$t jobserver: attach"; return; }
	out=$(work jobserver 6 $tokens)
	stop_pipestat
	for pid in $(sed -n 's/^reader pid=\([0-9]*\) .*/\1/p' <<<"$out"); do
		n=$(sed -n "s/^reader pid=$pid tokens=\([0-9]*\).*/\1/p" <<<"$out")
		expect "$t jobserver: reader $pid read_bytes" "$(sum read_bytes pid "$pid")" "$n"
		expect "$t jobserver: reader $pid copy_buffers" "$(sum copy_buffers pid "$pid")" "$n"
	done
	expect "$t jobserver: copy_buffers over all readers" "$(sum copy_buffers comm pipework)" $tokens
	expect "$t jobserver: writer writes" "$(sum writes pid "$(pid_of "$out")")" $tokens
}

# a FIFO keyed by its own inode
t_fifo() { # tier batch
	local t=$1 batch=$2 n=32 ino
	[ $t = function ] && [ "$batch" -gt 0 ] && return 0
	rm -f "$TMP/fifo"
	start_pipestat --tier $t -k pipe --csv -n pipework || { not_ok "$t fifo: attach"; return; }
	"$PIPEWORK" stream 65536 $n "$TMP/fifo" >/dev/null || not_ok "$t fifo: pipework"
	stop_pipestat
	ino=$(stat -c %i "$TMP/fifo")
	expect "$t fifo by pipe: writes" "$(sum writes pipe_ino "$ino")" $n
	expect "$t fifo by pipe: write_bytes" "$(sum write_bytes pipe_ino "$ino")" $((n * 65536))
	expect "$t fifo by pipe: reads (and EOF)" "$(sum reads pipe_ino "$ino")" $((n + 1))
	expect "$t fifo by pipe: copy_buffers" "$(sum copy_buffers pipe_ino "$ino")" $((16 * n))
}

suite() { # tier max batch
	local t=$1
	t_eagain_read $t
	t_nowait_read $t
	t_eagain_write $t "$2"
	t_stream $t "$2"
	t_fullread $t "$3"
	t_pingpong $t "$3"
	t_jobserver $t "$3"
	t_fifo $t "$3"
	t_zero_read $t
	exact_tier $t && t_uring $t
}

echo "# pipestat in the $KERNEL kernel ($(uname -r)), knobs: $KNOBS"
t_choice
if [ $KNOBS = 1 ]; then
	for t in $BEST syscall; do
		knobs 0 1 0; suite $t 0 0
		knobs 8 1 1; suite $t 8 1
	done
	# the function tier on the patched kernel with the 6.12 behaviour
	knobs 0 1 0; suite function 0 0
	knobs 8 1 1
elif [ $SYSCALL = 1 ]; then
	suite $BEST -1 -1
	suite syscall -1 -1
else
	suite $BEST -1 -1
fi
# Tracepoint tier: a call's tally sits in a slot picked by thread id, or in
# task storage when another thread holds the slot. Every thread on one slot
# (PIPETRACE_ONE_CALL_SLOT=1) sends all but one of them there: the same
# answers must come out.
if [ $BEST = tracepoint ]; then
	echo "# PIPETRACE_ONE_CALL_SLOT=1: tracepoint tier tallies spill to task storage"
	export PIPETRACE_ONE_CALL_SLOT=1
	if [ $KNOBS = 1 ]; then
		knobs 8 1 1; max=8 batch=1
	else
		max=-1 batch=-1
	fi
	t_eagain_read tracepoint
	t_eagain_write tracepoint $max
	t_stream tracepoint $max
	t_pingpong tracepoint $batch
	t_jobserver tracepoint $batch
	unset PIPETRACE_ONE_CALL_SLOT
fi
# host suites run here on a tier: time (waits, pipe->mutex contention,
# histograms; with the knobs on where it has them) and each pipe's ring
host_suite() { # suite tier [label]
	local log=$TMP/$1.log what=${3:-$2 tier}
	TIER=$2 LOCK_PER=$LOCK_PER WAITS_ONLY=$WAITS_ONLY tests/host/test_$1.sh >"$log" 2>&1
	sed -n "s/^\(not \)\{0,1\}ok - /&$what: /p" "$log"
	passed=$((passed + $(grep -c '^ok' "$log")))
	failed=$((failed + $(grep -c '^not ok' "$log")))
	grep -q '^[0-9]* passed' "$log" || not_ok "$what: $1 suite did not finish"
}

# the function tier's kprobe fallback (as on kernels that refuse fentry)
export PIPESTAT_NO_FENTRY=1
start_pipestat -v --tier function --csv -n pipework && stop_pipestat
expect "kprobe fallback: announced" \
	"$(grep -c '^pipestat: function tier via kprobes on pipe_read/pipe_write' "$TMP/err")" 1
if [ $SYSCALL = 0 ] && [ $VIA = fentry/fexit ]; then
	# no syscall tier to fall back on: auto takes the kprobes, and they
	# get every suite the fentry flavour got (on PREEMPT_RT the suites
	# above ran on kprobes already)
	start_pipestat -v --csv -n pipework && stop_pipestat
	expect "kprobe fallback: auto picks it" \
		"$(grep -c '^pipestat: function tier via kprobes on pipe_read/pipe_write' "$TMP/err")" 1
	echo "# function tier via kprobes"
	suite function -1 -1
	host_suite pipestat_waits function "function tier (kprobes)"
elif [ $SYSCALL = 1 ]; then
	knobs 0 1 0
	t_eagain_read function
	t_eagain_write function 0
	t_stream function 0
	t_fullread function 0
	t_jobserver function 0
	knobs 8 1 1
fi
unset PIPESTAT_NO_FENTRY

host_suite pipestat_waits $BEST
if [ $RING = 1 ]; then
	host_suite ring $BEST
else
	echo "# test_ring.sh not run in the $KERNEL kernel: it did not finish there (tests/vm/README.md)"
fi
summary
