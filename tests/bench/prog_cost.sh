#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the run time of each BPF program pipestat attaches, per call
# (run_time_ns / run_cnt from the kernel's BPF statistics,
# kernel.bpf_stats_enabled = 1 while it runs), for every tier this kernel
# can attach, with the default view (pipestat -k pid: the programs its
# columns need) and with the full CSV (every program), under known
# workloads (1-byte ping-pong, 64 KiB stream, nonblocking reads of an
# empty pipe). First the floor under the same workloads: empty programs
# on sys_enter/sys_exit (tests/bench/floor.bpf.c, built by make bench),
# the hook and the statistics alone: a syscall-tier program's figure less
# the floor's is its own work.
#
# On the host it then boots the two test kernels (tests/vm, if built) and
# runs itself inside them: those figures come from qemu TCG (no KVM), so
# they are printed for reference only, never judged.
#
# usage: prog_cost.sh [N]: N (default $PROG_COST_N or 20000) scales the
# workloads; PROG_COST_VM=0 skips the VMs.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
N=${1:-${PROG_COST_N:-20000}}
PIPEWORK=tests/host/pipework
TMP=$(mktemp -d)
PS=
OLD_STATS=
cleanup() {
	[ -n "$PS" ] && kill -INT "$PS" 2>/dev/null && wait "$PS" 2>/dev/null
	[ -n "$OLD_STATS" ] && echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled
	rm -rf "$TMP"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "prog_cost: needs root" >&2; exit 1; }
for f in ./pipestat "$PIPEWORK"; do
	[ -x "$f" ] || { echo "prog_cost: $f not built (make all)" >&2; exit 1; }
done

where="host $(uname -r)"
[ -n "${PIPETRACE_IN_VM:-}" ] && where="VM (qemu TCG, not a figure) ${PIPETRACE_KERNEL:-?} $(uname -r)"

OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# prints one line per program of pipestat (pid $1): name, calls, ns/call.
# Its programs are the prog_id of its file descriptors.
prog_stats() {
	local id
	for id in $(cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -un); do
		bpftool -j prog show id "$id" |
			jq -r '[.name, (.run_cnt // 0), (.run_time_ns // 0)] | @tsv'
	done |
	while IFS=$'\t' read -r name cnt ns; do
		if [ "$cnt" -gt 0 ]; then
			printf '    %-20s %10d calls %9.1f ns/call\n' "$name" "$cnt" \
				"$(echo "$ns / $cnt" | bc -l)"
		else
			printf '    %-20s %10d calls %9s\n' "$name" 0 "-"
		fi
	done
}

workloads() {
	"$PIPEWORK" pingpong "$N" >/dev/null
	"$PIPEWORK" stream 65536 $((N / 10)) >/dev/null
	"$PIPEWORK" eagain-read "$N" >/dev/null
}

echo "BPF program cost per call, $where"
if [ ! -x build/bpfattach ] || [ ! -f build/floor.bpf.o ]; then
	echo "  floor: not built (make bench builds build/bpfattach, build/floor.bpf.o)"
elif bg_start "$TMP" attached build/bpfattach build/floor.bpf.o; then
	workloads
	echo "  floor, empty tp_btf sys_enter + sys_exit (pingpong $N, stream 65536 x $((N / 10)), eagain-read $N):"
	prog_stats "$PS"
	bg_stop || true
else
	echo "  floor: not available here ($(head -1 "$TMP/err"))"
fi
for run in "tracepoint" "function" "syscall" "tracepoint --csv" "function --csv" \
	   "syscall --csv"; do
	tier=${run%% *}
	view=${run#"$tier"}
	# shellcheck disable=SC2086
	if ! bg_start "$TMP" 'Ctrl-C to end' ./pipestat --tier "$tier" -k pid $view; then
		echo "  $tier tier: not available here ($(sed -n 's/^pipestat: //p' "$TMP/err" | head -1))"
		continue
	fi
	workloads
	echo "  $tier tier, pipestat -k pid$view (pingpong $N, stream 65536 x $((N / 10)), eagain-read $N):"
	prog_stats "$PS"
	bg_stop || true
done

# the test kernels, when this is the host and they are built
if [ -z "${PIPETRACE_IN_VM:-}" ] && [ "${PROG_COST_VM:-1}" != 0 ] &&
   command -v qemu-system-x86_64 >/dev/null; then
	. tests/vm/lib.sh
	for k in patched unpatched; do
		[ -f "$(kernel_dir $k)/bzImage" ] || { echo "(no cached $k test kernel: skipped)"; continue; }
		mkdir -p "$CACHE/runs"
		res=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-progcost-$k.XXXX")
		if tests/vm/run-in-vm.sh --kernel "$k" --results "$res" \
			--timeout 600 tests/bench/prog_cost.sh $((N / 10)) >/dev/null 2>&1; then
			# the script's lines only, not the guest kernel's messages
			sed -n '/^BPF program cost per call/,/^PIPETRACE-VM-EXIT/p' "$res/console.log" |
				tr -d '\r' | grep -E '^(BPF program cost|  )'
		else
			echo "(VM run on the $k kernel failed: $res/console.log)"
		fi
	done
fi
