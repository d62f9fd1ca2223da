#!/usr/bin/env bash
# Also run in the VMs, on their tiers (tests/vm/guest-pipestat.sh, TIER=T):
# nothing here may assume this host's kernel or tier, or what only the
# host has (the guests have no /dev/fd).
#
# Known answers: workloads whose counts follow from their parameters (N
# nonblocking reads of an empty pipe: N read EAGAINs; N 64 KiB writes: 16N
# pages), under pipestat on one tier, checked exactly from its CSV.
#
# One suite for every tier: TIER=T runs it on tier T (default: the best
# this kernel allows, the syscall tier on this workplace's host); the VMs
# run it on the function and tracepoint tiers and each knob setting
# (tests/vm/guest-pipestat.sh). What a tier cannot know in the kernel's
# knob state is what pipestat's own tier line says (the metrics table):
# such a field must be empty, every other one exact. The knobs (patched
# kernels) are read from /proc/sys/fs.
#
#   TIER=T          the tier (pipestat --tier)
#   NOWAIT=0        the kernel's pipes refuse RWF_NOWAIT (Linux 6.1): reads
#                   asking for it fail before pipe_read(), io_uring hands
#                   each read of an empty pipe to an io-wq worker
#   SPILL=0         no second passes (PIPETRACE_ONE_CALL_SLOT=1, then
#                   PIPETRACE_ONE_CACHE_SLOT=1); SPILL=only: those only
#   KA_ONLY="t_x .."  only these tests; KA_SKIP="t_y ..": not these
#   PTWORK=PATH     the static workload binary (default build/ptwork)
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_known_answers.sh: needs root (BPF)"; exit 1
fi
PTWORK=${PTWORK:-build/ptwork}
NOWAIT=${NOWAIT:-1}
[ -x "$PTWORK" ] || { echo "tests/host/test_known_answers.sh: $PTWORK not built (make build/ptwork)"; exit 1; }

# the kernel's A/B switches (0 where it has none: no prefill, no batch)
knob() { cat "/proc/sys/fs/$1" 2>/dev/null || echo 0; }
PREFILL=$(( $(knob pipe-prealloc-max) > 0 ))
BATCH=$(( $(knob pipe-read-batch) > 0 ))

# Mainline's prealloc (7.2): the pages a write of more than a page takes
# before pipe->mutex, at most the length of struct anon_pipe_prealloc's
# pages[] (PIPE_PREALLOC_MAX); 0: the kernel has none. Read from the
# kernel's BTF here, apart from pipestat's own probe.
prealloc_max() {
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null | awk '
	/^\[[0-9]+\] ARRAY/ { id = substr($1, 2, length($1) - 2)
		match($0, /nr_elems=[0-9]+/); n[id] = substr($0, RSTART + 9, RLENGTH - 9) }
	/^\[[0-9]+\] STRUCT .anon_pipe_prealloc./ { f = 1; next }
	f && /pages/ { match($0, /type_id=[0-9]+/); t = substr($0, RSTART + 8, RLENGTH - 8) }
	/^\[/ { f = 0 }
	END { print (t in n) ? n[t] : 0 }'
}
PREALLOC=${PREALLOC:-$(prealloc_max)}

# prealloc_pages LEN: the pages mainline's prealloc takes for a write of
# LEN bytes before the mutex, whatever the write then moves (none for a
# page or less, else min(pages, PREALLOC))
prealloc_pages() {
	local p=$(( ($1 + 4095) / 4096 ))
	if [ "$PREALLOC" = 0 ] || [ "$1" -le 4096 ]; then echo 0
	elif [ $p -lt "$PREALLOC" ]; then echo $p
	else echo "$PREALLOC"; fi
}

# size HOST VM: a workload's size; qemu's TCG runs the guest ~50x slower
size() { if [ -n "${PIPETRACE_IN_VM:-}" ]; then echo "$2"; else echo "$1"; fi; }

# attach ARGS...: start_pipestat on $TIER; RUN_TIER and NOT_KNOWN (", "
# separated) from its tier line, whose lists -v gives: "pipestat: T tier
# (...; not known: a, b; left out ...)"
attach() {
	start_pipestat -v ${TIER:+--tier "$TIER"} "$@" || return 1
	local line
	line=$(grep 'Ctrl-C to end' "$TMP/err")
	RUN_TIER=$(sed -n 's/^pipestat: \([a-z]*\) tier.*/\1/p' <<<"$line")
	NOT_KNOWN=", $(sed -n 's/.*not known: \([^);]*\)[);].*/\1/p' <<<"$line"), "
	[ -z "${TIER:-}" ] || [ "$RUN_TIER" = "$TIER" ] ||
		{ not_ok "asked for the $TIER tier, the tier line says '$RUN_TIER'"; return 1; }
}

# known COLUMN: the tier knows COLUMN in this knob state
known() { [[ $NOT_KNOWN != *", $1, "* ]]; }

# raw COLUMN [CONDITION]...: the fields of the matching rows, joined ("" if
# every one is empty: a value the tier cannot know)
raw() { csv_rows "$TMP/out" "$@" | paste -sd' '; }

# expect_col NAME COLUMN WANT [CONDITION]...: the sum of COLUMN over the
# matching rows is WANT, or, if the tier cannot know COLUMN, every field is
# empty (never 0)
expect_col() {
	local name=$1 col=$2 want=$3
	shift 3
	if known "$col"; then
		expect "$name" "$(csv_sum "$TMP/out" "$col" "$@")" "$want"
	else
		expect "$name unknown here" "$(raw "$col" "$@")" ""
	fi
}

# What the tiers count that no column's quality says: the pipe tiers count
# calls of pipe_read() and pipe_write(), so a read asking for 0 bytes is
# none (it returns before pipe_read()), and an io_uring read of an empty
# pipe is two (the nowait attempt's EAGAIN, then the read when data came);
# the syscall tier counts system calls and completed io_uring requests
# (docs/TIERS.md)
counts_pipe_calls() { [ "$RUN_TIER" != syscall ]; }

# under WHAT ARGS...: pipework ARGS under pipestat -k pid --csv; its report
# in OUT, its pid in PID (1: pipestat did not attach)
under() {
	local what=$1
	shift
	attach -k pid --csv -n pipework || { not_ok "$what: attach"; return 1; }
	OUT=$(work "$@"); PID=$(pid_of "$OUT")
	stop_pipestat
}

# of COLUMN: the workload process's COLUMN (under)
of() { csv_get "$TMP/out" "$1" pid "$PID"; }

t_eagain_read() {
	local n
	n=$(size 1000 200)
	under eagain-read eagain-read "$n" || return
	expect "eagain-read: exit status" "$PS_RC" 0
	expect "eagain-read: workload saw" "$OUT" "pid=$PID eagain-read=$n"
	expect "eagain-read: reads" "$(of reads)" "$n"
	expect "eagain-read: eagain_read" "$(of eagain_read)" "$n"
	expect "eagain-read: eagain_nonblock" "$(of eagain_nonblock)" "$n"
	expect "eagain-read: eagain_nowait" "$(of eagain_nowait)" 0
	expect "eagain-read: read_bytes" "$(of read_bytes)" 0
	expect_col "eagain-read: eagain_empty" eagain_empty "$n" pid="$PID"
	expect_col "eagain-read: eagain_full" eagain_full 0 pid="$PID"
}

t_nowait_read() {
	local n
	n=$(size 500 100)
	if [ "$NOWAIT" = 0 ]; then
		attach -k comm --csv -n pipework || { not_ok "nowait-read: attach"; return; }
		"$PIPEWORK" nowait-read "$n" >"$TMP/work" 2>&1
		stop_pipestat
		expect "nowait-read: this kernel's pipes refuse RWF_NOWAIT" "$(head -1 "$TMP/work")" \
			"FAIL: call 0 did not fail as wanted (returned -1, Operation not supported)"
		expect "nowait-read: so no read reaches the pipe" "$(csv_get "$TMP/out" reads comm pipework)" ""
		return
	fi
	under nowait-read nowait-read "$n" || return
	expect "nowait-read: eagain_read" "$(of eagain_read)" "$n"
	expect "nowait-read: eagain_nowait" "$(of eagain_nowait)" "$n"
	expect "nowait-read: eagain_nonblock" "$(of eagain_nonblock)" 0
	expect_col "nowait-read: eagain_empty" eagain_empty "$n" pid="$PID"
}

# pool_sum NAME WANT [CONDITION]...: pool_hits + pool_misses (new buffers),
# where the tier knows both
pool_sum() {
	local name=$1 want=$2 hits misses
	shift 2
	if known pool_hits && known pool_misses; then
		hits=$(csv_sum "$TMP/out" pool_hits "$@")
		misses=$(csv_sum "$TMP/out" pool_misses "$@")
		expect "$name: pool_hits + pool_misses" $((hits + misses)) "$want"
	else
		expect "$name: pool_hits, pool_misses unknown here" "$(raw pool_hits "$@")/$(raw pool_misses "$@")" /
	fi
}

t_eagain_write() {
	local n
	n=$(size 700 100)
	under eagain-write eagain-write "$n" || return
	expect "eagain-write: eagain_write" "$(of eagain_write)" "$n"
	# one write filled the fresh pipe: 16 new buffers, all allocated
	expect "eagain-write: writes" "$(of writes)" $((n + 1))
	expect "eagain-write: write_bytes" "$(of write_bytes)" 65536
	expect "eagain-write: eagain_read" "$(of eagain_read)" 0
	expect_col "eagain-write: eagain_full" eagain_full "$n" pid="$PID"
	fill_pages "eagain-write" 0
}

# fill_pages NAME WASTED: the pages of eagain-write's fill, one 64 KiB
# write into a fresh pipe: 16 new buffers, every page allocated, the first
# 8 before the mutex with the series' prefill on, PREALLOC of them with
# mainline's prealloc; then WASTED more before it by the EAGAIN writes
fill_pages() {
	local what=$1 wasted=$2 before
	before=$(( PREFILL ? 8 : $(prealloc_pages 65536) ))
	pool_sum "$what" 16 pid="$PID"
	expect_col "$what (prefill $PREFILL, prealloc $PREALLOC): pool_misses" pool_misses \
		$((16 - before)) pid="$PID"
	expect_col "$what (prefill $PREFILL, prealloc $PREALLOC): alloc_locked" alloc_locked \
		$((16 - before)) pid="$PID"
	expect_col "$what (prefill $PREFILL, prealloc $PREALLOC): alloc_unlocked" alloc_unlocked \
		$((before + wasted)) pid="$PID"
	expect_col "$what (prefill $PREFILL, prealloc $PREALLOC): alloc_wasted" alloc_wasted \
		"$wasted" pid="$PID"
}

# N nonblocking 64 KiB writes to a full pipe: mainline's prealloc takes
# its pages for each before it finds the pipe full, and frees them (or
# caches two in tmp_page[]); the series' prefill looks at the room first
t_eagain_write_big() {
	local n
	n=$(size 500 100)
	under eagain-write-big eagain-write "$n" 65536 || return
	expect "eagain-write-big: eagain_write" "$(of eagain_write)" "$n"
	expect "eagain-write-big: writes" "$(of writes)" $((n + 1))
	expect "eagain-write-big: write_bytes" "$(of write_bytes)" 65536
	fill_pages "eagain-write-big" $((n * $(prealloc_pages 65536)))
}

# N 64 KiB writes drained by a reader child: exact ops, bytes and buffers
stream_checks() {
	local what=$1 n=$2 out=$3 pid misses locked
	pid=$(pid_of "$out")
	expect "$what: workload moved" "$out" "pid=$pid stream=$((n * 65536))"
	expect "$what: writes" "$(csv_get "$TMP/out" writes pid "$pid")" "$n"
	expect "$what: write_bytes" "$(csv_get "$TMP/out" write_bytes pid "$pid")" $((n * 65536))
	pool_sum "$what" $((16 * n)) pid="$pid"
	# mainline's prealloc: 8 of each write's 16 pages before the mutex,
	# the rest from tmp_page[] or allocated under it
	[ "$PREFILL" = 1 ] || expect_col "$what (prealloc $PREALLOC): alloc_unlocked" alloc_unlocked \
		$((n * $(prealloc_pages 65536))) pid="$pid"
	expect_col "$what: alloc_wasted" alloc_wasted 0 pid="$pid"
	if known alloc_locked && [ "$PREFILL" = 1 ]; then
		# the burst comes from the pool, at most the other 8 pages of
		# each write are allocated under the mutex
		locked=$(csv_get "$TMP/out" alloc_locked pid "$pid")
		expect "$what: alloc_locked <= 8N" "$(( ${locked:-999999} <= 8 * n ))" 1
	elif known alloc_locked; then
		misses=$(csv_get "$TMP/out" pool_misses pid "$pid")
		locked=$(csv_get "$TMP/out" alloc_locked pid "$pid")
		expect "$what: alloc_locked == pool_misses" "$locked" "$misses"
		# with the prealloc, at most the other pages of each write
		expect "$what: alloc_locked <= (16 - prealloc) N" \
			"$(( ${locked:-999999} <= (16 - $(prealloc_pages 65536)) * n ))" 1
	else
		expect "$what: alloc_locked unknown here" "$(raw alloc_locked pid="$pid")" ""
	fi
	# the reader is the workload's only other process
	expect "$what: reader read_bytes" "$(csv_sum "$TMP/out" read_bytes comm=pipework pid!="$pid")" $((n * 65536))
	expect_col "$what: reader copy_buffers" copy_buffers $((16 * n)) comm=pipework pid!="$pid"
	# the reader reads until the writer closes: one read returns 0
	expect "$what: reader eof_reads" "$(csv_sum "$TMP/out" eof_reads comm=pipework pid!="$pid")" 1
	expect "$what: the writer has none" "$(csv_get "$TMP/out" eof_reads pid "$pid")" 0
}

t_stream() {
	local n out
	n=$(size 300 64)
	attach -k pid --csv -n pipework || { not_ok "stream: attach"; return; }
	out=$(work stream 65536 "$n")
	stop_pipestat
	stream_checks "stream (prefill $PREFILL)" "$n" "$out"
}

# writes of each size, drained by a reader: the pages before the mutex
# follow the size alone (mainline's prealloc: none for a page or less,
# else min(pages, PREALLOC); none without it); none wasted
t_prealloc_sizes() {
	local n sz out pid
	n=$(size 50 10)
	attach -k pid --csv -n pipework || { not_ok "prealloc-sizes: attach"; return; }
	: >"$TMP/sizes"
	for sz in 1 4096 4097 20000 65536 100000; do
		echo "$sz $(work stream "$sz" "$n")" >>"$TMP/sizes"
	done
	stop_pipestat
	while read -r sz out; do
		pid=$(pid_of "$out")
		expect "prealloc-sizes $sz: write_bytes" "$(csv_get "$TMP/out" write_bytes pid "$pid")" \
			$((n * sz))
		# the series' prefill follows the room, not the size alone
		[ "$PREFILL" = 1 ] ||
			expect_col "prealloc-sizes $sz (prealloc $PREALLOC): alloc_unlocked" alloc_unlocked \
				$((n * $(prealloc_pages "$sz"))) pid="$pid"
		expect_col "prealloc-sizes $sz: alloc_wasted" alloc_wasted 0 pid="$pid"
	done <"$TMP/sizes"
}

# a FIFO, keyed by process and by its own inode number
t_fifo() {
	local n out ino
	n=$(size 200 32)
	rm -f "$TMP/fifo"
	attach -k pid --csv -n pipework || { not_ok "fifo: attach"; return; }
	out=$(work stream 65536 "$n" "$TMP/fifo")
	stop_pipestat
	stream_checks fifo "$n" "$out"
	ino=$(stat -c %i "$TMP/fifo")
	attach -k pipe --csv -n pipework || { not_ok "fifo by pipe: attach"; return; }
	"$PIPEWORK" stream 65536 "$n" "$TMP/fifo" >/dev/null || not_ok "fifo by pipe: pipework"
	stop_pipestat
	expect "fifo by pipe: writes" "$(csv_get "$TMP/out" writes pipe_ino "$ino")" "$n"
	expect "fifo by pipe: write_bytes" "$(csv_get "$TMP/out" write_bytes pipe_ino "$ino")" $((n * 65536))
	expect "fifo by pipe: reads (and EOF)" "$(csv_get "$TMP/out" reads pipe_ino "$ino")" $((n + 1))
	expect_col "fifo by pipe: copy_buffers" copy_buffers $((16 * n)) pipe_ino="$ino"
}

# jobserver_exact WHAT OUT TOKENS: each reader of pipework jobserver's
# report OUT read, summed over every row (interval), what it says; the
# writer wrote TOKENS
jobserver_exact() {
	local what=$1 out=$2 tokens=$3 pid n
	for pid in $(sed -n 's/^reader pid=\([0-9]*\) .*/\1/p' <<<"$out"); do
		n=$(sed -n "s/^reader pid=$pid tokens=\([0-9]*\).*/\1/p" <<<"$out")
		expect "$what: reader $pid read_bytes" "$(csv_get "$TMP/out" read_bytes pid "$pid")" "$n"
		expect_col "$what: reader $pid copy_buffers" copy_buffers "$n" pid="$pid"
	done
	expect_col "$what: copy_buffers over all readers" copy_buffers "$tokens" comm=pipework
	expect "$what: writer writes" "$(csv_get "$TMP/out" writes pid "$(pid_of "$out")")" "$tokens"
}

# make's jobserver: blocked readers must not count each other's tokens
t_jobserver() {
	local out tokens
	tokens=$(size 3000 600)
	attach -k pid --csv -n pipework || { not_ok "jobserver: attach"; return; }
	out=$(work jobserver 6 "$tokens")
	stop_pipestat
	jobserver_exact jobserver "$out" "$tokens"
}

# Counts that straddle many drains (-i 0.1) sum exactly: each interval's
# per-CPU cache entries and hash (bpf/agg.bpf.h) are read once and emptied
# before their generation is live again. The writer's gaps make it last at
# least 0.6 s here and 1 s in a VM (fewer tokens, and a 1 ms gap let 200
# tokens fit in 3 intervals there once): 6 and 10 intervals, more than 3.
t_intervals() {
	local out tokens
	tokens=$(size 600 200)
	attach -k pid --csv -i 0.1 -n pipework || { not_ok "intervals: attach"; return; }
	out=$(work jobserver 6 "$tokens" "$(size 1000 5000)")
	stop_pipestat
	expect "intervals: the writer's rows span more than 3 intervals" \
		"$(($(csv_rows "$TMP/out" writes pid="$(pid_of "$out")" | wc -l) > 3))" 1
	jobserver_exact intervals "$out" "$tokens"
}

# issue 26.1: reads of 0 bytes (read, readv, io_uring) of a pipe holding
# data, its writer open, are no end of file; one read that asks for bytes
# and gets 0, no writer left, is
t_zero_read() {
	local n
	n=$(size 300 50)
	under zero-read zero-read "$n" || return
	expect "zero-read: workload" "$OUT" "pid=$PID zero-read=$((6 * n))"
	expect "zero-read: eof_reads" "$(of eof_reads)" 1
	if counts_pipe_calls; then
		expect "zero-read: reads (0-byte reads never reach pipe_read())" \
			"$(of reads)" 2
	else
		expect "zero-read: reads" "$(of reads)" $((6 * n + 2))
	fi
}

t_pingpong() {
	local n
	n=$(size 2000 1000)
	under pingpong pingpong "$n" || return
	expect "pingpong: writes" "$(of writes)" "$n"
	expect "pingpong: reads" "$(of reads)" "$n"
	# every 1-byte write lands in an empty pipe: one new buffer each
	pool_sum "pingpong (new buffers)" "$n" pid="$PID"
	expect_col "pingpong: copy_sections" copy_sections "$n" pid="$PID"
	expect_col "pingpong: copy_buffers" copy_buffers "$n" pid="$PID"
}

# the one 64 KiB read of a full default pipe: 16 buffers, one section each
# unless the kernel batches them (fs.pipe-read-batch): then one
t_fullread() {
	local k=8
	attach --csv -n ptwork || { not_ok "fullread: attach"; return; }
	for _ in $(seq $k); do "$PTWORK" fullread >/dev/null || not_ok "fullread: ptwork"; done
	stop_pipestat
	local what="fullread x$k (batch $BATCH)"
	expect "$what: reads" "$(csv_get "$TMP/out" reads key_type total)" $k
	expect "$what: read_bytes" "$(csv_get "$TMP/out" read_bytes key_type total)" $((k * 65536))
	expect_col "$what: copy_buffers" copy_buffers $((16 * k)) key_type=total
	expect_col "$what: copy_sections" copy_sections $((BATCH ? k : 16 * k)) key_type=total
}

# issue 28: a vectored read opens one user-access section per segment
# piece; pipework works the count out from the segment and buffer
# boundaries. The syscall tier cannot count io_uring's (no ring window);
# writev's reads are plain: one section per buffer, per run when batched
t_vectored() {
	local n k s len out pid want what
	n=$(size 64 16)
	attach -k pid --csv -n pipework || { not_ok "vectored: attach"; return; }
	# pipes without FMODE_NOWAIT: preadv2 fails, io_uring punts to io-wq
	if [ "$NOWAIT" = 1 ]; then vec_work "$n"; else vec_work "$n" readv writev; fi
	stop_pipestat
	while read -r k s len out; do
		pid=$(pid_of "$out")
		want=${out##*sections=}
		[ "$k" = writev ] && want=$((BATCH ? n : n * ((len + 4095) / 4096)))
		what="vectored $k, $s-byte segments (batch $BATCH)"
		expect "$what: reads" "$(csv_get "$TMP/out" reads pid "$pid")" "$n"
		# the syscall tier sees no io_uring iovec; the tracepoint
		# tier's pipe_copy counts copy calls, not an iovec's pieces
		if { [ "$RUN_TIER" = syscall ] && [ "$k" = uring-readv ]; } ||
		   { [ "$RUN_TIER" = tracepoint ] && [ "$k" != writev ]; }; then
			expect "$what: copy_sections not known on this tier" \
				"$(raw copy_sections pid="$pid")" ""
		else
			expect_col "$what: copy_sections" copy_sections "$want" pid="$pid"
		fi
	done <"$TMP/vec"
}

# vmsplice out of a pipe copies to user memory outside any read: the
# syscall tier, which sees it, cannot count its sections (the pipe tiers
# see no call, so no row)
t_vmsplice_sections() {
	local n=16
	attach -k comm --csv -n ptwork || { not_ok "vmsplice sections: attach"; return; }
	"$PTWORK" spliceop vmsplice $n >/dev/null || not_ok "vmsplice sections: ptwork"
	stop_pipestat
	expect "vmsplice out: copy_sections not known" "$(raw copy_sections comm=ptwork)" ""
	if [ "$RUN_TIER" = syscall ]; then
		expect "vmsplice out: splice_out" "$(csv_get "$TMP/out" splice_out comm ptwork)" $n
	fi
}

# io_uring reads of empty pipes: one IOCB_NOWAIT EAGAIN each (no io-wq punt)
t_uring() {
	local n=16
	[ "$NOWAIT" = 1 ] || { t_uring_punted; return; }
	attach --csv -n ptwork || { not_ok "uring: attach"; return; }
	"$PTWORK" uring $n >/dev/null || not_ok "uring: ptwork"
	stop_pipestat
	expect "uring: eagain_nowait" "$(csv_get "$TMP/out" eagain_nowait key_type total)" $n
	expect "uring: eagain_read" "$(csv_get "$TMP/out" eagain_read key_type total)" $n
	expect_col "uring: eagain_empty" eagain_empty $n key_type=total
}

# io_uring on a kernel whose pipes refuse IOCB_NOWAIT: each read goes to an
# io-wq worker (iou-wrk-*) at once and blocks there until its byte comes
iou() { # COLUMN: its sum over the io-wq workers' rows ("" if none)
	local c s=
	for c in $(csv_rows "$TMP/out" comm | grep '^iou-wrk-' | sort -u); do
		s=$((${s:-0} + $(csv_get "$TMP/out" "$1" comm "$c")))
	done
	echo "$s"
}
t_uring_punted() {
	local n=16
	attach -k comm --csv || { not_ok "uring: attach"; return; }
	"$PTWORK" uring $n >/dev/null || not_ok "uring: ptwork"
	stop_pipestat
	expect "uring (punted to io-wq): reads" "$(iou reads)" $n
	expect "uring (punted to io-wq): read_bytes" "$(iou read_bytes)" $n
	expect "uring (punted to io-wq): no EAGAIN at all" "$(csv_sum "$TMP/out" eagain_read)" 0
	expect "uring (punted to io-wq): no IOCB_NOWAIT EAGAIN" "$(csv_sum "$TMP/out" eagain_nowait)" 0
}

# io_uring reads counted whatever path they take: pipetrace-bench's uring point,
# 128 pipes x 256 reads of 4 KiB, once on empty pipes, once on full
t_uring_bench() {
	local comm attempts=0
	[ "$NOWAIT" = 1 ] || return 0	# t_uring_punted: no IOCB_NOWAIT there
	[ -x "$PIPETRACE_BENCH" ] || { not_ok "uring bench: $PIPETRACE_BENCH not built"; return; }
	attach -k comm --csv || { not_ok "uring bench: attach"; return; }
	"$PIPETRACE_BENCH" --csv -R 1 -N 1 uring >"$TMP/bench" 2>"$TMP/bench.err"
	stop_pipestat
	comm=$(sed -n "s/.*counting command '\(pbench-[0-9]*\)'.*/\1/p" "$TMP/bench.err")
	counts_pipe_calls && attempts=32768
	expect "uring bench: reads (and $attempts nowait attempts)" \
		"$(csv_get "$TMP/out" reads comm "$comm")" $((65536 + attempts))
	expect "uring bench: read_bytes" "$(csv_get "$TMP/out" read_bytes comm "$comm")" $((65536 * 4096))
	expect "uring bench: one nowait EAGAIN per read of an empty pipe" \
		"$(csv_get "$TMP/out" eagain_nowait comm "$comm")" 32768
	expect "uring bench: writes (plain write(2))" "$(csv_get "$TMP/out" writes comm "$comm")" 65536
}

# sendfile and splice move pages, not copies: their own columns, and the
# bytes in and out of every call
t_splice() {
	local n=300 out pid r w got want=-/- heads=R_BYTES/W_BYTES
	under splice splice "$n" || return
	expect "splice: workload moved" "$OUT" "pid=$PID splice=$((n * 4096))"
	expect_col "splice: splice_in" splice_in "$n" pid="$PID"
	expect_col "splice: splice_in_bytes" splice_in_bytes $((n * 4096)) pid="$PID"
	expect_col "splice: splice_out" splice_out "$n" pid="$PID"
	expect_col "splice: splice_out_bytes" splice_out_bytes $((n * 4096)) pid="$PID"
	expect_col "splice: in_bytes" in_bytes $((n * 4096)) pid="$PID"
	expect_col "splice: out_bytes" out_bytes $((n * 4096)) pid="$PID"
	# (a tier that sees no splice has no row of it: nothing counted)
	r=$(of reads); w=$(of writes)
	expect "splice: not reads or writes" "${r:-0}/${w:-0}" 0/0
	# and in the table: 300 x 4 KiB = 1.17 MiB
	known splice_in_bytes && want=1.2Mi/1.2Mi
	attach -k pid -n pipework -o kernel || { not_ok "splice table: attach"; return; }
	out=$(work splice "$n"); pid=$(pid_of "$out")
	stop_pipestat
	got=$(awk -v p="$pid" '
		$1 == "PID" { for (i = 1; i <= NF; i++) idx[$i] = i }
		$1 == p { print $idx["SPL_IN_B"] "/" $idx["SPL_OUT_B"] }' "$TMP/out")
	expect "splice table (-o kernel): SPL_IN_B, SPL_OUT_B" "${got:--/-}" "$want"
	# the default table's bytes are every call's; a tier that sees no
	# splice shows its read(2)/write(2) bytes under their own headings
	known in_bytes || heads=RD_BYTES/WR_BYTES
	attach -k pid -n pipework || { not_ok "splice default table: attach"; return; }
	out=$(work splice "$n"); pid=$(pid_of "$out")
	stop_pipestat
	got=$(awk -v p="$pid" -v h="$heads" '
		BEGIN { split(h, hd, "/"); v = "-/-" }
		$1 == "PID" { for (i = 1; i <= NF; i++) idx[$i] = i
			      heads = (hd[1] in idx) && (hd[2] in idx) }
		$1 == p { v = $idx[hd[1]] "/" $idx[hd[2]] }
		END { print (heads ? h : "other headings") " " v }' "$TMP/out")
	expect "splice default table: bytes of every call" "$got" "$heads $want"
}

# pv between two pipes splices (a read(2) or two aside): its bytes in and
# out are the stream's, exactly (the host's pv; the guests
# have none)
t_splice_pv() {
	if ! command -v pv >/dev/null; then
		echo "# pv: not checked: no pv here (scripts/install-deps.sh installs it)"
		return
	fi
	attach -k comm -n pv --csv || { not_ok "pv: attach"; return; }
	head -c 50M /dev/zero | pv -q | cat >/dev/null
	stop_pipestat
	known splice_out && below "pv: spliced out of its pipe" 0 \
		"$(csv_sum "$TMP/out" splice_out comm=pv)"
	expect_col "pv: out_bytes" out_bytes 52428800 comm=pv
	expect_col "pv: in_bytes" in_bytes 52428800 comm=pv
}

# Pipe I/O through the 32-bit system call entry (a static -m32 program;
# in an arm64 guest an arm32 one, the compat entry): the syscall tier
# reads its own syscall numbers and registers, the other tiers see the
# pipe functions. A kernel without IA32 emulation refuses to run it (exec:
# ENOEXEC, as on this workplace's host): said, and left to the Debian
# guests of make vmtest, whose kernels run it and must.
t_compat_32bit() {
	local n out
	n=$(size 1000 100)
	"$PIPEWORK32" >/dev/null 2>&1
	if [ $? = 126 ]; then
		case ${PIPETRACE_KERNEL:-} in
		debian-*) not_ok "32-bit: this Debian kernel refused a 32-bit program";;
		*) echo "# 32-bit: not checked: this kernel runs no 32-bit programs (no IA32 emulation)";;
		esac
		return
	fi
	attach -k pid --csv -n pipework32 || { not_ok "32-bit: attach"; return; }
	"$PIPEWORK32" "$n" >"$TMP/work"; out=$(cat "$TMP/work"); PID=$(pid_of "$out")
	stop_pipestat
	expect "32-bit: workload ran" "$out" "pid=$PID io32=$n"
	expect "32-bit: writes" "$(of writes)" "$n"
	expect "32-bit: reads" "$(of reads)" "$n"
	expect "32-bit: write_bytes" "$(of write_bytes)" $((n * 100))
	expect "32-bit: read_bytes" "$(of read_bytes)" $((n * 100))
}

# run TEST...: each test unless KA_ONLY names others or KA_SKIP names it
run() {
	local t
	for t in "$@"; do
		[ -z "${KA_ONLY:-}" ] || [[ " $KA_ONLY " == *" $t "* ]] || continue
		[[ " ${KA_SKIP:-} " != *" $t "* ]] || continue
		$t
	done
}

[ "${SPILL:-1}" = only ] ||
	run t_eagain_read t_nowait_read t_eagain_write t_eagain_write_big t_stream t_prealloc_sizes \
	t_fifo t_jobserver t_intervals \
	t_zero_read t_pingpong t_fullread t_vectored t_vmsplice_sections t_uring t_uring_bench t_splice t_splice_pv t_compat_32bit
# Syscall and tracepoint tiers: a call's state sits in a slot picked by
# thread id, or in task storage when another thread holds the slot. Every
# thread on one slot sends all but one of them there: the same answers must
# come out.
if [ "${SPILL:-1}" != 0 ]; then
	echo "# PIPETRACE_ONE_CALL_SLOT=1: call states spill to task storage"
	export PIPETRACE_ONE_CALL_SLOT=1
	run t_eagain_read t_eagain_write t_stream t_pingpong t_jobserver
	unset PIPETRACE_ONE_CALL_SLOT
	# Every tier: a key's counters sit in this CPU's cache entry picked
	# by pipe and process, or in the hash when another key holds it.
	# Every key on one entry sends all keys but one per CPU and interval
	# there: the same answers must come out.
	echo "# PIPETRACE_ONE_CACHE_SLOT=1: keys fall back to the counter hash"
	export PIPETRACE_ONE_CACHE_SLOT=1
	run t_stream t_pingpong t_jobserver t_intervals
	unset PIPETRACE_ONE_CACHE_SLOT
fi
summary
