# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the pipetrace VM harness (sourced, not run).
#
# Everything built lives outside the repository, under $PIPETRACE_CACHE
# (default /var/cache/pipetrace):
#   src/<package>_<version>/       the kernel source package, unpacked
#                                  (Debian 14's linux-source-7.2)
#   build/base/                    unpatched build tree (in-tree build)
#   build/patched/                 copy of base + kernel-patch/series applied
#   kernels/<flavour>-<key>/       bzImage, vmlinux, .config, build.log
#   initramfs-<key>.cpio           busybox initramfs
#   bin/<checkout hash>/           workload binaries (ptwork), one dir per checkout
#   runs/                          per-run results dirs (shared over 9p)
#   apt/<suite>[-<arch>]/          private apt state for Debian's packages
#                                  (amd64, or the architecture named)
#   root-<arch>-<key>/             a guest userland of Debian's packages for
#                                  another architecture (arm64-root.sh)
#   debian/<package>_<version>/    one unpacked Debian image

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../.." && pwd)
PATCH_DIR=$REPO/kernel-patch
CACHE=${PIPETRACE_CACHE:-/var/cache/pipetrace}
# The kernel our test kernels and the series are built from: Debian
# 14's linux-source-7.2, fetched from forky with a private apt
# configuration (kernel_source), never from the machine's sources.
SRC_PKG=linux-source-7.2
SRC_SUITE=forky
SRC_DIRNAME=linux-source-7.2
JOBS=${PIPETRACE_JOBS:-$(nproc)}
# Bounded steps: nothing may hang CI.
BUILD_TIMEOUT=${PIPETRACE_BUILD_TIMEOUT:-3000}
BOOT_TIMEOUT=${PIPETRACE_BOOT_TIMEOUT:-900}

log() { printf '[vmtest %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Install Debian packages that are missing (apt-get update once on failure).
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	timeout 900 apt-get install -y --no-install-recommends "${missing[@]}" ||
		{ timeout 600 apt-get update && timeout 900 apt-get install -y --no-install-recommends "${missing[@]}"; } ||
		die "apt-get install ${missing[*]} failed"
}

sha() { sha256sum | cut -c1-16; }

# kernel_source: sets SRC_TARBALL and SRC_VERSION, downloading and
# unpacking $SRC_PKG (the suite's newest) into $CACHE/src once; a
# second call, or a cached copy, asks apt nothing.
kernel_source() {
	local d deb
	[ -z "${SRC_TARBALL:-}" ] || return 0
	d=$(ls -d "$CACHE/src/${SRC_PKG}_"* 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$d" ] || [ ! -f "$d/$SRC_DIRNAME.tar.xz" ]; then
		(
		debian_apt "$SRC_SUITE" amd64
		tmp=$(mktemp -d "$CACHE/src.tmp.XXXXXX")
		log "fetching $SRC_PKG from $SRC_SUITE (private apt configuration)"
		(cd "$tmp" && timeout 900 apt-get "${APT[@]}" download "$SRC_PKG" >&2) ||
			die "apt-get download $SRC_PKG ($SRC_SUITE) failed"
		deb=$(ls "$tmp"/"${SRC_PKG}"_*.deb)
		ver=$(dpkg-deb -f "$deb" Version)
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --strip-components=3 \
			"./usr/src/$SRC_DIRNAME.tar.xz"
		mkdir -p "$CACHE/src/${SRC_PKG}_$ver"
		mv "$tmp/$SRC_DIRNAME.tar.xz" "$CACHE/src/${SRC_PKG}_$ver/"
		rm -rf "$tmp"
		) || exit 1
		d=$(ls -d "$CACHE/src/${SRC_PKG}_"* | sort -V | tail -1)
	fi
	SRC_TARBALL=$d/$SRC_DIRNAME.tar.xz
	SRC_VERSION=${d##*_}
}

# Identity of the kernel source: package, version, tarball size.
src_id() {
	kernel_source
	printf '%s %s %s\n' "$SRC_PKG" "$SRC_VERSION" "$(stat -c %s "$SRC_TARBALL")"
}

# Key of the unpatched kernel: source + config fragment + build recipe.
key_unpatched() {
	{ src_id; cat "$PATCH_DIR/config"; echo "recipe 1 tinyconfig+fragment olddefconfig bzImage"; } | sha
}

# Key of the patched kernel: the unpatched key + series + every patch.
key_patched() {
	{
		key_unpatched
		cat "$PATCH_DIR/config-ab"
		cat "$PATCH_DIR/series"
		local p
		while read -r p; do
			case "$p" in ''|'#'*) continue;; esac
			cat "$PATCH_DIR/$p"
		done < "$PATCH_DIR/series"
	} | sha
}

# The tracepoints kernel: the series' first TRACEPOINT_PATCHES patches
# only (0001 the events, 0002 the wait events), to measure what the
# events cost compiled in and disabled, without the pool and the batch.
TRACEPOINT_PATCHES=2
key_tracepoints() {
	{ key_unpatched; SERIES_N=$TRACEPOINT_PATCHES series_patches | xargs cat; echo "recipe tracepoints 1"; } | sha
}

# Key of the debug kernel (patched + config-debug: KASAN, lockdep).
key_debug() {
	{ key_patched; cat "$PATCH_DIR/config-debug"; echo "recipe debug 1"; } | sha
}

# ptcount_plugin: the CPU counter (tests/vm/plugin/ptcount.c) built for
# the machine's qemu, cached by its source; prints its path
ptcount_plugin() {
	local src=$VM_DIR/plugin/ptcount.c so
	so=$CACHE/ptcount-$(cat "$src" "$VM_DIR/plugin/qemu_plugin_abi.h" | sha).so
	if [ ! -f "$so" ]; then
		gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$so.tmp" "$src" ||
			die "cannot build $src"
		mv "$so.tmp" "$so"
	fi
	echo "$so"
}

# ptcount_sites VMLINUX: the counter's ,lock=SIDE:ADDR and ,unlock=ADDR
# arguments: the instruction after each call to mutex_lock() in
# anon_pipe_read() (r), anon_pipe_write() and the series'
# anon_pipe_prefill_lock() (w), and after each call to the latter (it
# may tail-call mutex_lock(): the mutex is taken when it returns), and
# each call to mutex_unlock() in them (nokaslr: the running addresses)
ptcount_sites() {
	local f side out=
	for f in anon_pipe_read anon_pipe_write anon_pipe_prefill_lock; do
		side=w
		[ $f = anon_pipe_read ] && side=r
		out+=$(objdump -d --no-show-raw-insn --disassemble=$f "$1" | awk -v s=$side '
			/^ *[0-9a-f]+:/ { a = $1; sub(":", "", a)
				if (next_is_lock) { printf ",lock=%s:%s", s, a; next_is_lock = 0 } }
			/call.*<(mutex_lock|anon_pipe_prefill_lock)>/ { next_is_lock = 1 }
			/call.*<mutex_unlock>/ { printf ",unlock=%s", a }')
	done
	case "$out" in *lock=r:*) ;; *) out=;; esac
	case "$out" in *lock=w:*) ;; *) out=;; esac
	case "$out" in *unlock=*) ;; *) out=;; esac
	[ -n "$out" ] || die "no mutex_lock()/mutex_unlock() calls found in anon_pipe_read/write of $1"
	echo "$out"
}

# ptcount_merge RESULTS: the CPU counter's figures (ptcount.txt, one line
# per counted run) paired in order with the runs guest-budget.sh names in
# counted.txt, appended to budget.txt as "name config cpu_METRIC value";
# fails if the two do not pair up
ptcount_merge() {
	local r=$1
	[ -f "$r/ptcount.txt" ] && [ -f "$r/counted.txt" ] ||
		{ log "no CPU counter figures in $r"; return 1; }
	[ "$(wc -l < "$r/ptcount.txt")" = "$(wc -l < "$r/counted.txt")" ] ||
		{ log "CPU counter: $(wc -l < "$r/ptcount.txt") counts for $(wc -l < "$r/counted.txt") counted runs in $r"; return 1; }
	paste -d' ' "$r/counted.txt" "$r/ptcount.txt" | awk '{
		for (i = 6; i < NF; i += 2) {
			m = $i
			sub(/_insns$/, "", m)
			print $1, $2, "cpu_" m, $(i + 1)
		}
	}' >> "$r/budget.txt"
}

kernel_dir() { # flavour -> cache dir of that kernel
	case "$1" in
	unpatched) echo "$CACHE/kernels/unpatched-$(key_unpatched)";;
	patched) echo "$CACHE/kernels/patched-$(key_patched)";;
	debug) echo "$CACHE/kernels/debug-$(key_debug)";;
	tracepoints) echo "$CACHE/kernels/tracepoints-$(key_tracepoints)";;
	*) die "unknown kernel flavour '$1' (patched|unpatched|debug|tracepoints)";;
	esac
}

# struct_size VMLINUX STRUCT: the struct's size in bytes (pahole, from
# the kernel's DWARF), empty if pahole cannot tell.
struct_size() {
	timeout 300 pahole -C "$2" "$1" 2>/dev/null | sed -n 's|^[[:space:]]*/\* size: \([0-9]*\),.*|\1|p'
}

# The series' patches, in order; the first $SERIES_N only if it is set.
series_patches() {
	local p n=0
	while read -r p; do
		case "$p" in ''|'#'*) continue;; esac
		[ -z "${SERIES_N:-}" ] || [ $n -lt "$SERIES_N" ] || break
		n=$((n + 1))
		echo "$PATCH_DIR/$p"
	done < "$PATCH_DIR/series"
}

# The kernels the harness boots: one row each in tests/vm/kernels (its
# header says what the columns mean).
KERNELS=$VM_DIR/kernels
KERNEL_COLUMNS="name from package best syscall via suites timeout runs vars"

# kernel_field NAME COLUMN: that column of NAME's row ("-" for none; vars:
# the rest of the row); fails, saying so, if the table has no such row
kernel_field() {
	awk -v n="$1" -v f="$2" -v cols="$KERNEL_COLUMNS" -v t="$KERNELS" '
		BEGIN {
			nc = split(cols, c, " ")
			for (i = 1; i <= nc; i++) col[c[i]] = i
			if (!(f in col)) { print "kernel_field: no column " f > "/dev/stderr"; bad = 1; exit 2 }
		}
		/^[[:space:]]*(#|$)/ || $1 != n { next }
		NF < nc { print t ": row " n " has " NF " of " nc " columns" > "/dev/stderr"; bad = 1; exit 2 }
		{
			s = $col[f]
			if (f == "vars") for (i = nc + 1; i <= NF; i++) s = s " " $i
			print s; found = 1; exit
		}
		END {
			if (!found && !bad) print "kernel " n " is not in " t > "/dev/stderr"
			exit !found
		}' "$KERNELS"
}

# kernel_names [STEP]: the table's names, in its order (only the rows
# whose runs column lists STEP, if given)
kernel_names() {
	awk -v step="${1:-}" -v cols="$KERNEL_COLUMNS" '
		BEGIN { nc = split(cols, c, " "); for (i = 1; i <= nc; i++) if (c[i] == "runs") r = i }
		/^[[:space:]]*(#|$)/ { next }
		step == "" || index("," $r ",", "," step ",") { print $1 }' "$KERNELS"
}

# kernel_arch NAME: the Debian architecture of that row's kernel: arm64
# for a name ending in -arm64 (Debian's own images), else amd64
kernel_arch() {
	case "$1" in
	*-arm64) echo arm64;;
	*) echo amd64;;
	esac
}

# The archive the machine's apt sources name (deb822 or one-line), its
# security archive aside; PIPETRACE_DEBIAN_MIRROR overrides.
debian_mirror() {
	local u
	u=$({
		grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | cut -d: -f2-
		grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
			sed 's/\[[^]]*\]//' | awk '{ print $2 }'
	} | tr ' ' '\n' | grep -v -e '^$' -e security | grep -m1 '/debian/\{0,1\}$' || true)
	echo "${PIPETRACE_DEBIAN_MIRROR:-${u:-http://deb.debian.org/debian}}"
}

# debian_apt SUITE ARCH: a private apt configuration for that suite and
# architecture of the machine's archive, in apt_dir=$CACHE/apt/SUITE
# (SUITE-ARCH for another than amd64): its own sources list, lists,
# cache and an empty dpkg status, so the machine's sources and state are
# never touched and nothing counts as installed. Sets APT (apt-get's
# options), holds the directory's lock (fd 9: concurrent VMs share it),
# refreshes the lists once a day (update: now; updated=1 once it ran).
debian_apt() {
	apt_suite=$1
	apt_dir=$CACHE/apt/$1
	[ "$2" = amd64 ] || apt_dir=$apt_dir-$2
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	exec 9>"$apt_dir/lock"
	flock 9
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) $1 main" \
		>"$apt_dir/sources.list"
	: >"$apt_dir/status"
	# apt's sandbox user cannot write into the cache: fetch as root
	APT=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
		-o Dir::State::status="$apt_dir/status" -o APT::Sandbox::User=root
		-o APT::Architecture="$2" -o APT::Architectures="$2")
	updated=0
	[ -n "$(find "$apt_dir/updated" -mmin -1440 2>/dev/null)" ] || update
}
update() {
	log "apt-get update ($apt_suite, private lists in $apt_dir)"
	timeout 600 apt-get "${APT[@]}" update >&2 || die "apt-get update of $apt_suite failed"
	touch "$apt_dir/updated"
	updated=1
}
