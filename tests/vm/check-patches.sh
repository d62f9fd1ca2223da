#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hygiene checks for kernel-patch/series (run by vmtest.sh after the
# kernels are built):
#  1. every patch passes scripts/checkpatch.pl --strict with 0 errors and
#     0 warnings, except the "does MAINTAINERS need updating?" warning for
#     a new file (CHECKs are listed; each patch justifies its own);
#  2. make W=1 fs/pipe.o in the patched tree gives no warnings;
#  3. the series builds with tracing off: a tinyconfig tree (no
#     TRACEPOINTS, no FTRACE) with the series applied compiles fs/pipe.o
#     and links vmlinux (cached: only redone when the series changes);
#  4. the builds a kernel test robot runs (tests/vm/robot-builds.sh):
#     tinyconfig W=1, PREEMPT_RT + KASAN + KCOV + UBSAN_BOUNDS with
#     objtool's uaccess check, arm64 with clang.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kernel_source

BUILD=$CACHE/build
P=$BUILD/patched
[ -d "$P" ] || die "no patched tree; run tests/vm/build-kernel.sh patched first"
rc=0

log "checkpatch --strict"
while read -r f; do
	out=$("$P/scripts/checkpatch.pl" --strict --root="$P" "$f" 2>&1 || true)
	sum=$(echo "$out" | grep -E '^total:' || echo "total: ?")
	errs=$(echo "$out" | grep -c '^ERROR' || true)
	warns=$(echo "$out" | grep '^WARNING' | grep -vc 'does MAINTAINERS need updating' || true)
	checks=$(echo "$out" | grep '^CHECK' | sort | uniq -c | sed 's/^/      /' || true)
	log "  $(basename "$f"): $sum"
	[ -z "$checks" ] || echo "$checks" >&2
	grep -q '^Signed-off-by: ' "$f" || { log "  missing Signed-off-by"; rc=1; }
	if [ "$errs" != 0 ] || [ "$warns" != 0 ]; then
		echo "$out" | grep -A4 -E '^(ERROR|WARNING)' >&2
		rc=1
	fi
done < <(series_patches)

log "make W=1 fs/pipe.o (patched tree)"
touch "$P/fs/pipe.c"
w1=$(timeout 900 make -C "$P" -j"$JOBS" W=1 fs/pipe.o 2>&1) || { echo "$w1" >&2; rc=1; }
if echo "$w1" | grep -E 'warning:|error:' >&2; then
	log "  W=1 warnings in fs/pipe.o"; rc=1
else
	log "  fs/pipe.o: no W=1 warnings"
fi

# tracing-off build, in one tree every checkout shares: under its own lock
# (another check's rm -rf in the middle of a build failed it with no error)
key=$( { key_patched; echo notrace-1; } | sha)
nt=$BUILD/notrace
exec 8>"$BUILD/notrace.lock"
flock -w "$BUILD_TIMEOUT" 8 || die "notrace build lock busy"
if [ "$(cat "$nt/.pipetrace-key" 2>/dev/null)" != "$key" ]; then
	log "tracing-off build (tinyconfig + series, no TRACEPOINTS/FTRACE)"
	rm -rf "$nt" "$BUILD/unpack-nt"
	mkdir -p "$BUILD/unpack-nt"
	timeout 600 tar xf "$SRC_TARBALL" -C "$BUILD/unpack-nt"
	mv "$BUILD/unpack-nt/$SRC_DIRNAME" "$nt"
	rmdir "$BUILD/unpack-nt"
	while read -r f; do
		(cd "$nt" && patch -p1 -s --no-backup-if-mismatch < "$f")
	done < <(series_patches)
	lf=$nt/.pipetrace-build.log
	if timeout 600 make -C "$nt" tinyconfig >"$lf" 2>&1 &&
	   ! grep -qE '^CONFIG_(TRACEPOINTS|FTRACE)=y' "$nt/.config" &&
	   timeout "$BUILD_TIMEOUT" make -C "$nt" -j"$JOBS" W=1 vmlinux >>"$lf" 2>&1; then
		if grep -E 'fs/pipe\.c.*(warning|error):' "$lf" >&2; then
			log "  warnings in fs/pipe.c with tracing off"; rc=1
		else
			echo "$key" > "$nt/.pipetrace-key"
			log "  tracing-off vmlinux builds, fs/pipe.c clean"
		fi
	else
		tail -30 "$lf" >&2; log "  tracing-off build FAILED"; rc=1
	fi
else
	log "tracing-off build: cached OK for this series"
fi
log "the test robot's builds"
"$VM_DIR/robot-builds.sh" || rc=1
exit $rc
