#!/usr/bin/env bash
# pipestat --cgroup and -k cgroup with cgroup v2 directories made for the
# test: known answers per cgroup, the subtree counted, the rest left out.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_cgroup.sh: needs root (BPF, cgroups)"; exit 1
fi
MNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
NAME=pt-test-$$
CG=$MNT/$NAME
trap 'stop_pipestat 2>/dev/null; rmdir "$CG"/a/sub "$CG"/a "$CG"/b "$CG" 2>/dev/null; rm -rf "$TMP"' EXIT

# in_cgroup DIR ARGS...: pipework ARGS run inside cgroup DIR; prints its line
in_cgroup() {
	local dir=$1; shift
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" "$PIPEWORK" "$@" \
		>"$TMP/work" || echo "# pipework in $dir failed" >&2
	cat "$TMP/work"
}

t_setup() {
	if [ -z "$MNT" ] || ! mkdir -p "$CG/a/sub" "$CG/b"; then
		not_ok "cgroups: no cgroup v2 hierarchy to make test cgroups in"
		summary; exit 1
	fi
	ok "cgroups: made $CG/{a,a/sub,b}"
}

t_filter() {
	local a sub b out
	start_pipestat -k pid --csv -n pipework --cgroup "$CG/a" ||
		{ not_ok "--cgroup: attach"; return; }
	a=$(pid_of "$(in_cgroup "$CG/a" eagain-read 111)")
	sub=$(pid_of "$(in_cgroup "$CG/a/sub" eagain-read 44)")
	b=$(pid_of "$(in_cgroup "$CG/b" eagain-read 222)")
	out=$(pid_of "$(work eagain-read 333)")
	stop_pipestat
	expect "--cgroup: exit status" "$PS_RC" 0
	expect "--cgroup: the cgroup's process" "$(csv_get "$TMP/out" eagain_read pid "$a")" 111
	expect "--cgroup: its subtree" "$(csv_get "$TMP/out" eagain_read pid "$sub")" 44
	expect "--cgroup: a sibling cgroup left out" "$(csv_get "$TMP/out" reads pid "$b")" ""
	expect "--cgroup: outside left out" "$(csv_get "$TMP/out" reads pid "$out")" ""
	expect "--cgroup: two rows" "$(($(wc -l <"$TMP/out") - 1))" 2
}

t_by_cgroup() {
	start_pipestat -k cgroup --csv -n pipework || { not_ok "-k cgroup: attach"; return; }
	in_cgroup "$CG/a" eagain-read 111 >/dev/null
	in_cgroup "$CG/b" eagain-read 200 >/dev/null
	in_cgroup "$CG/b" eagain-read 22 >/dev/null
	in_cgroup "$CG/a/sub" eagain-write 70 >/dev/null
	stop_pipestat
	expect "-k cgroup: cgroup after every metric" \
		"$(head -1 "$TMP/out" | grep -c ',lock_wait_ns,eof_reads,cgroup,writers,readers')" 1
	expect "-k cgroup: a" "$(csv_get "$TMP/out" eagain_read cgroup "/$NAME/a")" 111
	expect "-k cgroup: b, two processes" "$(csv_get "$TMP/out" eagain_read cgroup "/$NAME/b")" 222
	expect "-k cgroup: a/sub its own row" "$(csv_get "$TMP/out" eagain_write cgroup "/$NAME/a/sub")" 70
	expect "-k cgroup: a/sub writes" "$(csv_get "$TMP/out" writes cgroup "/$NAME/a/sub")" 71
	expect "-k cgroup: no pid or comm" "$(csv_rows "$TMP/out" pid cgroup="/$NAME/a")|$(csv_rows "$TMP/out" comm cgroup="/$NAME/a")" "|"
	# the same as JSON, and combined with --cgroup
	start_pipestat -k cgroup --json -n pipework --cgroup "$CG/b" ||
		{ not_ok "-k cgroup --json: attach"; return; }
	in_cgroup "$CG/a" eagain-read 5 >/dev/null
	in_cgroup "$CG/b" eagain-read 6 >/dev/null
	stop_pipestat
	expect "-k cgroup --json --cgroup b: one row, b's" \
		"$(jq -c '[.cgroup, .eagain_read]' "$TMP/out")" "[\"/$NAME/b\",6]"
}

t_bad() {
	local msg rc
	msg=$("$PIPESTAT" --cgroup /tmp 2>&1); rc=$?
	expect "--cgroup not cgroup v2: exit 2" "$rc" 2
	expect "--cgroup not cgroup v2: one line" "$(wc -l <<<"$msg")/$(grep -c \
		"^pipestat: --cgroup '/tmp': not a cgroup v2 directory" <<<"$msg")" 1/1
}

t_setup
t_filter
t_by_cgroup
t_bad
summary
