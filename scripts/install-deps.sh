#!/bin/sh
# Installs what building and testing pipetrace needs, with apt, only when
# something is missing. Debian 12 package names.
set -e
need=""
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
for pkg in make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
	   libncurses-dev util-linux tmux liburing-dev gcc-multilib libgnutls28-dev \
	   libmicrohttpd-dev libyaml-dev libcrypt-dev prometheus prometheus-node-exporter \
	   python3-prometheus-client curl jq dpkg-dev openssl apache2-utils lintian systemd \
	   fakeroot libclang-rt-14-dev bpftrace acl libgraphviz-dev graphviz chromium pv; do
	have "$pkg" || need="$need $pkg"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$need (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$need"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q $need >/dev/null 2>&1 ||
	{ apt-get update -q >/dev/null && apt-get install -y -q $need >/dev/null; }
