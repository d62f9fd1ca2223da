#!/usr/bin/env bash
# tests/vm/budget.sh, the checker of the kernel series' cost budgets, on
# figures made up here: all budgets held passes; each broken budget
# (ping-pong, splice, tee and vmsplice instructions with the A/B switches
# on or off past 1%, the tracepoints kernel's past 1%, too few runs, a
# write that moves no byte allocating, an extra mutex acquisition, struct
# pipe_inode_info in a larger kmalloc class, and each benefit budget: the
# CPU's STAC and instruction counts, pages under the mutex, idle
# footprint, io_uring, a faulting write) fails it with its own "not ok"
# line.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

WL="pingpong w4k w32k w64k slowreader mix eagain nowait epipe sigwrite urstream urbusy idle faultw read64k splice tee vmsplice"
# the workloads with instructions per op, and those the tracepoints kernel runs
TIMED="pingpong w4k w64k splice tee vmsplice"
TIMED_TP="pingpong w4k w64k splice tee vmsplice"

# figures W C: the guest-budget.sh lines of workload W, setting C, with
# every budget held (overrides in $OV: a "w c metric value" line replaces
# that figure; value "-" drops every line of it)
figures() {
	local w=$1 c=$2 i
	{
		echo "$w $c lost 0"
		echo "$w $c alloc ${ALLOC[$c]}"
		echo "$w $c free ${ALLOC[$c]}"
		echo "$w $c mutex_w 201"
		echo "$w $c mutex_r 4"
		echo "$w $c wait_w 1"
		echo "$w $c wait_r 0"
		echo "$w $c prefill 0"
		echo "$w $c trim 0"
		echo "$w $c writes 200"
		echo "$w $c ops 200"
		echo "$w $c alloc_locked ${LOCKED[$c]}"
		echo "$w $c arms 3"
		echo "$w $c punts 0"
		echo "$w $c held_pages 200"
		echo "$w $c nowait_eagain 0"
		echo "$w $c cpu_insns ${CINS[$c]}"
		echo "$w $c cpu_stac 400"
		echo "$w $c cpu_clac 400"
		echo "$w $c cpu_held_r 100000"
		echo "$w $c cpu_held_w ${HELD[$c]}"
		echo "$w $c cpu_held_r_stac ${RSTAC[$c]}"
		echo "$w $c cpu_held_w_stac 3200"
		echo "$w $c cpu_locks_r 200"
		echo "$w $c cpu_locks_w 400"
		instr "$w" "$c"
	} | awk -v ov="$OV" 'BEGIN { n = split(ov, l, "\n")
		for (i = 1; i <= n; i++) { split(l[i], f, " "); if (f[4] != "") o[f[1] " " f[2] " " f[3]] = f[4] } }
		{ k = $1 " " $2 " " $3; if (!(k in o)) print; else if (o[k] != "-") { print k, o[k]; delete o[k] } }'
}

# instr W C: 7 runs' instructions per op of workload W, setting C (the
# ping-pong's in PP, the others in INS as "W:C", by default BASE's)
declare -A BASE=([unpatched]=6696 [off]=6748 [on]=6749)
instr() {
	local w=$1 c=$2 i v
	case " $TIMED " in *" $w "*) ;; *) return;; esac
	v=${INS[$w:$c]:-${BASE[$c]}}
	[ "$w" = pingpong ] && v=${PP[$c]}
	for i in 1 2 3 4 5 6 7; do echo "$w $c instr $v"; done
}

# run NAME: budget.sh on the figures; $TMP/out its output, RC its status
run() {
	local w i
	{
		for w in $WL; do figures "$w" unpatched; done
		echo "pipe_inode_info unpatched bytes ${SZ[unpatched]}"
	} >"$TMP/u.txt"
	{
		for w in $WL; do figures "$w" off; figures "$w" on; done
		echo "pipe_inode_info patched bytes ${SZ[patched]}"
	} >"$TMP/p.txt"
	{
		for w in $TIMED_TP; do
			for i in 1 2 3 4 5 6 7; do echo "$w tracepoints instr ${TP[$w]}"; done
		done
		echo "pipe_inode_info tracepoints bytes ${SZ[unpatched]}"
	} >"$TMP/t.txt"
	tests/vm/budget.sh "$TMP/u.txt" "$TMP/p.txt" "$TMP/t.txt" >"$TMP/out" 2>&1
	RC=$?
}
notok() { grep '^not ok' "$TMP/out" | sed 's/ (.*//' | tr '\n' ';'; }

declare -A PP=([unpatched]=6696 [off]=6748 [on]=6749)
declare -A ALLOC=([unpatched]=20 [off]=16 [on]=16)
declare -A HELD=([unpatched]=14000000 [off]=14010000 [on]=13600000)
declare -A LOCKED=([unpatched]=3000 [off]=3000 [on]=1600)
declare -A RSTAC=([unpatched]=3200 [off]=3200 [on]=200)
declare -A CINS=([unpatched]=30000000 [off]=30000000 [on]=29000000)
declare -A SZ=([unpatched]=168 [patched]=176)
# the others' unpatched figure is the ping-pong's: 6696, within 1% up to 6762
declare -A INS=()
declare -A TP=([pingpong]=6720 [w4k]=6700 [w64k]=6696 [splice]=6696 [tee]=6696 [vmsplice]=6696)
OV=""
run
expect "all budgets held: exit status" "$RC" 0
expect "all budgets held: no failed check" "$(grep -c '^not ok' "$TMP/out")" 0
expect "all budgets held: the ping-pong checks are there" \
	"$(grep -c '^ok - budget: 1-byte ping-pong instructions/op, switches \(on\|off\)' "$TMP/out")" 2

PP[on]=6763		# 6696 * 1.01 = 6762.96: one instruction over
run
expect "ping-pong knobs on +1.0%: exit status" "$RC" 1
expect "ping-pong knobs on +1.0%: the one failed check" "$(notok)" \
	"not ok - budget: 1-byte ping-pong instructions/op, switches on 6763 vs unpatched 6696;"
PP[on]=6762
run
expect "ping-pong knobs on 6762 (within 1%): exit status" "$RC" 0

PP[on]=6749 PP[off]=6800
run
expect "ping-pong knobs off +1.6%: exit status" "$RC" 1
expect "ping-pong knobs off +1.6%: the one failed check" "$(notok)" \
	"not ok - budget: 1-byte ping-pong instructions/op, switches off 6800 vs unpatched 6696;"
PP[off]=6748

OV=$(printf '%s\n' "pingpong on instr -")
run
expect "ping-pong with no knobs-on runs: exit status" "$RC" 1
expect "ping-pong with no knobs-on runs: the one failed check" "$(notok)" \
	"not ok - budget: 1-byte ping-pong instructions/op, switches on - vs unpatched 6696;"
OV=""

INS[splice:on]=6763
run
expect "splice knobs on +1.0%: the one failed check" "$(notok)" \
	"not ok - budget: splice round instructions/op, switches on 6763 vs unpatched 6696;"
INS[splice:on]=6762
run
expect "splice knobs on 6762 (within 1%): exit status" "$RC" 0
INS=([tee:off]=6840)
run
expect "tee knobs off +2.2% (tee's budget 2%): the one failed check" "$(notok)" \
	"not ok - budget: tee round instructions/op, switches off 6840 vs unpatched 6696;"
INS=([vmsplice:on]=7000)
run
expect "vmsplice knobs on +4.5%: the one failed check" "$(notok)" \
	"not ok - budget: vmsplice round instructions/op, switches on 7000 vs unpatched 6696;"
INS=()
OV="tee on instr -"
run
expect "tee with no knobs-on runs: the one failed check" "$(notok)" \
	"not ok - budget: tee round instructions/op, switches on - vs unpatched 6696;"
OV=""
WL=${WL% vmsplice}
run
expect "no vmsplice figures at all: the one failed check" "$(notok)" \
	"not ok - budget: vmsplice: no figures at all;"
WL="$WL vmsplice"

TP[pingpong]=6763
run
expect "tracepoints compiled in and disabled +1.0%: exit status" "$RC" 1
expect "tracepoints +1.0%: the one failed check" "$(notok)" \
	"not ok - budget: 1-byte ping-pong instructions/op, tracepoints compiled in, disabled 6763 vs unpatched 6696;"
TP[pingpong]=6720 TP[w64k]=7000
run
expect "tracepoints, 64 KiB writes +4.5%: the one failed check" "$(notok)" \
	"not ok - budget: w64k write instructions/op, tracepoints compiled in, disabled 7000 vs unpatched 6696;"
TP[w64k]=6696

SZ[patched]=232
run
expect "pipe_inode_info into kmalloc-256: exit status" "$RC" 1
expect "pipe_inode_info into kmalloc-256: the one failed check" "$(notok)" \
	"not ok - budget: struct pipe_inode_info in the unpatched kmalloc size class: 232 bytes, kmalloc-256; unpatched 168 bytes, kmalloc-192;"
SZ[patched]=192
run
expect "pipe_inode_info of 192 bytes (kmalloc-192): exit status" "$RC" 0
SZ[patched]=""
run
expect "pipe_inode_info size unknown (no pahole figure): the one failed check" "$(notok)" \
	"not ok - budget: struct pipe_inode_info in the unpatched kmalloc size class: - bytes, kmalloc-?; unpatched 168 bytes, kmalloc-192;"
SZ[patched]=176

OV="eagain on alloc 32"
run
expect "EAGAIN writes allocate with the switches on: exit status" "$RC" 1
expect "EAGAIN writes allocate with the switches on: the one failed check" "$(notok)" \
	"not ok - budget: eagain: writes that move no byte allocate nothing, patched;"

OV="w64k off mutex_r 5"
run
expect "switches off take the mutex once more than unpatched: exit status" "$RC" 1
expect "switches off take the mutex once more: the one failed check" "$(notok)" \
	"not ok - budget: w64k switches off: pipe->mutex acquisitions == unpatched;"

OV=$(printf '%s\n' "slowreader on alloc 21" "slowreader on free 21")
run
expect "slow reader churns more than unpatched: the one failed check" "$(notok)" \
	"not ok - budget: slowreader: pages allocated + freed, patched;"

OV="mix on wait_w 2"
run
expect "a write takes the mutex once less than writes + waits: the one failed check" "$(notok)" \
	"not ok - budget: mix switches on: mutex acquisitions in anon_pipe_write;"

OV="w4k off lost 3"
run
expect "trace events lost: the one failed check" "$(notok)" \
	"not ok - budget: w4k off: no trace events lost;"

OV="w64k on cpu_held_w 14141000"
run
expect "1.01% more instructions with the mutex held: the one failed check" "$(notok)" \
	"not ok - budget: w64k: instructions with pipe->mutex held per write;"
OV="w64k on cpu_held_w 14140000"
run
expect "1.00% more instructions with the mutex held: exit status" "$RC" 0

OV="w32k on alloc_locked 3001"
run
expect "one allocation more under the mutex: the one failed check" "$(notok)" \
	"not ok - budget: w32k: pages allocated with pipe->mutex held per write, patched 15.01 <= unpatched 15.00;"

OV="w32k on alloc 20"
run
expect "32 KiB writes allocate as many pages as unpatched: the one failed check" "$(notok)" \
	"not ok - budget: w32k: pages allocated per 32 KiB write, patched 0.10 < unpatched 0.10;"

OV="read64k on cpu_held_r_stac 400"
run
expect "a batched read runs STAC twice: the one failed check" "$(notok)" \
	"not ok - budget: read64k: STAC per 64 KiB read with pipe->mutex held;"

OV="read64k on cpu_insns 30000000"
run
expect "no fewer instructions per byte: the one failed check" "$(notok)" \
	"not ok - budget: read64k: instructions per byte of 64 KiB written and read;"

OV="pingpong on cpu_stac 401"
run
expect "a STAC more in a ping-pong: the one failed check" "$(notok)" \
	"not ok - budget: pingpong: STAC per round trip;"

OV="idle on held_pages 400"
run
expect "an idle pipe holds a page more: the one failed check" "$(notok)" \
	"not ok - budget: idle: bytes held per idle pipe after a merge burst, patched 8192, switches off 4096 <= unpatched 4096;"

OV=$(printf '%s\n' "urbusy off punts 20" "urbusy off nowait_eagain 20")
run
expect "nowait trylock (io-wq punts, RWF_NOWAIT EAGAIN): exit status" "$RC" 1
expect "nowait trylock: the failed checks" "$(notok)" \
	"not ok - budget: urbusy switches off: io_uring poll arms 3, io-wq punts 20 <= unpatched 3, 0;not ok - budget: urbusy: RWF_NOWAIT reads and writes with data or room and pipe->mutex held elsewhere: -EAGAIN switches off 20, on 0;"

OV="urstream on arms 4"
run
expect "one io_uring poll arm more: the one failed check" "$(notok)" \
	"not ok - budget: urstream switches on: io_uring poll arms 4, io-wq punts 0 <= unpatched 3, 0;"

OV=$(printf '%s\n' "faultw on alloc 24" "faultw on free 24")
run
expect "a faulting write allocates pages it does not use: the one failed check" "$(notok)" \
	"not ok - budget: faultw: 64 KiB writes faulting after 16 KiB allocate no page they do not use, patched 0.12 <= unpatched 0.10 pages per write;"

summary
