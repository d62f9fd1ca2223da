#!/bin/sh
# vmlinux-h-debian.sh ARCH OUT: a CO-RE vmlinux.h for another machine
# (make vmlinux-h ARCH=arm64), from the BTF of the Debian kernel that
# the apt sources' linux-image-ARCH package depends on. The package is
# downloaded, not installed (dpkg --add-architecture ARCH first). Its
# arm64 Image is not ELF, so the .BTF section is found by its header:
# magic 0xeb9f, version 1, a 24-byte header, then types and strings.
set -e
[ $# = 2 ] || { echo "usage: $0 ARCH OUT" >&2; exit 2; }
arch=$1 out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
image=$(apt-cache depends "linux-image-$arch:$arch" | sed -n 's/^ *Depends: \(linux-image-[^:]*\).*/\1/p' | head -1)
[ -n "$image" ] || { echo "vmlinux-h: no linux-image-$arch:$arch in the apt sources" >&2; exit 1; }
(cd "$work" && apt-get download -q "$image-unsigned:$arch" >/dev/null 2>&1 ||
	apt-get download -q "$image:$arch" >/dev/null)
deb=$(ls "$work"/*.deb)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" --wildcards './boot/vmlinuz-*'
kernel=$(ls "$work"/boot/vmlinuz-*)
case $(file -b "$kernel") in
*gzip*) gzip -dc "$kernel" >"$work/Image" ;;
*) cp "$kernel" "$work/Image" ;;
esac
at=$(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$work/Image" | head -1 | cut -d: -f1)
[ -n "$at" ] || { echo "vmlinux-h: no BTF in $(basename "$kernel")" >&2; exit 1; }
# type_off type_len str_off str_len, after magic/version/flags/hdr_len
set -- $(od -An -tu4 -j $((at + 8)) -N16 "$work/Image")
dd if="$work/Image" of="$work/btf" bs=64K skip="$at" count=$((24 + $3 + $4)) \
	iflag=skip_bytes,count_bytes status=none
version=$(dpkg-deb -f "$deb" Package Version | paste -sd' ')
{
	echo "/* from the BTF of Debian's $version: scripts/vmlinux-h-debian.sh */"
	${BPFTOOL:-bpftool} btf dump file "$work/btf" format c
} >"$out"
