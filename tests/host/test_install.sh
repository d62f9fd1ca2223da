#!/usr/bin/env bash
# make install / uninstall into a staging root, and make deb installed
# into a scratch dpkg root: every file where it belongs, each tool runs
# from there, and nothing is left after removal; the package as Debian's
# lintian and systemd-analyze see it.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

VERSION=$("$PIPESTAT" --version | cut -d' ' -f2)
FILES="sbin/pipestat sbin/pipetop bin/pipetrace-bench share/man/man8/pipestat.8
share/man/man8/pipetop.8 share/man/man1/pipetrace-bench.1
share/bash-completion/completions/pipestat
share/bash-completion/completions/pipetop
share/bash-completion/completions/pipetrace-bench
lib/systemd/system/pipestat.service
share/doc/pipetrace/examples/pipestat-web.conf"

# each tool's --version, run from root R under prefix P
versions() {
	local t
	for t in sbin/pipestat sbin/pipetop bin/pipetrace-bench; do
		"$1$2/$t" --version
	done | tr '\n' ' '
}

t_install() {
	local d=$TMP/stage f missing=0
	make -s install DESTDIR="$d" PREFIX=/opt/pt >"$TMP/install.log" 2>&1
	expect "install: exit status" "$?" 0
	for f in $FILES; do
		[ -f "$d/opt/pt/$f" ] || { missing=$((missing + 1)); echo "# missing /opt/pt/$f"; }
	done
	expect "install: every file under DESTDIR/PREFIX" "$missing" 0
	expect "install: tools run from there" "$(versions "$d" /opt/pt)" \
		"pipestat $VERSION pipetop $VERSION pipetrace-bench $VERSION "
	expect "install: man page" "$(head -1 "$d/opt/pt/share/man/man8/pipestat.8" | cut -d' ' -f1-3)" \
		".TH PIPESTAT 8"
	expect "install: the unit and its web drop-in run the installed pipestat" \
		"$(cat "$d/opt/pt/lib/systemd/system/pipestat.service" \
			"$d/opt/pt/share/doc/pipetrace/examples/pipestat-web.conf" |
			grep -c '^ExecStart=/opt/pt/sbin/pipestat ')" 2
	make -s uninstall DESTDIR="$d" PREFIX=/opt/pt >>"$TMP/install.log" 2>&1
	expect "uninstall: exit status" "$?" 0
	expect "uninstall: no file left" "$(find "$d" -type f | wc -l)" 0
}

# the completion offers each tool's own options and values (made from
# its option table), and pipetrace-bench's workloads
t_completion() {
	local got
	got=$(bash -c '. scripts/pipetrace.bash-completion
		COMP_WORDS=(pipestat --li); COMP_CWORD=1; _pipestat pipestat; echo "${COMPREPLY[*]}"
		COMP_WORDS=(pipetrace-bench st); COMP_CWORD=1; _pipetrace_bench pipetrace-bench; echo "${COMPREPLY[*]}"
		COMP_WORDS=(pipetop --tier s); COMP_CWORD=2; _pipetop pipetop; echo "${COMPREPLY[*]}"
		COMP_WORDS=(pipetop --li); COMP_CWORD=1; _pipetop pipetop; echo "${COMPREPLY[*]}"
		COMP_WORDS=(pipetrace-bench -P b); COMP_CWORD=2; _pipetrace_bench pipetrace-bench; echo "${COMPREPLY[*]}"
		COMP_WORDS=(pipetrace-bench b); COMP_CWORD=1; _pipetrace_bench pipetrace-bench; echo "${COMPREPLY[*]}"')
	expect "completion: pipestat --li" "$(sed -n 1p <<<"$got")" "--listen"
	expect "completion: pipetrace-bench workloads" "$(sed -n 2p <<<"$got")" "stream"
	expect "completion: --tier values" "$(sed -n 3p <<<"$got")" "syscall"
	expect "completion: pipetop has no --listen" "$(sed -n 4p <<<"$got")" ""
	expect "completion: -P takes a number, not a workload" "$(sed -n 5p <<<"$got")" ""
	expect "completion: every workload" "$(sed -n 6p <<<"$got")" "bw bursty"
	t_completion_values
}

# the values of -s, -o and --hist: names from the tables the parsers read
# (a list's words after its last ','); --ab's KNOB= leaves no space
t_completion_values() {
	local got
	got=$(bash -c '. scripts/pipetrace.bash-completion
		compopt() { echo "compopt $*"; }
		c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
			_${1//-/_} "$1"; echo "${COMPREPLY[*]}"; }
		c pipestat -s eag; c pipestat -s wait_w; c pipestat --sort ""
		c pipestat -o reads,wait_r; c pipestat -o +ker; c pipestat --columns ""
		c pipestat --hist write_size,wa; c pipetrace-bench --ab pipe-r; c pipestat -k p')
	expect "completion: -s, every EAGAIN column" "$(sed -n 1p <<<"$got")" \
		"eagain_read eagain_write eagain_nonblock eagain_nowait eagain_empty eagain_full eagain_lock eagain_nopage eagain_splice eagain"
	expect "completion: -s, the table's shares too" "$(sed -n 2p <<<"$got")" \
		"wait_write_ns wait_write_pct"
	# as many as the CSV has metric columns, and the table's three
	expect "completion: --sort, every column" "$(sed -n 3p <<<"$got" | wc -w)" \
		"$(($("$PIPESTAT" --csv -d 0.1 2>/dev/null | head -1 | tr ',' '\n' | grep -vcxE \
		'time|interval_s|tier|key_type|pid|comm|pipe_dev|pipe_ino|cgroup|writers|readers|derived|args|side') + 3))"
	# each one -s takes (-c without -i is the first error then)
	expect "completion: --sort, names -s takes" "$(for w in $(sed -n 3p <<<"$got"); do
		"$PIPESTAT" -s "$w" -c 3 2>&1 | grep -v 'pipestat: -c needs -i'; done)" ""
	expect "completion: -o, after the list's last comma" "$(sed -n 4p <<<"$got")" \
		"reads,wait_read_ns reads,wait_read_pct"
	expect "completion: -o, after +" "$(sed -n 5p <<<"$got")" "+kernel"
	expect "completion: --columns, the sets too" "$(sed -n 6p <<<"$got" | cut -d' ' -f1-4)" \
		"default kernel all reads"
	expect "completion: --hist, after the list's last comma" "$(sed -n 7p <<<"$got")" \
		"write_size,wait_read write_size,wait_write"
	expect "completion: --ab KNOB=, no space after" "$(sed -n 8,9p <<<"$got" | paste -sd'|')" \
		"compopt -o nospace|pipe-read-batch="
	expect "completion: -k, a space after" "$(sed -n 10p <<<"$got")" "pid pipe"
}

t_deb() {
	local r=$TMP/root deb depends
	make -s deb >"$TMP/deb.log" 2>&1
	expect "deb: exit status" "$?" 0
	deb=$(ls build/pipetrace_"$VERSION"_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { not_ok "deb: no package built"; sed 's/^/# /' "$TMP/deb.log"; return; }
	depends=$(dpkg-deb -f "$deb" Depends)
	# from the libraries the tools link, not a hand-kept list
	for lib in libbpf1 libmicrohttpd12 libyaml-0-2 libcrypt1 liburing2 libncursesw6 libgvc6 \
		   libcgraph6 libc6; do
		expect "deb: Depends names $lib" "$(grep -c "\\b$lib\\b" <<<"$depends")" 1
	done
	mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
	: >"$r/var/lib/dpkg/status"
	# the scratch root has no libraries: the host's satisfy Depends
	dpkg --root="$r" --log=/dev/null --force-depends -i "$deb" >"$TMP/dpkg.log" 2>&1
	expect "deb: dpkg -i into a scratch root" "$?" 0
	expect "deb: installed" "$(dpkg --root="$r" -s pipetrace 2>/dev/null | grep -c '^Status: install ok installed')" 1
	expect "deb: tools run from the scratch root" "$(versions "$r" /usr)" \
		"pipestat $VERSION pipetop $VERSION pipetrace-bench $VERSION "
	expect "deb: completion for all three" \
		"$(ls "$r/usr/share/bash-completion/completions" | tr '\n' ' ')" "pipestat pipetop pipetrace-bench "
	t_policy "$deb" "$r"
	dpkg --root="$r" --log=/dev/null -r pipetrace >>"$TMP/dpkg.log" 2>&1
	expect "deb: dpkg -r" "$?" 0
	expect "deb: nothing left in usr" "$(find "$r/usr" -type f 2>/dev/null | wc -l)" 0
}

# what Debian asks of a package, checked by its own tools: lintian (no
# errors, no hardening-* tag at any level), the binaries' hardening, the
# copyright file, and the exporter's unit (systemd-analyze)
t_policy() {
	local deb=$1 r=$2 doc=$2/usr/share/doc/pipetrace unit=$TMP/pipestat.service bin
	if command -v lintian >/dev/null; then
		lintian --display-info "$deb" >"$TMP/lintian.log" 2>&1
		expect "deb: lintian, no errors" "$(grep -c '^E:' "$TMP/lintian.log")" 0
		expect "deb: lintian, no hardening tag" "$(grep -c ': hardening-' "$TMP/lintian.log")" 0
		grep -E '^E:|: hardening-' "$TMP/lintian.log" | sed 's/^/# /'
	else
		not_ok "deb: lintian is installed"
	fi
	for bin in usr/sbin/pipestat usr/sbin/pipetop usr/bin/pipetrace-bench; do
		expect "deb: $bin hardened" "$(hardened "$r/$bin" | paste -sd' ')" \
			"pie relro bindnow stack-protector fortify"
	done
	expect "deb: machine-readable copyright" "$(head -1 "$doc/copyright" 2>/dev/null)" \
		"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	expect "deb: licence of every file named" "$(grep -c '^License: GPL-2$' "$doc/copyright")" 3
	expect "deb: LICENSE is the GPL-2 the headers say" "$(cmp -s LICENSE /usr/share/common-licenses/GPL-2 &&
		grep -rh 'SPDX-License-Identifier' src bpf include/*.h | grep -vc 'GPL-2.0')" 0
	expect "deb: changelog" "$(zcat "$doc/changelog.gz" | head -1 | cut -d' ' -f1-2)" \
		"pipetrace ($VERSION)"
	expect "deb: example alerting rules and their test, the unit's web drop-in" \
		"$(ls "$doc/examples" | tr '\n' ' ')" \
		"pipestat-web.conf pipetrace-alerts.test.yml pipetrace-alerts.yml "
	expect "deb: man pages gzipped" "$(ls "$r"/usr/share/man/man*/ | grep -c '\.[18]\.gz$')" 3
	expect "deb: md5sums" "$(cd "$r" && md5sum --quiet -c "$r/var/lib/dpkg/info/pipetrace.md5sums" 2>&1 | wc -l)" 0
	# the unit as installed, with its web drop-in (LoadCredential=), its
	# binary and man page in the scratch root
	mkdir -p "$unit.d"
	sed "s|=/usr/sbin/pipestat|=$r/usr/sbin/pipestat|" \
		"$r/usr/lib/systemd/system/pipestat.service" >"$unit"
	sed "s|=/usr/sbin/pipestat|=$r/usr/sbin/pipestat|" "$doc/examples/pipestat-web.conf" \
		>"$unit.d/web.conf"
	MANPATH=$r/usr/share/man systemd-analyze verify "$unit" >"$TMP/verify.log" 2>&1
	expect "unit: systemd-analyze verify" "$?" 0
	# it exits 0 on a misspelt or unparsable setting, which it only says
	# it ignores: a hardening line lost to a typo must fail here
	expect "unit: systemd-analyze verify has no remark" "$(cat "$TMP/verify.log")" ""
	expect "unit: its own user each start, two capabilities" "$(grep -cxE \
		'DynamicUser=yes|AmbientCapabilities=CAP_BPF CAP_PERFMON|CapabilityBoundingSet=CAP_BPF CAP_PERFMON' \
		"$unit")" 3
	systemd-analyze security --offline=yes --threshold=40 "$unit" >"$TMP/security.log" 2>&1
	expect "unit: hardened (systemd-analyze security: $(sed -n \
		's/.*Overall exposure level for .*: \([0-9.]* [A-Z]*\).*/\1/p' "$TMP/security.log"), 4.0 at most)" "$?" 0
}

t_install
t_completion
t_deb
summary
