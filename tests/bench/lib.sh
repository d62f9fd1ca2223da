# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/bench/bench.sh (host), tests/bench/prog_cost.sh (host
# and test VMs) and tests/vm/guest-bench.sh (in the test VM).

# bg_start DIR READY CMD...: CMD in the background ($PS), its stdout and
# stderr in DIR/out and DIR/err, until either says READY (it has
# attached). Returns 1, PS empty, if CMD exits first (DIR/err says why).
bg_start() {
	local dir=$1 ready=$2
	shift 2
	: >"$dir/err"
	: >"$dir/out"
	"$@" >"$dir/out" 2>"$dir/err" &
	PS=$!
	until grep -q "$ready" "$dir/out" "$dir/err"; do
		kill -0 $PS 2>/dev/null || { PS=; return 1; }
		sleep 0.05
	done
}

# bg_stop: Ctrl-C to $PS, as a user ends it; returns its exit status, PS
# empty. A tool still there after 10 s (bpftrace 0.17 let a SIGINT go by
# in two runs of bench.sh) gets SIGTERM, else the run hangs.
bg_stop() {
	local pid=$PS rc=0
	kill -INT "$pid"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null &&
		{ echo "bench: $pid still there 10 s after SIGINT: SIGTERM" >&2; kill -TERM "$pid"; }
	wait "$pid" || rc=$?
	PS=
	return $rc
}
