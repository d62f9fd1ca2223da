#!/usr/bin/env bash
# What users read against what the tools accept. Each tool's option table
# (src/TOOL/opts.c) makes its --help at run time and, through docgen at
# build time, its man page's OPTIONS entries and bash completion: those
# committed must be what docgen makes of the tables now (make all writes
# them). The usage line and the man SYNOPSIS, written by hand, name each
# option (long or short form; --help and --version aside) unless they say
# [OPTIONS]. pipetop's man KEYS section names the lines of its key table
# (src/pipetop/keys.c) in order. Benchmark figures appear only in
# docs/BENCH.md, which tests/bench/record.sh writes. The host suites the
# VMs run say so at their top.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

COMPLETION=scripts/pipetrace.bash-completion
DOCGEN=${OUT:-build}/docgen/docgen
[ -x "$DOCGEN" ] || not_ok "no $DOCGEN: make all first"

# the man page with its escapes undone
man_text() { sed 's/\\f[BIRP]//g; s/\\-/-/g' man/"$1".[18]; }

# missing TEXT TOOL: the options (long and short form) TEXT names neither of
missing() {
	local text=$1 long short out=
	grep -q '\[OPTIONS\]' <<<"$text" && return
	while read -r long short; do
		case $long in --help|--version) continue;; esac
		grep -qE -- "$long([^a-z-]|\$)" <<<"$text" && continue
		[ "$short" != - ] && grep -qE -- "(\\[|\\| )$short( |\\])" <<<"$text" && continue
		out="$out $long"
	done < <("$DOCGEN" options "$2")
	echo "${out# }"
}

expect "completion: made from the option tables" \
	"$("$DOCGEN" completion | diff - "$COMPLETION" && echo same)" same
for t in pipestat pipetop pipetrace-bench; do
	page=$(ls man/$t.[18])
	expect "$t: the option table has options" "$("$DOCGEN" options $t | grep -c '^--help -h$')" 1
	expect "$t: man OPTIONS made from the option table" \
		"$("$DOCGEN" man $t "$page" | diff - "$page" && echo same)" same
	usage=$("./$t" --help | sed '/^[A-Z][a-z]* [a-z]/,$d')
	expect "$t: usage line names every option" "$(missing "$usage" $t)" ""
	synopsis=$(man_text $t | awk '/^\.SH SYNOPSIS/ { f = 1; next } /^\.SH/ { f = 0 } f')
	expect "$t: man SYNOPSIS names every option" "$(missing "$synopsis" $t)" ""
done

# a stale page: an entry edited by hand is not what the table makes
sed 's/^The version\.$/The version, by hand./' man/pipetop.8 >"$TMP/pipetop.8"
expect "a man page edited by hand is told from the table's" \
	"$("$DOCGEN" man pipetop "$TMP/pipetop.8" | cmp -s - "$TMP/pipetop.8" || echo differs)" differs

# pipetop's keys: the man page's KEYS section names the key table's lines
keys_table=$(sed -n 's/^\t{ "\([^"]*\)", ".*/\1/p' src/pipetop/keys.c | paste -sd'|')
keys_man=$(man_text pipetop | awk '/^\.SH KEYS/ { f = 1; next } /^\.SH/ { f = 0 }
	f && tp { print; tp = 0 } f && /^\.TP/ { tp = 1 }' | sed 's/^\.B "\(.*\)"$/\1/; s/^\.B //' | paste -sd'|')
[ -n "$keys_table" ] || not_ok "pipetop: no key table found in src/pipetop/keys.c"
expect "pipetop: man KEYS names the key table" "$keys_man" "$keys_table"

# pipetop's value columns: the man page describes them in screen order
# (enum tm_col, src/model/metrics.h), under their headings (the metrics
# table's TOP(place, "HEADING", ...))
# (test_column's throwaway column, #ifdef PT_TEST_COLUMN, left out)
heads=$(sed '/^#ifdef PT_TEST_COLUMN/,/^#endif/d' src/model/metrics.h |
	sed -n '/^enum tm_col {/,/TM_NCOLS/p' | grep -oE 'TM_[A-Z]+' |
	grep -v TM_NCOLS | while read -r c; do
		sed -n "s/.*TOP($c, \"\([^\"]*\)\".*/\1/p" src/model/metrics.c
	done | paste -sd' ')
[ -n "$heads" ] || not_ok "pipetop: no column table found in src/model/metrics.[ch]"
man_heads=$(man_text pipetop | awk '/^\.SH DESCRIPTION/ { f = 1; next } /^\.SH/ { f = 0 }
	f && tp { print; tp = 0 } f && /^\.TP/ { tp = 1 }' | tr -c 'A-Za-z0-9_/%\n' ' ' |
	tr ' ' '\n' | grep -xF -f <(tr ' ' '\n' <<<"$heads") | paste -sd' ')
expect "pipetop: man columns in screen order" "$man_heads" "$heads"

# Benchmark figures: docs/BENCH.md only, written by make bench and make
# vmbench (tests/bench/record.sh); a cost figure anywhere else users read
# is one by hand, stale after the next run. FIGURE: a number with a cost
# unit, or a "best [median]" pair. (kernel-patch/README.md's figures are
# the series' own, from make vmtest's budget runs.)
FIGURE='[0-9][0-9.,]* ?(instructions|instr\b|instr/|ns/call|us (a|per)|us/op|MB/s|GB/s)|[0-9]{2,} ?ns (a|of|per)|[0-9.]+% of one core|peak RSS (about )?[0-9]|[0-9.]+ \[[0-9.]+\]'
by_hand=$(grep -nE "$FIGURE" README.md man/*.[18] docs/*.md |
	grep -v '^docs/BENCH.md:')
expect "benchmark figures only in docs/BENCH.md" "$by_hand" ""

# record.sh writes one section, with when, where and what ran, and only
# when the benchmark succeeded
cp docs/BENCH.md "$TMP/bench.md"
BENCH_DOC=$TMP/bench.md tests/bench/record.sh vm printf '6696 instructions\n' >/dev/null
expect "record.sh: the output in its section" \
	"$(sed -n '/^<!-- begin vm -->$/,/^<!-- end vm -->$/p' "$TMP/bench.md" | grep -c '^6696 instructions$')" 1
expect "record.sh: with date, commit, command and machine" \
	"$(sed -n '/^<!-- begin vm -->$/,/^<!-- end vm -->$/p' "$TMP/bench.md" |
		grep -cE '^Run [0-9-]+ [0-9:]+ UTC, commit |^`printf 6696 instructions|^Machine: [0-9]+ CPUs|^Linux ')" 4
expect "record.sh: the other sections as they were" \
	"$(diff <(sed '/^<!-- begin vm -->$/,/^<!-- end vm -->$/d' docs/BENCH.md) \
		<(sed '/^<!-- begin vm -->$/,/^<!-- end vm -->$/d' "$TMP/bench.md") && echo same)" same
cp "$TMP/bench.md" "$TMP/before.md"
BENCH_DOC=$TMP/bench.md tests/bench/record.sh host sh -c 'echo 1 instructions; exit 3' >/dev/null 2>&1
expect "record.sh: a failed run, its status" "$?" 3
expect "record.sh: a failed run changes nothing" "$(cmp "$TMP/before.md" "$TMP/bench.md" && echo same)" same
BENCH_DOC=$TMP/bench.md tests/bench/record.sh nosuch true >/dev/null 2>&1
expect "record.sh: no such section: exit 2" "$?" 2

# the host suites the guests run say so at their top, and only those
expect "host suites in the VMs: marked" \
	"$(grep -l '^# Also run in the VMs' tests/host/test_*.sh | sed 's|.*/test_\(.*\)\.sh|\1|' | sort | paste -sd' ')" \
	"$(sed -n 's/.*host_suite \([a-z_]*\) .*/\1/p' tests/vm/guest-pipestat.sh | sort -u | paste -sd' ')"

# the README is for users: narratives and figures live in docs/
expect "README under 300 lines" "$(( $(wc -l <README.md) < 300 ))" 1

summary
