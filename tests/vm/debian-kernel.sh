#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (or find cached) one of Debian 12's own kernel images, unbuilt.
#
# usage: tests/vm/debian-kernel.sh cloud|rt
#
# Picks the newest linux-image-6.1.0-N-FLAVOUR-amd64-unsigned apt knows,
# `apt-get download`s it and unpacks it with `dpkg-deb -x` into
# $PIPETRACE_CACHE/debian/<package>_<version>/ (boot/vmlinuz-*,
# boot/config-*, lib/modules/*, with modules.dep from depmod). A package
# apt cannot fetch is an error, never a skip. Prints the directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
case "$flavour" in
cloud|rt) ;;
*) die "usage: $0 cloud|rt";;
esac
need_pkgs kmod

newest() {
	apt-cache search --names-only "^linux-image-6\.1\.0-[0-9]+-$flavour-amd64-unsigned\$" |
		cut -d' ' -f1 | sort -V | tail -1
}
pkg=$(newest)
if [ -z "$pkg" ]; then
	timeout 600 apt-get update >&2 || die "apt-get update failed"
	pkg=$(newest)
fi
[ -n "$pkg" ] || die "apt knows no linux-image-6.1.0-*-$flavour-amd64-unsigned (Debian 12 in sources.list?)"
ver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$pkg has no candidate version"

out=$CACHE/debian/${pkg}_$ver
if [ ! -f "$out/.pipetrace-unpacked" ]; then
	mkdir -p "$CACHE/debian"
	tmp=$(mktemp -d "$CACHE/debian/.tmp.XXXXXX")
	# apt's sandbox user cannot write into the cache: download as root
	(cd "$tmp" && timeout 900 apt-get -o APT::Sandbox::User=root download "$pkg=$ver" >&2) ||
		{ rm -rf "$tmp"; die "apt-get download $pkg=$ver failed"; }
	mkdir "$tmp/root"
	dpkg-deb -x "$tmp"/"${pkg}"_*.deb "$tmp/root" || { rm -rf "$tmp"; die "dpkg-deb -x failed"; }
	mv "$tmp"/"${pkg}"_*.deb "$tmp/root/"
	kver=$(ls "$tmp/root/lib/modules")
	depmod -b "$tmp/root" "$kver" || { rm -rf "$tmp"; die "depmod $kver failed"; }
	touch "$tmp/root/.pipetrace-unpacked"
	rm -rf "$out"
	mv "$tmp/root" "$out"
	rmdir "$tmp"
	log "$pkg $ver unpacked in $out"
fi
echo "$out"
