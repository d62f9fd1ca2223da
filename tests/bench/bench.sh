#!/usr/bin/env bash
# make bench: what attaching pipestat costs the workloads it watches,
# as ratios of medians measured in one run, alternating without and with
# pipestat attached. Also pipestat's time to first attach and peak RSS.
# ROUNDS (default 9), PINGPONG_N (default 20000), STREAM_N (default 4000).
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-9}
PP_N=${PINGPONG_N:-20000}
ST_N=${STREAM_N:-4000}
# Both ends on one CPU: a cross-CPU wake-up under this VM costs 4..40 us
# and drowns what is measured; CPU time is what the tool adds. The
# cross-CPU ping-pong (one end per CPU) is printed too: it is the setup
# of the reference figures (bpftrace 22.0 -> 24.0 us/op on this machine).
BW=build/benchwork
XPP_N=${XPINGPONG_N:-5000}
TMP=$(mktemp -d)
PS=
trap '[ -n "$PS" ] && kill $PS 2>/dev/null; rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

attach() {
	: >"$TMP/err"
	./pipestat -v -k pid "$@" >"$TMP/out" 2>"$TMP/err" &
	PS=$!
	until grep -q 'Ctrl-C to end' "$TMP/err"; do sleep 0.05; done
}

detach() {
	HWM=$(awk '/VmHWM/ { print $2 }' /proc/$PS/status)
	kill -INT $PS
	wait $PS
	PS=
}

for r in $(seq "$ROUNDS"); do
	$BW pingpong "$PP_N" 0 0 >>"$TMP/pp.off"
	$BW pingpong "$XPP_N" 0 1 >>"$TMP/xpp.off"
	$BW stream 65536 "$ST_N" 0 0 >>"$TMP/st.off"
	attach
	$BW pingpong "$PP_N" 0 0 >>"$TMP/pp.on"
	$BW pingpong "$XPP_N" 0 1 >>"$TMP/xpp.on"
	$BW stream 65536 "$ST_N" 0 0 >>"$TMP/st.on"
	detach
	sed -n 's/.*attached in \([0-9.]*\) ms.*/\1/p' "$TMP/err" >>"$TMP/attach"
	echo "$HWM" >>"$TMP/rss"
	# what timing the sleeps adds (a program on sched_switch)
	attach --waits
	$BW pingpong "$PP_N" 0 0 >>"$TMP/pp.waits"
	$BW stream 65536 "$ST_N" 0 0 >>"$TMP/st.waits"
	detach
done

# every round must have given a figure on both sides
for f in pp.off pp.on xpp.off xpp.on st.off st.on pp.waits st.waits; do
	n=$(grep -c '^[0-9.][0-9.]*$' "$TMP/$f")
	[ "$n" -eq "$ROUNDS" ] || { echo "bench: $f has $n figures, want $ROUNDS" >&2; exit 1; }
done

pp_off=$(median <"$TMP/pp.off"); pp_on=$(median <"$TMP/pp.on")
st_off=$(median <"$TMP/st.off"); st_on=$(median <"$TMP/st.on")
xpp_off=$(median <"$TMP/xpp.off"); xpp_on=$(median <"$TMP/xpp.on")
pp_w=$(median <"$TMP/pp.waits"); st_w=$(median <"$TMP/st.waits")
echo "pipestat cost, syscall tier, $ROUNDS alternating rounds (median; min..max)"
printf '  1-byte ping-pong:  %8.2f us/op without, %8.2f with: slowdown %+.1f%%  (target <= 3%%)\n' \
	"$pp_off" "$pp_on" "$(echo "($pp_on / $pp_off - 1) * 100" | bc -l)"
printf '  ping-pong, one end per CPU: %8.2f us/op without, %8.2f with: slowdown %+.1f%%\n' \
	"$xpp_off" "$xpp_on" "$(echo "($xpp_on / $xpp_off - 1) * 100" | bc -l)"
printf '  64 KiB stream:     %8.1f MB/s without, %8.1f with: loss %+.1f%%  (target <= 1%%)\n' \
	"$st_off" "$st_on" "$(echo "(1 - $st_on / $st_off) * 100" | bc -l)"
printf '  with --waits (sched_switch): ping-pong %.2f us/op (%+.1f%% vs default), stream %.1f MB/s (%+.1f%%)\n' \
	"$pp_w" "$(echo "($pp_w / $pp_on - 1) * 100" | bc -l)" \
	"$st_w" "$(echo "(1 - $st_w / $st_on) * 100" | bc -l)"
printf '  spread: ping-pong without %s..%s, with %s..%s us/op\n' \
	"$(sort -g "$TMP/pp.off" | head -1)" "$(sort -g "$TMP/pp.off" | tail -1)" \
	"$(sort -g "$TMP/pp.on" | head -1)" "$(sort -g "$TMP/pp.on" | tail -1)"
printf '  start-up to first attach: %s ms (median)\n' "$(median <"$TMP/attach")"
printf '  peak RSS: %s KiB (median)\n' "$(median <"$TMP/rss")"
