#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a cached test kernel under qemu (TCG) and run one host script in it.
#
# usage: tests/vm/run-in-vm.sh [options] SCRIPT [ARGS...]
#   --kernel NAME               a row of tests/vm/kernels (default: patched;
#                               debug = patched with KASAN + lockdep); a
#                               self-built one is built and cached first if
#                               missing (tests/vm/build-kernel.sh); Debian's
#                               images are fetched (tests/vm/debian-kernel.sh),
#                               the modules virtio_pci and virtiofs need in
#                               the initramfs, shares over virtiofs (Debian's
#                               cloud images have no 9p); an arm64 row
#                               (name ending in -arm64) boots under
#                               qemu-system-aarch64 (virt), its /usr the
#                               arm64 userland of arm64-root.sh
#   --bzimage PATH              boot this bzImage instead (debugging)
#   --results DIR               results dir shared read-write with the guest
#                               at the same path (default: a new dir under
#                               $PIPETRACE_CACHE/runs)
#   --log FILE                  console log (default: RESULTS/console.log)
#   --timeout SEC               whole-VM wall-clock limit (default 900)
#   --mem MB / --smp N          guest size (default 1024 / 2)
#   --icount                    one vCPU, single-threaded TCG, -icount
#                               shift=0,align=off,sleep=off: 1 ns of guest
#                               time = 1 instruction (cost figures); for a
#                               self-built kernel also the CPU counter
#                               (plugin/ptcount.c) into RESULTS/ptcount.txt
#   --append ARGS               extra kernel command line
#   --allow-splats              do not fail on WARN/BUG/lockdep/KASAN output
#
# SCRIPT is a host path; the guest sees the whole host root read-only over
# virtio-9p, so it runs in the guest as it would on the host (chrooted in
# the host root, cwd = the caller's cwd, /tmp a fresh tmpfs). Environment
# in the guest: PIPETRACE_IN_VM=1, PIPETRACE_KERNEL=NAME (--kernel),
# PIPETRACE_RESULTS=<results dir> (writable; shows up on the host).
#
# Exit status: SCRIPT's exit status; 1 if it passed but the console shows
# a kernel splat; 124 on timeout; 125 if the VM did not report a status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=patched bzimage= results= logf= tmo=$BOOT_TIMEOUT mem=1024 smp=2
extra= allow_splats=0 icount=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) flavour=$2; shift 2;;
	--bzimage) bzimage=$2; shift 2;;
	--results) results=$2; shift 2;;
	--log) logf=$2; shift 2;;
	--timeout) tmo=$2; shift 2;;
	--mem) mem=$2; shift 2;;
	--smp) smp=$2; shift 2;;
	--icount) icount=1; shift;;
	--append) extra=$2; shift 2;;
	--allow-splats) allow_splats=1; shift;;
	--) shift; break;;
	-*) die "unknown option $1";;
	*) break;;
	esac
done
[ $# -ge 1 ] || die "usage: $0 [--kernel NAME (tests/vm/kernels)] SCRIPT [ARGS...]"
script=$(readlink -f "$1"); shift
[ -f "$script" ] || die "no such script: $script"

kdir= fs=9p busybox=/bin/busybox usr=
from=$(kernel_field "$flavour" from) || exit 1
# the machine qemu emulates for the kernel's architecture
case $(kernel_arch "$flavour") in
arm64)
	[ "$from" != self ] || die "$flavour: only Debian's images are arm64 ones"
	need_pkgs qemu-system-arm cpio
	usr=$("$VM_DIR/arm64-root.sh")/usr
	busybox=$usr/bin/busybox
	# cortex-a57: AArch32 at EL0 (the arm32 caller), and TCG emulates
	# it faster than max (no pointer authentication, no SVE)
	qemu=(qemu-system-aarch64 -cpu cortex-a57) machine=virt console=ttyAMA0
	;;
*)
	need_pkgs qemu-system-x86 busybox-static cpio
	qemu=(qemu-system-x86_64 -cpu max) machine=q35 console=ttyS0
	;;
esac
if [ "$from" != self ]; then
	kdir=$("$VM_DIR/debian-kernel.sh" "$flavour")
	[ -n "$bzimage" ] || bzimage=$kdir/vmlinuz
	fs=virtiofs
elif [ -z "$bzimage" ]; then
	kd=$(kernel_dir "$flavour")
	[ -f "$kd/bzImage" ] || "$VM_DIR/build-kernel.sh" "$flavour" >&2
	bzimage=$kd/bzImage
fi
[ -f "$bzimage" ] || die "no bzImage: $bzimage"

# the modules a modular kernel needs to reach its shares, in insmod order
# (none where they are built in: modprobe says "builtin")
share_modules() { # kernel tree
	local kver m
	kver=$(ls "$1/lib/modules")
	for m in virtio_pci virtiofs; do
		modprobe -d "$1" -S "$kver" --show-depends "$m" ||
			die "$m: not in $1/lib/modules/$kver"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}
# copy_module SRC DEST: uncompressed (busybox's insmod takes plain .ko)
copy_module() {
	case "$1" in
	*.ko.xz) xz -dc "$1" >"$2";;
	*.ko.zst) zstd -qdc "$1" >"$2";;
	*.ko.gz) gzip -dc "$1" >"$2";;
	*) cp "$1" "$2";;
	esac
}

# initramfs: busybox + guest-init.sh (+ the kernel's share modules), cached
# by content
ikey=$({ cat "$VM_DIR/guest-init.sh"; stat -c %s "$busybox"; echo "$kdir modules 2"; } | sha)
initrd=$CACHE/initramfs-$ikey.cpio
if [ ! -f "$initrd" ]; then
	stage=$(mktemp -d "$CACHE/initramfs.XXXXXX")
	mkdir -p "$stage"/{bin,sbin,dev,proc,sys,newroot,tmp}
	cp "$busybox" "$stage/bin/busybox"
	cp "$VM_DIR/guest-init.sh" "$stage/init"
	chmod 755 "$stage/init"
	mknod -m 600 "$stage/dev/console" c 5 1
	mknod -m 666 "$stage/dev/null" c 1 3
	if [ -n "$kdir" ]; then
		mods=$(share_modules "$kdir")
		for m in $mods; do
			m=${m#"$kdir"}
			m=${m#"${m%%[!/]*}"}
			mkdir -p "$stage/$(dirname "$m")"
			copy_module "$kdir/$m" "$stage/${m%.ko*}.ko"
			echo "/${m%.ko*}.ko"
		done > "$stage/modules"
	fi
	(cd "$stage" && find . | cpio -o -H newc --quiet) > "$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$stage"
fi

mkdir -p "$CACHE/runs"
if [ -z "$results" ]; then
	results=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$flavour.XXXX")
fi
mkdir -p "$results"
results=$(readlink -f "$results")
case "$results" in *[[:space:]]*) die "results path must not contain spaces";; esac
logf=${logf:-$results/console.log}
rm -f "$results/exit-status"


# shares: tag:host dir:ro|rw (the guest mounts them, see guest-init.sh)
shares=(hostroot:/:ro "results:$results:rw")
# another architecture's programs over the host's (guest-init.sh)
if [ -n "$usr" ]; then
	shares+=("usr:$usr:ro")
	extra="$extra pipetrace.usr=1"
fi
# A caller working under /tmp (a CI clone, say) would find its cwd gone
# in the guest: share it, read-only, at the same path.
cwd_shared=0
case "$PWD" in
/tmp/*)
	case "$PWD" in *[[:space:]]*) die "working directory must not contain spaces";; esac
	shares+=("cwd:$PWD:ro")
	cwd_shared=1
	extra="$extra pipetrace.cwd=$PWD"
	;;
esac
extra="$extra pipetrace.fs=$fs"

# The guest's /tmp is its own tmpfs: a script under the host's /tmp and
# outside the shared working directory runs as a copy in the results dir.
script=$(readlink -f "$script")
visible=1
case "$script" in /tmp/*) visible=0;; esac
if [ $cwd_shared = 1 ]; then
	case "$script" in "$PWD"/*) visible=1;; esac
fi
if [ $visible = 0 ]; then
	cp "$script" "$results/"
	script=$results/$(basename "$script")
fi

# the job the guest runs (chrooted in the host root)
{
	echo "# generated by run-in-vm.sh"
	printf 'export PIPETRACE_KERNEL=%q\n' "$flavour"
	printf 'cd %q 2>/dev/null || cd /tmp\n' "$PWD"
	printf 'if [ -x %q ]; then exec' "$script"
	printf ' %q' "$script" "$@"
	printf '; else exec /bin/sh'
	printf ' %q' "$script" "$@"
	printf '; fi\n'
} > "$results/job.sh"

accel=(-accel tcg,thread=multi -smp "$smp")
if [ $icount = 1 ]; then
	accel=(-accel tcg,thread=single -smp 1 -icount shift=0,align=off,sleep=off)
	if [ "$from" = self ] && [ -f "$(dirname "$bzimage")/vmlinux" ]; then
		accel+=(-plugin "$(ptcount_plugin),out=$results/ptcount.txt$(ptcount_sites "$(dirname "$bzimage")/vmlinux")")
	fi
fi

splat_re='WARNING:|BUG:|kernel BUG|Oops|general protection fault|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|lockdep|KASAN|UBSAN|INFO: task .* blocked|sleeping function called from invalid context|Call Trace:'

# A splat while the kernel itself boots, before the job (and any task:
# every report in PID 0, swapper) and none after it started: seen in the
# KASAN kernel about once in 16 boots (an interrupt during identify_cpu(),
# rcu_is_watching() "wild-memory-access"; it also switches lockdep off),
# so the job's run says nothing: boot again, at most twice.
boot_splat_only() {
	awk -v re="$splat_re" '
		/^PIPETRACE-VM-START/ { started = 1; next }
		$0 ~ re { if (started) late = 1; else early = 1 }
		/ Comm: / && !started && !/ PID: 0 Comm: swapper/ { task = 1 }
		END { exit !(early && !late && !task) }' "$1"
}

# qemu's arguments for the shares in qshare; over virtiofs, starts one
# virtiofsd per share (each serves one VM and exits with it; the guest
# mounts read-only what is marked ro, virtiofsd itself has no such mode)
vfsd_pids=()
share_args() {
	local s tag dir mode ro
	qshare=(-machine $machine)
	if [ $fs = virtiofs ]; then
		qshare=(-object "memory-backend-memfd,id=mem,size=${mem}M,share=on"
			-machine $machine,memory-backend=mem)
	fi
	for s in "${shares[@]}"; do
		IFS=: read -r tag dir mode <<<"$s"
		if [ $fs = 9p ]; then
			ro=; [ "$mode" = rw ] || ro=,readonly=on
			qshare+=(-virtfs "local,path=$dir,mount_tag=$tag,security_model=none,multidevs=remap$ro")
			continue
		fi
		rm -f "$sockdir/$tag"
		"$VIRTIOFSD" --socket-path="$sockdir/$tag" -o source="$dir" \
			-o cache=auto -o sandbox=chroot >>"$results/virtiofsd.log" 2>&1 &
		vfsd_pids+=($!)
		for _ in $(seq 50); do [ -S "$sockdir/$tag" ] && break; sleep 0.1; done
		[ -S "$sockdir/$tag" ] || die "virtiofsd for $dir did not start ($results/virtiofsd.log)"
		qshare+=(-chardev "socket,id=$tag,path=$sockdir/$tag"
			-device "vhost-user-fs-pci,chardev=$tag,tag=$tag")
	done
}
stop_virtiofsd() {
	[ ${#vfsd_pids[@]} -gt 0 ] || return 0
	kill "${vfsd_pids[@]}" 2>/dev/null || true
	wait "${vfsd_pids[@]}" 2>/dev/null || true
	vfsd_pids=()
}
if [ $fs = virtiofs ]; then
	VIRTIOFSD=
	for v in /usr/lib/qemu/virtiofsd /usr/libexec/virtiofsd; do
		[ -x "$v" ] && VIRTIOFSD=$v && break
	done
	[ -n "$VIRTIOFSD" ] || need_pkgs virtiofsd
	VIRTIOFSD=${VIRTIOFSD:-/usr/libexec/virtiofsd}
	sockdir=$(mktemp -d "$CACHE/runs/virtiofsd.XXXXXX")
	trap 'stop_virtiofsd; rm -rf "$sockdir"' EXIT
fi

for attempt in 1 2 3; do
	log "boot $flavour kernel ($bzimage), script $script, results $results"
	share_args
	t0=$(date +%s)
	set +e
	timeout -k 10 "$tmo" "${qemu[@]}" \
		"${qshare[@]}" "${accel[@]}" -m "$mem" \
		-nographic -no-reboot -nodefaults -serial stdio \
		-kernel "$bzimage" -initrd "$initrd" \
		-append "console=$console panic=-1 oops=panic loglevel=5 nokaslr pipetrace.results=$results $extra" \
		</dev/null >"$logf" 2>&1
	qrc=$?
	set -e
	stop_virtiofsd
	t1=$(date +%s)
	log "VM ran $((t1 - t0)) s (qemu status $qrc), console log: $logf"
	[ $attempt -lt 3 ] && boot_splat_only "$logf" || break
	cp "$logf" "$logf.boot-splat-$attempt"
	log "kernel splat while booting, before the job ($logf.boot-splat-$attempt): booting again"
	grep -Em3 "$splat_re" "$logf" >&2
done

rc=$(sed -n 's/^PIPETRACE-VM-EXIT=\([0-9]*\).*/\1/p' "$logf" | tail -1 | tr -d '\r')
if [ -z "$rc" ]; then
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		log "TIMEOUT after $tmo s"; rc=124
	else
		log "VM gave no exit status"; rc=125
	fi
	tail -40 "$logf" >&2
fi

if grep -Eq "$splat_re" "$logf"; then
	log "kernel splat in console log:"
	grep -En -B2 -A20 "$splat_re" "$logf" | head -80 >&2
	if [ "$allow_splats" = 0 ] && [ "$rc" = 0 ]; then
		rc=1
	fi
fi
echo "$rc" > "$results/vm-status"
exit "$rc"
