#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cost figures of the pipe paths, run INSIDE a single-vCPU test VM started
# with run-in-vm.sh --icount (guest ns = instructions; the CPU counter
# plugin loaded) as
#   guest-budget.sh PTWORK
# For each workload and setting ("unpatched" on the unpatched kernel,
# "off" = the A/B switches off (prealloc-max 0, keep 2, read-batch 0) and
# "on" = their defaults on the patched one; on the tracepoints kernel, the
# series' events without the pool and the batch, "tracepoints": only the
# untraced runs, what the events cost compiled in and disabled):
#  - a traced run counting, per operation, pipe pages allocated
#    (kmem:mm_page_alloc, order 0, GFP_HIGHUSER|__GFP_ACCOUNT) and freed
#    (kmem:mm_page_free of those pfns), pipe->mutex acquisitions in
#    anon_pipe_write()/anon_pipe_read() (function tracer on
#    mutex_lock/mutex_trylock, by caller; the series' prefill takes it in
#    anon_pipe_prefill_lock() where that is not inlined), pages
#    allocated between a write's lock and its unlock, io_uring poll arms
#    (io_uring:io_uring_poll_arm) and io-wq punts
#    (io_uring:io_uring_queue_async_work), pipe pages held at a "ptwork
#    idle" trace marker (allocated - freed before it), ptwork's own
#    nowait_eagain= figure and, on the patched kernel, the series' own
#    events (waits, prefills, trims, writes);
#  - untraced runs giving instructions per operation (ns_per_op of ptwork
#    under -icount shift=0), RUNS of them (median taken on the host);
#  - one untraced counted run (PTWORK_MARK=1: ptwork brackets its measured
#    loop with the CPU counter's marks) for the workloads in COUNTED; the
#    counter writes its figures on the host, which pairs them in order
#    with the "name config ops" lines of $PIPETRACE_RESULTS/counted.txt.
# Writes "workload config metric value" lines to $PIPETRACE_RESULTS/budget.txt;
# tests/vm/budget.sh checks and tabulates them on the host.
set -u
PT=${1:?usage: guest-budget.sh PTWORK}
T=/sys/kernel/tracing
K=/proc/sys/fs
OUT=${PIPETRACE_RESULTS:-/tmp}/budget.txt
COUNTED_OUT=${PIPETRACE_RESULTS:-/tmp}/counted.txt
RUNS=${PIPETRACE_BUDGET_RUNS:-7}
W=$(mktemp -d)
: > "$OUT"
: > "$COUNTED_OUT"
fails=0

# workload name, ops, ptwork arguments
WORKLOADS="pingpong 10000 pingpong 10000
w4k 256 writes 256 4096
w32k 128 writes 128 32768
w64k 64 writes 64 65536
slowreader 4 writes 4 1048576 4096
mix 1 stress 2 2 300 131072
eagain 200 eagain-write 200 65536
nowait 200 nowait-write 200 65536
epipe 200 epipe 200 65536
sigwrite 5 sigwrite 5 65536
urstream 64 uring-stream 64
urbusy 10 uring-busy 10
idle 256 idle 256
faultw 32 fault-write 32
read64k 16 fullread 16
splice 1000 spliceop splice 1000
tee 1000 spliceop tee 1000
vmsplice 1000 spliceop vmsplice 1000"

put() { echo "$*" >> "$OUT"; }

traced() { # name config ops args...
	local name=$1 cfg=$2 ops=$3 tr=$W/$1-$2.trace; shift 3
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 0 > $T/events/enable
	echo 32768 > $T/buffer_size_kb
	echo 'mutex_lock mutex_trylock mutex_unlock' > $T/set_ftrace_filter
	echo function > $T/current_tracer
	echo 1 > $T/events/kmem/mm_page_alloc/enable
	echo 1 > $T/events/kmem/mm_page_free/enable
	echo 1 > $T/events/io_uring/io_uring_poll_arm/enable
	echo 1 > $T/events/io_uring/io_uring_queue_async_work/enable
	[ -d $T/events/pipe ] && echo 1 > $T/events/pipe/enable
	echo > $T/trace
	echo 1 > $T/tracing_on
	"$PT" "$@" > "$W/out" 2>&1 || { echo "# $name $cfg: ptwork failed: $(cat "$W/out")"; fails=$((fails + 1)); }
	echo 0 > $T/tracing_on
	cat $T/trace > "$tr"
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	echo 0 > $T/events/enable
	cp "$tr" "${PIPETRACE_RESULTS:-/tmp}/" 2>/dev/null
	awk -v w="$name" -v c="$cfg" -v ops="$ops" -v out="$W/out" '
		BEGIN {
			nowait = -1
			while ((getline l < out) > 0) if (l ~ /^nowait_eagain=/) nowait = substr(l, 15) + 0
		}
		/^# entries-in-buffer/ { split($3, e, "/"); lost = e[2] - e[1] }
		/^#/ { next }
		/ mm_page_alloc: / && / order=0 / && /__GFP_ACCOUNT/ && /__GFP_HARDWALL|GFP_HIGHUSER[|]/ &&
		    !/__GFP_ZERO|__GFP_COMP|MOVABLE/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^pfn=/) pipe[$i] = 1
			alloc++
			if ($1 in wlock) alloc_locked++
		}
		/ mm_page_free: / { for (i = 1; i <= NF; i++) if ($i in pipe) { free++; delete pipe[$i] } }
		/ mutex_(try)?lock <-anon_pipe_(write|prefill_lock)/ { wlock[$1] = 1 }
		/ mutex_unlock <-anon_pipe_write/ { delete wlock[$1] }
		/ tracing_mark_write: ptwork idle/ && !marked { marked = 1; held = alloc - free }
		/ io_uring_poll_arm: / { arms++ }
		/ io_uring_queue_async_work: / { punts++ }
		/ mutex_(try)?lock <-anon_pipe_(write|prefill_lock)/ { mw++ }
		/ mutex_(try)?lock <-anon_pipe_read/ { mr++ }
		/ pipe_wait_end: / && / side=write/ { ww++ }
		/ pipe_wait_end: / && / side=read/ { wr++ }
		/ pipe_prefill: / { pf++ }
		/ pipe_trim: / && !/ side=free/ { tr++ }
		/ pipe_copy: / && / side=write/ { wc++ }
		END {
			printf "%s %s lost %d\n", w, c, lost
			printf "%s %s alloc %d\n%s %s free %d\n", w, c, alloc, w, c, free
			printf "%s %s mutex_w %d\n%s %s mutex_r %d\n", w, c, mw, w, c, mr
			printf "%s %s wait_w %d\n%s %s wait_r %d\n", w, c, ww, w, c, wr
			printf "%s %s prefill %d\n%s %s trim %d\n%s %s writes %d\n", w, c, pf, w, c, tr, w, c, wc
			printf "%s %s arms %d\n%s %s punts %d\n", w, c, arms, w, c, punts
			printf "%s %s alloc_locked %d\n", w, c, alloc_locked
			if (marked) printf "%s %s held_pages %d\n", w, c, held
			if (nowait >= 0) printf "%s %s nowait_eagain %d\n", w, c, nowait
			printf "%s %s ops %d\n", w, c, ops
		}' "$tr" >> "$OUT"
}

# One run with the CPU counter's marks (the counter, on the host, writes
# its figures at the end mark); the run's name in counted.txt, in order
counted() { # name config ops args...
	local name=$1 cfg=$2 ops=$3; shift 3
	if PTWORK_MARK=1 "$PT" "$@" > "$W/out" 2>&1; then
		echo "$name $cfg $ops" >> "$COUNTED_OUT"
	else
		echo "# $name $cfg counted: ptwork failed: $(cat "$W/out")"; fails=$((fails + 1))
	fi
}

timed() { # name config args...
	local name=$1 cfg=$2 i v; shift 2
	for i in $(seq "$RUNS"); do
		v=$("$PT" "$@" | sed -n 's/^ns_per_op=//p')
		put "$name $cfg instr $v"
	done
}

# workloads with instructions per op (untraced runs)
TIMED="pingpong w4k w32k w64k slowreader splice tee vmsplice"
# and with a counted run (ptwork marks its loop)
COUNTED="pingpong w32k w64k read64k splice tee vmsplice"
# and those the tracepoints kernel runs
TIMED_TP="pingpong w4k w64k splice tee vmsplice"

run_config() { # config
	local cfg=$1 name ops args
	while read -r name ops args; do
		if [ "$cfg" = tracepoints ]; then
			# shellcheck disable=SC2086
			case " $TIMED_TP " in *" $name "*) timed "$name" "$cfg" $args;; esac
			continue
		fi
		# shellcheck disable=SC2086
		traced "$name" "$cfg" "$ops" $args
		# shellcheck disable=SC2086
		case " $TIMED " in *" $name "*) timed "$name" "$cfg" $args;; esac
		# shellcheck disable=SC2086
		case " $COUNTED " in *" $name "*) counted "$name" "$cfg" "$ops" $args;; esac
	done <<< "$WORKLOADS"
}

# one CPU, SCHED_FIFO: tasks switch only when one blocks (no tick
# preemption), so every count below is exact and repeatable
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
export PTWORK_FIFO=1
echo "# guest-budget on ${PIPETRACE_KERNEL:-?} kernel $(uname -r), $(nproc) CPU(s)"
# copy_user_generic() copies with rep movsb on FSRM CPUs, and so does
# rep_movs_alternative() for 64 bytes or more on ERMS CPUs; qemu -icount
# counts one instruction per byte of it: say which copy the figures have
echo "# user copy: $(grep -qw fsrm /proc/cpuinfo && echo 'rep movsb (FSRM)' ||
	{ grep -qw erms /proc/cpuinfo && echo 'rep movsb (ERMS, rep_movs_alternative)'; } ||
	echo 'movsq loop (rep_movs_alternative)')"
if [ -f $K/pipe-prealloc-max ]; then
	echo 0 > $K/pipe-prealloc-max; echo 2 > $K/pipe-prealloc-keep; echo 0 > $K/pipe-read-batch
	run_config off
	echo 8 > $K/pipe-prealloc-max; echo 2 > $K/pipe-prealloc-keep; echo 1 > $K/pipe-read-batch
	run_config on
elif [ -d $T/events/pipe ]; then
	run_config tracepoints
else
	run_config unpatched
fi
cat "$OUT"
exit $fails
