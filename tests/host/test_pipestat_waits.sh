#!/usr/bin/env bash
# pipestat host tests for time: who waits and for how long, pipe->mutex
# contention, and the --hist histograms, against workloads that measure
# themselves (the syscall tier on this workplace's kernel).
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_pipestat_waits.sh: needs root (BPF)"; exit 1
fi

# attach ARGS...: start_pipestat on $TIER if set (the VM runs this suite
# on the function and tracepoint tiers)
attach() { start_pipestat --waits ${TIER:+--tier "$TIER"} "$@"; }

# field WORD LINE: the value of WORD=... in a workload's report line
field() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" <<<"$2" | head -1; }

# within NAME GOT WANT PCT: |GOT - WANT| <= PCT% of WANT
within() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; then
		ok "$1 ($2 vs $3, within $4%)"
	else
		not_ok "$1: got $2, want $3 within $4%"
	fi
}

# below NAME GOT LIMIT: GOT < LIMIT
below() {
	if awk -v g="$2" -v l="$3" 'BEGIN { exit !(g != "" && g < l) }'; then
		ok "$1 ($2 < $3)"
	else
		not_ok "$1: got '$2', want below $3"
	fi
}

# One side sleeps 100 ms per 64 KiB chunk for 3 s: the other side waits
# for it, as long as it measured itself inside read(2)/write(2).
slow_side() {
	local slow=$1 fast=$2 out w r fast_pid slow_pid fast_io slow_el
	local fs=${3} ss=${4}	# the sides' column words: read, write
	attach -k pid --csv || { not_ok "slow $slow: attach"; return; }
	out=$(work "slow-$slow" 3 100)
	stop_pipestat
	w=$(grep '^writer ' <<<"$out"); r=$(grep '^reader ' <<<"$out")
	if [ "$slow" = reader ]; then
		fast_pid=$(field pid "$w"); fast_io=$(field io_ns "$w")
		slow_pid=$(field pid "$r"); slow_el=$(field elapsed_ns "$r")
	else
		fast_pid=$(field pid "$r"); fast_io=$(field io_ns "$r")
		slow_pid=$(field pid "$w"); slow_el=$(field elapsed_ns "$w")
	fi
	expect "slow $slow: exit status" "$PS_RC" 0
	within "slow $slow: the $fast's wait_${fs}_ns is its own time blocked in $fs()" \
		"$(csv_get "$TMP/out" "wait_${fs}_ns" pid "$fast_pid" | sed 's/^$/0/')" \
		"$fast_io" 10
	below "slow $slow: the $slow waits under 5% of its run" \
		"$(csv_get "$TMP/out" "wait_${ss}_ns" pid "$slow_pid")" \
		$((slow_el / 20))
	below "slow $slow: the $fast sleeps about once per chunk" \
		"$(csv_get "$TMP/out" "waits_${fs}" pid "$fast_pid")" 40
}

t_slow_reader() { slow_side reader writer write read; }
t_slow_writer() { slow_side writer reader read write; }

# 8 writers of single bytes into one pipe: they contend for pipe->mutex;
# one writer alone never does.
t_lock() {
	local out pid n per try
	# long enough to overlap on a loaded machine; short in a one-CPU VM
	per=$([ "$(nproc)" -gt 1 ] && echo 100000 || echo 8000)
	# a machine busy with other work may run the writers one after the
	# other: up to three runs to see them overlap (never in the VM)
	for try in 1 2 3; do
		attach -k comm -n pipework --csv || { not_ok "lock: attach"; return; }
		out=$(work lock-writers 8 $per)
		stop_pipestat
		n=$(csv_get "$TMP/out" lock_contended comm pipework)
		[ "$(nproc)" -gt 1 ] && [ "${n:-0}" = 0 ] || break
		echo "# lock: run $try saw no contention, again"
	done
	if [ "$(nproc)" -gt 1 ]; then
		below "lock: 8 writers contend (lock_contended > 0)" 0 "${n:-0}"
		below "lock: and wait for it (lock_wait_ns > 0)" 0 \
			"$(csv_get "$TMP/out" lock_wait_ns comm pipework | sed 's/^$/0/')"
	else
		# one CPU and no preemption in the kernel (the test VM): a mutex
		# holder never gives the CPU away, so nobody can contend
		expect "lock: one CPU, 8 writers cannot contend" "$n" 0
	fi
	expect "lock: 8 x $per bytes" "$(csv_get "$TMP/out" write_bytes comm pipework)" $((8 * per))
	attach -k comm -n pipework --csv || { not_ok "lock: attach"; return; }
	out=$(work lock-writers 1 8000)
	stop_pipestat
	expect "lock: one writer never contends" \
		"$(csv_get "$TMP/out" lock_contended comm pipework)" 0
	expect "lock: nor waits for the lock" \
		"$(csv_get "$TMP/out" lock_wait_ns comm pipework)" 0
}

# hist_count PID HIST LOW: the count of HIST's slot starting at LOW in
# pid PID's histograms (pipestat --hist table output); "" if none
hist_count() {
	awk -v who="pid $1 " -v h="  $2 (" -v lo="$3" '
		/^[a-z]/ { mine = index($0 " ", who) == 1; in_h = 0; next }
		mine && /^  [a-z_]+ \(/ { in_h = index($0, h) == 1; next }
		mine && in_h && $1 == lo && $2 == "->" { print $5; exit }' "$TMP/out"
}

# hist_sum PID HIST: all of HIST's counts of pid PID
hist_sum() {
	awk -v who="pid $1 " -v h="  $2 (" '
		/^[a-z]/ { mine = index($0 " ", who) == 1; in_h = 0; next }
		mine && /^  [a-z_]+ \(/ { in_h = index($0, h) == 1; next }
		mine && in_h && $2 == "->" { s += $5 }
		END { print s + 0 }' "$TMP/out"
}

# N writes of each size land in their log2 slot, exactly N each
t_hist_sizes() {
	local n=300 size low out pid
	for size in 1 100 4096 65536; do
		case $size in
		1) low=0 ;; 100) low=64 ;; 4096) low=4096 ;; 65536) low=65536 ;;
		esac
		attach -k pid -n pipework --hist write_size,read_size,occupancy ||
			{ not_ok "hist $size: attach"; continue; }
		out=$(work stream $size $n); pid=$(pid_of "$out")
		stop_pipestat
		expect "hist $size: write_size slot $low" "$(hist_count "$pid" write_size "$low")" $n
		expect "hist $size: write_size has nothing else" "$(hist_sum "$pid" write_size)" $n
		expect "hist $size: occupancy counts every write" "$(hist_sum "$pid" occupancy)" $n
	done
}

# make's jobserver: readers blocked on tokens wait as long as they
# measured themselves inside read(2)
t_jobserver_waits() {
	local out line pid rns
	attach -k pid -n pipework --csv || { not_ok "jobserver waits: attach"; return; }
	out=$(work jobserver 4 200 2000)	# a token every 2 ms
	stop_pipestat
	while read -r line; do
		pid=$(field pid "$line"); rns=$(field read_ns "$line")
		within "jobserver waits: reader $pid's wait_read_ns" \
			"$(csv_get "$TMP/out" wait_read_ns pid "$pid" | sed 's/^$/0/')" "$rns" 10
		below "jobserver waits: reader $pid slept (waits_read > 0)" 0 \
			"$(csv_get "$TMP/out" waits_read pid "$pid" | sed 's/^$/0/')"
	done < <(grep '^reader ' <<<"$out")
}

# without --waits the syscall tier has no program on sched_switch: the
# wait columns are unknown (empty), never 0; contention is still counted
t_default_no_waits() {
	local out pid
	start_pipestat -k pid --csv ${TIER:+--tier "$TIER"} ||
		{ not_ok "no --waits: attach"; return; }
	out=$(work slow-reader 1 50); pid=$(field pid "$(grep '^writer ' <<<"$out")")
	stop_pipestat
	expect "no --waits: the writer's wait_write_ns is empty, not 0" \
		"[$(csv_rows "$TMP/out" wait_write_ns pid="$pid")]" "[]"
	expect "no --waits: the tier line says so" \
		"$(grep -c 'not known: .*waits_read' "$TMP/err")" 1
}

t_bad_hist() {
	"$PIPESTAT" --hist bogus >/dev/null 2>"$TMP/err"
	expect "--hist bogus: exit status" $? 2
	expect "--hist bogus: one line" "$(wc -l <"$TMP/err")" 1
	"$PIPESTAT" --hist all --csv >/dev/null 2>&1
	expect "--hist with --csv: exit status" $? 2
}

t_slow_reader
t_slow_writer
t_lock
t_hist_sizes
t_jobserver_waits
[ "${TIER:-syscall}" = tracepoint ] || t_default_no_waits
t_bad_hist
summary
