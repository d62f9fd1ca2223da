#!/usr/bin/env bash
# record.sh SECTION COMMAND [ARG...]: runs a benchmark COMMAND (its output
# on stdout as always) and, if it succeeds, writes that output into
# docs/BENCH.md as SECTION (host, programs, pipetop, vm), headed by the
# date, the machine, the commit and the command. docs/BENCH.md is the one
# place the benchmark figures live: README, the man pages and
# docs/COST.md point there, so a re-run edits one file
# (tests/host/test_docs.sh fails on a figure by hand anywhere else).
# The other sections stay as they were. BENCH_DOC=FILE writes FILE instead
# (the test of this script).
set -u
cd "$(dirname "$0")/../.."
DOC=${BENCH_DOC:-docs/BENCH.md}
[ $# -ge 2 ] || { echo "usage: tests/bench/record.sh SECTION COMMAND [ARG...]" >&2; exit 2; }
section=$1
shift
grep -q "^<!-- begin $section -->$" "$DOC" ||
	{ echo "record.sh: no section '$section' in $DOC" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# what the run is: taken before it starts (the load is the machine's, not
# the benchmark's own)
env_set=$(env | grep -E '^(ROUNDS|PIPESTAT_B|BPFTRACE|LADDER|VMBENCH_[A-Z_]*|PAIR|VIEW)=' | sort | tr '\n' ' ')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
{
	echo "Run $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit:"
	echo "\`${env_set}$*\`."
	echo "Machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)),"
	echo "Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
	echo
	echo '```'
} >"$tmp/head"

"$@" | tee "$tmp/out"
rc=${PIPESTATUS[0]}
if [ "$rc" != 0 ]; then
	echo "record.sh: $* failed (exit $rc): $DOC not changed" >&2
	exit "$rc"
fi
{ cat "$tmp/head" "$tmp/out"; echo '```'; } >"$tmp/body"
awk -v s="$section" -v body="$tmp/body" '
	$0 == "<!-- begin " s " -->" {
		print
		while ((getline l < body) > 0) print l
		skip = 1
		next
	}
	$0 == "<!-- end " s " -->" { skip = 0 }
	!skip' "$DOC" >"$tmp/doc" && cat "$tmp/doc" >"$DOC"
echo "record.sh: $DOC, section $section, written"
