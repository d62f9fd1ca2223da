#!/usr/bin/env bash
# Also run in the VMs, on their tiers (tests/vm/guest-pipestat.sh, TIER=T):
# nothing here may assume this host's kernel or tier, or what only the
# host has (the guests have no /dev/fd).
#
# Pay only for what is asked: a hook (a BPF program, or a part of one)
# loads only when a column the output shows needs it. Asking for a column
# loads its program, not asking leaves it out (the loader's list with -v,
# and the programs pipestat holds, by bpftool); a column left
# out is empty, never 0, and the tier line says why; what is asked for
# stays exact (N 64 KiB writes: 16N new buffers). TIER=T runs it on tier T
# (the VM runs it on the function and tracepoint tiers).
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_hooks.sh: needs root (BPF)"; exit 1
fi
T=${TIER:-syscall}
# each hook's programs on this tier (the buffers' hook of the syscall and
# function tiers is a part of the call's exit, not a program: no name)
case $T in
syscall) CALLS="sc_sys_enter sc_sys_exit sc_uring_done sc_uring_poll"
	PAGES=sc_page_alloc BUFS= WAITS=sc_switch LOCKS="sc_lock_begin sc_lock_end";;
function) CALLS="fn_read_f\|fn_read_k fn_write_f\|fn_write_k"
	PAGES=fn_page_alloc BUFS= WAITS=fn_switch
	LOCKS="fn_lock_begin fn_lock_end";;
tracepoint) CALLS="tp_copy\|tp_lite_copy tp_eagain"
	PAGES=tp_page_get BUFS= WAITS="tp_wait_begin\|tp_lite_wbegin tp_wait_end\|tp_lite_wend"
	LOCKS="tp_lock_begin tp_lock_end";;
esac

# loaded: the programs the loader says it loaded (-v), one a line
loaded() { sed -n 's/^pipestat: programs loaded: //p' "$TMP/err" | tr ' ' '\n'; }

# hook WHAT NAMES WANT: every program of NAMES loaded (WANT 1) or none (0)
hook() {
	local what=$1 names=$2 want=$3 name n=0 all=0
	for name in $names; do
		all=$((all + 1))
		loaded | grep -q "^\($name\)" && n=$((n + 1))
	done
	[ "$all" = 0 ] && return
	expect "$what" "$n" $((want * all))
}

# attach ARGS...: pipestat -v on $TIER with ARGS
attach() { start_pipestat -v ${TIER:+--tier "$TIER"} -n pipework "$@"; }

# the kernel's view: the programs pipestat holds are the ones it said
held_names() {
	grep -hE '^prog_id:' /proc/"$PS_PID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' |
		sort -u | while read -r id; do
			bpftool prog show id "$id" | sed -n 's/.* name \([^ ]*\) .*/\1/p'
		done | sort
}

check_held() {
	expect "$1: the programs held are those loaded" "$(held_names | tr '\n' ' ')" \
		"$(loaded | sort | tr '\n' ' ')"
}

# -o writes,write_bytes: the calls alone; every other column empty
t_calls_only() {
	local n=100 out pid bufs slots
	attach -k pid --csv -o writes,write_bytes || { not_ok "calls only: attach"; return; }
	check_held "calls only"
	out=$(work stream 65536 $n); pid=$(pid_of "$out")
	stop_pipestat
	hook "calls only: the calls' programs loaded" "$CALLS" 1
	hook "calls only: no page program" "$PAGES" 0
	hook "calls only: no buffer program" "$BUFS" 0
	hook "calls only: no sleep program" "$WAITS" 0
	hook "calls only: no contention program" "$LOCKS" 0
	expect "calls only: writes" "$(csv_get "$TMP/out" writes pid "$pid")" $n
	expect "calls only: write_bytes" "$(csv_get "$TMP/out" write_bytes pid "$pid")" $((n * 65536))
	expect "calls only: pool_misses empty, not 0" \
		"[$(csv_rows "$TMP/out" pool_misses pid="$pid")]" "[]"
	# the tracepoint tier's pipe_copy gives the buffers itself
	[ "$T" = tracepoint ] && bufs=$((16 * n)) || bufs=
	expect "calls only: reader's copy_buffers ${bufs:-empty, not 0}" \
		"[$(csv_rows "$TMP/out" copy_buffers comm=pipework pid!="$pid")]" "[$bufs]"
	expect "calls only: waits_write empty, not 0" \
		"[$(csv_rows "$TMP/out" waits_write pid="$pid")]" "[]"
	# the syscall tier reads the ring for its ring_* columns only then,
	# the tracepoint tier in its full program set only
	local ring="the ring's state at sys_enter/sys_exit"
	[ "$T" = tracepoint ] && ring="the ring's state at pipe:pipe_copy"
	[ "$T" = function ] && slots=16 || slots=
	expect "calls only: writer's ring_slots ${slots:-empty, not 0}" \
		"[$(csv_rows "$TMP/out" ring_slots pid="$pid")]" "[$slots]"
	[ "$T" = function ] || expect "calls only: the tier line names the ring's state" \
		"$(grep -c "left out (no column shown needs .*$ring.*): .*ring_slots" "$TMP/err")" 1
	expect "calls only: the tier line says what was left out and why" \
		"$(grep -c 'left out (no column shown needs .*): .*pool_misses, .*waits_read' "$TMP/err")" 1
}

# -o ring_slots,ring_owner_uid: the ring's state (the syscall tier reads
# it at entry and exit for them), exact; no sleeps, no pages
t_ring() {
	local n=10 out pid
	attach -k pid --csv -o ring_slots,ring_owner_uid || { not_ok "ring: attach"; return; }
	out=$(work stream 65536 $n); pid=$(pid_of "$out")
	stop_pipestat
	hook "ring: no page program" "$PAGES" 0
	hook "ring: no sleep program" "$WAITS" 0
	expect "ring: writer's ring_slots" "$(csv_get "$TMP/out" ring_slots pid "$pid")" 16
	expect "ring: writer's ring_owner_uid" "$(csv_get "$TMP/out" ring_owner_uid pid "$pid")" 0
}

# -o pool_hits,pool_misses,copy_buffers: their hooks, exact; no sleeps
t_pages() {
	local n=100 out pid hits misses
	attach -k pid --csv -o pool_hits,pool_misses,copy_buffers ||
		{ not_ok "pages: attach"; return; }
	check_held "pages"
	out=$(work stream 65536 $n); pid=$(pid_of "$out")
	stop_pipestat
	hook "pages: the page program loaded" "$PAGES" 1
	hook "pages: the buffer program loaded" "$BUFS" 1
	hook "pages: no sleep program" "$WAITS" 0
	hits=$(csv_get "$TMP/out" pool_hits pid "$pid")
	misses=$(csv_get "$TMP/out" pool_misses pid "$pid")
	expect "pages: pool_hits + pool_misses == 16N" $((hits + misses)) $((16 * n))
	expect "pages: reader's copy_buffers == 16N" \
		"$(csv_sum "$TMP/out" copy_buffers comm=pipework pid!="$pid")" $((16 * n))
	expect "pages: waits_read empty, not 0" "[$(csv_rows "$TMP/out" waits_read pid="$pid")]" "[]"
}

# the operator's default table: the calls and the sleeps, nothing else
t_default_table() {
	attach -k pid || { not_ok "default table: attach"; return; }
	check_held "default table"
	stop_pipestat
	hook "default table: the calls' programs loaded" "$CALLS" 1
	hook "default table: the sleep programs loaded" "$WAITS" 1
	hook "default table: no page program" "$PAGES" 0
	hook "default table: no buffer program" "$BUFS" 0
	hook "default table: no contention program" "$LOCKS" 0
	# --no-waits: none for the sleeps either; --waits: them with any -o
	attach -k pid --no-waits || { not_ok "--no-waits: attach"; return; }
	stop_pipestat
	hook "--no-waits: no sleep program" "$WAITS" 0
	attach -o reads --waits || { not_ok "-o reads --waits: attach"; return; }
	stop_pipestat
	hook "-o reads --waits: the sleep programs loaded" "$WAITS" 1
	hook "-o reads --waits: no page program" "$PAGES" 0
}

# The tracepoint tier's two program sets: the light one (no per-call
# state; each wait its own sleeps-map entry) when no column needs the page
# tally, contention or the ring's state, the full one when one does.
# sets WHAT ARGS...: which set pipestat -v loaded with ARGS, into $SETS
sets() {
	local what=$1 light=0 full=0 name
	shift
	SETS="$what: attach failed"
	attach -k pid "$@" || return
	check_held "program sets, $what"
	stop_pipestat
	for name in tp_lite_copy tp_lite_wbegin tp_lite_wend; do
		loaded | grep -qx "$name" && light=$((light + 1))
	done
	for name in tp_copy tp_wait_begin tp_wait_end tp_task_free; do
		loaded | grep -qx "$name" && full=$((full + 1))
	done
	SETS="light $light full $full"
}

t_program_sets() {
	[ "$T" = tracepoint ] || return 0
	sets "default view"
	expect "program sets: the default view loads the light set" "$SETS" "light 3 full 0"
	sets "--no-waits" --no-waits
	expect "program sets: --no-waits, the light pipe_copy alone" "$SETS" "light 1 full 0"
	sets "pages" -o default,pool_hits
	expect "program sets: a page column loads the full set" "$SETS" "light 0 full 4"
	sets "locks" -o default,lock_contended
	expect "program sets: a contention column loads the full set" "$SETS" "light 0 full 4"
	sets "ring" -o default,ring_peak
	expect "program sets: a ring column loads the full set" "$SETS" "light 0 full 4"
	sets "ring, --no-waits" --no-waits -o reads,ring_slots
	expect "program sets: the ring without the sleeps: the full pipe_copy alone" \
		"$SETS" "light 0 full 1"
}

# CSV without -o: every column, every hook
t_csv_all() {
	attach --csv || { not_ok "csv: attach"; return; }
	check_held "csv"
	stop_pipestat
	local locks
	hook "csv: the page program loaded" "$PAGES" 1
	hook "csv: the buffer program loaded" "$BUFS" 1
	hook "csv: the sleep programs loaded" "$WAITS" 1
	# a kernel without lock:contention_* events (the tier line says) has
	# no contention programs to load
	grep -q 'not known: [^;]*lock_contended' "$TMP/err" && locks=0 || locks=1
	hook "csv: the contention programs loaded" "$LOCKS" $locks
	expect "csv: nothing left out" "$(grep -c 'left out' "$TMP/err")" 0
}

t_calls_only
t_ring
t_pages
t_default_table
t_program_sets
t_csv_all
summary
