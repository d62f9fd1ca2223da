#!/usr/bin/env bash
# Also run in the VMs, on their tiers (tests/vm/guest-pipestat.sh, TIER=T):
# nothing here may assume this host's kernel or tier, or what only the
# host has (the guests have no /dev/fd).
#
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

# The sleeps' columns alone: the tracepoint tier then loads its light
# program set (no per-call state: a sleep is counted at its end from its
# sleeps-map entry), with the whole CSV its full one. The tests time the
# sleeps under both (other tiers: fewer hooks, the same programs).
LIGHT="-o reads,writes,waits_read,wait_read_ns,waits_write,wait_write_ns"

# field WORD LINE: the value of WORD=... in a workload's report line
field() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" <<<"$2" | head -1; }

# One side sleeps 100 ms per 64 KiB chunk for 3 s: the other side waits
# for it, as long as it measured itself inside read(2)/write(2).
slow_side() {
	local slow=$1 fast=$2 out w r fast_pid slow_pid fast_io slow_el
	local fs=${3} ss=${4}	# the sides' column words: read, write
	# shellcheck disable=SC2086 # $5: -o and its list, or nothing
	attach -k pid --csv $5 || { not_ok "slow $slow: attach"; return; }
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

t_slow_reader() { slow_side reader writer write read "$LIGHT"; }
t_slow_writer() { slow_side writer reader read write ""; }

# 8 writers of single bytes into one pipe: they contend for pipe->mutex;
# one writer alone never does.
t_lock() {
	local out pid n per try
	# long enough to overlap on a loaded machine; short in a one-CPU VM
	# (or where LOCK_PER says: a PREEMPT_RT kernel under qemu TCG hands
	# the rt_mutex over for minutes with 8 x 100000)
	per=${LOCK_PER:-$([ "$(nproc)" -gt 1 ] && echo 100000 || echo 8000)}
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

# table_sum PID COLUMN: PID's COLUMN summed over the table's intervals
table_sum() {
	awk -v pid="$1" -v name="$2" '
		$1 == "PID" { col = 0; for (i = 1; i <= NF; i++) if ($i == name) col = i; next }
		col && $1 == pid { s += $col }
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

# --hist wait_read: one value per sleep of a reader, as many as the same
# session's waits_read counts (the sleeps' column alone: on the
# tracepoint tier the light program set). Not a second session's count:
# each session's programs can miss a call of their own (the recursion
# guard of a program preempted on that CPU), so two can differ by one
t_hist_waits() {
	local pid n
	attach -k pid -n pipework --hist wait_read -o waits_read ||
		{ not_ok "hist waits: attach"; return; }
	pid=$(field pid "$(work slow-writer 1 100 | grep '^reader ')")
	stop_pipestat
	n=$(table_sum "$pid" WAITS_READ)
	below "hist waits: the reader slept (waits_read > 0)" 0 "$n"
	expect "hist waits: a wait_read value per sleep" "$(hist_sum "$pid" wait_read)" "$n"
}

# readers_waited NAME REPORT: pipework jobserver's 4 readers (its REPORT)
# waited as long as they measured themselves inside read(2), and slept
readers_waited() {
	local line pid rns
	expect "$1: 4 readers reported" "$(grep -c '^reader ' <<<"$2")" 4
	# (no process substitution: the test VMs have no /dev/fd)
	while read -r line; do
		[ -n "$line" ] || continue
		pid=$(field pid "$line"); rns=$(field read_ns "$line")
		within "$1: reader $pid's wait_read_ns" \
			"$(csv_get "$TMP/out" wait_read_ns pid "$pid" | sed 's/^$/0/')" "$rns" 10
		below "$1: reader $pid slept (waits_read > 0)" 0 \
			"$(csv_get "$TMP/out" waits_read pid "$pid" | sed 's/^$/0/')"
	done <<<"$(grep '^reader ' <<<"$2")"
}

# make's jobserver: readers blocked on tokens wait as long as they
# measured themselves inside read(2)
t_jobserver_waits() {
	local out
	# shellcheck disable=SC2086
	attach -k pid -n pipework --csv $LIGHT || { not_ok "jobserver waits: attach"; return; }
	out=$(work jobserver 4 200 2000)	# a token every 2 ms
	stop_pipestat
	readers_waited "jobserver waits" "$out"
}

# Sleepers whose switch-in no sched_switch program saw (6.18 under load
# misses about one in a thousand, bpf/waits.bpf.h; PIPETRACE_MISS_SWITCH_IN
# misses them all): each sleep ends at its call's end or at its thread's
# next sleep. The readers still wait as long as they measured, and nothing
# is counted for them once they are gone (a sleep left in the sleeps map
# was counted again by every drain, until pipestat ended).
t_missed_switch_in() {
	local out
	PIPETRACE_MISS_SWITCH_IN=1 attach -i 0.3 -k pid -n pipework --csv ||
		{ not_ok "missed switch-ins: attach"; return; }
	out=$(work jobserver 4 50 5000)	# a token every 5 ms: 0.25 s
	sleep 1				# intervals after the readers are gone
	stop_pipestat
	readers_waited "missed switch-ins" "$out"
	expect "missed switch-ins: no pid's wait_read_ns over its interval" \
		"$(cols "$TMP/out" interval_s wait_read_ns |
			awk -F, '$2 > $1 * 1e9 * 1.005' | head -3)" ""
}

# cols FILE NAME...: those CSV columns of every row, comma-separated (no
# process substitution: the test VMs have no /dev/fd)
cols() {
	local f=$1
	shift
	awk -F, -v want="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; n = split(want, w, " "); next }
		{ l = ""; for (k = 1; k <= n; k++) l = l (k > 1 ? "," : "") $idx[w[k]]; print l }' "$f"
}

# pct_per_interval FILE COMM: COMM's wait_read_ns as a % of each interval
pct_per_interval() {
	cols "$1" comm interval_s wait_read_ns |
		awk -F, -v c="$2" '$1 == c { printf "%s%.1f", (n++ ? " " : ""), $3 / ($2 * 1e7) }'
}

# -- COMMAND makes a cgroup: the test VMs mount no cgroup2 of their own
command_cgroup() {
	[ -z "${PIPETRACE_IN_VM:-}" ] || grep -q ' cgroup2 ' /proc/mounts ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup
}

# A read blocked 3.5 s, watched every second: counted in each interval for
# the part inside it, and while it lasts (100, 100, 100, 50), not 350 at
# its end; the intervals add up to the whole wait.
t_split_blocked_read() {
	local pct total i want
	cp /bin/cat "$TMP/pt-cat"
	command_cgroup
	"$PIPESTAT" --waits ${TIER:+--tier "$TIER"} -i 1 -k comm -n pt-cat --csv \
		--output "$TMP/out" -- sh -c "(sleep 3.5; echo x) | $TMP/pt-cat >/dev/null; sleep 0.5" \
		2>"$TMP/err"
	expect "blocked read: exit status" $? 0
	pct=$(pct_per_interval "$TMP/out" pt-cat)
	echo "# WAIT_R% per interval: $pct"
	expect "blocked read: none over 100%" "$(tr ' ' '\n' <<<"$pct" | awk '$1 > 101' | head -1)" ""
	near "blocked read: interval 2's WAIT_R%" "$(cut -d' ' -f2 <<<"$pct")" 100 2
	near "blocked read: interval 3's WAIT_R%" "$(cut -d' ' -f3 <<<"$pct")" 100 2
	# under qemu's TCG the pipeline takes a few hundred ms to start: the
	# figures that need a prompt start are the host's
	[ -n "${PIPETRACE_IN_VM:-}" ] && return
	# the pipeline starts some ms after the first interval does: 8-57 ms
	# on a quiet machine, 90 ms seen with a kernel build beside it; what
	# the first misses, the last has (the total below holds them to each
	# other). Counted where the sleep ended, these were 0 and 350.
	near "blocked read: interval 1's WAIT_R%" "$(cut -d' ' -f1 <<<"$pct")" 100 15
	near "blocked read: interval 4's WAIT_R%" "$(cut -d' ' -f4 <<<"$pct")" 50 15
	expect "blocked read: four intervals" "$(wc -w <<<"$pct")" 4
	total=$(csv_get "$TMP/out" wait_read_ns comm pt-cat)
	within "blocked read: the intervals add up to 3.5 s" "$total" 3500000000 2
	# (cat may sleep once more between the x and the end of file)
	expect "blocked read: sleeps counted where they ended, none before" \
		"$(csv_rows "$TMP/out" waits_read comm=pt-cat | paste -sd' ' | cut -d' ' -f1-3)" "0 0 0"
}

# pipe->mutex held 3.5 s (a splice waiting for a socket's data) while
# pt-lockwait waits for it in write(2), watched every second: each
# interval has the part of that write inside it (the writer's own clock),
# within 2 points, and the intervals add up to it. The 1 ms round first
# is for the tracepoint tier: lock events carry no file, so it learns
# whose mutex a lock is at the end of a contended call on that pipe.
t_split_lock() {
	local per
	command_cgroup
	"$PIPESTAT" --waits ${TIER:+--tier "$TIER"} -i 1 -k comm -n pt-lockwait --csv \
		--output "$TMP/out" -- sh -c "$PIPEWORK lock-hold 1 3500 >$TMP/work" 2>"$TMP/err"
	expect "lock held: exit status" $? 0
	# per interval: lock_wait_ns, the part of the writes inside it, its ns
	# (summed over the command's sides: a wait for the mutex of a pipe
	# the process has not written yet is on a row of no side)
	per=$(cols "$TMP/out" time interval_s lock_wait_ns comm |
		awk -F, '$4 == "pt-lockwait" { k = $1 "," $2; if (!(k in s)) o[++n] = k; s[k] += $3 }
			END { for (i = 1; i <= n; i++) print o[i] "," s[o[i]] ",pt-lockwait" }' |
		awk -F, -v w="$(sed -n 's/^contender .*from_ns=\([0-9]*\) to_ns=\([0-9]*\)/\1 \2/p' \
			"$TMP/work" | paste -sd' ')" '
		BEGIN { n = split(w, f, " ") }
		$4 == "pt-lockwait" {
			hi = $1 * 1e9; iv = $2 * 1e9; lo = hi - iv; want = 0
			for (i = 1; i < n; i += 2) {
				a = f[i] > lo ? f[i] : lo; b = f[i + 1] < hi ? f[i + 1] : hi
				if (b > a) want += b - a
			}
			printf "%.0f %.0f %.0f\n", $3, want, iv
		}')
	echo "# lock_wait_ns, expected, interval ns: $(paste -sd' ' <<<"$per")"
	expect "lock held: 3.5 s in four or five intervals" \
		"$(awk '$1 > 0' <<<"$per" | wc -l | awk '{ print ($1 == 4 || $1 == 5) }')" 1
	expect "lock held: each interval within 2 points of its part of the wait" \
		"$(awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > $3 * 0.02) print }' <<<"$per")" ""
	expect "lock held: none over 100%" "$(awk '$1 > $3 * 1.005' <<<"$per")" ""
	within "lock held: the intervals add up to its writes' time" \
		"$(csv_get "$TMP/out" lock_wait_ns comm pt-lockwait)" \
		"$(sed -n 's/^contender .*from_ns=\([0-9]*\) to_ns=\([0-9]*\)/\1 \2/p' "$TMP/work" |
			awk '{ s += $2 - $1 } END { printf "%.0f", s }')" 2
	below "lock held: the long wait was one (over 3.4 s)" 3400000000 \
		"$(csv_get "$TMP/out" lock_wait_ns comm pt-lockwait)"
	expect "lock held: two contended acquisitions" \
		"$(csv_get "$TMP/out" lock_contended comm pt-lockwait)" 2
}

# No interval over 100% for a single-threaded process: the waits of the
# jobserver's readers and of the slow reader's writer, every 0.3 s (0.5%
# for interval_s's three decimals)
t_never_over_interval() {
	# shellcheck disable=SC2086
	attach -i 0.3 -k pid -n pipework --csv $LIGHT || { not_ok "<= 100%: attach"; return; }
	work jobserver 4 100 20000 >/dev/null	# a token every 20 ms: 2 s
	work slow-reader 2 100 >/dev/null
	stop_pipestat
	expect "<= 100%: rows of 0.3 s intervals with waits" \
		"$(cols "$TMP/out" wait_read_ns wait_write_ns | awk -F, '$1 + $2 > 0' | wc -l |
			awk '{ print ($1 > 10) }')" 1
	expect "<= 100%: no pid's wait_read_ns or wait_write_ns over its interval" \
		"$(cols "$TMP/out" interval_s wait_read_ns wait_write_ns |
			awk -F, '$2 > $1 * 1e9 * 1.005 || $3 > $1 * 1e9 * 1.005' | head -3)" ""
}

# --no-waits: no program for the sleeps (sched_switch; the tracepoint
# tier's pipe_wait_* events) even for the CSV's columns: they are unknown
# (empty), never 0, and the tier line says why (with -v)
t_no_waits() {
	local out pid
	start_pipestat -v --no-waits -k pid --csv ${TIER:+--tier "$TIER"} ||
		{ not_ok "--no-waits: attach"; return; }
	out=$(work slow-reader 1 50); pid=$(field pid "$(grep '^writer ' <<<"$out")")
	stop_pipestat
	expect "--no-waits: the writer's wait_write_ns is empty, not 0" \
		"[$(csv_rows "$TMP/out" wait_write_ns pid="$pid")]" "[]"
	expect "--no-waits: the tier line says so" \
		"$(grep -c 'left out (no column shown needs [^)]*\(sched_switch\|pipe_wait_begin/end\)[^)]*): .*waits_read' "$TMP/err")" 1
}

# waits are timed by default: the writer of a slow reader waits
t_default_waits() {
	local out pid
	start_pipestat -k pid --csv ${TIER:+--tier "$TIER"} ||
		{ not_ok "default waits: attach"; return; }
	out=$(work slow-reader 1 50); pid=$(field pid "$(grep '^writer ' <<<"$out")")
	stop_pipestat
	below "default waits: the writer of a slow reader waited (wait_write_ns > 0)" 0 \
		"$(csv_get "$TMP/out" wait_write_ns pid "$pid" | sed 's/^$/0/')"
}

# A splice asleep on a pipe waits as a read or write does: 1 s on an empty
# pipe (the reader's side), then 1 s on a full one (the writer's), as long
# as each measured itself inside splice(2). Only the syscall tier sees
# splice calls (docs/TIERS.md). A splice asleep on a socket's data is no
# pipe's wait: lock-hold's holder sleeps so for 500 ms, its pipe empty.
t_splice_waits() {
	local out r w rpid wpid
	if [ "${TIER:-syscall}" != syscall ]; then
		echo "# splice waits: not checked: the $TIER tier sees no splice calls"
		return
	fi
	attach -k pid --csv || { not_ok "splice waits: attach"; return; }
	out=$(work splice-wait 1000)
	stop_pipestat
	r=$(grep '^reader ' <<<"$out"); w=$(grep '^writer ' <<<"$out")
	rpid=$(field pid "$r"); wpid=$(field pid "$w")
	expect "splice waits: one sleep each (reader read, writer write)" \
		"$(csv_get "$TMP/out" waits_read pid "$rpid")/$(csv_get "$TMP/out" waits_write pid "$rpid")/$(csv_get "$TMP/out" waits_read pid "$wpid")/$(csv_get "$TMP/out" waits_write pid "$wpid")" \
		1/0/0/1
	within "splice waits: the reader's wait_read_ns is its time in splice()" \
		"$(csv_get "$TMP/out" wait_read_ns pid "$rpid")" "$(field splice_ns "$r")" 2
	within "splice waits: the writer's wait_write_ns is its time in splice()" \
		"$(csv_get "$TMP/out" wait_write_ns pid "$wpid")" "$(field splice_ns "$w")" 2
	expect "splice waits: 4 KiB out and in" \
		"$(csv_get "$TMP/out" out_bytes pid "$rpid")/$(csv_get "$TMP/out" in_bytes pid "$wpid")" \
		4096/4096
	# (a name of its own: other suites' pipework may run meanwhile)
	attach -k pid -n pt-sockspl --csv || { not_ok "splice on a socket: attach"; return; }
	out=$(PIPEWORK_COMM=pt-sockspl work lock-hold 500)
	stop_pipestat
	expect "splice on a socket: its byte in, no pipe wait (in_bytes/waits_write)" \
		"$(csv_sum "$TMP/out" in_bytes comm=pt-sockspl)/$(csv_sum "$TMP/out" waits_write comm=pt-sockspl)" \
		1/0
}

t_bad_hist() {
	"$PIPESTAT" --hist bogus >/dev/null 2>"$TMP/err"
	expect "--hist bogus: exit status" $? 2
	expect "--hist bogus: one line" "$(wc -l <"$TMP/err")" 1
	"$PIPESTAT" --hist all --csv >/dev/null 2>&1
	expect "--hist with --csv: exit status" $? 2
}

# WAITS_ONLY="t_lock ...": only those tests (one test by hand, in a VM too)
run() {
	[ -z "${WAITS_ONLY:-}" ] || [[ " $WAITS_ONLY " == *" $1 "* ]] ||
		{ echo "# $1: not run (WAITS_ONLY)"; return 0; }
	"$1"
}

run t_slow_reader
run t_slow_writer
run t_lock
run t_hist_sizes
run t_hist_waits
run t_jobserver_waits
run t_splice_waits
# The same 3.5 s read watched by a pipestat already running: its
# intervals do not start with the pipeline, so the first and the last are
# partial; none over 100%, the ones between 100, the sum 3.5 s.
t_split_attached() {
	local pct once
	cp /bin/cat "$TMP/pt-cat"
	# shellcheck disable=SC2086
	attach -i 1 -k comm -n pt-cat --csv $LIGHT || { not_ok "attached: attach"; return; }
	# and a one-shot pipestat alongside: the intervals must add up to it
	"$PIPESTAT" ${TIER:+--tier "$TIER"} -k comm -n pt-cat --csv >"$TMP/once" 2>"$TMP/once.err" &
	once=$!
	for _ in $(seq 300); do grep -q 'Ctrl-C to end' "$TMP/once.err" && break; sleep 0.1; done
	sh -c "(sleep 3.5; echo x) | $TMP/pt-cat >/dev/null"
	sleep 1.2
	stop_pipestat
	kill -INT "$once"; wait "$once"
	pct=$(pct_per_interval "$TMP/out" pt-cat)
	echo "# WAIT_R% per interval: $pct"
	expect "attached: 4 or 5 intervals" "$(wc -w <<<"$pct" | awk '{ print ($1 == 4 || $1 == 5) }')" 1
	expect "attached: none over 100%" "$(tr ' ' '\n' <<<"$pct" | awk '$1 > 101' | head -1)" ""
	expect "attached: those between the first and the last 100%" \
		"$(tr ' ' '\n' <<<"$pct" | sed '1d;$d' | awk '$1 < 98 || $1 > 101' | head -1)" ""
	within "attached: the intervals add up to the one-shot total" \
		"$(csv_get "$TMP/out" wait_read_ns comm pt-cat)" \
		"$(csv_get "$TMP/once" wait_read_ns comm pt-cat)" 1
}

run t_split_blocked_read
run t_split_attached
run t_split_lock
run t_never_over_interval
run t_missed_switch_in
run t_default_waits
run t_no_waits
run t_bad_hist
summary
