#!/usr/bin/env bash
# pipetop's own cost (issue 6): N live pipes (default 10,000, each written
# and read every PERIOD_MS), pipetop refreshing every second in a tmux
# terminal for SECS seconds (default 20). Reports pipetop's user and system
# CPU % of one core over that time and its peak RSS, against the targets
# (user < 2% of one core, RSS < 50 MiB). Exit 1 if a target is missed.
# PIPES, WORKERS (default 4), PERIOD_MS (default 500), SECS; PAIR=1: a
# writer and a separate reader process per pipe (2 keys per pipe);
# VIEW=proc: measure the per-process view (key p).
set -eu
cd "$(dirname "$0")/../.."
PIPES=${PIPES:-10000}
WORKERS=${WORKERS:-4}
PERIOD_MS=${PERIOD_MS:-500}
SECS=${SECS:-20}
TMP=$(mktemp -d)
SOCK=$TMP/tmux.sock
HELPER=
trap 'tmux -S "$SOCK" kill-server 2>/dev/null; [ -n "$HELPER" ] && kill "$HELPER" 2>/dev/null; wait; rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || { echo "pipetop_cost: needs root" >&2; exit 1; }
command -v tmux >/dev/null || { echo "pipetop_cost: needs tmux" >&2; exit 1; }
[ -x build/pipetop_pipes ] && [ -x pipetop ] || make --no-print-directory pipetop build/pipetop_pipes

build/pipetop_pipes "$PIPES" "$WORKERS" "$PERIOD_MS" ${PAIR:+pair} >"$TMP/ready" &
HELPER=$!
until grep -q ready "$TMP/ready"; do
	kill -0 $HELPER 2>/dev/null || { echo "pipetop_cost: helper failed" >&2; exit 1; }
	sleep 0.1
done

tmux -S "$SOCK" new-session -d -x 160 -y 50 -s cost "./pipetop -i 1; exec sleep 600"
TOP=
for _ in $(seq 100); do
	TOP=$(pgrep -P "$(tmux -S "$SOCK" display -p -t cost '#{pane_pid}')" -x pipetop) && break
	sleep 0.1
done
[ -n "$TOP" ] || { echo "pipetop_cost: pipetop did not start" >&2; exit 1; }
# settle: attached and a couple of full intervals on screen
pipes_on_screen() {
	tmux -S "$SOCK" capture-pane -p -t cost | sed -n 's/^pipes: \([0-9]*\) .*/\1/p'
}
for _ in $(seq 100); do
	n=$(pipes_on_screen)
	[ "${n:-0}" -ge "$PIPES" ] && break
	sleep 0.2
done
[ "${VIEW:-}" = proc ] && tmux -S "$SOCK" send-keys -t cost p
sleep 2

TCK=$(getconf CLK_TCK)
read -r u0 s0 < <(awk '{ print $14, $15 }' /proc/$TOP/stat)
t0=$(date +%s.%N)
seen=0
for _ in $(seq "$SECS"); do
	sleep 1
	n=$(pipes_on_screen)
	[ "${n:-0}" -gt "$seen" ] && seen=$n
done
read -r u1 s1 < <(awk '{ print $14, $15 }' /proc/$TOP/stat)
t1=$(date +%s.%N)
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$TOP/status)
rss=$(awk '/VmRSS/ { print $2 }' /proc/$TOP/status)
untracked=$(tmux -S "$SOCK" capture-pane -p -t cost | grep -c UNTRACKED || true)
tmux -S "$SOCK" send-keys -t cost q

user=$(echo "($u1 - $u0) / $TCK / ($t1 - $t0) * 100" | bc -l)
sys=$(echo "($s1 - $s0) / $TCK / ($t1 - $t0) * 100" | bc -l)
echo "pipetop cost: $PIPES live pipes ($WORKERS processes${PAIR:+ writing, $WORKERS reading}, each pipe written and read every ${PERIOD_MS} ms), -i 1, ${VIEW:-pipe} view, $(printf %.0f "$(echo "$t1 - $t0" | bc -l)") s"
printf '  pipes on screen (most): %s%s\n' "$seen" "$([ "$untracked" -gt 0 ] && echo '  (UNTRACKED events shown)')"
printf '  user CPU: %5.2f%% of one core  (target < 2%%)\n' "$user"
printf '  sys CPU:  %5.2f%% of one core  (draining the counters: kernel side)\n' "$sys"
printf '  peak RSS: %s KiB = %.1f MiB (now %s KiB)  (target < 50 MiB)\n' "$hwm" "$(echo "$hwm / 1024" | bc -l)" "$rss"
fail=0
[ "$(echo "$user < 2" | bc -l)" = 1 ] || { echo "  FAIL: user CPU over target"; fail=1; }
[ "$hwm" -lt $((50 * 1024)) ] || { echo "  FAIL: RSS over target"; fail=1; }
[ "$seen" -ge "$PIPES" ] || { echo "  FAIL: pipetop never showed all $PIPES pipes"; fail=1; }
exit $fail
