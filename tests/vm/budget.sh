#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check and tabulate the cost budgets of the patch series from the
# guest-budget.sh runs (tests/vm/run-in-vm.sh --icount) on the unpatched
# 7.2, patched 7.2 (the A/B switches off and on) and tracepoints kernels,
# each with lines added on the host: "pipe_inode_info KERNEL bytes N"
# (pahole on its vmlinux) and the CPU counter's figures (cpu_*:
# tests/vm/plugin/ptcount.c, what the guest CPU executed, no tracepoint
# involved; ptcount_merge in lib.sh):
#   budget.sh UNPATCHED_TXT PATCHED_TXT TRACEPOINTS_TXT [TABLE_FILE]
# Budgets (exit status 1 if one breaks):
#  - nothing lost from the trace buffer in any traced run;
#  - pipe->mutex acquisitions in anon_pipe_write()/anon_pipe_read(), the
#    switches on and off == unpatched, for every workload, and one per
#    write plus one per wait for room (so the series' events count them);
#  - writes that move no byte (EAGAIN on a full pipe, RWF_NOWAIT, EPIPE,
#    a signal while waiting) allocate no page with the switches on: pages
#    allocated == switches off (the 64 KiB fill write's only), and fewer
#    than unpatched 7.2's where its prealloc allocates for them;
#  - slow reader, writers x readers mix: pages allocated + freed, on <=
#    unpatched; 32 KiB writes: pages allocated per write, on < unpatched
#    (the pool's kept pages are used before any is allocated);
#  - 1-byte ping-pong instructions per round trip, and splice, tee and
#    vmsplice instructions per round (ptwork spliceop), switches on and
#    off, within 1% of unpatched (tee 2%: its round is ~1200 instructions)
#    (medians of the runs);
#  - the events compiled in and disabled (the tracepoints kernel: 0001 and
#    0002 only): instructions per op of ping-pong, 4 and 64 KiB writes,
#    splice, tee and vmsplice within 1% of unpatched;
#  - struct pipe_inode_info in the unpatched kernel's kmalloc size class;
# and the benefit budgets, counted by the CPU where they can be:
#  - a 64 KiB read of a full pipe: STAC executed while the read holds
#    pipe->mutex, per read: 16 unpatched and switches off, 1 on;
#  - a bw_pipe-shaped loop (64 KiB written, 64 KiB read): instructions per
#    byte, on < unpatched;
#  - 64 KiB and 32 KiB writes: instructions executed with pipe->mutex held
#    per write (CPU), on <= unpatched + 1%; pages allocated with it held
#    (kmem events between the lock and the unlock), on <= unpatched;
#  - idle footprint: pipe pages held per idle pipe after a 100 B and an
#    8292 B write (the merge path) read back, on and off <= unpatched;
#  - io_uring: poll arms and io-wq punts for pipe reads and writes, on and
#    off <= unpatched; no RWF_NOWAIT read or write got -EAGAIN while the
#    pipe had data or room;
#  - a 64 KiB write whose source faults after 16 KiB: pages allocated, on
#    <= unpatched (no page it does not use).
set -u
usage="usage: budget.sh UNPATCHED_TXT PATCHED_TXT TRACEPOINTS_TXT [TABLE]"
U=${1:?$usage}
P=${2:?$usage}
TP=${3:?$usage}
TABLE=${4:-/dev/null}
cat "$U" "$P" "$TP" | awk -v table="$TABLE" '
function med(k,   n, i, j, t, a) {
	n = split(ins[k], a, " ")
	if (n == 0) return -1
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ok(cond, what) {
	printf "%s - budget: %s\n", cond ? "ok" : "not ok", what
	if (!cond) bad++
}
function v(w, c, m) { return val[w, c, m] + 0 }
# a row of the benefit table: metric m of workload w per op, times k; "-"
# where the kernel gave no figure
function brow(what, w, m, k, fmt,   ci, c, cell, line) {
	line = sprintf("| %-50s |", what)
	for (ci = 1; ci <= 3; ci++) {
		c = ci == 1 ? "unpatched" : ci == 2 ? "off" : "on"
		cell = (w, c, m) in val && v(w, c, "ops") > 0 ? sprintf(fmt, v(w, c, m) * k / v(w, c, "ops")) : "-"
		line = line sprintf(" %9s |", cell)
	}
	print line > table
}
# the kmalloc size class of an object of n bytes
function kclass(n,   i, c) {
	split("8 16 32 64 96 128 192 256 512 1024 2048 4096 8192", c, " ")
	for (i = 1; i in c; i++) if (n <= c[i] + 0) return c[i] + 0
	return -1
}
# instructions per op: the median of config c against unpatched, "-" if none
function irow(what, w, k,   line, b, ci, c, a) {
	b = med(w SUBSEP "unpatched")
	line = sprintf("| %-34s | %9s |", what, b > 0 ? b : "-")
	for (ci = 1; ci <= 3; ci++) {
		c = ci == 1 ? "tracepoints" : ci == 2 ? "off" : "on"
		a = med(w SUBSEP c)
		line = line sprintf(" %17s |", a > 0 && b > 0 ? sprintf("%d (%+.2f%%)", a, (a - b) * 100 / b) : "-")
	}
	print line > table
}
# median of config c within pct% of unpatched, from at least 5 runs each
function within(w, c, pct, what,   a, b) {
	a = med(w SUBSEP c); b = med(w SUBSEP "unpatched")
	ok(runs[w, c] >= 5 && runs[w, "unpatched"] >= 5 && a > 0 && b > 0 && a <= b * (1 + pct / 100),
	   sprintf("%s instructions/op, %s %s vs unpatched %s (%s, medians of %d/%d runs, budget +%d%%)",
		what, c == "tracepoints" ? "tracepoints compiled in, disabled" : "switches " c, a > 0 ? a : "-", b > 0 ? b : "-",
		a > 0 && b > 0 ? sprintf("%+.2f%%", (a - b) * 100 / b) : "no figure", runs[w, c], runs[w, "unpatched"], pct))
}
$1 == "pipe_inode_info" && NF == 4 { sz[$2] = $4; next }
NF == 4 && $3 == "instr" { ins[$1, $2] = ins[$1, $2] " " $4; runs[$1, $2]++; next }
NF == 4 { val[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++nw] = $1 } }
END {
	hdr = sprintf("| %-10s | %-9s | %9s | %9s | %9s | %9s | %8s | %12s |", "workload", "kernel", "alloc/op", "free/op", "mutex/wr", "mutex/rd", "waits/wr", "instr/op")
	print hdr > table
	print "|------------|-----------|-----------|-----------|-----------|-----------|----------|--------------|" > table
	for (i = 1; i <= nw; i++) {
		w = order[i]
		for (ci = 1; ci <= 3; ci++) {
			c = ci == 1 ? "unpatched" : ci == 2 ? "off" : "on"
			if (!((w, c, "ops") in val)) continue
			o = v(w, c, "ops")
			m = med(w SUBSEP c)
			printf "| %-10s | %-9s | %9.2f | %9.2f | %9.2f | %9.2f | %8s | %12s |\n", w, c == "off" ? "A/B off" : c == "on" ? "patched" : c,
				v(w, c, "alloc") / o, v(w, c, "free") / o, v(w, c, "mutex_w") / o, v(w, c, "mutex_r") / o,
				sprintf("%.2f", v(w, c, "wait_w") / o),
				m < 0 ? "-" : sprintf("%d", m) > table
		}
	}
	print "" > table
	print "| benefit (per op)                                   | unpatched |   A/B off |   patched |" > table
	print "|----------------------------------------------------|-----------|-----------|-----------|" > table
	brow("STAC, 64 KiB read, pipe->mutex held (CPU)", "read64k", "cpu_held_r_stac", 1, "%.2f")
	brow("CLAC, 64 KiB write + read loop (CPU)", "read64k", "cpu_clac", 1, "%.2f")
	brow("instructions per byte, 64 KiB write + read (CPU)", "read64k", "cpu_insns", 1 / 65536, "%.3f")
	brow("instructions, pipe->mutex held, 64 KiB write (CPU)", "w64k", "cpu_held_w", 1, "%d")
	brow("pages allocated, pipe->mutex held, 64 KiB write", "w64k", "alloc_locked", 1, "%.2f")
	brow("instructions, pipe->mutex held, 32 KiB write (CPU)", "w32k", "cpu_held_w", 1, "%d")
	brow("pages allocated, pipe->mutex held, 32 KiB write", "w32k", "alloc_locked", 1, "%.2f")
	brow("pages allocated, 32 KiB write", "w32k", "alloc", 1, "%.2f")
	brow("pages allocated, nonblocking 64 KiB write, full", "eagain", "alloc", 1, "%.2f")
	brow("STAC, 1-byte ping-pong round trip (CPU)", "pingpong", "cpu_stac", 1, "%.2f")
	brow("bytes held per idle pipe after a merge burst", "idle", "held_pages", 4096, "%d")
	brow("io_uring poll arms, 4 KiB stream read", "urstream", "arms", 1, "%.3f")
	brow("io_uring poll arms, mutex held elsewhere (1)", "urbusy", "arms", 1, "%.2f")
	brow("io-wq punts, mutex held elsewhere (1)", "urbusy", "punts", 1, "%.2f")
	brow("RWF_NOWAIT -EAGAIN with data/room (1)", "urbusy", "nowait_eagain", 1, "%.2f")
	brow("pages allocated, 64 KiB write faulting at 16 KiB", "faultw", "alloc", 1, "%.2f")
	print "" > table
	print "(CPU) counted by the guest CPU (qemu TCG plugin tests/vm/plugin/ptcount.c), independent of any tracepoint: STAC/CLAC executed, instructions between pipe->mutex taken and released in anon_pipe_read()/anon_pipe_write(); the eagain row is 200 writes and the 64 KiB fill, per write." > table
	print "(1) per round: an io_uring read and write, an RWF_NOWAIT read and write, each while another task holds pipe->mutex (splice from an empty socket)." > table
	print "" > table
	print "| cost (instructions per op)         | unpatched | tracepoints (2)   | A/B off           | patched           |" > table
	print "|------------------------------------|-----------|-------------------|-------------------|-------------------|" > table
	irow("1-byte ping-pong round trip", "pingpong")
	irow("4 KiB write, drained", "w4k")
	irow("64 KiB write, drained", "w64k")
	irow("splice round (3)", "splice")
	irow("tee round (3)", "tee")
	irow("vmsplice round (3)", "vmsplice")
	printf "| %-34s | %9s | %17s | %17s | %17s |\n", "struct pipe_inode_info, bytes (4)",
		("unpatched" in sz) ? sz["unpatched"] " (" kclass(sz["unpatched"]) ")" : "-",
		("tracepoints" in sz) ? sz["tracepoints"] " (" kclass(sz["tracepoints"]) ")" : "-",
		("patched" in sz) ? sz["patched"] " (" kclass(sz["patched"]) ")" : "-",
		("patched" in sz) ? sz["patched"] " (" kclass(sz["patched"]) ")" : "-" > table
	print "" > table
	print "(2) the tracepoints kernel: 0001 and 0002 only, the events compiled in and disabled (no pool, no batch)." > table
	print "(3) ptwork spliceop, 4 KiB per round: splice = write, splice pipe to pipe, splice to /dev/null; tee = tee pipe to pipe, splice to /dev/null; vmsplice = vmsplice in, vmsplice out." > table
	print "(4) pahole on each vmlinux; in brackets the kmalloc size class it is allocated from (kmalloc-cg-N)." > table
	close(table)
	for (i = 1; i <= nw; i++) {
		w = order[i]
		for (ci = 1; ci <= 3; ci++) {
			c = ci == 1 ? "unpatched" : ci == 2 ? "off" : "on"
			if ((w, c, "lost") in val) ok(v(w, c, "lost") == 0, w " " c ": no trace events lost")
		}
		if (!((w, "unpatched", "ops") in val) || !((w, "off", "ops") in val) || !((w, "on", "ops") in val)) {
			ok(0, w ": figures missing for a kernel or setting"); continue
		}
		o = v(w, "unpatched", "ops")
		for (ci = 2; ci <= 3; ci++) {
			c = ci == 2 ? "off" : "on"
			ok(v(w, c, "mutex_w") == v(w, "unpatched", "mutex_w") && v(w, c, "mutex_r") == v(w, "unpatched", "mutex_r"),
			   sprintf("%s switches %s: pipe->mutex acquisitions == unpatched (writes %d/%d, reads %d/%d)", w, c,
				v(w, c, "mutex_w"), v(w, "unpatched", "mutex_w"), v(w, c, "mutex_r"), v(w, "unpatched", "mutex_r")))
			# tee and vmsplice never call anon_pipe_write()
			ok((v(w, c, "writes") > 0 || w == "tee" || w == "vmsplice") &&
			   v(w, c, "mutex_w") == v(w, c, "writes") + v(w, c, "wait_w"),
			   sprintf("%s switches %s: mutex acquisitions in anon_pipe_write (%d) == writes (%d) + waits for room (%d)", w, c,
				v(w, c, "mutex_w"), v(w, c, "writes"), v(w, c, "wait_w")))
		}
		if (w == "eagain" || w == "nowait" || w == "epipe" || w == "sigwrite")
			ok(v(w, "on", "alloc") == v(w, "off", "alloc") &&
			   (w == "epipe" || w == "sigwrite" || v(w, "on", "alloc") < v(w, "unpatched", "alloc")),
			   sprintf("%s: writes that move no byte allocate nothing, patched (pages %d, switches off %d: the fill write; unpatched %d)", w,
				v(w, "on", "alloc"), v(w, "off", "alloc"), v(w, "unpatched", "alloc")))
		if (w == "slowreader" || w == "mix")
			ok(v(w, "on", "alloc") + v(w, "on", "free") <= v(w, "unpatched", "alloc") + v(w, "unpatched", "free"),
			   sprintf("%s: pages allocated + freed, patched (%d) <= unpatched (%d)", w,
				v(w, "on", "alloc") + v(w, "on", "free"), v(w, "unpatched", "alloc") + v(w, "unpatched", "free")))
		if (w == "w32k")
			ok(v(w, "on", "alloc") < v(w, "unpatched", "alloc"),
			   sprintf("w32k: pages allocated per 32 KiB write, patched %.2f < unpatched %.2f (the kept pages first)",
				v(w, "on", "alloc") / o, v(w, "unpatched", "alloc") / o))
		if (w == "w64k" || w == "w32k") {
			ok((w, "on", "cpu_held_w") in val && (w, "unpatched", "cpu_held_w") in val && v(w, "on", "cpu_locks_w") > 0 &&
			   v(w, "on", "cpu_held_w") <= v(w, "unpatched", "cpu_held_w") * 1.01,
			   sprintf("%s: instructions with pipe->mutex held per write (CPU), patched %d <= unpatched %d + 1%% (switches off %d)", w,
				v(w, "on", "cpu_held_w") / o, v(w, "unpatched", "cpu_held_w") / o, v(w, "off", "cpu_held_w") / o))
			ok(v(w, "on", "alloc_locked") <= v(w, "unpatched", "alloc_locked"),
			   sprintf("%s: pages allocated with pipe->mutex held per write, patched %.2f <= unpatched %.2f (switches off %.2f)", w,
				v(w, "on", "alloc_locked") / o, v(w, "unpatched", "alloc_locked") / o, v(w, "off", "alloc_locked") / o))
		}
		if (w == "read64k") {
			ok((w, "on", "cpu_held_r_stac") in val && v(w, "unpatched", "cpu_held_r_stac") == 16 * o &&
			   v(w, "off", "cpu_held_r_stac") == 16 * o && v(w, "on", "cpu_held_r_stac") == o,
			   sprintf("read64k: STAC per 64 KiB read with pipe->mutex held (CPU), unpatched %.2f, switches off %.2f, patched %.2f (want 16, 16, 1)",
				v(w, "unpatched", "cpu_held_r_stac") / o, v(w, "off", "cpu_held_r_stac") / o, v(w, "on", "cpu_held_r_stac") / o))
			ok((w, "on", "cpu_insns") in val && v(w, "on", "cpu_insns") < v(w, "unpatched", "cpu_insns"),
			   sprintf("read64k: instructions per byte of 64 KiB written and read (CPU), patched %.3f < unpatched %.3f (switches off %.3f)",
				v(w, "on", "cpu_insns") / o / 65536, v(w, "unpatched", "cpu_insns") / o / 65536, v(w, "off", "cpu_insns") / o / 65536))
		}
		if (w == "idle")
			ok((w, "unpatched", "held_pages") in val && v(w, "on", "held_pages") <= v(w, "unpatched", "held_pages") &&
			   v(w, "off", "held_pages") <= v(w, "unpatched", "held_pages"),
			   sprintf("idle: bytes held per idle pipe after a merge burst, patched %d, switches off %d <= unpatched %d", v(w, "on", "held_pages") * 4096 / o,
				v(w, "off", "held_pages") * 4096 / o, v(w, "unpatched", "held_pages") * 4096 / o))
		if (w == "urstream" || w == "urbusy")
			for (ci = 2; ci <= 3; ci++) {
				c = ci == 2 ? "off" : "on"
				ok(v(w, c, "arms") <= v(w, "unpatched", "arms") && v(w, c, "punts") <= v(w, "unpatched", "punts"),
				   sprintf("%s switches %s: io_uring poll arms %d, io-wq punts %d <= unpatched %d, %d", w, c,
					v(w, c, "arms"), v(w, c, "punts"), v(w, "unpatched", "arms"), v(w, "unpatched", "punts")))
			}
		if (w == "urbusy")
			ok((w, "off", "nowait_eagain") in val && (w, "on", "nowait_eagain") in val && v(w, "off", "nowait_eagain") == 0 && v(w, "on", "nowait_eagain") == 0,
			   sprintf("urbusy: RWF_NOWAIT reads and writes with data or room and pipe->mutex held elsewhere: -EAGAIN switches off %d, on %d (want 0, unpatched %d)",
				v(w, "off", "nowait_eagain"), v(w, "on", "nowait_eagain"), v(w, "unpatched", "nowait_eagain")))
		if (w == "faultw")
			ok(v(w, "on", "alloc") <= v(w, "unpatched", "alloc"),
			   sprintf("faultw: 64 KiB writes faulting after 16 KiB allocate no page they do not use, patched %.2f <= unpatched %.2f pages per write", v(w, "on", "alloc") / o, v(w, "unpatched", "alloc") / o))
		what = w == "pingpong" ? "1-byte ping-pong" : w " round"
		# a tee round is ~1200 instructions: the fixed dozen of the
		# series is 1% of it run to run; 2% still fails twice that
		if (w == "pingpong" || w == "splice" || w == "tee" || w == "vmsplice") {
			within(w, "off", w == "tee" ? 2 : 1, what)
			within(w, "on", w == "tee" ? 2 : 1, what)
		}
		if (w == "pingpong")
			ok((w, "on", "cpu_stac") in val && v(w, "on", "cpu_stac") == v(w, "unpatched", "cpu_stac"),
			   sprintf("pingpong: STAC per round trip (CPU), patched %.2f == unpatched %.2f", v(w, "on", "cpu_stac") / o, v(w, "unpatched", "cpu_stac") / o))
		if (w == "pingpong" || w == "w4k" || w == "w64k" || w == "splice" || w == "tee" || w == "vmsplice")
			within(w, "tracepoints", 1, w == "pingpong" || w ~ /^(splice|tee|vmsplice)$/ ? what : w " write")
	}
	split("pingpong w4k w64k splice tee vmsplice", need, " ")
	for (i = 1; i in need; i++)
		if (!(need[i] in seen)) ok(0, need[i] ": no figures at all")
	ok(("unpatched" in sz) && ("patched" in sz) && kclass(sz["patched"]) == kclass(sz["unpatched"]),
	   sprintf("struct pipe_inode_info in the unpatched kmalloc size class: %s bytes, kmalloc-%s; unpatched %s bytes, kmalloc-%s",
		("patched" in sz) ? sz["patched"] : "-", ("patched" in sz) ? kclass(sz["patched"]) : "?",
		("unpatched" in sz) ? sz["unpatched"] : "-", ("unpatched" in sz) ? kclass(sz["unpatched"]) : "?"))
	exit bad > 0
}'
rc=$?
[ "$TABLE" = /dev/null ] || cat "$TABLE"
exit $rc
