#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The builds a kernel test robot runs on kernel-patch/series; exits
# non-zero if any of them is not clean. Each has its own tree,
# $PIPETRACE_CACHE/build/robot-<name>: the source tarball (lib.sh
# kernel_source) unpacked afresh, the series applied with patch -p1.
#
# usage: tests/vm/robot-builds.sh [tiny|kasan|arm64]...  (default: all three)
#
#  tiny   make ARCH=x86_64 tinyconfig (asserted: X86_64, no TRACEPOINTS,
#         no SYSCTL; without ARCH=x86_64 allnoconfig and so tinyconfig say
#         no to 64BIT: i386), then make W=1 fs/pipe.o: not one warning:
#         or error: line while fs/pipe.c compiles (fs/pipe.c,
#         include/trace/events/pipe.h or any header it pulls in).
#  kasan  x86_64 defconfig + EXPERT, PREEMPT_RT, KASAN, KCOV, UBSAN,
#         UBSAN_BOUNDS (merge_config.sh -m, olddefconfig; each asserted =y),
#         then make fs/pipe.o: no compiler warning: or error: line, and
#         objtool, with the build's own arguments (--uaccess among them),
#         says nothing about fs/pipe.o. Where objtool runs on vmlinux.o
#         instead of on each object (delay-objtool: X86_KERNEL_IBT, which
#         defconfig sets, or LTO) make fs/pipe.o runs no objtool: it is run
#         here on fs/pipe.o as the vmlinux.o pass runs it (--link, plus
#         --dry-run: the object is left as built).
#  arm64  make ARCH=arm64 LLVM=-$PIPETRACE_LLVM_VERSION defconfig, then
#         fs/pipe.o: no compiler warning: or error: line. 7.2 needs LLVM
#         17.0.1 or newer (scripts/min-tool-version.sh), Debian 12's
#         default clang is 14: clang-19, lld-19 and llvm-19 (Debian 12's
#         newest) are installed and used by their versioned names
#         (PIPETRACE_LLVM_VERSION=N for another).
#
# Each make is bounded by $BUILD_TIMEOUT; its output is kept in the tree
# (.robot-build.log), the last 30 lines shown on a failure. A build that
# came out clean writes a key into its tree (hash of lib.sh key_patched
# and the build's recipe): while the key matches, the build is skipped.
# One run at a time: flock on $PIPETRACE_CACHE/build/robot.lock.
#
# PIPETRACE_SERIES_DIR=DIR takes the series (series, the patches, config,
# config-ab) from DIR instead of kernel-patch/: for showing a check fail
# on a changed copy of the series, kept out of the repository. Either way
# the run works on a snapshot of the series taken as it starts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SERIES_DIR=${PIPETRACE_SERIES_DIR:-$PATCH_DIR}
[ -f "$SERIES_DIR/series" ] || die "no series in $SERIES_DIR"
# Keys and trees from one snapshot of the series: a patch rewritten while
# a build runs must not end up in a tree under the old series' key.
PATCH_DIR=$(mktemp -d /tmp/robot-series.XXXXXX)
trap 'rm -rf "$PATCH_DIR"' EXIT
cp -a "$SERIES_DIR/." "$PATCH_DIR/"
LLVM_VER=${PIPETRACE_LLVM_VERSION:-19}

ALL="tiny kasan arm64"
builds=${*:-$ALL}
for b in $builds; do
	case " $ALL " in *" $b "*) ;; *) die "unknown build '$b' ($ALL)";; esac
done

need_pkgs build-essential flex bison bc libssl-dev libelf-dev python3 patch xz-utils
case " $builds " in *" arm64 "*) need_pkgs "clang-$LLVM_VER" "lld-$LLVM_VER" "llvm-$LLVM_VER";; esac
kernel_source

BUILD=$CACHE/build
mkdir -p "$BUILD"
exec 7>"$BUILD/robot.lock"
flock -w "$BUILD_TIMEOUT" 7 || die "$BUILD/robot.lock busy"

# The kasan build's fragment.
KASAN_SYMS="EXPERT PREEMPT_RT KASAN KCOV UBSAN UBSAN_BOUNDS"
kasan_fragment() { local s; for s in $KASAN_SYMS; do echo "CONFIG_$s=y"; done; }

# recipe NAME: what the build does, hashed into its key (bump "robot N"
# when this script's checks change)
recipe() {
	echo "robot 1 $1"
	case $1 in
	tiny) echo "ARCH=x86_64 tinyconfig; !TRACEPOINTS !SYSCTL; W=1 prepare; W=1 fs/pipe.o";;
	kasan) echo "ARCH=x86_64 defconfig; merge_config -m; olddefconfig; prepare; fs/pipe.o; objtool"
		kasan_fragment;;
	arm64) echo "ARCH=arm64 LLVM=-$LLVM_VER defconfig; prepare; fs/pipe.o"
		"clang-$LLVM_VER" --version | head -1;;
	esac
}

T='' LF='' RM_S=0
mk() { # make args... (in $T, output to $LF)
	echo "+ make $*" >>"$LF"
	timeout -k 30 "$BUILD_TIMEOUT" make -C "$T" -j"$JOBS" "$@" >>"$LF" 2>&1
}

# fresh_tree: $T anew from the tarball, the series applied
fresh_tree() {
	local f u=$T.unpack t=$SECONDS
	rm -rf "$T" "$u"
	RM_S=$((SECONDS - t))
	mkdir -p "$u"
	timeout 900 tar xf "$SRC_TARBALL" -C "$u" || return 1
	mv "$u/$SRC_DIRNAME" "$T"
	rmdir "$u"
	echo "+ old tree removed in $RM_S s, $SRC_TARBALL unpacked in $((SECONDS - t - RM_S)) s" >"$LF"
	while read -r f; do
		echo "+ patch -p1 < $f" >>"$LF"
		(cd "$T" && patch -p1 -s --no-backup-if-mismatch <"$f") >>"$LF" 2>&1 || return 1
	done < <(series_patches)
}

# configure NAME: .config for that build, checked (a message on stdout
# and non-zero if it is not the config asked for)
configure() {
	local s
	case $1 in
	tiny)
		mk ARCH=x86_64 tinyconfig || { echo "make tinyconfig failed"; return 1; }
		grep -qx 'CONFIG_X86_64=y' "$T/.config" || { echo "tinyconfig is not x86_64"; return 1; }
		for s in TRACEPOINTS SYSCTL; do
			! grep -q "^CONFIG_$s=y" "$T/.config" || { echo "tinyconfig has CONFIG_$s=y"; return 1; }
		done;;
	kasan)
		mk ARCH=x86_64 defconfig || { echo "make defconfig failed"; return 1; }
		kasan_fragment >"$T/.robot.config"
		echo "+ scripts/kconfig/merge_config.sh -m .config .robot.config" >>"$LF"
		(cd "$T" && ARCH=x86_64 timeout 300 scripts/kconfig/merge_config.sh -m .config .robot.config) \
			>>"$LF" 2>&1 || { echo "merge_config.sh failed"; return 1; }
		mk ARCH=x86_64 olddefconfig || { echo "make olddefconfig failed"; return 1; }
		for s in $KASAN_SYMS; do
			grep -qx "CONFIG_$s=y" "$T/.config" ||
				{ echo "CONFIG_$s is not =y after olddefconfig ($(grep -E "CONFIG_${s}[= ]" "$T/.config" || echo absent))"; return 1; }
		done;;
	arm64)
		mk ARCH=arm64 LLVM=-"$LLVM_VER" defconfig || { echo "make defconfig failed"; return 1; }
		grep -qx 'CONFIG_CC_IS_CLANG=y' "$T/.config" || { echo "the compiler is not clang"; return 1; }
		grep -qx 'CONFIG_ARM64=y' "$T/.config" || { echo "the config is not arm64"; return 1; };;
	esac
}

# make_args NAME: the build's make arguments
make_args() {
	case $1 in
	tiny) echo "ARCH=x86_64 W=1";;
	kasan) echo "ARCH=x86_64";;
	arm64) echo "ARCH=arm64 LLVM=-$LLVM_VER";;
	esac
}

# objtool_args: the arguments kbuild gives objtool for an object of this
# tree (scripts/Makefile.lib's objtool block, evaluated on its config)
objtool_args() {
	sed -n '/^ifdef CONFIG_OBJTOOL$/,/^endif # CONFIG_OBJTOOL$/p' \
		"$T/scripts/Makefile.lib" >"$T/.robot-objtool.mk"
	# shellcheck disable=SC2016 # make's $(...), not the shell's
	printf '%s\n' 'include include/config/auto.conf' 'objtree := .' \
		'include .robot-objtool.mk' 'all: ; @echo $(objtool-args)' |
		make -s --no-print-directory -C "$T" -f -
}

# objtool_check: objtool's checks (--uaccess among them) on fs/pipe.o,
# with the build's own arguments: a message on stdout, non-zero if they
# did not run or said anything
objtool_check() {
	local args out rc=0 cmdf=$T/fs/.pipe.o.cmd
	if grep -q 'tools/objtool/objtool' "$cmdf"; then
		args=$(grep -o 'tools/objtool/objtool [^;]*' "$cmdf" | head -1)
		case " $args " in
		*" --uaccess "*) echo "objtool ran in the build (${args#tools/objtool/objtool })"; return 0;;
		*) echo "objtool ran in the build without --uaccess: $args"; return 1;;
		esac
	fi
	args=$(objtool_args) || { echo "cannot tell objtool's arguments"; return 1; }
	case " $args " in
	*" --uaccess "*) ;;
	*) echo "objtool's arguments lack --uaccess (CONFIG_HAVE_UACCESS_VALIDATION?): '$args'"; return 1;;
	esac
	[ -x "$T/tools/objtool/objtool" ] || { echo "no tools/objtool/objtool"; return 1; }
	echo "+ tools/objtool/objtool $args --dry-run fs/pipe.o" >>"$LF"
	# shellcheck disable=SC2086 # the arguments, one word each
	out=$(cd "$T" && timeout 600 tools/objtool/objtool $args --dry-run fs/pipe.o 2>&1) || rc=$?
	[ -z "$out" ] || echo "$out" >>"$LF"
	if [ $rc != 0 ] || [ -n "$out" ]; then
		echo "objtool on fs/pipe.o, exit $rc, said"
		echo "$out"
		return 1
	fi
	echo "objtool run here on fs/pipe.o (make runs it on vmlinux.o only): $args --dry-run"
}

title() {
	case $1 in
	tiny) echo "tinyconfig W=1 fs/pipe.o";;
	kasan) echo "defconfig+PREEMPT_RT+KASAN+KCOV+UBSAN_BOUNDS fs/pipe.o + objtool";;
	arm64) echo "arm64 LLVM=-$LLVM_VER defconfig fs/pipe.o";;
	esac
}

# not_clean WHAT [DETAILS]: the failure of robot()'s build: the last 30
# lines of its log, one line saying what and how long it took, the
# offending lines; returns 1
not_clean() {
	log "  last 30 lines of $LF:"
	tail -30 "$LF" >&2 || true
	log "  $title: NOT clean: $1 ($((SECONDS - start)) s; log $LF)"
	[ -z "${2:-}" ] || echo "$2" >&2
	return 1
}

# robot NAME: one build; non-zero if it is not clean
robot() {
	local name=$1 title key t0 t1 msg args w start=$SECONDS
	T=$BUILD/robot-$name
	LF=$T/.robot-build.log
	title=$(title "$name")
	key=$( { key_patched; recipe "$name"; } | sha)
	if [ "$(cat "$T/.robot-key" 2>/dev/null)" = "$key" ]; then
		log "  $title: clean (cached for this series and recipe, 0 s)"
		return 0
	fi
	log "  $title: building in $T"
	fresh_tree || { not_clean "unpacking or patching failed"; return 1; }
	t0=$SECONDS
	msg=$(configure "$name") || { not_clean "$msg"; return 1; }
	args=$(make_args "$name")
	# shellcheck disable=SC2086 # the arguments, one word each
	mk $args prepare || { not_clean "make prepare failed"; return 1; }
	t1=$(wc -l <"$LF")
	# shellcheck disable=SC2086
	mk $args fs/pipe.o || { not_clean "make fs/pipe.o failed"; return 1; }
	# the lines of the fs/pipe.o step: only fs/pipe.c compiles in it
	w=$(tail -n +"$((t1 + 1))" "$LF" | grep -E '(warning|error):' || true)
	[ -z "$w" ] || { not_clean "$(echo "$w" | wc -l) warning/error line(s) in the fs/pipe.o step:" "$w"; return 1; }
	if [ "$name" = kasan ]; then
		msg=$(objtool_check) ||
			{ not_clean "$(head -1 <<<"$msg")" "$(tail -n +2 <<<"$msg")"; return 1; }
		log "    $msg"
	fi
	echo "$key" >"$T/.robot-key"
	log "  $title: clean ($((SECONDS - start)) s: old tree removed $RM_S s, unpack+patch $((t0 - start - RM_S)) s, config+build $((SECONDS - t0)) s)"
}

log "robot builds of $SERIES_DIR/series (key_patched $(key_patched); $SRC_DIRNAME $SRC_VERSION; -j$JOBS): $builds"
rc=0
for b in $builds; do
	robot "$b" || rc=1
done
if [ $rc = 0 ]; then
	log "robot builds: all clean"
else
	log "robot builds: NOT all clean"
fi
exit $rc
