#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (or find cached) one of Debian's own kernel images, unbuilt.
#
# usage: tests/vm/debian-kernel.sh NAME
#
# NAME is a row of tests/vm/kernels whose from column names a Debian suite
# and whose package column the image ("*" standing for a number). With a
# private apt configuration for that suite and the kernel's architecture
# (debian_apt in lib.sh: the machine's sources and state are never
# touched; lists refreshed once a day), picks the newest matching
# package (sort -V), `apt-get download`s it with every linux-* package it
# depends on at the same version (Debian 14's image is a metapackage over
# linux-binary, linux-modules and linux-base), unpacks them with
# `dpkg-deb -x` into $PIPETRACE_CACHE/debian/<package>_<version>/, runs
# depmod on the tree, and links vmlinuz and config at its top (the image
# and config sit in boot/ up to Debian 13, in usr/lib/modules/<kver>/ in
# 14). A package apt cannot fetch is an error, never a skip. Prints the
# directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:-}
[ -n "$name" ] || die "usage: $0 NAME (one of Debian's images in $KERNELS)"
suite=$(kernel_field "$name" from) || exit 1
pattern=$(kernel_field "$name" package)
[ "$suite" != self ] && [ "$pattern" != - ] ||
	die "$name: not one of Debian's images in $KERNELS"
need_pkgs kmod debian-archive-keyring

debian_apt "$suite" "$(kernel_arch "$name")"

# resolve: pkg, ver and deps (the linux-* packages it depends on at ver)
re=$(printf '%s' "$pattern" | sed 's/[].+^$[]/\\&/g; s/\*/[0-9]+/g')
resolve() {
	pkg=$(apt-cache "${APT[@]}" search --names-only "^$re\$" | cut -d' ' -f1 | sort -V | tail -1)
	[ -n "$pkg" ] || return 1
	ver=$(apt-cache "${APT[@]}" policy "$pkg" | sed -n 's/^ *Candidate: //p')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$pkg has no candidate version in $suite"
	deps=$(apt-cache "${APT[@]}" show "$pkg=$ver" | sed -n 's/^Depends: //p' | head -1 |
		awk -v v="$ver" -F', *' '{
			for (i = 1; i <= NF; i++)
				if ($i ~ /^linux-[^ |]+ \(= [^)]+\)$/ && $i == substr($i, 1, index($i, " ")) "(= " v ")")
					print substr($i, 1, index($i, " ") - 1)
		}')
}
if ! resolve; then
	[ $updated = 1 ] || update
	resolve || die "no package in $suite matches $pattern ($apt_dir/sources.list)"
fi

out=$CACHE/debian/${pkg}_$ver
if [ ! -f "$out/.pipetrace-unpacked" ] || [ ! -e "$out/vmlinuz" ]; then
	mkdir -p "$CACHE/debian"
	tmp=$(mktemp -d "$CACHE/debian/.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	download() {
		local d want=("$pkg=$ver")
		for d in $deps; do want+=("$d=$ver"); done
		log "fetching ${want[*]} ($suite)"
		rm -f "$tmp"/*.deb
		(cd "$tmp" && timeout 900 apt-get "${APT[@]}" download "${want[@]}" >&2)
	}
	if ! download; then
		# lists older than the archive (a superseded upload is gone)
		[ $updated = 0 ] || die "apt-get download $pkg=$ver $deps failed"
		update
		resolve || die "no package in $suite matches $pattern"
		out=$CACHE/debian/${pkg}_$ver
		download || die "apt-get download $pkg=$ver $deps failed"
	fi
	mkdir "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root" || die "dpkg-deb -x $deb failed"
		mv "$deb" "$tmp/root/"
	done
	# merged /usr (Debian 14): the modules in usr/lib/modules, where
	# depmod -b and modprobe -d look in lib/modules
	[ -e "$tmp/root/lib" ] || ln -s usr/lib "$tmp/root/lib"
	kver=$(ls "$tmp/root/lib/modules")
	[ "$(echo "$kver" | wc -l)" = 1 ] || die "$pkg: not one kernel in lib/modules: $kver"
	for f in vmlinuz config; do
		for p in boot/$f-$kver lib/modules/$kver/$f; do
			[ -f "$tmp/root/$p" ] && ln -s "$p" "$tmp/root/$f" && break
		done
		[ -e "$tmp/root/$f" ] || die "$pkg: no $f (boot/$f-$kver, lib/modules/$kver/$f)"
	done
	depmod -b "$tmp/root" "$kver" || die "depmod $kver failed"
	touch "$tmp/root/.pipetrace-unpacked"
	rm -rf "$out"
	mv "$tmp/root" "$out"
	log "$pkg $ver unpacked in $out"
fi
echo "$out"
