#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the pipetrace test initramfs (busybox-static only).
#
# Mounts the host root (virtio-9p or virtiofs, pipetrace.fs=, tag
# "hostroot", read-only) at /newroot,
# gives it fresh proc, sysfs, devtmpfs, tracefs, bpffs, a tmpfs /tmp and
# /run, mounts the results share (tag "results", read-write) at the same
# path it has on the host (pipetrace.results= on the kernel command line),
# runs $results/job.sh chrooted in the host root, prints its exit status
# as a marker line on the console and powers the VM off. A modular kernel's
# initramfs lists the modules its shares need in /modules (insmod order).
# Another architecture's guest (pipetrace.usr=1) mounts the share "usr"
# over the host root's /usr: its programs, where the host's are x86-64
# (the host root links /bin, /sbin and /lib into /usr).
/bin/busybox mkdir -p /proc /sys /dev /newroot /bin /sbin
/bin/busybox --install -s /bin
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

res=
cwd=
fs=9p
usr=
for a in $(cat /proc/cmdline); do
	case "$a" in
	pipetrace.results=*) res=${a#pipetrace.results=} ;;
	pipetrace.cwd=*) cwd=${a#pipetrace.cwd=} ;;
	pipetrace.fs=*) fs=${a#pipetrace.fs=} ;;
	pipetrace.usr=*) usr=${a#pipetrace.usr=} ;;
	esac
done

finish() {
	echo "PIPETRACE-VM-EXIT=$1"
	sync
	umount "/newroot$res" 2>/dev/null
	reboot -f
	sleep 5
	echo o > /proc/sysrq-trigger
}

# share TAG DIR [ro]
share() {
	if [ "$fs" = virtiofs ]; then
		mount -t virtiofs ${3:+-o $3} "$1" "$2"
	else
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288${3:+,$3,cache=loose} "$1" "$2"
	fi
}

if [ -f /modules ]; then
	while read -r mod; do
		insmod "$mod" || echo "PIPETRACE-VM-ERROR: insmod $mod"
	done < /modules
fi
if ! share hostroot /newroot ro; then
	echo "PIPETRACE-VM-ERROR: cannot mount host root"
	finish 125
fi
if [ -n "$usr" ] && ! share usr /newroot/usr ro; then
	echo "PIPETRACE-VM-ERROR: cannot mount usr"
	finish 125
fi
m() { mount "$@" || { echo "PIPETRACE-VM-ERROR: mount $*"; finish 125; }; }
m -t proc proc /newroot/proc
m -t sysfs sysfs /newroot/sys
m -t devtmpfs devtmpfs /newroot/dev
m -t tmpfs -o mode=1777 tmpfs /newroot/tmp
m -t tmpfs -o mode=755 tmpfs /newroot/run
m -t tracefs tracefs /newroot/sys/kernel/tracing
# debugfs where the kernel has it, as systemd mounts it: pipestat reads a
# PREEMPT_DYNAMIC kernel's preemption mode there (sched/preempt)
mount -t debugfs debugfs /newroot/sys/kernel/debug 2>/dev/null
m -t bpf bpf /newroot/sys/fs/bpf
[ -d /newroot/dev/shm ] || mkdir -p /newroot/dev/shm
m -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
[ -n "$res" ] || { echo "PIPETRACE-VM-ERROR: no pipetrace.results="; finish 125; }
share results "/newroot$res" || { echo "PIPETRACE-VM-ERROR: mount results"; finish 125; }
# the caller's working directory under /tmp, hidden by the tmpfs above
if [ -n "$cwd" ]; then
	mkdir -p "/newroot$cwd"
	share cwd "/newroot$cwd" ro || { echo "PIPETRACE-VM-ERROR: mount cwd"; finish 125; }
fi

echo "PIPETRACE-VM-START"
chroot /newroot /usr/bin/env -i \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/tmp TERM=dumb LANG=C.UTF-8 PIPETRACE_IN_VM=1 \
	PIPETRACE_RESULTS="$res" \
	/bin/sh "$res/job.sh" </dev/console >/dev/console 2>&1
rc=$?
echo "$rc" > "/newroot$res/exit-status"
finish "$rc"
