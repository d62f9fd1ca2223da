#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The userland of an arm64 guest: Debian's arm64 packages, unpacked.
#
# usage: tests/vm/arm64-root.sh
#
# An arm64 guest sees the host root, as every guest does (the repository,
# the cache, the results at their paths), but the host's programs are
# x86-64: run-in-vm.sh mounts this tree's usr/ over the guest's /usr, so
# bash, coreutils, awk and the libraries the cross build's tools link
# (make ARCH=arm64) are arm64 ones, and the initramfs takes its busybox.
# The packages are the host's own Debian release (the one the cross build
# linked against), fetched with the same private apt configuration as the
# kernels (debian_apt in lib.sh, architecture arm64): apt resolves their
# dependencies against an empty status, `apt-get install --download-only`
# fetches them, `dpkg-deb -x` unpacks them (no maintainer scripts: the
# links alternatives would make are made here), and /bin, /sbin and /lib
# are merged into usr/ (the host's root links them there). Cached in
# $PIPETRACE_CACHE/root-arm64-<key> (key: this script and the release).
# Prints the directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# the shell and tools the guest scripts and host suites run, busybox for
# the initramfs, and the libraries of the arm64 tools and test programs
PKGS="bash dash coreutils gawk grep sed findutils diffutils procps busybox-static
	libbpf1 libelf1 zlib1g libmicrohttpd12 libyaml-0-2 libgnutls30 libgvc6
	libcrypt1 liburing2"

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:?}")
out=$CACHE/root-arm64-$({ cat "$0"; echo "$suite"; } | sha)
if [ ! -f "$out/.pipetrace-unpacked" ]; then
	need_pkgs debian-archive-keyring
	debian_apt "$suite" arm64
	fetch() {
		timeout 900 apt-get "${APT[@]}" -o APT::Install-Recommends=false -y \
			install --download-only $PKGS >&2
	}
	rm -f "$apt_dir"/cache/archives/*.deb	# another key's
	log "fetching arm64 $PKGS ($suite)"
	# (lists older than the archive: a superseded upload is gone)
	fetch || { [ $updated = 0 ] && update && fetch; } ||
		die "apt-get install --download-only (arm64, $suite) failed"
	tmp=$(mktemp -d "$CACHE/.root-arm64.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	for deb in "$apt_dir"/cache/archives/*_arm64.deb "$apt_dir"/cache/archives/*_all.deb; do
		[ -f "$deb" ] || continue
		dpkg-deb -x "$deb" "$tmp" || die "dpkg-deb -x $deb failed"
	done
	for d in bin sbin lib; do
		[ -d "$tmp/$d" ] && [ ! -L "$tmp/$d" ] || continue
		mkdir -p "$tmp/usr/$d"
		cp -a "$tmp/$d/." "$tmp/usr/$d/"
		rm -rf "${tmp:?}/$d"
	done
	ln -sf gawk "$tmp/usr/bin/awk"
	[ -e "$tmp/usr/bin/sh" ] || ln -s dash "$tmp/usr/bin/sh"
	for f in bash env gawk busybox; do
		[ -x "$tmp/usr/bin/$f" ] || die "arm64 root: no usr/bin/$f"
	done
	[ -e "$tmp/usr/lib/ld-linux-aarch64.so.1" ] || die "arm64 root: no usr/lib/ld-linux-aarch64.so.1"
	touch "$tmp/.pipetrace-unpacked"
	rm -rf "$out"
	mv "$tmp" "$out"
	trap - EXIT
	log "arm64 userland in $out"
fi
echo "$out"
