#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pipestat inside the test VM (run by vmtest.sh through run-in-vm.sh):
#   guest-pipestat.sh PTWORK_BINARY
# cwd: the repository top (the host root is the guest's root, so the
# host-built ./pipestat and tests/host/pipework run unchanged; an arm64
# guest runs the cross build's, make ARCH=arm64).
#
# What to expect of the kernel is its row in tests/vm/kernels
# ($PIPETRACE_KERNEL). Checks the tier chosen (patched kernel: tracepoint;
# unpatched and Debian's images: function), that --tier fails clearly
# where a tier cannot attach, and runs the same known-answer workloads
# under the chosen tier and under --tier syscall (which 6.1 refuses:
# there, the function tier's kprobe fallback instead), asserting exact
# figures (with every knob setting where the kernel has the knobs); on a
# kernel pipestat cannot attach to (best tier none), only that it refuses
# clearly. Prints "ok - ..." / "not ok - ..." lines (the console log
# keeps them); exit status 0 only if all passed.
set -u
PTWORK=${1:?usage: guest-pipestat.sh PTWORK_BINARY}
cd "$(dirname "$0")/../.."
# the repository's own programs are x86-64 ones
if [ "$(uname -m)" = aarch64 ]; then
	B=build-arm64
	export PIPESTAT=$B/bin/pipestat PIPETRACE_BENCH=$B/bin/pipetrace-bench \
		PIPEWORK=$B/tests/host/pipework PIPEWORK32=$B/tests/host/pipework32
fi
. tests/host/lib.sh
KERNEL=${PIPETRACE_KERNEL:-unknown}

# The kernel's row (tests/vm/kernels): BEST, the tier auto must pick
# (none: pipestat refuses to run); SYSCALL=0: --tier syscall is refused
# (the kernel predates its kfunc, Linux 6.2); VIA: how the function tier
# attaches (PREEMPT_RT: kprobes, its trampoline programs can be preempted
# and miss calls); SUITES: what runs, by time (a process start costs
# ~0.4 s in Debian's images under TCG, each suite 4-8 times as long as
# on our kernels, and make vmtest must fit CI's time): all (every host
# suite), full (known answers on auto, syscall and the kprobe fallback,
# waits), core (the core known answers on auto and syscall), refuse
# (pipestat's refusals only); and the host suites' settings (NOWAIT=0:
# pipes refuse RWF_NOWAIT; LOCK_PER: bytes per writer in the contention
# test).
field() { (. tests/vm/lib.sh && kernel_field "$KERNEL" "$1"); }
FROM=$(field from) || { echo "not ok - kernel '$KERNEL' is not in tests/vm/kernels"; exit 1; }
BEST=$(field best) SYSCALL=$(field syscall) VIA=$(field via)
# (PIPETRACE_SUITES: another level, by hand, from a wrapper script that
# sets it: the guest gets no environment of the caller's)
SUITES=${PIPETRACE_SUITES:-$(field suites)}
NOWAIT=1 LOCK_PER= CORE_MORE=
for v in $(field vars); do
	case "$v" in
	-) ;;
	[A-Z]*=*) export "${v?}";;
	*) echo "not ok - tests/vm/kernels, $KERNEL: not VAR=VALUE: $v"; exit 1;;
	esac
done
bad_row() { echo "not ok - tests/vm/kernels, $KERNEL: $1"; exit 1; }
case $SYSCALL in yes) SYSCALL=1;; no) SYSCALL=0;; *) bad_row "syscall '$SYSCALL'";; esac
case $VIA in fentry) VIA=fentry/fexit;; kprobes|-) ;; *) bad_row "via '$VIA'";; esac
[[ $BEST,$SUITES =~ ^(none,refuse|(tracepoint|function),(all|full|core))$ ]] ||
	bad_row "best '$BEST', suites '$SUITES'"
# the known answers on core: the counts every tier gets, and those the
# row adds (CORE_MORE, comma-separated); where the kernel
# preallocates before pipe->mutex (7.2), the page rule by size and on FIFOs
CORE="t_eagain_read t_eagain_write t_eagain_write_big t_stream t_fullread t_jobserver ${CORE_MORE//,/ }"
[ "${PREALLOC:-0}" = 0 ] || CORE="$CORE t_prealloc_sizes t_fifo"
# the function tier's functions (Linux 6.16 split the anonymous pipes'
# out of the FIFOs')
FNS='\(anon_\)\{0,1\}pipe_read/\(anon_\)\{0,1\}pipe_write'
KNOBS=0
[ -e /proc/sys/fs/pipe-prealloc-max ] && KNOBS=1

# qemu TCG and Debian's 6.1 cloud image: attaching the first program to a
# tracepoint turns its static branch on (a text_poke of the call site),
# and both vCPUs then spun (soft lockups at __alloc_pages+0x20f, where
# trace_mm_page_alloc's branch is, or at __schedule+0x1bc with the other
# vCPU in text_poke_bp's IPI; RCU stalls, no progress) in 4 of 5 runs of
# this script, on a quiet machine too; our own kernels and the RT image
# never did. The tracepoints the programs use are switched on once here,
# into a stopped trace buffer: the suites' attaches and detaches then only
# add and remove probes, no code changes under a running vCPU. One probe
# is not enough: a tracepoint's call site is a static call, patched to the
# probe itself while it has one and to the iterator over its probes from
# two on, so the first program attached and the last detached still
# patched it (Debian 14's cloud image: "Oops: int3" at
# __alloc_frozen_pages_noprof+0x26f, a vCPU running the int3 of a poke
# already finished, 743 s into the known answers; and at
# trace_syscall_exit+0xa as the syscall tier attached to raw_syscalls).
# Each is therefore also switched on in a second trace instance (its own
# probe: same function, other data), which keeps two. What the programs
# count is the same either way.
tracepoints_on() {
	local tr=/sys/kernel/tracing e i
	mkdir -p $tr/instances/pipetrace-pin || { not_ok "tracefs: instance"; return; }
	echo 4 >$tr/instances/pipetrace-pin/buffer_size_kb
	for i in $tr $tr/instances/pipetrace-pin; do
		echo 0 >$i/tracing_on || { not_ok "tracefs: tracing_on ($i)"; return; }
		for e in kmem/mm_page_alloc sched/sched_switch lock/contention_begin \
			lock/contention_end raw_syscalls/sys_enter raw_syscalls/sys_exit; do
			[ -e $i/events/$e/enable ] || continue
			echo 1 >$i/events/$e/enable || not_ok "tracefs: enable $e ($i)"
		done
	done
}
[ "$FROM" = self ] || tracepoints_on

# knobs MAX KEEP BATCH (no-op on a kernel without them)
knobs() {
	[ $KNOBS = 1 ] || return 0
	echo "$1" >/proc/sys/fs/pipe-prealloc-max
	echo "$2" >/proc/sys/fs/pipe-prealloc-keep
	echo "$3" >/proc/sys/fs/pipe-read-batch
}

# col COLUMN MATCH_COLUMN MATCH_VALUE: the raw field(s) of matching rows
col() { csv_rows "$TMP/out" "$1" "$2=$3" | paste -sd' '; }

# --- tier choice ---------------------------------------------------------
t_choice() {
	local out pid tps="tp_btf tracepoints"
	# kprobes where the kernel preempts in the kernel: the tracepoint
	# programs too run by perf there, unpreempted
	[ "$VIA" = kprobes ] && tps="tracepoints by perf"
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
			"$(grep -c "^pipestat: function tier via $VIA on $FNS" "$TMP/err")" 1
		expect "auto: function tier's tracepoints: $tps" \
			"$(grep -c "^pipestat: function tier via $VIA on $FNS, $tps (preempt=" "$TMP/err")" 1
		# the session layer says which front end speaks
		"$PIPETRACE_BENCH" -v --tier function -N 10 -R 1 pingpong >/dev/null 2>"$TMP/bench.err"
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
		start_pipestat -v --tier $t --csv -n pipework || { not_ok "--tier $t: attach"; continue; }
		work eagain-read 3 >/dev/null
		stop_pipestat
		expect "--tier $t: attaches, tier column" "$(col tier key_type total)" $t
		[ $t = syscall ] || continue
		expect "--tier syscall: its tracepoints: $tps" \
			"$(grep -c "^pipestat: syscall tier via $tps (preempt=" "$TMP/err")" 1
	done
}

# pipestat on a kernel it cannot attach to (Debian 11's 5.10): every tier
# refused, exit status 1, one line on stderr saying what the kernel
# lacks (not an errno alone), nothing on stdout
t_refusal() {
	local a line what
	for a in "" "--tier function" "--tier syscall" "--tier tracepoint"; do
		what=${a:-auto}
		# shellcheck disable=SC2086 # the option and its value: two words
		"$PIPESTAT" $a -d 1 >"$TMP/out" 2>"$TMP/forced"
		expect "$what: refused, exit status" $? 1
		expect "$what: one line on stderr" "$(wc -l <"$TMP/forced")" 1
		expect "$what: nothing on stdout" "$(wc -c <"$TMP/out")" 0
		line=$(head -1 "$TMP/forced")
		if grep -Eq '^pipestat: .*(needs|lacks|has no|refuses)' <<<"$line"; then
			ok "$what: says what the kernel lacks ($line)"
		else
			not_ok "$what: says what the kernel lacks: got '$line'"
		fi
	done
}

# host suites run here on a tier: the known answers, time (waits,
# pipe->mutex contention, histograms; with the knobs on where it has
# them) and each pipe's ring
host_suite() { # suite tier [label [VAR=VALUE...]]
	local suite=$1 tier=$2 what=${3:-$2 tier} log t0=$SECONDS
	shift 3 2>/dev/null || shift $#
	log=$TMP/$suite.$tier.$$.$RANDOM.log
	env TIER="$tier" LOCK_PER="$LOCK_PER" NOWAIT=$NOWAIT \
		PTWORK="$PTWORK" "$@" tests/host/test_$suite.sh >"$log" 2>&1
	echo "# test_$suite.sh, $what: $((SECONDS - t0)) s"
	sed -n "s/^\(not \)\{0,1\}ok - /&$what: /p" "$log"
	passed=$((passed + $(grep -c '^ok' "$log")))
	failed=$((failed + $(grep -c '^not ok' "$log")))
	grep -q '^[0-9]* passed' "$log" || not_ok "$what: $suite suite did not finish"
}

# known TIER MAX KEEP BATCH [VAR=VALUE...]: the known-answer suite on TIER
# with those knobs (where the kernel has them; the suite reads them), only
# its first pass (SPILL=0) unless told; $KP names a flavour
KP=
known() {
	local t=$1 label="$1 tier$KP"
	knobs "$2" "$3" "$4"
	[ $KNOBS = 1 ] && label="$label, knobs $2 $3 $4"
	shift 4
	host_suite known_answers "$t" "$label" SPILL=0 "$@"
}

echo "# pipestat in the $KERNEL kernel ($(uname -r)), knobs: $KNOBS, suites: $SUITES"
if [ "$SUITES" = refuse ]; then
	t_refusal
	summary
	exit
fi
t_choice
for t in $BEST syscall; do
	[ $SYSCALL = 1 ] || [ $t != syscall ] || continue
	if [ "$SUITES" = core ]; then
		known $t 0 2 0 KA_ONLY="$CORE"
		continue
	fi
	known $t 0 2 0
	# (splice and pipetrace-bench's io_uring point do not depend on the
	# knobs: once per tier, the VM's time is short)
	[ $KNOBS = 1 ] && known $t 8 2 1 KA_SKIP="t_splice t_uring_bench"
done
# the function tier on the patched kernel with the switches off (no
# prefill), and on: the pages before the mutex are pipe_prefill's
[ $BEST = tracepoint ] && known function 0 2 0
[ $BEST = tracepoint ] && [ $KNOBS = 1 ] &&
	known function 8 2 1 KA_ONLY="t_eagain_write t_stream t_pingpong"
# Tracepoint tier: a call's tally sits in a slot picked by thread id, or in
# task storage when another thread holds the slot. Every thread on one slot
# (PIPETRACE_ONE_CALL_SLOT=1) sends all but one of them there: the same
# answers must come out.
[ $BEST = tracepoint ] && known tracepoint 8 2 1 SPILL=only

# the function tier's kprobe fallback (as on kernels that refuse fentry)
export PIPESTAT_NO_FENTRY=1
start_pipestat -v --tier function --csv -n pipework && stop_pipestat
expect "kprobe fallback: announced" \
	"$(grep -c "^pipestat: function tier via kprobes on $FNS" "$TMP/err")" 1
if [ $SYSCALL = 0 ] && [ $VIA = fentry/fexit ]; then
	# no syscall tier to fall back on: auto takes the kprobes. The same
	# 6.1 kprobe programs get the known answers on debian-12-rt (auto
	# picks them there): here the core ones with the fallback forced.
	start_pipestat -v --csv -n pipework && stop_pipestat
	expect "kprobe fallback: auto picks it" \
		"$(grep -c "^pipestat: function tier via kprobes on $FNS" "$TMP/err")" 1
	[ "$SUITES" = core ] || {
		echo "# function tier via kprobes"
		host_suite known_answers function "function tier (kprobes)" SPILL=0 \
			KA_ONLY="$CORE t_vectored"
	}
elif [ $SYSCALL = 1 ] && [ $VIA = fentry/fexit ] && [ "$SUITES" != core ]; then
	KP=" (kprobes)"
	known function 0 2 0 KA_ONLY="$CORE"
	KP=
	knobs 8 2 1
fi
unset PIPESTAT_NO_FENTRY

[ "$SUITES" = core ] && {
	echo "# waits, hooks, ring and advise suites: not on core ($KERNEL)"
	summary
	exit
}
host_suite pipestat_waits $BEST
# The tracepoint tier's light program set (the default view): a wait is
# its own sleeps-map entry; one whose entry another thread holds keeps its
# start in task storage. Every thread on one entry
# (PIPETRACE_ONE_SLEEP_SLOT=1; the jobserver's readers wait at once): the
# same totals.
[ $BEST = tracepoint ] && host_suite pipestat_waits tracepoint \
	"tracepoint tier, one sleep slot" PIPETRACE_ONE_SLEEP_SLOT=1 \
	WAITS_ONLY="t_jobserver_waits t_hist_waits"
# waits begun before attach: seeded from /proc, ended by the tier's own
# programs (the host tests the syscall tier's)
host_suite blocked $BEST
[ $BEST = tracepoint ] && host_suite blocked function
if [ "$SUITES" = all ]; then
	# only the programs the columns asked for need are loaded
	host_suite hooks $BEST
	host_suite ring $BEST
	# --advise's rules on the workloads the host runs them on, and the
	# knobs' where the kernel has them (set and put back by the suite)
	host_suite advise $BEST
else
	echo "# test_hooks.sh, test_ring.sh, test_advise.sh: on suites all only, not in $KERNEL"
fi
summary
