#!/usr/bin/env bash
# pipestat --advise: the bursty pipe gets a ring size, the slow reader's
# pipe is reader-bound with no resize, a pipe below the traffic threshold
# gets nothing; bad combinations are refused.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_advise.sh: needs root (BPF)"; exit 1
fi

t_advise() {
	local bursty slow few line size max
	max=$(cat /proc/sys/fs/pipe-max-size)
	start_pipestat --advise -n pipework || { not_ok "advise: attach"; return; }
	"$PIPEWORK" bursty 3 >"$TMP/bursty" &
	"$PIPEWORK" slow-reader 3 50 >"$TMP/slow"
	wait $!
	"$PIPEWORK" stream 65536 4 >"$TMP/few"
	stop_pipestat
	bursty=$(pid_of "$(cat "$TMP/bursty")")
	slow=$(sed -n 's/^writer pid=\([0-9]*\).*/\1/p' "$TMP/slow")
	few=$(pid_of "$(cat "$TMP/few")")
	expect "advise: exit status" "$PS_RC" 0
	line=$(grep "pipework\[$bursty\] ->" "$TMP/out")
	expect "bursty pipe named bursty" "$(grep -c ': bursty: writers waited' <<<"$line")" 1
	size=$(sed -n 's/.*grow it to \([0-9]*\) (.*/\1/p' <<<"$line")
	# bursts of 256 KiB: the next power of two pages at or above them
	if [ -n "$size" ] && [ "$size" -ge 262144 ] && [ "$size" -le "$max" ] &&
	   [ $((size & (size - 1))) = 0 ]; then
		ok "bursty pipe: grow it to $size (256 KiB bursts, within pipe-max-size $max)"
	else
		not_ok "bursty pipe: no size in '$line'"
	fi
	expect "bursty pipe: the resize command" \
		"$(grep -c "pipestat --resize [0-9]*=$size$" <<<"$line")" 1
	line=$(grep "pipework\[$slow\] ->" "$TMP/out")
	expect "slow reader: reader-bound" "$(grep -c ': reader-bound: writers waited' <<<"$line")" 1
	expect "slow reader: no resize advice" "$(grep -c 'grow\|--resize' <<<"$line")" 0
	expect "4 writes: below the threshold, nothing said" \
		"$(grep -c "pipework\[$few\]" "$TMP/out")" 0
	expect "the threshold is said" "$(grep -c 'judged from 16 writes' "$TMP/out")" 1
}

t_bad() {
	local a
	for a in --csv --json "-k pid" "--hist all"; do
		"$PIPESTAT" --advise $a -d 1 >/dev/null 2>"$TMP/err"
		expect "--advise $a: exit 2" $? 2
		expect "--advise $a: one line" "$(wc -l <"$TMP/err")" 1
	done
}

t_advise
t_bad
summary
