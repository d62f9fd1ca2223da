#!/usr/bin/env bash
# Busy vs CPU-starved (cpu_pct, runq_pct): a pipe writer alone on its CPU
# runs more than it waits for one (judged on a machine whose CPU pressure
# is under 10% before it starts: others' work elsewhere takes that CPU
# whatever the nice); two CPU-bound stages pinned to one CPU with a
# spinner wait for it more than they run on it, over 20% (without the
# spinner the two hand the CPU to each other and the reader's wait for
# it swings from 5 to 35%), and with their pipe waits account for the
# interval (at most ~100: a wait's end, from its wakeup to running
# again, is in both WAIT% and runq_pct); rows of several processes (-k
# comm, pipe, total) have no figures; --graph calls a stage that shares
# its CPU with two spinners "starved" and the bottleneck; --advise says
# cpu-bound, never "grow it", for the pinned pair.
# Host only: it needs two CPUs and taskset.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_cpu.sh: needs root (BPF)"; exit 1
fi
if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
	echo "tests/host/test_cpu.sh: needs 2 CPUs and taskset"; exit 1
fi
if [ ! -r /proc/self/schedstat ]; then
	echo "tests/host/test_cpu.sh: the kernel keeps no schedstat (CONFIG_SCHED_INFO)"; exit 1
fi

# the pinned pair: 64 KiB writes read back, both on CPU 0 with a spinner,
# for ~2.5 s
PAIR="yes >/dev/null & y=\$!; timeout 2.5 $PIPEWORK put 65536 100000000 | $PIPEWORK get 65536; kill \$y"

# pct_of FILE PID COLUMN: PID's COLUMN in the CSV's first full interval
pct_of() { csv_rows "$1" "$3" pid="$2" | head -1; }
# share FILE PID NS_COLUMN: that interval's NS_COLUMN as a % of it
share() {
	paste -d' ' <(csv_rows "$1" "$3" pid="$2") <(csv_rows "$1" interval_s pid="$2") |
		head -1 | awk '{ printf "%.1f", $1 / ($2 * 1e7) }'
}
# at_least A B: A >= B (decimals)
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }

# --- a writer alone on CPU 0 (at nice -20), its fast reader on CPU 1 ---
# the machine's other work before it (in other cgroups it takes CPU 0
# whatever the nice: only a quiet machine knows the answer)
pressure=$(sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)
"$PIPESTAT" -k pid --csv --output "$TMP/alone.csv" -- sh -c \
	"timeout 2 nice -n -20 taskset -c 0 $PIPEWORK put 64 100000000 | taskset -c 1 $PIPEWORK get 65536" \
	>/dev/null 2>"$TMP/err"
w=$(csv_rows "$TMP/alone.csv" pid comm=pipework writes!=0 reads=0 | head -1)
cpu=$(pct_of "$TMP/alone.csv" "$w" cpu_pct)
runq=$(pct_of "$TMP/alone.csv" "$w" runq_pct)
if at_least "${pressure:-0}" 10; then
	echo "# writer alone on a CPU: not judged, the machine is busy (cpu pressure $pressure%):" \
		"cpu_pct '$cpu', runq_pct '$runq'"
elif at_least "$cpu" 40 && at_least "$cpu" "$runq"; then
	ok "writer alone on a CPU: on it $cpu%, waiting for it $runq%"
else
	not_ok "writer alone on a CPU: cpu_pct '$cpu', runq_pct '$runq' (want >= 40, > runq)"
fi

# --- the pinned pair, -k pid ---
"$PIPESTAT" -k pid --csv -i 1 --output "$TMP/pid.csv" -- taskset -c 0 sh -c "$PAIR" \
	>/dev/null 2>"$TMP/err"
pids=$(csv_rows "$TMP/pid.csv" pid comm=pipework | sort -u)
expect "pinned pair: two processes" "$(wc -w <<<"$pids")" 2
for pid in $pids; do
	cpu=$(pct_of "$TMP/pid.csv" "$pid" cpu_pct)
	runq=$(pct_of "$TMP/pid.csv" "$pid" runq_pct)
	wr=$(share "$TMP/pid.csv" "$pid" wait_read_ns)
	ww=$(share "$TMP/pid.csv" "$pid" wait_write_ns)
	sum=$(awk -v a="$cpu" -v b="$runq" -v c="$wr" -v d="$ww" 'BEGIN { printf "%.1f", a + b + c + d }')
	if at_least "$runq" 20 && at_least "$runq" "$cpu"; then
		ok "pinned pair: $pid waited for the CPU $runq% (on it $cpu%)"
	else
		not_ok "pinned pair: $pid runq_pct '$runq' (cpu_pct '$cpu'), want > 20, > cpu"
	fi
	if at_least "$cpu" 10 && at_least 112 "$sum"; then
		ok "pinned pair: $pid cpu + runq + waits $sum% of the interval"
	else
		not_ok "pinned pair: $pid cpu $cpu + runq $runq + wait_r $wr + wait_w $ww = $sum"
	fi
	# the last interval ended as they exited: read up to their last sample
	expect "pinned pair: $pid known in every interval" \
		"$(csv_rows "$TMP/pid.csv" cpu_pct pid="$pid" | grep -c '^$')" 0
done

# --- rows of several processes: no figures ---
for by in comm pipe total; do
	"$PIPESTAT" -k $by --csv --output "$TMP/$by.csv" -- taskset -c 0 sh -c \
		"timeout 1 $PIPEWORK put 65536 100000000 | $PIPEWORK get 65536" >/dev/null 2>&1
	expect "-k $by: rows" "$(( $(wc -l <"$TMP/$by.csv") > 1 ))" 1
	expect "-k $by: cpu_pct, runq_pct empty" \
		"$( (csv_rows "$TMP/$by.csv" cpu_pct; csv_rows "$TMP/$by.csv" runq_pct) | grep -c .)" 0
done

# --- --graph: a stage that shares CPU 0 with two spinners is starved ---
"$PIPESTAT" --graph "$TMP/g.dot" -- taskset -c 0 sh -c \
	'yes >/dev/null & a=$!; yes >/dev/null & b=$!; timeout 2.5 yes | sha256sum >/dev/null; kill $a $b' \
	>/dev/null 2>"$TMP/err"
node=$(gvpr 'N [comm == "sha256sum"] { printf("%s|%s|%s|%s\n", $.state, $.bottleneck, $.cpu_pct, $.runq_pct); }' "$TMP/g.dot")
IFS='|' read -r state bottleneck cpu runq <<<"$node"
expect "graph: the CPU-starved stage" "$state $bottleneck" "starved true"
if at_least "$runq" "$cpu"; then
	ok "graph: it waited for the CPU $runq%, ran $cpu%"
else
	not_ok "graph: cpu_pct '$cpu', runq_pct '$runq'"
fi
expect "graph: its label says so" \
	"$(grep -c 'starved (R [0-9]*% W [0-9]*% CPU [0-9]*% RUNQ [0-9]*%)' "$TMP/g.dot")" 1

# --- --advise: the pinned pair's pipe is cpu-bound, no ring to grow ---
"$PIPESTAT" --advise -i 1 --output "$TMP/advise" -- taskset -c 0 sh -c "$PAIR" \
	>/dev/null 2>"$TMP/err"
expect "advise: a remark per interval" "$(grep -c '^pipe ' "$TMP/advise")" \
	"$(grep -c 'advice per pipe' "$TMP/advise")"
expect "advise: each cpu-bound" "$(grep '^pipe ' "$TMP/advise" | grep -vc ': cpu-bound: pipework\[[0-9]*\] was on a CPU [0-9]*% of the interval and waited for one [0-9]*% (\(busy\|starved\)): it sets the pace, a bigger ring will not help$')" 0
expect "advise: never grow the ring" "$(grep -c 'grow it\|--resize' "$TMP/advise")" 0

summary
