#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What attaching pipestat costs, in instructions, run INSIDE a single-vCPU
# test VM started with run-in-vm.sh --icount (guest ns = instructions):
#   guest-bench.sh PTWORK [ROUNDS [PP_N [ST_N [TIERS]]]]
# cwd: the repository top (the host-built ./pipestat runs over 9p).
#
# ROUNDS (default 5) rounds, each running every setup in turn: nothing
# attached; then for each tier this kernel offers (patched: tracepoint,
# function, syscall; unpatched: function, syscall; or TIERS, quoted) the
# tier's floor where there is one (empty programs on the hooks the tier
# needs, held by build/bpfattach: build/tpladder0.bpf.o on the tracepoint
# tier's events, build/floor.bpf.o on sys_enter/sys_exit), `./pipestat
# --tier T --csv --no-waits` (one report at Ctrl-C, nothing in user space
# while it counts; CSV: every column, so every hook but the sleeps') and
# `./pipestat --tier T --csv` (every hook) and `./pipestat --tier T --csv
# -o default` (the hooks of the default view's columns, setup view; CSV:
# the other columns empty). The tracepoint tier also gets
# the steps from its floor up (build/tpladder*.bpf.o, see
# tests/bench/tpladder.bpf.c: setups tstep1..tstep5, tstep4c, tstep5o);
# on the unpatched kernel the syscall tier gets its own (build/ladder*.bpf.o, see
# tests/bench/ladder.bpf.c: setups step1..step4, step3t, step4p), when
# built; the function tier its own (build/fladder*.bpf.o, see
# tests/bench/fladder.bpf.c: setups fstep1..fstep5, fstep4h, fstep2x,
# fstep2k, fstep3r), on every kernel. In each setup two workloads
# (tests/vm/ptwork.c):
#   pp  ptwork pingpong PP_N (default 10000): 1-byte round trips between
#       two processes; op = one round trip (2 writes, 2 reads)
#   st  ptwork writes ST_N 65536 (default 200): 64 KiB writes, a reader
#       drains 64 KiB at a time; op = one 64 KiB write
# Both run SCHED_FIFO on the one CPU (PTWORK_FIFO, as guest-budget.sh):
# they switch only when one blocks, so nothing else runs inside the timed
# loop and the count repeats. ptwork's ns_per_op is instructions per op.
# Writes "kernel tier setup workload instr" lines to
# $PIPETRACE_RESULTS/vmbench.txt (tier "-" for nothing attached; setup
# off | floor | a ladder step | pipestat | waits | view);
# tests/bench/vm_bench.sh tabulates them.
set -u
PT=${1:?usage: guest-bench.sh PTWORK}
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
KERNEL=${PIPETRACE_KERNEL:-unknown}
OUT=${PIPETRACE_RESULTS:-/tmp}/vmbench.txt
ROUNDS=${2:-5}
PP_N=${3:-10000}
ST_N=${4:-200}
case "$KERNEL" in
patched) TIERS=${5:-tracepoint function syscall} ;;
*) TIERS=${5:-function syscall} ;;
esac
W=$(mktemp -d)
PS=
trap '[ -n "$PS" ] && kill -INT $PS 2>/dev/null; rm -rf "$W"' EXIT
: >"$OUT"
fails=0

# start READY CMD...: CMD in the background ($PS), until it has attached
start() {
	bg_start "$W" "$@" || { echo "# ${*:2} did not attach: $(cat "$W/err")"; return 1; }
}

stop() { # setup
	bg_stop || { echo "# $1 exited $?"; fails=$((fails + 1)); }
	# pipestat counted the workloads: the total row's writes (both
	# workloads' writes, > PP_N + ST_N)
	if [ "$1" = pipestat ] || [ "$1" = waits ] || [ "$1" = view ]; then
		local w
		w=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			$col["key_type"] == "total" { print $col["writes"] }' "$W/out")
		[ "${w:-0}" -gt $((PP_N + ST_N)) ] ||
			{ echo "# pipestat saw ${w:-no} writes: $(cat "$W/out")"; fails=$((fails + 1)); }
	fi
	# let what the detach left (RCU, deferred frees) run before the next
	# setup: idle time costs nothing under -icount sleep=off
	sleep 1
}

# the tier's floor: its hooks with empty programs (none for the function tier)
floor_of() {
	case $1 in
	tracepoint) echo build/tpladder0.bpf.o ;;
	syscall) echo build/floor.bpf.o ;;
	esac
}

# one setup of tier t: start it, both workloads, stop it
setup() { # tier setup
	local t=$1 s=$2
	case $s in
	floor) start attached build/bpfattach "$(floor_of "$t")" ;;
	step*) start attached build/bpfattach "build/ladder${s#step}.bpf.o" ;;
	fstep*) start attached build/bpfattach "build/fladder${s#fstep}.bpf.o" ;;
	tstep*) start attached build/bpfattach "build/tpladder${s#tstep}.bpf.o" ;;
	pipestat) start 'Ctrl-C to end' ./pipestat --tier "$t" --csv --no-waits ;;
	waits) start 'Ctrl-C to end' ./pipestat --tier "$t" --csv ;;
	view) start 'Ctrl-C to end' ./pipestat --tier "$t" --csv -o default ;;
	esac || { fails=$((fails + 1)); return; }
	measure "$t" "$s"
	stop "$s"
}

# one setup's figures: tier setup
measure() {
	local v
	v=$("$PT" pingpong "$PP_N" | sed -n 's/^ns_per_op=//p')
	[ -n "$v" ] && echo "$KERNEL $1 $2 pp $v" >>"$OUT" || fails=$((fails + 1))
	v=$("$PT" writes "$ST_N" 65536 | sed -n 's/^ns_per_op=//p')
	[ -n "$v" ] && echo "$KERNEL $1 $2 st $v" >>"$OUT" || fails=$((fails + 1))
}

ulimit -l unlimited 2>/dev/null
echo -1 >/proc/sys/kernel/sched_rt_runtime_us
export PTWORK_FIFO=1
knobs=
for k in pipe-prealloc-max pipe-prealloc-keep pipe-read-batch; do
	[ -f /proc/sys/fs/$k ] && knobs="$knobs $k=$(cat /proc/sys/fs/$k)"
done
echo "# guest-bench on $KERNEL kernel $(uname -r), $(nproc) CPU(s), tiers: $TIERS;${knobs:- no knobs}"
echo "# kernel $KERNEL $(uname -r)${knobs}" >>"$OUT"
"$PT" pingpong 100 >/dev/null	# warm the page cache and the dentries
for r in $(seq "$ROUNDS"); do
	measure - off
	for t in $TIERS; do
		f=$(floor_of "$t")
		[ -n "$f" ] && [ -f "$f" ] && [ -x build/bpfattach ] && setup "$t" floor
		if [ "$t" = tracepoint ]; then
			for step in 1 2 3 4 5 4c 5o; do
				[ -f "build/tpladder$step.bpf.o" ] && setup tracepoint "tstep$step"
			done
		fi
		if [ "$t" = syscall ] && [ "$KERNEL" = unpatched ]; then
			for step in 1 2 3 4 1g 3t 4p; do
				[ -f "build/ladder$step.bpf.o" ] && setup syscall "step$step"
			done
		fi
		if [ "$t" = function ]; then
			for step in 1 2 3 4 5 4h 2x 2k 3r; do
				[ -f "build/fladder$step.bpf.o" ] && setup function "fstep$step"
			done
		fi
		setup "$t" pipestat
		setup "$t" waits
		setup "$t" view
	done
	echo "# round $r done"
done
cat "$OUT"
exit $fails
