// SPDX-License-Identifier: GPL-2.0
/*
 * make bench only: the syscall tier's floor, the hook itself. Empty
 * programs on the two tracepoints every syscall-tier program set needs
 * (every task then takes the slow syscall path and runs both).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
