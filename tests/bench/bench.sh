#!/usr/bin/env bash
# make bench: what attaching pipestat costs the workloads it watches, next
# to the syscall hook's own floor and bpftrace's equivalent, as ratios of
# medians measured in one run: each round runs every setup in turn
# (nothing attached, empty tp_btf programs on sys_enter/sys_exit, bpftrace
# with empty raw_syscalls probes, bpftrace counting, the steps from the
# floor up to the syscall tier's work (tests/bench/ladder.bpf.c), the
# operator's default view `pipestat -k pid` (the calls' programs and
# sched_switch for its waits: only what its columns need), the same
# view with --no-waits (the calls' programs alone) and the full
# CSV `pipestat -k pid --csv` (every hook). Also pipestat's time to first
# attach and peak RSS, each setup against the floor of its own round
# (paired), and whether the default view meets issue 27's goal.
# ROUNDS (default 9), PINGPONG_N (default 20000), STREAM_N (default 4000),
# XPINGPONG_N (default 5000). BPFTRACE=0 leaves bpftrace's rows out,
# LADDER=0 the steps; PIPESTAT_B=path/to/pipestat adds a row for another
# build (before/after).
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
ROUNDS=${ROUNDS:-9}
PP_N=${PINGPONG_N:-20000}
ST_N=${STREAM_N:-4000}
XPP_N=${XPINGPONG_N:-5000}
# Both ends on one CPU: a cross-CPU wake-up under this VM costs 4..40 us
# and drowns what is measured; CPU time is what the tool adds. The
# cross-CPU ping-pong (one end per CPU) is printed, not judged.
BW=build/benchwork
TMP=$(mktemp -d)
PS=
trap '[ -n "$PS" ] && kill -INT $PS 2>/dev/null && wait $PS; rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
# BPF run-time statistics time every program run (two clock reads): the
# figures would be the statistics' as much as the programs'
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 0 ] ||
	{ echo "bench: kernel.bpf_stats_enabled is on (a run of prog_cost.sh cut short?): sysctl kernel.bpf_stats_enabled=0 first" >&2; exit 1; }

# bpftrace's equivalents: the empty hook pair, and counting what pipestat's
# default columns need from the same hooks (bytes and EAGAINs of read and
# write per command, pages allocated inside a write) without its pipe and
# ring work
BT_EMPTY='tracepoint:raw_syscalls:sys_enter {} tracepoint:raw_syscalls:sys_exit {}'
BT_COUNT='
tracepoint:raw_syscalls:sys_enter /args->id == 1/ { @inwrite[tid] = 1; }
tracepoint:kmem:mm_page_alloc /args->order == 0 && @inwrite[tid]/ { @pages[comm] = count(); }
tracepoint:raw_syscalls:sys_exit /args->id <= 1/ {
	if (args->ret > 0) { @bytes[comm, args->id] = sum(args->ret); }
	if (args->ret == -11) { @eagain[comm, args->id] = count(); }
	delete(@inwrite[tid]);
}'
SETUPS="off floor"
if [ "${BPFTRACE:-1}" != 0 ]; then
	command -v bpftrace >/dev/null ||
		{ echo "bench: no bpftrace (make deps installs it, or BPFTRACE=0)" >&2; exit 1; }
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	SETUPS="$SETUPS bt_empty bt_count"
fi
[ "${LADDER:-1}" != 0 ] && SETUPS="$SETUPS step1 step2 step3 step4 step1g step1s step1c step4c step3t step4p"
SETUPS="$SETUPS view view_nw csv"
[ -n "${PIPESTAT_B:-}" ] && SETUPS="$SETUPS pipestat_b"

minimum() { sort -g | head -1; }
maximum() { sort -g | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# a tool in the background ($PS), until it has attached
start() {
	bg_start "$TMP" "$@" || { cat "$TMP/err" >&2; exit 1; }
}

stop() {
	HWM=$(awk '/VmHWM/ { print $2 }' /proc/$PS/status)
	bg_stop || true
}

attach() {
	case $1 in
	off) ;;
	floor) start attached build/bpfattach build/floor.bpf.o ;;
	step*) start attached build/bpfattach "build/ladder${1#step}.bpf.o" ;;
	bt_empty) start ready bpftrace -B none -e "BEGIN { printf(\"ready\n\"); } $BT_EMPTY" ;;
	bt_count) start ready bpftrace -B none -e "BEGIN { printf(\"ready\n\"); } $BT_COUNT" ;;
	view) start 'Ctrl-C to end' ./pipestat -v -k pid ;;
	view_nw) start 'Ctrl-C to end' ./pipestat -v -k pid --no-waits ;;
	csv) start 'Ctrl-C to end' ./pipestat -v -k pid --csv ;;
	pipestat_b) start 'Ctrl-C to end' "$PIPESTAT_B" -v -k pid ;;
	esac
}

ulimit -l unlimited 2>/dev/null || true
for r in $(seq "$ROUNDS"); do
	for s in $SETUPS; do
		attach "$s"
		$BW pingpong "$PP_N" 0 0 >>"$TMP/pp.$s"
		$BW stream 65536 "$ST_N" 0 0 >>"$TMP/st.$s"
		$BW pingpong "$XPP_N" 0 1 >>"$TMP/xpp.$s"
		if [ -n "$PS" ]; then
			stop
			if [ "$s" = view ]; then
				sed -n 's/.*attached in \([0-9.]*\) ms.*/\1/p' "$TMP/err" >>"$TMP/attach"
				echo "$HWM" >>"$TMP/rss"
			fi
		fi
	done
done

# every round must have given a figure for every setup
for s in $SETUPS; do
	for w in pp st xpp; do
		n=$(grep -c '^[0-9.][0-9.]*$' "$TMP/$w.$s")
		[ "$n" -eq "$ROUNDS" ] || { echo "bench: $w.$s has $n figures, want $ROUNDS" >&2; exit 1; }
	done
done

name() {
	case $1 in
	off) echo "nothing" ;;
	floor) echo "floor: empty tp_btf sys_enter + sys_exit" ;;
	step1) echo "step 1: + syscall number test" ;;
	step2) echo "step 2: + fd -> pipe test" ;;
	step3) echo "step 3: + call state (slot by thread id)" ;;
	step4) echo "step 4: + a counter per key (hash, atomics)" ;;
	step1g) echo "alt. 1g: step 1 + empty mm_page_alloc" ;;
	step1s) echo "alt. 1s: step 1 + empty sched_switch" ;;
	step1c) echo "alt. 1c: 1s reading the clock" ;;
	step4c) echo "alt. 4c: step 4 + 1c's program" ;;
	step3t) echo "alt. 3t: step 3 in task storage" ;;
	step4p) echo "alt. 4p: step 4 in a per-CPU hash" ;;
	bt_empty) echo "bpftrace, empty raw_syscalls probes" ;;
	bt_count) echo "bpftrace, counting bytes/EAGAINs/pages" ;;
	view) echo "pipestat -k pid (default view)" ;;
	view_nw) echo "pipestat -k pid --no-waits" ;;
	csv) echo "pipestat -k pid --csv (every column)" ;;
	pipestat_b) echo "pipestat B ($PIPESTAT_B)" ;;
	esac
}
calc() { echo "$1" | bc -l; }
# whether a goal's condition (for bc) holds
verdict() { calc "$1" | sed 's/1/met/;s/0/not met/'; }
pp0=$(median <"$TMP/pp.off"); st0=$(median <"$TMP/st.off")
ppf=$(median <"$TMP/pp.floor"); stf=$(median <"$TMP/st.floor")
pp0m=$(minimum <"$TMP/pp.off"); st0m=$(maximum <"$TMP/st.off")
ppfm=$(minimum <"$TMP/pp.floor"); stfm=$(maximum <"$TMP/st.floor")
# medians, and in brackets the best round (least disturbed by other load)
echo "cost of attaching, $ROUNDS interleaved rounds: median [best round] (ping-pong $PP_N, stream 65536 x $ST_N, cross-CPU $XPP_N)"
printf '  %-44s %-16s %-13s %-13s %-18s %-15s %-15s %s\n' "attached" "pinned 1-byte pp" "ratio" \
	"vs floor" "pinned 64K stream" "loss" "vs floor" "pp 1 per CPU"
for s in $SETUPS; do
	pp=$(median <"$TMP/pp.$s"); st=$(median <"$TMP/st.$s"); xpp=$(median <"$TMP/xpp.$s")
	ppm=$(minimum <"$TMP/pp.$s"); stm=$(maximum <"$TMP/st.$s")
	printf '  %-44s %5.2f [%5.2f] us %4.2fx [%4.2fx] %+5.2f [%+5.2f] %5.0f [%5.0f] MB/s %+5.1f%% [%+5.1f%%] %+5.1f%% [%+5.1f%%] %.2f us\n' \
		"$(name "$s")" "$pp" "$ppm" "$(calc "$pp / $pp0")" "$(calc "$ppm / $pp0m")" \
		"$(calc "$pp - $ppf")" "$(calc "$ppm - $ppfm")" "$st" "$stm" \
		"$(calc "($st / $st0 - 1) * 100")" "$(calc "($stm / $st0m - 1) * 100")" \
		"$(calc "($st / $stf - 1) * 100")" "$(calc "($stm / $stfm - 1) * 100")" "$xpp"
done
printf '  spread, pinned ping-pong (min..max us/op):'
for s in $SETUPS; do
	printf ' %s %s..%s;' "$s" "$(minimum <"$TMP/pp.$s")" "$(maximum <"$TMP/pp.$s")"
done
echo
printf '  pipestat start-up to first attach: %s ms, peak RSS %s KiB (medians)\n' \
	"$(median <"$TMP/attach")" "$(median <"$TMP/rss")"
# issue 27: the default view within 2% of the floor on the stream and
# within 0.10 of the floor's ratio to nothing on ping-pong, on the medians
# and on the best rounds; not judged when nothing attached already spread
# over 25% (another load on the machine moves every figure more than that)
goal() { # label pp_view pp_floor pp_off st_view st_floor
	local st_d pp_d
	st_d=$(calc "($5 / $6 - 1) * 100")
	pp_d=$(calc "$2 / $4 - $3 / $4")
	printf '  default view vs floor, %s: 64K stream %+.1f%% (goal >= -2%%: %s), ping-pong ratio %.2f vs %.2f, %+.2f (goal <= +0.10: %s)\n' \
		"$1" "$st_d" "$(verdict "$st_d >= -2")" \
		"$(calc "$2 / $4")" "$(calc "$3 / $4")" "$pp_d" \
		"$(verdict "$pp_d <= 0.10")"
}
# Each setup against the floor of its own round: the machine's speed
# drifts between rounds (a neighbour's load), and a ratio taken within a
# round cancels most of that; the median of those per-round figures.
paired_st() { paste "$TMP/st.floor" "$TMP/st.$1" | awk '{ print ($2 / $1 - 1) * 100 }' | median; }
paired_pp() { paste "$TMP/pp.off" "$TMP/pp.floor" "$TMP/pp.$1" | awk '{ print ($3 - $2) / $1 }' | median; }
echo "  paired with the floor of the same round (median of per-round figures): 64K stream vs floor, ping-pong ratio vs floor's"
for s in $SETUPS; do
	case $s in off|floor) continue ;; esac
	printf '    %-44s %+5.1f%% %+5.2f\n' "$(name "$s")" "$(paired_st "$s")" "$(paired_pp "$s")"
done
spread=$(calc "($(maximum <"$TMP/pp.off") - $pp0m) / $pp0 * 100")
if [ "$(calc "$spread > 25")" = 1 ]; then
	printf '  issue 27 goal not judged: nothing attached spread %.0f%% over its rounds (ping-pong): the machine is loaded\n' "$spread"
fi
goal medians "$(median <"$TMP/pp.view")" "$ppf" "$pp0" "$(median <"$TMP/st.view")" "$stf"
goal "best rounds" "$(minimum <"$TMP/pp.view")" "$ppfm" "$pp0m" "$(maximum <"$TMP/st.view")" "$stfm"
st_p=$(paired_st view); pp_p=$(paired_pp view)
printf '  default view vs floor, paired: 64K stream %+.1f%% (goal >= -2%%: %s), ping-pong ratio %+.2f (goal <= +0.10: %s)\n' \
	"$st_p" "$(verdict "$st_p >= -2")" "$pp_p" "$(verdict "$pp_p <= 0.10")"
