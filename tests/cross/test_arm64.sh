#!/usr/bin/env bash
# make cross-check: make ARCH=arm64 and make deb ARCH=arm64 on this
# machine (make deps ARCH=arm64 first), and what they made: aarch64
# tools, BPF objects built for arm64 (its pt_regs, its system call
# numbers) and a package lintian accepts. Not part of make test: it needs
# the arm64 libraries. The x86 syscall object is the control: the number
# check must tell the two apart.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

OUT=build-arm64
ARM64_NRS="63 64 65 66"	# read write readv writev
X86_NRS="19 20 275 278"	# readv writev splice vmsplice

# the constants sc_sys_enter compares the call's number with
nr_immediates() {
	llvm-objdump -d --no-show-raw-insn -j tp_btf/sys_enter "$1" |
		grep -oE '[=!]= [0-9]+' | cut -d' ' -f2 | sort -un
}

# how many of NRS the object's sys_enter program compares with
nrs_seen() {
	local imm n c=0
	imm=$(nr_immediates "$1")
	for n in $2; do grep -qx "$n" <<<"$imm" && c=$((c + 1)); done
	echo $c
}

# the members of the object's struct pt_regs (its BTF) that name an arch
regs_kind() {
	bpftool btf dump file "$1" format c | sed -n '/^struct pt_regs {/,/^};/p' |
		grep -oE '\b(orig_x0|syscallno|pstate|orig_ax|di)\b' | sort -u | paste -sd' '
}

t_build() {
	local b
	make -s -j2 ARCH=arm64 >"$TMP/build.log" 2>&1
	expect "make ARCH=arm64: exit status" "$?" 0
	for b in pipestat pipetop pipetrace-bench; do
		expect "$b: aarch64" "$(readelf -h "$OUT/bin/$b" 2>/dev/null | sed -n 's/^ *Machine: *//p')" AArch64
	done
	expect "nothing of it in the host's tree" "$(find . -maxdepth 1 -newer "$TMP" -name 'pipe*' | wc -l)" 0
}

t_bpf() {
	local t
	for t in syscall function tracepoint; do
		expect "$t tier object: BPF" "$(readelf -h "$OUT/${t}_tier.bpf.o" | sed -n 's/^ *Machine: *//p')" \
			"Linux BPF"
	done
	expect "syscall tier: arm64 pt_regs" "$(regs_kind "$OUT/syscall_tier.bpf.o")" \
		"orig_x0 pstate syscallno"
	expect "syscall tier: compares arm64 numbers" "$(nrs_seen "$OUT/syscall_tier.bpf.o" "$ARM64_NRS")" 4
	expect "syscall tier: no x86-64 ones" "$(nrs_seen "$OUT/syscall_tier.bpf.o" "$X86_NRS")" 0
	make -s build/syscall_tier.bpf.o >>"$TMP/build.log" 2>&1
	expect "control, x86 object: x86-64 numbers" "$(nrs_seen build/syscall_tier.bpf.o "$X86_NRS")" 4
	expect "control, x86 object: none of the arm64 ones" \
		"$(nrs_seen build/syscall_tier.bpf.o "$ARM64_NRS")" 0
	expect "control, x86 object: x86 pt_regs" "$(regs_kind build/syscall_tier.bpf.o)" "di orig_ax"
}

t_deb() {
	local deb r=$TMP/deb b
	make -s deb ARCH=arm64 >"$TMP/deb.log" 2>&1
	expect "make deb ARCH=arm64: exit status" "$?" 0
	deb=$(ls "$OUT"/pipetrace_*_arm64.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { not_ok "deb: no package built"; sed 's/^/# /' "$TMP/deb.log"; return; }
	expect "deb: Architecture" "$(dpkg-deb -f "$deb" Architecture)" arm64
	expect "deb: Depends names libbpf1 and libgvc6" \
		"$(dpkg-deb -f "$deb" Depends | grep -oE '\b(libbpf1|libgvc6)\b' | sort | paste -sd' ')" \
		"libbpf1 libgvc6"
	lintian --display-info "$deb" >"$TMP/lintian.log" 2>&1
	expect "deb: lintian, no errors" "$(grep -c '^E:' "$TMP/lintian.log")" 0
	expect "deb: lintian, no hardening tag" "$(grep -c ': hardening-' "$TMP/lintian.log")" 0
	grep -E '^E:|: hardening-' "$TMP/lintian.log" | sed 's/^/# /'
	dpkg-deb -x "$deb" "$r"
	for b in usr/sbin/pipestat usr/sbin/pipetop usr/bin/pipetrace-bench; do
		expect "deb: $b aarch64, hardened" \
			"$(readelf -h "$r/$b" | sed -n 's/^ *Machine: *//p') $(hardened "$r/$b" | paste -sd' ')" \
			"AArch64 pie relro bindnow stack-protector fortify"
	done
}

t_build
t_bpf
t_deb
summary
