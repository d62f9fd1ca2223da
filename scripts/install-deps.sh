#!/bin/sh
# Installs what building and testing pipetrace needs, with apt, only when
# something is missing. Debian 12 package names. With an argument (arm64),
# what make ARCH=arm64 needs to cross-build on this machine, from the
# same apt sources with that architecture added (dpkg multiarch).
set -e
need=""
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
case ${1:-} in
"")
	pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
	   libncurses-dev util-linux tmux liburing-dev gcc-multilib libgnutls28-dev
	   libmicrohttpd-dev libyaml-dev libcrypt-dev prometheus prometheus-node-exporter
	   python3-prometheus-client curl jq dpkg-dev openssl apache2-utils lintian systemd
	   fakeroot libclang-rt-14-dev bpftrace acl libgraphviz-dev graphviz chromium pv" ;;
arm64)
	# clang cross-compiles (gcc-aarch64-linux-gnu conflicts with
	# gcc-multilib): binutils and libgcc for the target, its libraries
	# as :arm64; libgvc6 is fetched by the build (cross.mk); the arm32
	# callers of the VM tests link Debian's armhf cross libc
	pkgs="make clang bpftool dpkg-dev lintian file libgraphviz-dev binutils-aarch64-linux-gnu
	   libgcc-12-dev-arm64-cross libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64
	   zlib1g-dev:arm64 libncurses-dev:arm64 liburing-dev:arm64 libgnutls28-dev:arm64
	   libmicrohttpd-dev:arm64 libyaml-dev:arm64 libcrypt-dev:arm64 libcgraph6:arm64
	   libcdt5:arm64 binutils-arm-linux-gnueabihf libc6-dev-armhf-cross
	   libgcc-12-dev-armhf-cross" ;;
*)
	echo "install-deps: no cross build for $1 (arm64)" >&2
	exit 2 ;;
esac
for pkg in $pkgs; do
	have "$pkg" || need="$need $pkg"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$need (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$need"
export DEBIAN_FRONTEND=noninteractive
if [ -n "${1:-}" ] && ! dpkg --print-foreign-architectures | grep -qx "$1"; then
	dpkg --add-architecture "$1"
	apt-get update -q >/dev/null
fi
apt-get install -y -q $need >/dev/null 2>&1 ||
	{ apt-get update -q >/dev/null && apt-get install -y -q $need >/dev/null; }
