#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or find cached) test kernels for the pipetrace VM tests.
#
# usage: tests/vm/build-kernel.sh unpatched|patched|both
#
# unpatched: unpack the Debian linux-source-6.12 tarball into
#   $PIPETRACE_CACHE/build/base, make tinyconfig, merge
#   kernel-patch/config (scripts/kconfig/merge_config.sh), olddefconfig,
#   make bzImage.
# patched: copy the base build tree (keeps objects and timestamps, so the
#   build is incremental), apply kernel-patch/series with patch -p1,
#   make bzImage.
# Results go to $PIPETRACE_CACHE/kernels/<flavour>-<key>/ (bzImage,
# vmlinux, config, build.log), key = hash of source version + fragment
# (+ patches); an existing result is reused, so a second run builds
# nothing. Prints the result directory on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_pkgs build-essential flex bison bc libssl-dev libelf-dev dwarves \
	cpio python3 linux-source-6.12
[ -f "$SRC_TARBALL" ] || die "kernel source tarball $SRC_TARBALL missing"

BUILD=$CACHE/build
mkdir -p "$BUILD" "$CACHE/kernels"
exec 9>"$CACHE/build.lock"
flock -w "$BUILD_TIMEOUT" 9 || die "build lock busy"

kmake() { # dir logfile args...
	local d=$1 lf=$2; shift 2
	timeout -k 30 "$BUILD_TIMEOUT" make -C "$d" -j"$JOBS" "$@" >>"$lf" 2>&1 ||
		{ tail -40 "$lf" >&2; die "make $* failed in $d (log $lf)"; }
}

save_kernel() { # tree outdir
	local t=$1 out=$2 tmp
	tmp=$(mktemp -d "$CACHE/kernels/.tmp.XXXXXX")
	cp "$t/arch/x86/boot/bzImage" "$t/vmlinux" "$tmp/"
	cp "$t/.config" "$tmp/config"
	cp "$t/.pipetrace-build.log" "$tmp/build.log"
	rm -rf "$out"
	mv "$tmp" "$out"
}

build_unpatched() {
	local key out base=$BUILD/base t0
	key=$(key_unpatched)
	out=$CACHE/kernels/unpatched-$key
	if [ -f "$out/bzImage" ] && [ -f "$base/.pipetrace-key" ] &&
	   [ "$(cat "$base/.pipetrace-key")" = "$key" ]; then
		echo "$out"; return
	fi
	t0=$(date +%s)
	# .pipetrace-cfgkey: tree unpacked and configured for this key (an
	# interrupted build resumes); .pipetrace-key: built.
	if [ ! -f "$base/.pipetrace-cfgkey" ] || [ "$(cat "$base/.pipetrace-cfgkey")" != "$key" ]; then
		log "unpacking $(basename "$SRC_TARBALL") into $base"
		rm -rf "$base" "$BUILD/unpack"
		mkdir -p "$BUILD/unpack"
		timeout 600 tar xf "$SRC_TARBALL" -C "$BUILD/unpack"
		mv "$BUILD/unpack"/linux-source-6.12 "$base"
		rmdir "$BUILD/unpack"
		: > "$base/.pipetrace-build.log"
		log "configuring: tinyconfig + kernel-patch/config"
		kmake "$base" "$base/.pipetrace-build.log" tinyconfig
		(cd "$base" && timeout 300 scripts/kconfig/merge_config.sh -m .config \
			"$PATCH_DIR/config") >>"$base/.pipetrace-build.log" 2>&1 ||
			die "merge_config failed"
		kmake "$base" "$base/.pipetrace-build.log" olddefconfig
		check_config "$base/.config"
		echo "$key" > "$base/.pipetrace-cfgkey"
	fi
	log "building unpatched kernel (make -j$JOBS bzImage; ~5-10 min)"
	kmake "$base" "$base/.pipetrace-build.log" bzImage
	echo "$key" > "$base/.pipetrace-key"
	save_kernel "$base" "$out"
	log "unpatched kernel built in $(( $(date +%s) - t0 )) s: $out"
	echo "$out"
}

# Every symbol set in the fragment must have survived olddefconfig.
check_config() {
	local line k v got bad=0
	while read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue;; esac
		k=${line%%=*}; v=${line#*=}
		got=$(grep -E "^$k=" "$1" || true)
		if [ "$v" = n ]; then
			[ -z "$got" ] || { log "config: $k=n wanted, got $got"; bad=1; }
		else
			[ "$got" = "$k=$v" ] || { log "config: $k=$v wanted, got '${got:-unset}'"; bad=1; }
		fi
	done < "$PATCH_DIR/config"
	[ $bad = 0 ] || die "kernel-patch/config not fully applied (missing dependency?)"
}

build_patched() {
	local key out p=$BUILD/patched t0 f
	key=$(key_patched)
	out=$CACHE/kernels/patched-$key
	if [ -f "$out/bzImage" ]; then
		echo "$out"; return
	fi
	build_unpatched >/dev/null
	t0=$(date +%s)
	log "copying base tree to $p"
	rm -rf "$p"
	cp -a --reflink=auto "$BUILD/base" "$p"
	rm -f "$p/.pipetrace-key" "$p/.pipetrace-cfgkey"
	: > "$p/.pipetrace-build.log"
	while read -r f; do
		log "applying $(basename "$f")"
		(cd "$p" && patch -p1 --no-backup-if-mismatch -s < "$f") >>"$p/.pipetrace-build.log" 2>&1 ||
			{ tail -20 "$p/.pipetrace-build.log" >&2; die "patch $f does not apply"; }
	done < <(series_patches)
	log "building patched kernel (incremental)"
	kmake "$p" "$p/.pipetrace-build.log" bzImage
	echo "$key" > "$p/.pipetrace-key"
	save_kernel "$p" "$out"
	log "patched kernel built in $(( $(date +%s) - t0 )) s: $out"
	echo "$out"
}

case "${1:-both}" in
unpatched) build_unpatched;;
patched) build_patched;;
both) build_unpatched; build_patched;;
*) die "usage: $0 unpatched|patched|both";;
esac
