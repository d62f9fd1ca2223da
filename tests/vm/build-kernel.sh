#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or find cached) test kernels for the pipetrace VM tests.
#
# usage: tests/vm/build-kernel.sh unpatched|patched|debug|tracepoints|both|all
#
# unpatched: unpack the Debian linux-source-7.2 tarball (lib.sh
#   kernel_source) into
#   $PIPETRACE_CACHE/build/base, make tinyconfig, merge
#   kernel-patch/config (scripts/kconfig/merge_config.sh), olddefconfig,
#   make bzImage.
# patched: a copy of the base build tree (keeps objects and timestamps, so
#   the build is incremental), kept across runs: the series applied last
#   time is reversed, kernel-patch/series applied with patch -p1, files
#   left unchanged get their old mtimes back; make bzImage.
# debug: patched with kernel-patch/config-debug merged on top (KASAN,
#   lockdep), in its own tree $PIPETRACE_CACHE/build/debug, kept and
#   resynced the same way (the first build is a full one).
# tracepoints: the series' tracepoint patches only (lib.sh
#   TRACEPOINT_PATCHES), in its own tree $PIPETRACE_CACHE/build/tracepoints,
#   kept and resynced the same way: what the events cost compiled in and
#   disabled (tests/vm/guest-budget.sh).
# Results go to $PIPETRACE_CACHE/kernels/<flavour>-<key>/ (bzImage,
# vmlinux, config, build.log), key = hash of source version + fragment
# (+ patches); an existing result is reused, so a second run builds
# nothing. Prints the result directory on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_pkgs build-essential flex bison bc libssl-dev libelf-dev dwarves \
	cpio python3
kernel_source

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
		mv "$BUILD/unpack/$SRC_DIRNAME" "$base"
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

# Every symbol set in the fragments must have survived olddefconfig:
# check_config DOTCONFIG [FRAGMENT...] (default kernel-patch/config); a
# later fragment overrides an earlier one (config-debug's -Os over
# config's -O2), as merge_config.sh does.
check_config() {
	local cfg=$1 line k v got bad=0 f
	local -A want=()
	local -a order=()
	shift
	[ $# -gt 0 ] || set -- "$PATCH_DIR/config"
	for f in "$@"; do
		while read -r line; do
			case "$line" in CONFIG_*=*) ;; *) continue;; esac
			k=${line%%=*}
			[ -n "${want[$k]+x}" ] || order+=("$k")
			want[$k]=${line#*=}
		done < "$f"
	done
	for k in "${order[@]}"; do
		v=${want[$k]}
		got=$(grep -E "^$k=" "$cfg" || true)
		if [ "$v" = n ]; then
			[ -z "$got" ] || { log "config: $k=n wanted, got $got"; bad=1; }
		else
			[ "$got" = "$k=$v" ] || { log "config: $k=$v wanted, got '${got:-unset}'"; bad=1; }
		fi
	done
	[ $bad = 0 ] || die "config fragment(s) $* not fully applied (missing dependency?)"
}

# Bring the series applied in tree $1 (copies kept in $1/.pipetrace-applied)
# to kernel-patch/series: reverse the old patches, apply the new ones, and
# give every file whose content ended up unchanged its old mtime back, so
# make rebuilds only what the new series changes.
resync_series() {
	local t=$1 st=$1/.pipetrace-applied ref=$1/.pipetrace-mtimes f i=0
	local -a files
	mapfile -t files < <({ cat "$st"/*.patch 2>/dev/null; series_patches | xargs cat; } |
		sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*|\1|p' | sort -u)
	rm -rf "$ref"; mkdir -p "$ref"
	for f in "${files[@]}"; do
		i=$((i + 1))
		[ -f "$t/$f" ] || continue
		touch -r "$t/$f" "$ref/$i"
		sha256sum < "$t/$f" > "$ref/$i.sum"
	done
	while read -r f; do
		log "reversing $(basename "$f") in $(basename "$t")"
		(cd "$t" && patch -R -p1 --no-backup-if-mismatch -s < "$f") >>"$t/.pipetrace-build.log" 2>&1 ||
			die "cannot reverse $f in $t: remove $t"
	done < <(ls -r "$st"/*.patch 2>/dev/null)
	rm -rf "$st"; mkdir -p "$st"
	i=0
	while read -r f; do
		i=$((i + 1))
		log "applying $(basename "$f") in $(basename "$t")"
		(cd "$t" && patch -p1 --no-backup-if-mismatch -s < "$f") >>"$t/.pipetrace-build.log" 2>&1 ||
			{ tail -20 "$t/.pipetrace-build.log" >&2; die "patch $f does not apply"; }
		cp "$f" "$st/$(printf %02d $i).patch"
	done < <(series_patches)
	i=0
	for f in "${files[@]}"; do
		i=$((i + 1))
		[ -f "$ref/$i" ] && [ -f "$t/$f" ] && cmp -s "$ref/$i.sum" <(sha256sum < "$t/$f") &&
			touch -r "$ref/$i" "$t/$f"
	done
	rm -rf "$ref"
}

# Tree $1 for flavour $2: a copy of the base tree (configured with
# config fragment $3 on top, if given), kept across runs and resynced to
# the current series.
prepare_tree() {
	local t=$1 frag=${3:-} cfgkey
	cfgkey=$({ key_unpatched; [ -z "$frag" ] || cat "$frag"; } | sha)
	local fresh=0
	if [ ! -f "$t/.pipetrace-cfgkey" ] || [ "$(cat "$t/.pipetrace-cfgkey")" != "$cfgkey" ]; then
		log "copying base tree to $t"
		rm -rf "$t"
		cp -a --reflink=auto "$BUILD/base" "$t"
		rm -f "$t/.pipetrace-key" "$t/.pipetrace-cfgkey"
		: > "$t/.pipetrace-build.log"
		fresh=1
	fi
	resync_series "$t"
	# configured with the series applied: the fragment may set a symbol
	# the series adds (config-ab)
	if [ $fresh = 1 ] && [ -n "$frag" ]; then
		log "configuring $2: kernel-patch/config + $(basename "$frag")"
		(cd "$t" && timeout 300 scripts/kconfig/merge_config.sh -m .config "$frag") \
			>>"$t/.pipetrace-build.log" 2>&1 || die "merge_config $frag failed"
		kmake "$t" "$t/.pipetrace-build.log" olddefconfig
		check_config "$t/.config" "$PATCH_DIR/config" "$frag"
	fi
	[ $fresh = 0 ] || echo "$cfgkey" > "$t/.pipetrace-cfgkey"
}

build_flavour() { # flavour tree [fragment]
	local key out t0
	key=$(kernel_dir "$1")
	out=$key
	if [ -f "$out/bzImage" ]; then
		echo "$out"; return
	fi
	build_unpatched >/dev/null
	t0=$(date +%s)
	prepare_tree "$2" "$1" "${3:-}"
	log "building $1 kernel (incremental)"
	kmake "$2" "$2/.pipetrace-build.log" bzImage
	save_kernel "$2" "$out"
	log "$1 kernel built in $(( $(date +%s) - t0 )) s: $out"
	echo "$out"
}

build_patched() { build_flavour patched "$BUILD/patched" "$PATCH_DIR/config-ab"; }
build_debug() { build_flavour debug "$BUILD/debug" "$PATCH_DIR/config-debug"; }
build_tracepoints() { SERIES_N=$TRACEPOINT_PATCHES build_flavour tracepoints "$BUILD/tracepoints"; }

case "${1:-both}" in
unpatched) build_unpatched;;
patched) build_patched;;
debug) build_debug;;
tracepoints) build_tracepoints;;
both) build_unpatched; build_patched;;
all) build_unpatched; build_patched; build_tracepoints; build_debug;;
*) die "usage: $0 unpatched|patched|debug|tracepoints|both|all";;
esac
