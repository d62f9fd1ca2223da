# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/bench/bench.sh (host) and tests/vm/guest-bench.sh (in
# the test VM).

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
