#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pipetrace VM test entry point (top-level `make vmtest` runs this).
#
#  1. installs missing Debian packages (qemu, busybox-static, build deps);
#  2. builds (or reuses from $PIPETRACE_CACHE, default /var/cache/pipetrace)
#     the unpatched and the patched 7.2 test kernels (Debian 14's
#     linux-source-7.2, fetched with a private apt configuration);
#  3. checks the patches (checkpatch, W=1, tracing-off build, the test
#     robot's builds: tests/vm/robot-builds.sh);
#  4. builds the workload binary (tests/vm/ptwork.c, static);
#  5. boots each kernel under qemu and runs tests/vm/guest-tests.sh in it;
#  6. boots the kernels tests/vm/kernels marks vmtest and runs
#     tests/vm/guest-pipestat.sh in each: the host-built ./pipestat (make
#     all) on its known-answer workloads, the tier chosen and --tier
#     syscall, the suites its row asks for: the patched kernel
#     (tracepoint tier) and Debian's own images 5.10 to 7.2, cloud and
#     PREEMPT_RT (fetched with apt-get download by
#     tests/vm/debian-kernel.sh, not built): function tier via fentry or
#     kprobes, syscall tier from 6.2, pipestat's refusal on 5.10; and
#     Debian 13's arm64 image, running make ARCH=arm64's build;
#  7. cost budgets: boots each kernel (and the tracepoints kernel, 0001 and
#     0002 only) on one vCPU with -icount (guest ns = instructions) and
#     the CPU counter (tests/vm/plugin/ptcount.c), runs
#     tests/vm/guest-budget.sh, adds struct pipe_inode_info's size (pahole)
#     and the counter's figures, and checks them with tests/vm/budget.sh
#     (table in $PIPETRACE_CACHE/budget-table.md);
#  8. builds the debug kernel (patched + KASAN + lockdep) and runs the
#     integrity stress in it with the A/B switches flipped while it runs.
# Exit status 0 only if everything passed.
#
# Options: --skip-checks (skip step 3), --kernel NAME (a row of
# tests/vm/kernels: only that kernel's tests).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

skip_checks=0 only=
while [ $# -gt 0 ]; do
	case "$1" in
	--skip-checks) skip_checks=1; shift;;
	--kernel) only=$2; shift 2;;
	*) die "usage: $0 [--skip-checks] [--kernel NAME (tests/vm/kernels)]";;
	esac
done
# one of Debian's images alone needs none of our kernels built
ours=1
if [ -n "$only" ]; then
	from=$(kernel_field "$only" from) || exit 1
	[ "$from" = self ] || ours=0
fi

T0=$(date +%s)
stamp() { echo "$(( $(date +%s) - T0 ))s"; }
need_pkgs qemu-system-x86 busybox-static cpio build-essential liburing-dev \
	flex bison bc libssl-dev libelf-dev dwarves python3 \
	clang llvm libbpf-dev bpftool

if [ $ours = 1 ]; then
	log "kernels"
	"$VM_DIR/build-kernel.sh" both >/dev/null
	# the budgets' third kernel: the events without the pool and the batch
	[ -n "$only" ] || "$VM_DIR/build-kernel.sh" tracepoints >/dev/null
	log "kernels ready at $(stamp)"
fi
# the KASAN + lockdep kernel builds in the background while the others run
dbg_log=$CACHE/debug-build.log
if [ -z "$only" ] || [ "$only" = debug ]; then
	"$VM_DIR/build-kernel.sh" debug >"$dbg_log.out" 2>"$dbg_log" &
	dbg_pid=$!
fi

fail=0
if [ $skip_checks = 0 ] && [ $ours = 1 ]; then
	"$VM_DIR/check-patches.sh" || { log "patch checks FAILED"; fail=1; }
	log "patch checks done at $(stamp)"
fi

# binaries of this checkout: concurrent runs from other checkouts build
# their own (a shared bin/ptwork was replaced under a running budget step)
BIN=$CACHE/bin/$(printf '%s' "$REPO" | sha)
mkdir -p "$BIN/arm64" "$CACHE/runs"
ptwork() { # OUT CC...: the static workload binary
	local out=$1
	shift
	timeout 300 "$@" -static -O2 -Wall -Wextra -Werror -I"$REPO/src" -I"$REPO/tests" \
		-o "$out.tmp" "$VM_DIR/ptwork.c" "$REPO/tests/lib/workload.c" \
		"$REPO/src/workload/workload.c" -luring -lpthread
	mv "$out.tmp" "$out"
}
ptwork "$BIN/ptwork" gcc
# arm64=1: an arm64 guest runs pipestat here (make ARCH=arm64's build)
arm64=0
for k in $(kernel_names vmtest); do
	[ -z "$only" ] || [ "$only" = "$k" ] || continue
	[ "$(kernel_arch "$k")" = amd64 ] || arm64=1
done
# its ptwork (make deps ARCH=arm64: clang, arm64 libc and liburing)
if [ $arm64 = 1 ]; then
	ptwork "$BIN/arm64/ptwork" clang --target=aarch64-linux-gnu -Wno-missing-field-initializers
fi

# BPF smoke test (tp_btf on pipe:* and fentry), against each kernel's BTF
timeout 300 gcc -O2 -Wall -Wextra -Werror -o "$BIN/bpfsmoke" "$VM_DIR/bpfsmoke.c" -lbpf
for k in unpatched patched; do
	[ $ours = 1 ] || continue
	kd=$(kernel_dir $k)
	mkdir -p "$BIN/$k"
	timeout 300 bpftool btf dump file "$kd/vmlinux" format c > "$BIN/$k/vmlinux.h"
	# -fms-extensions: 7.2's BTF has anonymous members of a named struct
	# type (the kernel builds with it since 6.19), which bpftool dumps
	timeout 300 clang -target bpf -O2 -g -Wall -Werror -fms-extensions \
		-Wno-microsoft-anon-tag -I"$BIN/$k" \
		$([ $k = patched ] && echo -DPATCHED) \
		-c "$VM_DIR/bpfsmoke.bpf.c" -o "$BIN/$k/bpfsmoke.bpf.o"
done

guest_tests() { # kernel timeout label [BINDIR]: guest-tests.sh in that kernel
	local k=$1 tmo=$2 what=$3 res
	shift 3
	res=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-vmtest-$k.XXXX")
	if "$VM_DIR/run-in-vm.sh" --kernel "$k" --results "$res" --timeout "$tmo" \
		"$VM_DIR/guest-tests.sh" "$BIN/ptwork" "$@"; then
		log "$what: PASS ($(grep -c '^ok' "$res/tests.tap") tests) at $(stamp)"
	else
		log "$what: FAIL (results and console log in $res)"
		grep '^not ok' "$res/tests.tap" >&2 || true
		fail=1
	fi
}

for k in unpatched patched; do
	[ -z "$only" ] || [ "$only" = "$k" ] || continue
	guest_tests "$k" 900 "$k kernel" "$BIN"
done
# pipetrace-bench --ab on the patched kernel (tests/vm/guest-pipetrace-bench.sh, needs ./pipetrace-bench built)
[ -n "$only" ] && [ "$only" != patched ] || "$VM_DIR/run-in-vm.sh" --kernel patched --timeout 900 "$VM_DIR/guest-pipetrace-bench.sh" || { log "pipetrace-bench A/B (patched): FAIL"; fail=1; }
# pipestat itself (built on the host, run from the host root over 9p;
# for an arm64 guest, make ARCH=arm64's build)
built() { [ -x "$REPO/$1" ] && [ -x "$REPO/$2" ]; }
if built pipestat tests/host/pipework &&
	{ [ $arm64 = 0 ] || built build-arm64/bin/pipestat build-arm64/tests/host/pipework; }; then
	for k in $(kernel_names vmtest); do
		[ -z "$only" ] || [ "$only" = "$k" ] || continue
		pt=$BIN/ptwork
		[ "$(kernel_arch "$k")" = amd64 ] || pt=$BIN/arm64/ptwork
		res=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-pipestat-$k.XXXX")
		t0=$(date +%s)
		# each row's own limit: RT is the slowest under TCG
		# (tests/vm/README.md: a loaded host can take it past 1800 s)
		tmo=$(kernel_field "$k" timeout)
		if (cd "$REPO" && "$VM_DIR/run-in-vm.sh" --kernel "$k" --results "$res" \
			--timeout "$tmo" "$VM_DIR/guest-pipestat.sh" "$pt"); then
			log "$k kernel, pipestat: PASS ($(grep -ac '^ok' "$res/console.log") checks, $(( $(date +%s) - t0 )) s) at $(stamp)"
		else
			log "$k kernel, pipestat: FAIL (console log in $res)"
			grep -a '^not ok' "$res/console.log" >&2 || true
			fail=1
		fi
	done
else
	log "pipestat tests: ./pipestat or tests/host/pipework not built (make all; make ARCH=arm64): FAIL"
	fail=1
fi
# cost budgets, one vCPU, instructions counted (-icount)
if [ -z "$only" ]; then
	bres=()
	for k in unpatched patched tracepoints; do
		res=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-budget-$k.XXXX")
		"$VM_DIR/run-in-vm.sh" --kernel "$k" --icount --results "$res" --timeout 1800 \
			"$VM_DIR/guest-budget.sh" "$BIN/ptwork" >/dev/null ||
			{ log "$k kernel, budget run: FAIL (results in $res)"; fail=1; }
		[ $k = tracepoints ] || ptcount_merge "$res" || fail=1
		echo "pipe_inode_info $k bytes $(struct_size "$(kernel_dir "$k")/vmlinux" pipe_inode_info)" >> "$res/budget.txt"
		bres+=("$res/budget.txt")
	done
	if "$VM_DIR/budget.sh" "${bres[@]}" "$CACHE/budget-table.md"; then
		log "cost budgets: PASS at $(stamp) (table: $CACHE/budget-table.md)"
	else
		log "cost budgets: FAIL"; fail=1
	fi
fi
# integrity stress in the KASAN + lockdep kernel, knobs flipped while it runs
if [ -n "${dbg_pid:-}" ]; then
	if wait "$dbg_pid"; then
		log "debug kernel ready at $(stamp)"
		guest_tests debug 1800 "debug kernel (KASAN + lockdep), stress"
	else
		log "debug kernel build FAILED (log $dbg_log)"; tail -20 "$dbg_log" >&2; fail=1
	fi
fi
log "total $(stamp): $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
