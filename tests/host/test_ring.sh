#!/usr/bin/env bash
# Also run in the VMs, on their tiers (tests/vm/guest-pipestat.sh, TIER=T):
# nothing here may assume this host's kernel or tier, or what only the
# host has (the guests have no /dev/fd).
#
# The ring_* columns on this host (syscall tier): a pipe's usable slots,
# the most in use, writes that found it full, and its owner, exact for a
# default pipe (16 slots), one grown to 1 MiB (256) and one the
# pipe-user-pages-soft quota shrank (2). TIER=T runs it on tier T (the VM
# runs it on the function and tracepoint tiers).
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_ring.sh: needs root (BPF)"; exit 1
fi
# a uid no process uses: the pipe pages it holds are the test's only
QUOTA_UID=4242
SOFT=/proc/sys/fs/pipe-user-pages-soft
SOFT_WAS=$(cat "$SOFT")
trap 'echo "$SOFT_WAS" >"$SOFT"; stop_pipestat 2>/dev/null; rm -rf "$TMP"' EXIT
# attach ARGS...: start_pipestat on $TIER if set
attach() { start_pipestat ${TIER:+--tier "$TIER"} "$@"; }

# ring_checks WHAT PID SLOTS FULL: a "pipework ring" run's row
ring_checks() {
	local what=$1 pid=$2 slots=$3 full=$4
	expect "$what: writes" "$(csv_get "$TMP/out" writes pid "$pid")" $((slots + full))
	expect "$what: ring_slots" "$(csv_get "$TMP/out" ring_slots pid "$pid")" "$slots"
	expect "$what: ring_peak" "$(csv_get "$TMP/out" ring_peak pid "$pid")" "$slots"
	expect "$what: ring_full_writes" "$(csv_get "$TMP/out" ring_full_writes pid "$pid")" "$full"
}

t_default_and_grown() {
	local out pid
	attach -k pid --csv --waits || { not_ok "ring: attach"; return; }
	out=$(work ring 0 5); pid=$(pid_of "$out")
	out2=$(work ring 1048576 3); pid2=$(pid_of "$out2")
	stop_pipestat
	expect "default pipe: workload" "$out" "pid=$pid slots=16 full=5"
	ring_checks "default pipe" "$pid" 16 5
	expect "default pipe: ring_owner_uid" "$(csv_get "$TMP/out" ring_owner_uid pid "$pid")" 0
	expect "default pipe: ring_quota_shrunk" "$(csv_get "$TMP/out" ring_quota_shrunk pid "$pid")" 0
	expect "1 MiB pipe: workload" "$out2" "pid=$pid2 slots=256 full=3"
	ring_checks "1 MiB pipe" "$pid2" 256 3
}

# Over the soft limit, a new pipe gets 2 slots: uid 4242 holds one pipe of
# 16 pages, so its next pipe is shrunk (16 + 16 > 20): 18 pages in all
t_quota_shrunk() {
	local out pid
	attach -k pid --csv --waits || { not_ok "quota: attach"; return; }
	echo 20 >"$SOFT"
	setpriv --reuid=$QUOTA_UID --regid=$QUOTA_UID --clear-groups \
		"$PIPEWORK" ring 0 4 1 >"$TMP/work"
	out=$(cat "$TMP/work"); pid=$(pid_of "$out")
	stop_pipestat	# reported with the lowered limit in force
	echo "$SOFT_WAS" >"$SOFT"
	expect "quota: limit restored" "$(cat "$SOFT")" "$SOFT_WAS"
	expect "quota: workload" "$out" "pid=$pid slots=2 full=4"
	ring_checks "quota" "$pid" 2 4
	expect "quota: ring_owner_uid" "$(csv_get "$TMP/out" ring_owner_uid pid "$pid")" $QUOTA_UID
	expect "quota: ring_owner_pages" "$(csv_get "$TMP/out" ring_owner_pages pid "$pid")" 18
	expect "quota: ring_quota_shrunk" "$(csv_get "$TMP/out" ring_quota_shrunk pid "$pid")" 1
}

# A reader wrote nothing: its ring columns are unknown (empty, null); the
# pipe's row has its writer's; with --no-waits peak and full are unknown
t_unknown() {
	local out pid line
	attach -k pid --json --no-waits || { not_ok "unknown: attach"; return; }
	out=$(work stream 65536 4); pid=$(pid_of "$out")
	stop_pipestat
	line=$(jq -c "select(.pid != $pid and .comm == \"pipework\" and .reads > 0)" "$TMP/out")
	expect "reader: ring_slots null" "$(jq -r .ring_slots <<<"$line")" null
	# --no-waits leaves the sleeps' programs out in every tier (the
	# tracepoint tier's pipe_wait_* too): no full ring can be seen
	expect "reader: ring_full_writes null" "$(jq -r .ring_full_writes <<<"$line")" null
	line=$(jq -c "select(.pid == $pid)" "$TMP/out")
	expect "writer: ring_slots" "$(jq -r .ring_slots <<<"$line")" 16
	expect "writer with --no-waits: ring_peak null" "$(jq -r .ring_peak <<<"$line")" null
	expect "writer with --no-waits: ring_full_writes null" \
		"$(jq -r .ring_full_writes <<<"$line")" null
	attach -k pipe --csv --waits || { not_ok "by pipe: attach"; return; }
	out=$(work ring 0 2); pid=$(pid_of "$out")
	stop_pipestat
	# its pipe's row (no /dev/fd in the VM for a <(...))
	{ head -1 "$TMP/out"; grep "pipework\[$pid\]" "$TMP/out"; } >"$TMP/pipe"
	expect "by pipe: ring_slots" "$(csv_get "$TMP/pipe" ring_slots key_type pipe)" 16
	expect "by pipe: ring_full_writes" "$(csv_get "$TMP/pipe" ring_full_writes key_type pipe)" 2
}

# A blocking writer into a slow reader waits for room: its writes that
# waited found the ring full, and saw every slot in use
t_waited() {
	local out pid full writes
	attach -k pid --csv --waits || { not_ok "waited: attach"; return; }
	out=$(work slow-reader 1 100); pid=$(pid_of "$out")
	stop_pipestat
	writes=$(csv_get "$TMP/out" writes pid "$pid")
	full=$(csv_get "$TMP/out" ring_full_writes pid "$pid")
	expect "waited: ring_peak" "$(csv_get "$TMP/out" ring_peak pid "$pid")" 16
	if [ "${full:-0}" -ge 1 ] && [ "$full" -le "$writes" ] &&
	   [ "$full" -le "$(csv_get "$TMP/out" waits_write pid "$pid")" ]; then
		ok "waited: 1 <= ring_full_writes ($full) <= writes ($writes), waits_write"
	else
		not_ok "waited: ring_full_writes '$full' of $writes writes"
	fi
}

t_default_and_grown
t_quota_shrunk
t_waited
t_unknown
summary
