#!/usr/bin/env bash
# pipestat --textfile run by root in a directory an unprivileged user
# (nobody) owns: nothing the user plants makes root write anywhere else or
# hang. Each case is an attack that worked before the textfile was written
# through os/textfile.c.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_textfile.sh: needs root (BPF)"; exit 1
fi
ATK=$(mktemp -d /tmp/pipetrace-attack.XXXXXX)
# a pipestat that replaced /dev/stdout must not leave the machine broken
trap 'stop_pipestat 2>/dev/null; rm -rf "$TMP" "$ATK"
	[ -L /dev/stdout ] || { rm -f /dev/stdout; ln -s /proc/self/fd/1 /dev/stdout; }' EXIT
chown nobody: "$ATK"
chmod 755 "$ATK"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

# the file an attacker wants root to overwrite: root's, 0600, only root reads
VICTIM=$TMP/victim
new_victim() { echo secret >"$VICTIM"; chmod 600 "$VICTIM"; }
victim_intact() { expect "$1: root's file untouched" "$(head -c 30 "$VICTIM")" secret; }

# delayed_pipestat NAME ARGS...: pipestat with its pid known one second
# before it starts (exec keeps the pid), so names made from it can be planted
delayed_pipestat() {
	local name=$1
	shift
	sh -c 'sleep 1; exec "$@"' sh "$PIPESTAT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	DELAYED=$!
}

# the old temporary name, PATH.tmp.<pid>, planted as a symlink to root's file
t_planted_symlink() {
	new_victim
	delayed_pipestat link --textfile "$ATK/link.prom" -n pt-nothing -i 0.2 -c 3
	as_nobody ln -s "$VICTIM" "$ATK/link.prom.tmp.$DELAYED"
	timeout 20 tail --pid="$DELAYED" -f /dev/null
	wait "$DELAYED"
	expect "planted symlink: pipestat exit status" "$?" 0
	victim_intact "planted symlink"
	expect "planted symlink: the textfile written" \
		"$(grep -c '^# HELP pipetrace_build_info' "$ATK/link.prom")" 1
	expect "planted symlink: the symlink still a symlink" \
		"$(stat -c %F "$ATK/link.prom.tmp.$DELAYED")" "symbolic link"
}

# a FIFO at the old temporary name: opening it blocked pipestat for good
t_planted_fifo() {
	local rc
	delayed_pipestat fifo --textfile "$ATK/fifo.prom" -n pt-nothing -i 0.2 -c 3
	as_nobody mkfifo "$ATK/fifo.prom.tmp.$DELAYED"
	timeout 20 tail --pid="$DELAYED" -f /dev/null
	kill -0 "$DELAYED" 2>/dev/null && { kill -KILL "$DELAYED"; not_ok "planted FIFO: pipestat hung"; }
	wait "$DELAYED"; rc=$?
	expect "planted FIFO: pipestat exit status" "$rc" 0
	expect "planted FIFO: the textfile written" \
		"$(grep -c '^# HELP pipetrace_build_info' "$ATK/fifo.prom")" 1
}

# every file pipestat creates in the directory: O_CREAT|O_EXCL|O_NOFOLLOW
t_exclusive_create() {
	local opens
	strace -f -qq -e trace=openat -o "$TMP/strace" \
		"$PIPESTAT" --textfile "$ATK/excl.prom" -n pt-nothing -i 0.2 -c 2 >/dev/null 2>&1
	opens=$(grep -c '"\.excl\.prom\.' "$TMP/strace")
	[ "$opens" -ge 2 ] && ok "exclusive: $opens temporary files opened" ||
		not_ok "exclusive: $opens temporary files opened, want 2 or more"
	expect "exclusive: each with O_CREAT|O_EXCL|O_NOFOLLOW" \
		"$(grep '"\.excl\.prom\.' "$TMP/strace" | grep 'O_CREAT' | grep 'O_EXCL' |
		   grep -c 'O_NOFOLLOW')" "$opens"
	expect "exclusive: no temporary file left" "$(ls -A "$ATK" | grep -c '^\.excl')" 0
}

# refused_target NAME PATH: pipestat refuses PATH before attaching, at once
refused_target() {
	local msg rc
	msg=$(timeout 10 "$PIPESTAT" --textfile "$2" -i 0.2 -c 1 2>&1 >/dev/null); rc=$?
	expect "$1: exit 1" "$rc" 1
	expect "$1: one line saying why" "$(grep -c "^pipestat: --textfile $2: exists and is not a regular file" <<<"$msg")/$(wc -l <<<"$msg")" 1/1
}

t_target_not_regular() {
	new_victim
	as_nobody ln -s "$VICTIM" "$ATK/symlink.prom"
	refused_target "target a symlink" "$ATK/symlink.prom"
	victim_intact "target a symlink"
	as_nobody mkfifo "$ATK/fifo-target.prom"
	refused_target "target a FIFO" "$ATK/fifo-target.prom"
	refused_target "target /dev/stdout" /dev/stdout
	expect "target /dev/stdout: still a symlink" "$(stat -c %F /dev/stdout)" "symbolic link"
	local msg rc
	msg=$("$PIPESTAT" --textfile "$ATK/no/such/dir.prom" -i 0.2 -c 1 2>&1 >/dev/null); rc=$?
	expect "missing directory: exit 1" "$rc" 1
	expect "missing directory: says so" "$(grep -c "^pipestat: --textfile $ATK/no/such/dir.prom: directory $ATK/no/such: No such file or directory\$" <<<"$msg")" 1
}

# the directory on the way swapped for a symlink before pipestat starts
# (as the owner of a directory above it can): never followed, so root's
# file of that name elsewhere is not replaced
t_directory_symlink() {
	local msg rc
	mkdir -p "$TMP/rootdir"
	echo secret >"$TMP/rootdir/dir.prom"
	chmod 600 "$TMP/rootdir/dir.prom"
	as_nobody ln -s "$TMP/rootdir" "$ATK/dirlink"
	msg=$(timeout 10 "$PIPESTAT" --textfile "$ATK/dirlink/dir.prom" -i 0.2 -c 1 2>&1 >/dev/null); rc=$?
	expect "directory a symlink: exit 1" "$rc" 1
	expect "directory a symlink: root's file untouched" "$(cat "$TMP/rootdir/dir.prom")" secret
	expect "directory a symlink: one line saying why" "$msg" \
		"pipestat: --textfile $ATK/dirlink/dir.prom: directory $ATK/dirlink: a symbolic link on the way, which whoever can write where it lies could point elsewhere: give the real path"
}

# the target swapped for a symlink while pipestat runs: not replaced
t_target_swapped() {
	new_victim
	start_pipestat --textfile "$ATK/swap.prom" -n pt-nothing -i 0.2 ||
		{ not_ok "swapped: attach"; return; }
	for _ in $(seq 50); do [ -f "$ATK/swap.prom" ] && break; sleep 0.1; done
	as_nobody sh -c "rm -f '$ATK/swap.prom' && ln -s '$VICTIM' '$ATK/swap.prom'"
	sleep 1
	stop_pipestat TERM
	expect "swapped: pipestat exit status" "$PS_RC" 0
	victim_intact "swapped"
	expect "swapped: still the attacker's symlink" "$(stat -c %F "$ATK/swap.prom")" "symbolic link"
	expect "swapped: said once" \
		"$(grep -c "^pipestat: writing $ATK/swap.prom: no longer a regular file" "$TMP/err")" 1
}

# issue 42.11: an append-only directory (chattr +a) takes the temporary
# file but neither its rename nor its removal: one was left each interval
t_append_only() {
	local dir=$TMP/append msg rc
	mkdir "$dir"
	if ! chattr +a "$dir" 2>/dev/null || ! lsattr -d "$dir" | grep -q '^[^ ]*a'; then
		echo "# skip append-only directory: chattr +a not supported on $(df --output=fstype "$dir" | tail -1)"
		return
	fi
	timeout 20 "$PIPESTAT" --textfile "$dir/a.prom" -n pt-nothing -i 0.2 -c 5 \
		>/dev/null 2>"$TMP/append.err"; rc=$?
	msg=$(grep -v ' tier ' "$TMP/append.err")
	expect "append-only: stops with exit 1" "$rc" 1
	expect "append-only: one line saying why" \
		"$(grep -c "^pipestat: --textfile $dir/a.prom: writing failed (Operation not permitted) and $dir/\.a\.prom\.[0-9a-f]* cannot be removed (Operation not permitted: an append-only directory?): stopping\$" <<<"$msg")/$(wc -l <<<"$msg")" 1/1
	expect "append-only: one temporary file left, not one an interval" \
		"$(ls -A "$dir" | grep -c '^\.a\.prom\.')" 1
	chattr -a "$dir"
}

# issue 42.11: the directory renamed and a link to another put in its
# place while pipestat runs: it wrote on into the renamed one, silently
t_directory_swapped() {
	local rc
	as_nobody mkdir "$ATK/dir" "$ATK/other"
	"$PIPESTAT" --textfile "$ATK/dir/m.prom" -n pt-nothing -i 0.2 >/dev/null 2>"$TMP/dswap.err" &
	local ps=$!
	for _ in $(seq 50); do [ -f "$ATK/dir/m.prom" ] && break; sleep 0.1; done
	as_nobody sh -c "mv '$ATK/dir' '$ATK/renamed' && ln -s '$ATK/other' '$ATK/dir'"
	timeout 5 tail --pid="$ps" -f /dev/null
	kill -0 "$ps" 2>/dev/null && { kill "$ps"; not_ok "directory swapped: pipestat kept running"; }
	wait "$ps"; rc=$?
	expect "directory swapped: exit 1" "$rc" 1
	expect "directory swapped: one line saying why" \
		"$(grep -v ' tier ' "$TMP/dswap.err")" \
		"pipestat: --textfile $ATK/dir/m.prom: directory $ATK/dir is no longer the one opened at start (renamed, removed or replaced): stopping"
	expect "directory swapped: nothing written through the link" "$(ls -A "$ATK/other" | wc -l)" 0
}

# issue 42.11: a file of procfs (sysfs...) is a kernel knob: it was taken
# and never written; now refused before attaching
t_kernel_interface() {
	local msg rc host
	host=$(cat /proc/sys/kernel/hostname)
	msg=$(timeout 10 "$PIPESTAT" --textfile /proc/sys/kernel/hostname -i 0.2 -c 1 2>&1 >/dev/null); rc=$?
	expect "procfs target: exit 1" "$rc" 1
	expect "procfs target: one line saying why" "$msg" \
		"pipestat: --textfile /proc/sys/kernel/hostname: directory /proc/sys/kernel: a kernel interface (procfs, sysfs and the like), not storage"
	expect "procfs target: hostname as it was" "$(cat /proc/sys/kernel/hostname)" "$host"
	msg=$(timeout 10 "$PIPESTAT" --textfile /sys/kernel/pipetrace.prom -i 0.2 -c 1 2>&1 >/dev/null); rc=$?
	expect "sysfs directory: exit 1" "$rc" 1
	expect "sysfs directory: refused" "$(grep -c 'a kernel interface' <<<"$msg")" 1
}

t_planted_symlink
t_planted_fifo
t_exclusive_create
t_target_not_regular
t_directory_symlink
t_target_swapped
t_append_only
t_directory_swapped
t_kernel_interface
summary
