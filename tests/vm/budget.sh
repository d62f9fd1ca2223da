#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check and tabulate the cost budgets of the patch series from two
# guest-budget.sh runs (tests/vm/run-in-vm.sh --icount):
#   budget.sh UNPATCHED_BUDGET_TXT PATCHED_BUDGET_TXT [TABLE_FILE]
# Budgets (exit status 1 if one breaks):
#  - nothing lost from the trace buffer in any traced run;
#  - knobs off == unpatched: pages allocated, pages freed and pipe->mutex
#    acquisitions in pipe_write()/pipe_read(), for every workload;
#  - writes that move no byte (EAGAIN on a full pipe, RWF_NOWAIT, EPIPE,
#    a signal while waiting) allocate no page with the knobs on: pages
#    allocated == unpatched (the 64 KiB fill write's only);
#  - slow reader, and a writers x readers mix (ptwork stress 2 2): pages
#    allocated + freed, knobs on <= knobs off;
#  - one pipe->mutex acquisition per write plus one per wait for room,
#    knobs off and on: acquisitions in pipe_write() == pipe_copy write
#    events + pipe_wait_end write events (so the series' events count
#    them);
#  - 1-byte ping-pong instructions per round trip, knobs on and knobs off,
#    within 1% of unpatched (medians of the runs).
set -u
U=${1:?usage: budget.sh UNPATCHED_TXT PATCHED_TXT [TABLE]}
P=${2:?usage: budget.sh UNPATCHED_TXT PATCHED_TXT [TABLE]}
TABLE=${3:-/dev/null}
cat "$U" "$P" | awk -v table="$TABLE" '
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
			printf "| %-10s | %-9s | %9.2f | %9.2f | %9.2f | %9.2f | %8s | %12s |\n", w, c == "off" ? "knobs off" : c == "on" ? "knobs on" : c,
				v(w, c, "alloc") / o, v(w, c, "free") / o, v(w, c, "mutex_w") / o, v(w, c, "mutex_r") / o,
				c == "unpatched" ? "-" : sprintf("%.2f", v(w, c, "wait_w") / o),
				m < 0 ? "-" : sprintf("%d", m) > table
		}
	}
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
		ok(v(w, "off", "alloc") == v(w, "unpatched", "alloc") && v(w, "off", "free") == v(w, "unpatched", "free") &&
		   v(w, "off", "mutex_w") == v(w, "unpatched", "mutex_w") && v(w, "off", "mutex_r") == v(w, "unpatched", "mutex_r"),
		   sprintf("%s: knobs off == unpatched (alloc %d/%d free %d/%d mutex_w %d/%d mutex_r %d/%d)", w,
			v(w, "off", "alloc"), v(w, "unpatched", "alloc"), v(w, "off", "free"), v(w, "unpatched", "free"),
			v(w, "off", "mutex_w"), v(w, "unpatched", "mutex_w"), v(w, "off", "mutex_r"), v(w, "unpatched", "mutex_r")))
		for (ci = 2; ci <= 3; ci++) {
			c = ci == 2 ? "off" : "on"
			ok(v(w, c, "writes") > 0 && v(w, c, "mutex_w") == v(w, c, "writes") + v(w, c, "wait_w"),
			   sprintf("%s knobs %s: mutex acquisitions in pipe_write (%d) == writes (%d) + waits for room (%d)", w, c,
				v(w, c, "mutex_w"), v(w, c, "writes"), v(w, c, "wait_w")))
		}
		if (w == "eagain" || w == "nowait" || w == "epipe" || w == "sigwrite")
			ok(v(w, "on", "alloc") == v(w, "unpatched", "alloc"),
			   sprintf("%s: writes that move no byte allocate nothing, knobs on (pages %d, unpatched %d: the fill write)", w,
				v(w, "on", "alloc"), v(w, "unpatched", "alloc")))
		if (w == "slowreader" || w == "mix")
			ok(v(w, "on", "alloc") + v(w, "on", "free") <= v(w, "off", "alloc") + v(w, "off", "free"),
			   sprintf("%s: pages allocated + freed, knobs on (%d) <= off (%d)", w,
				v(w, "on", "alloc") + v(w, "on", "free"), v(w, "off", "alloc") + v(w, "off", "free")))
		if (w == "pingpong") {
			b = med(w SUBSEP "unpatched")
			for (ci = 2; ci <= 3; ci++) {
				c = ci == 2 ? "off" : "on"
				a = med(w SUBSEP c)
				ok(runs[w, c] >= 5 && runs[w, "unpatched"] >= 5 && a > 0 && b > 0,
				   "1-byte ping-pong, knobs " c ": at least 5 runs with an instruction count each")
				ok(a > 0 && b > 0 && a <= b * 1.01,
				   sprintf("1-byte ping-pong instructions/op, knobs %s %s vs unpatched %s (%s, medians of %d/%d runs, budget +1%%)",
					c, a > 0 ? a : "-", b > 0 ? b : "-", a > 0 && b > 0 ? sprintf("%+.2f%%", (a - b) * 100 / b) : "no figure",
					runs[w, c], runs[w, "unpatched"]))
			}
		}
	}
	exit bad > 0
}'
rc=$?
[ "$TABLE" = /dev/null ] || cat "$TABLE"
exit $rc
