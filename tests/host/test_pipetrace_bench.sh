#!/usr/bin/env bash
# pipetrace-bench host tests: each workload's --quick run on the running kernel
# (the syscall tier here), asserting figures that must add up between what
# the workload says it did and what the loader counted; bad input; --ab.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

PIPETRACE_BENCH=${PIPETRACE_BENCH:-./pipetrace-bench}
if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_pipetrace_bench.sh: needs root (BPF)"; exit 1
fi

# col FILE COLUMN [ROW]: one field of the CSV by header name (ROW: 1 = first data row)
col() {
	csv_rows "$1" "$2" | sed -n "${3:-1}p"
}

# bench NAME ARGS...: pipetrace-bench --csv ARGS into $TMP/NAME.csv; checks it ran
bench() {
	local name=$1; shift
	"$PIPETRACE_BENCH" --csv "$@" >"$TMP/$name.csv" 2>"$TMP/$name.err"
	local rc=$?
	expect "$name: exit status" "$rc" 0
	[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/$name.err"
}

rows() { echo $(($(wc -l <"$1") - 1)); }

t_header() {
	bench header --quick bw
	expect "csv: the issue's columns first, in order" \
		"$(head -1 "$TMP/header.csv" | cut -d, -f1-18)" \
		"workload,size,writers,readers,reps,mbps_median,mbps_min,mbps_max,writes,write_bytes,reads,read_bytes,pool_hit_pct,alloc_locked,copy_sections,eagain_read,eagain_write,tier"
	expect "csv: the header as saved (tests/fixtures/csv)" "$(head -1 "$TMP/header.csv")" \
		"$(cat tests/fixtures/csv/pipetrace-bench.csv)"
	expect "csv: tier" "$(col "$TMP/header.csv" tier)" syscall
	expect "csv: reps" "$(col "$TMP/header.csv" reps)" 3
}

# --json: the CSV's rows as objects keyed by its columns
t_json() {
	local n=100
	"$PIPETRACE_BENCH" --json -S 65536 -N $n -R 2 stream >"$TMP/json.out" 2>"$TMP/json.err"
	expect "json: exit status" "$?" 0
	expect "json: one object" "$(jq -s 'length' "$TMP/json.out")" 1
	expect "json: keys are the CSV's columns" "$(jq -r 'keys_unsorted | join(",")' "$TMP/json.out")" \
		"$(head -1 "$TMP/header.csv")"
	expect "json: writes" "$(jq -r '.writes' "$TMP/json.out")" $((2 * n))
	expect "json: write_bytes" "$(jq -r '.write_bytes' "$TMP/json.out")" $((2 * n * 65536))
	expect "json: no --ab: ab_side null" "$(jq -r '.ab_side' "$TMP/json.out")" null
	expect "json: workload a string" "$(jq -r '.workload' "$TMP/json.out")" stream
}

# per row: write_bytes == writes * size == bytes the workload moved
stream_like() {
	local what=$1 f=$2 r=$3 size writes wb moved
	size=$(col "$f" size "$r"); writes=$(col "$f" writes "$r")
	wb=$(col "$f" write_bytes "$r"); moved=$(col "$f" moved_bytes "$r")
	[ -n "$writes" ] && [ "$writes" -gt 0 ] && ok "$what: writes > 0 ($writes)" ||
		not_ok "$what: no writes counted"
	expect "$what: write_bytes == writes * $size" "$wb" $((writes * size))
	expect "$what: write_bytes == bytes the workload moved" "$wb" "$moved"
	expect "$what: read_bytes == write_bytes" "$(col "$f" read_bytes "$r")" "$wb"
	expect "$what: writes == the workload's writes" "$(col "$f" ops "$r")" "$writes"
	# the median lies within min..max
	awk -v a="$(col "$f" mbps_min "$r")" -v m="$(col "$f" mbps_median "$r")" \
	    -v b="$(col "$f" mbps_max "$r")" 'BEGIN { exit !(a <= m && m <= b && a > 0) }' &&
		ok "$what: 0 < min <= median <= max" || not_ok "$what: min/median/max out of order"
}

t_stream() {
	local r=1 size
	bench stream --quick stream
	expect "stream: one row per default size" "$(cut -d, -f2 "$TMP/stream.csv" | tail -n +2 | tr '\n' ' ')" \
		"4096 32768 65536 131072 "
	for size in 4096 32768 65536 131072; do
		stream_like "stream $size" "$TMP/stream.csv" $r
		r=$((r + 1))
	done
}

# exact counts: N writes of 64 KiB per rep, 2 reps
t_stream_ops() {
	local n=150 f=$TMP/ops.csv hits misses
	bench ops -S 65536 -N $n -R 2 stream
	expect "stream --ops: writes" "$(col "$f" writes)" $((2 * n))
	expect "stream --ops: write_bytes" "$(col "$f" write_bytes)" $((2 * n * 65536))
	expect "stream --ops: moved_bytes" "$(col "$f" moved_bytes)" $((2 * n * 65536))
	# the reader's reads: at least one per 64 KiB, plus one EOF per rep
	[ "$(col "$f" reads)" -ge $((2 * n + 2)) ] && ok "stream --ops: reads >= 2N + 2 EOFs" ||
		not_ok "stream --ops: reads $(col "$f" reads) < $((2 * n + 2))"
	expect "stream --ops: copy_buffers == 16 per write" "$(col "$f" copy_buffers)" $((2 * n * 16))
	expect "stream --ops: no EAGAIN" "$(col "$f" eagain_read),$(col "$f" eagain_write)" "0,0"
	expect "stream --ops: alloc_locked per MB matches" "$(col "$f" alloc_locked_per_mb)" \
		"$(awk -v a="$(col "$f" alloc_locked)" -v b="$(col "$f" write_bytes)" 'BEGIN { printf "%.2f", a / (b / 1e6) }')"
}

t_mix() {
	local r
	bench mix --quick -w 1,2 --readers 1,5 mix
	expect "mix: 2x2 points" "$(rows "$TMP/mix.csv")" 4
	expect "mix: writers" "$(csv_rows "$TMP/mix.csv" writers | paste -sd' ')" "1 1 2 2"
	expect "mix: readers" "$(csv_rows "$TMP/mix.csv" readers | paste -sd' ')" "1 5 1 5"
	for r in 1 2 3 4; do
		stream_like "mix row $r" "$TMP/mix.csv" $r
	done
}

t_pingpong() {
	local n=1000 f=$TMP/pp.csv
	bench pp -N $n -R 1 pingpong
	expect "pingpong: size" "$(col "$f" size)" 1
	expect "pingpong: round trips" "$(col "$f" ops)" $n
	expect "pingpong: writes (both ends)" "$(col "$f" writes)" $((2 * n))
	expect "pingpong: write_bytes" "$(col "$f" write_bytes)" $((2 * n))
	expect "pingpong: moved_bytes" "$(col "$f" moved_bytes)" $((2 * n))
	# and the echo's EOF read at the end
	expect "pingpong: reads" "$(col "$f" reads)" $((2 * n + 1))
	expect "pingpong: read_bytes" "$(col "$f" read_bytes)" $((2 * n))
	expect "pingpong: one section per 1-byte read" "$(col "$f" copy_sections)" $((2 * n))
	bench pptime --quick pingpong
	awk -v u="$(col "$TMP/pptime.csv" us_per_op_median)" 'BEGIN { exit !(u > 0) }' &&
		ok "pingpong --quick: us/op > 0" || not_ok "pingpong --quick: no us/op"
}

t_uring() {
	local f=$TMP/uring.csv reads=$((128 * 256)) r
	bench uring -R 2 uring
	expect "uring: empty and data" "$(csv_rows "$f" variant | paste -sd' ')" "empty data"
	for r in 1 2; do
		expect "uring row $r: reads done" "$(col "$f" ops $r)" $((2 * reads))
		expect "uring row $r: bytes moved" "$(col "$f" moved_bytes $r)" $((2 * reads * 4096))
		# the writes are write(2) calls: the loader sees every one
		expect "uring row $r: writes" "$(col "$f" writes $r)" $((2 * reads))
		expect "uring row $r: write_bytes" "$(col "$f" write_bytes $r)" $((2 * reads * 4096))
	done
}

t_bw() {
	bench bw --quick bw
	expect "bw: size" "$(col "$TMP/bw.csv" size)" 65536
	stream_like "bw" "$TMP/bw.csv" 1
}

t_table() {
	"$PIPETRACE_BENCH" --quick stream -S 65536 >"$TMP/table" 2>"$TMP/table.err"
	expect "table: exit status" "$?" 0
	grep -q '^stream  *65536  *1  *1 MB/s ' "$TMP/table" && ok "table: stream 65536 line" ||
		not_ok "table: no stream 65536 line"
	grep -q 'tier: syscall' "$TMP/table" && ok "table: says the tier" || not_ok "table: no tier"
}

# where the ends run is said: unpinned by default (as perf bench sched
# pipe), one CPU or two with -C; placement in CSV
t_placement() {
	"$PIPETRACE_BENCH" --quick -N 50 pingpong >"$TMP/place" 2>"$TMP/place.err"
	expect "placement: exit status" "$?" 0
	grep -q 'not pinned (as perf bench sched pipe)' "$TMP/place" &&
		ok "placement: the header says not pinned" || not_ok "placement: header silent"
	grep -q '^pingpong  *1  *1  *1 us/op .* unpinned$' "$TMP/place" &&
		ok "placement: the pingpong row says unpinned" || not_ok "placement: row lacks unpinned"
	grep -q '^PLACEMENT: ' "$TMP/place" && ok "placement: explained in the footer" ||
		not_ok "placement: no footer line"
	bench place1 -C 0 -N 50 -R 2 pingpong
	expect "placement: -C 0: same CPU" "$(col "$TMP/place1.csv" placement)" "same CPU 0"
	expect "placement: -C 0: round trips still counted" "$(col "$TMP/place1.csv" ops)" 100
	if [ "$(nproc)" -ge 2 ]; then
		bench place2 -C 0,1 -N 50 -R 2 pingpong bw
		expect "placement: -C 0,1: two CPUs" "$(col "$TMP/place2.csv" placement 1)" "CPUs 0 and 1"
		expect "placement: bw is never pinned" "$(col "$TMP/place2.csv" placement 2)" unpinned
	fi
	# spread_pct is (max - min) / median of the row's own MB/s figures
	bench spread -C 0 -S 65536 -N 200 -R 3 stream
	awk -v a="$(col "$TMP/spread.csv" mbps_min)" -v m="$(col "$TMP/spread.csv" mbps_median)" \
	    -v b="$(col "$TMP/spread.csv" mbps_max)" -v s="$(col "$TMP/spread.csv" spread_pct)" \
	    'BEGIN { d = (b - a) / m * 100 - s; exit !(m > 0 && d < 0.1 && d > -0.1) }' &&
		ok "placement: spread_pct = (max - min) / median" || not_ok "placement: spread_pct wrong"
}

# --baseline: each point also with nothing attached, that row first and
# counted by nobody; the attached row still exact
t_baseline() {
	local n=100
	bench base --baseline -C 0 -S 65536 -N $n -R 2 stream
	expect "baseline: two rows" "$(rows "$TMP/base.csv")" 2
	expect "baseline: first row: nothing attached" "$(col "$TMP/base.csv" attached 1)" no
	expect "baseline: first row: no counts" "$(col "$TMP/base.csv" writes 1)" ""
	expect "baseline: first row: no tier" "$(col "$TMP/base.csv" tier 1)" ""
	expect "baseline: first row: the workload's own count" "$(col "$TMP/base.csv" ops 1)" $((2 * n))
	expect "baseline: second row: attached" "$(col "$TMP/base.csv" attached 2)" yes
	expect "baseline: second row: writes exact" "$(col "$TMP/base.csv" writes 2)" $((2 * n))
	expect "baseline: second row: write_bytes exact" "$(col "$TMP/base.csv" write_bytes 2)" $((2 * n * 65536))
	"$PIPETRACE_BENCH" --baseline -C 0 -N 50 -R 2 pingpong >"$TMP/base.table" 2>/dev/null
	grep -q '^pingpong .* -  *-  *- same CPU 0, nothing attached$' "$TMP/base.table" &&
		ok "baseline: table row says nothing attached, metrics -" ||
		not_ok "baseline: no nothing-attached row in the table"
	grep -q '^  attached: [-+][0-9.]*% throughput vs nothing attached (noise [0-9.]*%)$' "$TMP/base.table" &&
		ok "baseline: the table says what attaching costs" || not_ok "baseline: no cost line"
}

# bursty: one point per --pipe-size, the size it got (F_GETPIPE_SZ), the
# counts exact against what the workload moved, the writer's wait a share
t_bursty() {
	local r size
	bench bursty -P 0,1048576 -d 0.3 -R 2 bursty
	expect "bursty: a row per pipe size" "$(rows "$TMP/bursty.csv")" 2
	expect "bursty: as made: 64 KiB" "$(col "$TMP/bursty.csv" pipe_size 1)" 65536
	expect "bursty: grown: 1 MiB" "$(col "$TMP/bursty.csv" pipe_size 2)" 1048576
	for r in 1 2; do
		size=$(col "$TMP/bursty.csv" pipe_size $r)
		stream_like "bursty $size" "$TMP/bursty.csv" $r
		expect "bursty $size: unpinned" "$(col "$TMP/bursty.csv" placement $r)" unpinned
		awk -v w="$(col "$TMP/bursty.csv" writer_wait_pct $r)" \
		    'BEGIN { exit !(w != "" && w >= 0 && w <= 100) }' &&
			ok "bursty $size: writer_wait_pct a share" || not_ok "bursty $size: writer_wait_pct"
	done
	expect "bursty: other workloads have no pipe_size" "$(col "$TMP/header.csv" pipe_size)" ""
	"$PIPETRACE_BENCH" -P 131072 -d 0.2 -R 1 bursty >"$TMP/bursty.table" 2>/dev/null
	grep -q '^  pipe 131072 bytes: writer in write(2) [0-9.]*% of the time' "$TMP/bursty.table" &&
		ok "bursty: table says the pipe size and writer wait" ||
		not_ok "bursty: no pipe/writer line in the table"
}

t_usage() {
	local args
	for args in "--reps 0" "--reps x" "--duration 0" "--duration -1" "--size 0" \
		"--size 4096,,1" "--cpus 9999" "--cpus x" "--writers 0" "--readers 100" \
		"--ops 0" "--ab pipe-read-batch" "--ab pipe-read-batch=0,2" \
		"--ab nosuch=0,1" "--ab pipe-prealloc-max=0,9" "--ab pipe-prealloc-max=a,b" \
		"--tier nosuch" "--bogus" "nosuchworkload" "-d 1 -N 5" "--baseline --ab pipe-read-batch=0,1" "-P x" "--pipe-size 1,,2" "-n 5" "-c 0" "-r 1" "-s 4096" "--reps"; do
		# shellcheck disable=SC2086
		"$PIPETRACE_BENCH" $args >"$TMP/u.out" 2>"$TMP/u.err"
		expect "usage: '$args' exits 2" "$?" 2
		expect "usage: '$args' says so in one line" "$(wc -l <"$TMP/u.err")" 1
	done
	"$PIPETRACE_BENCH" --help >"$TMP/u.out"; expect "--help exits 0" "$?" 0
	grep -q -- '--ab KNOB=A,B' "$TMP/u.out" && ok "--help lists --ab" || not_ok "--help lacks --ab"
	expect "--version" "$("$PIPETRACE_BENCH" --version)" "pipetrace-bench $(sed -n 's/^VERSION *:= *//p' Makefile)"
}

# --ab: refused without the knob; with a stand-in knob file, runs A and B
# and puts the value back, also on SIGINT
t_ab() {
	local knobs=$TMP/knobs
	if [ ! -e /proc/sys/fs/pipe-read-batch ]; then
		"$PIPETRACE_BENCH" --quick --ab pipe-read-batch=0,1 bw >"$TMP/ab.out" 2>"$TMP/ab.err"
		expect "ab without the knob: exit 1" "$?" 1
		grep -q 'no fs.pipe-read-batch knob' "$TMP/ab.err" && ok "ab without the knob: says why" ||
			not_ok "ab without the knob: $(cat "$TMP/ab.err")"
	fi
	mkdir -p "$knobs"; echo 1 >"$knobs/pipe-prealloc-max"
	PIPETRACE_BENCH_KNOB_DIR=$knobs bench ab --quick --ab pipe-prealloc-max=0,8 bw
	expect "ab: two rows, baseline then patched" \
		"$(csv_rows "$TMP/ab.csv" ab_side | paste -sd' ')" "baseline patched"
	expect "ab: the knob's values" \
		"$(csv_rows "$TMP/ab.csv" ab_knob | paste -sd' ') $(csv_rows "$TMP/ab.csv" ab_value | paste -sd' ')" \
		"pipe-prealloc-max pipe-prealloc-max 0 8"
	expect "ab: knob restored" "$(cat "$knobs/pipe-prealloc-max")" 1
	expect "ab: same reps each side" "$(col "$TMP/ab.csv" reps 1),$(col "$TMP/ab.csv" reps 2)" "3,3"
	stream_like "ab baseline" "$TMP/ab.csv" 1
	stream_like "ab patched" "$TMP/ab.csv" 2
	# Ctrl-C in the middle of a long run
	echo 3 >"$knobs/pipe-prealloc-max"
	PIPETRACE_BENCH_KNOB_DIR=$knobs "$PIPETRACE_BENCH" --ab pipe-prealloc-max=0,8 -d 5 bw \
		>"$TMP/abint.out" 2>"$TMP/abint.err" &
	local pid=$! v
	for _ in $(seq 100); do
		v=$(cat "$knobs/pipe-prealloc-max")
		[ "$v" != 3 ] && break
		sleep 0.1
	done
	expect "ab: knob set during the run" "$v" 0
	kill -INT $pid; wait $pid
	expect "ab: SIGINT ends it by the signal" "$?" 130
	expect "ab: knob restored after SIGINT" "$(cat "$knobs/pipe-prealloc-max")" 3
	# killed workload processes are reaped by init: give it a moment
	for _ in $(seq 50); do
		pgrep -x "pbench-$pid" >/dev/null || break
		sleep 0.1
	done
	expect "ab: no workload left behind" "$(pgrep -c -x "pbench-$pid")" 0
	# issue 13.4: SIGKILL leaves no worker, and the next run restores the knob
	echo 4 >"$knobs/pipe-prealloc-max"
	PIPETRACE_BENCH_KNOB_DIR=$knobs PIPETRACE_BENCH_STATE_DIR=$TMP/state "$PIPETRACE_BENCH" \
		--ab pipe-prealloc-max=0,8 -d 10 -R 1 -w 3 --readers 3 mix >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ "$(pgrep -c -x "pbench-$pid")" -ge 7 ] && break
		sleep 0.1
	done
	expect "SIGKILL: mix workers running" "$(pgrep -c -x "pbench-$pid")" 7
	kill -KILL $pid; wait $pid 2>/dev/null
	# well before the 10 s a worker would run on its own
	for _ in $(seq 20); do
		pgrep -x "pbench-$pid" >/dev/null || break
		sleep 0.1
	done
	expect "SIGKILL: no workload left behind" "$(pgrep -c -x "pbench-$pid")" 0
	expect "SIGKILL: knob left changed" "$(cat "$knobs/pipe-prealloc-max")" 0
	PIPETRACE_BENCH_KNOB_DIR=$knobs PIPETRACE_BENCH_STATE_DIR=$TMP/state "$PIPETRACE_BENCH" --quick -N 10 pingpong \
		>/dev/null 2>"$TMP/rec.err"
	expect "SIGKILL: next run restores the knob" "$(cat "$knobs/pipe-prealloc-max")" 4
	expect "SIGKILL: next run says so" "$(grep -c "^pipetrace-bench: a killed --ab run (pid $pid) left fs.pipe-prealloc-max changed: restored to 4$" "$TMP/rec.err")" 1
	# issue 13.9: a garbage knob says so; a second --ab is refused
	echo garbage >"$knobs/pipe-prealloc-max"
	PIPETRACE_BENCH_KNOB_DIR=$knobs "$PIPETRACE_BENCH" --quick --ab pipe-prealloc-max=0,8 bw >/dev/null 2>"$TMP/g.err"
	expect "garbage knob: exit 1" "$?" 1
	expect "garbage knob: says why" "$(cat "$TMP/g.err")" "pipetrace-bench: refusing --ab: cannot read $knobs/pipe-prealloc-max: not a number"
	"$PIPETRACE_BENCH" --ab pipe-prealloc-max=0,8 --ab pipe-read-batch=0,1 bw >/dev/null 2>"$TMP/g.err"
	expect "second --ab: exit 2" "$?" 2
	expect "second --ab: refused" "$(head -1 "$TMP/g.err")" "pipetrace-bench: --ab given twice: one knob per run (see pipetrace-bench --help)"
	# a run that fails (an unknown tier) after the knob was taken restores it
	echo 5 >"$knobs/pipe-prealloc-max"
	PIPETRACE_BENCH_KNOB_DIR=$knobs "$PIPETRACE_BENCH" --tier function --ab pipe-prealloc-max=0,8 bw \
		>"$TMP/aberr.out" 2>"$TMP/aberr.err"
	expect "ab: error exit status" "$?" 1
	expect "ab: knob restored after an error" "$(cat "$knobs/pipe-prealloc-max")" 5
}

# Ctrl-C without --ab ends the workload too (it runs in its own group)
t_sigint() {
	"$PIPETRACE_BENCH" -N 100000000 -R 1 -S 65536 stream >"$TMP/int.out" 2>"$TMP/int.err" &
	local pid=$!
	for _ in $(seq 100); do
		pgrep -x "pbench-$pid" >/dev/null && break
		sleep 0.1
	done
	pgrep -x "pbench-$pid" >/dev/null && ok "sigint: workload running" ||
		not_ok "sigint: workload never started"
	kill -INT $pid; wait $pid
	expect "sigint: pipetrace-bench ends by the signal" "$?" 130
	for _ in $(seq 50); do
		pgrep -x "pbench-$pid" >/dev/null || break
		sleep 0.1
	done
	expect "sigint: no workload left behind" "$(pgrep -c -x "pbench-$pid")" 0
}

t_header
t_json
t_sigint
t_stream
t_stream_ops
t_mix
t_pingpong
t_uring
t_bw
t_table
t_placement
t_baseline
t_bursty
t_usage
t_ab
summary
