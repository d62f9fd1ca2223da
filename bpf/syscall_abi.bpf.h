/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscall tier's view of the machine's system call ABI, chosen by
 * the BPF build's __TARGET_ARCH: the numbers of the calls it follows,
 * native and from 32-bit (compat) callers, how a compat call is told,
 * and where a call's number and arguments are in its pt_regs. An
 * architecture not listed here does not compile: nothing reads another
 * machine's registers or numbers.
 */
#ifndef PIPETRACE_SYSCALL_ABI_BPF_H
#define PIPETRACE_SYSCALL_ABI_BPF_H

#include <bpf/bpf_tracing.h>

/* 32-bit (compat) callers: the older calls have the same numbers in the
 * i386 and the arm EABI tables; the rest are per architecture below */
#define NR32_read	3
#define NR32_write	4
#define NR32_readv	145
#define NR32_writev	146
#define NR32_sendfile	187
#define NR32_sendfile64	239

#if defined(__TARGET_ARCH_x86)

/* arch/x86/entry/syscalls/syscall_64.tbl */
#define NR_read		0
#define NR_write	1
#define NR_readv	19
#define NR_writev	20
#define NR_sendfile	40
#define NR_splice	275
#define NR_tee		276
#define NR_vmsplice	278
#define NR_preadv2	327
#define NR_pwritev2	328

/* syscall_32.tbl: int 0x80, sysenter, a 32-bit binary */
#define NR32_splice	313
#define NR32_tee	315
#define NR32_vmsplice	316
#define NR32_preadv2	378
#define NR32_pwritev2	379

#define TS_COMPAT	0x0002	/* thread_info.status: in a 32-bit syscall */

static __always_inline bool compat_call(struct task_struct *task, struct pt_regs *regs)
{
	return task->thread_info.status & TS_COMPAT;
}

/* the call's number, at entry and exit */
static __always_inline long call_id(struct pt_regs *regs)
{
	return regs->orig_ax;
}

/* the first argument, and the sixth (bpf_tracing.h names five) */
static __always_inline unsigned long native_arg1(struct pt_regs *regs)
{
	return PT_REGS_PARM1_SYSCALL(regs);
}

static __always_inline unsigned long native_arg6(struct pt_regs *regs)
{
	return regs->r9;
}

/* a 32-bit call passes them in ebx, ecx, edx, esi, edi, ebp */
static __always_inline unsigned long compat_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return (__u32)regs->bx;
	case 1: return (__u32)regs->cx;
	case 2: return (__u32)regs->dx;
	case 3: return (__u32)regs->si;
	case 4: return (__u32)regs->di;
	default: return (__u32)regs->bp;
	}
}

#elif defined(__TARGET_ARCH_arm64)

/* include/uapi/asm-generic/unistd.h (sendfile is __NR3264_sendfile) */
#define NR_read		63
#define NR_write	64
#define NR_readv	65
#define NR_writev	66
#define NR_sendfile	71
#define NR_splice	76
#define NR_tee		77
#define NR_vmsplice	75
#define NR_preadv2	286
#define NR_pwritev2	287

/* AArch32 callers: the arm EABI table (arch/arm/tools/syscall.tbl) */
#define NR32_splice	340
#define NR32_tee	342
#define NR32_vmsplice	343
#define NR32_preadv2	392
#define NR32_pwritev2	393

/* SPSR's M[4]: the exception came from AArch32, an architectural bit
 * (the kernel's compat_user_mode()), not a thread flag whose number moves */
#define PSR_MODE32_BIT	0x10

static __always_inline bool compat_call(struct task_struct *task, struct pt_regs *regs)
{
	return regs->pstate & PSR_MODE32_BIT;
}

static __always_inline long call_id(struct pt_regs *regs)
{
	return regs->syscallno;
}

/* orig_x0: x0 holds the return value at exit. A plain load of the
 * kernel's pt_regs, where bpf_tracing.h reads it with a helper call. */
static __always_inline unsigned long native_arg1(struct pt_regs *regs)
{
	return regs->orig_x0;
}

static __always_inline unsigned long native_arg6(struct pt_regs *regs)
{
	return regs->regs[5];
}

/* an AArch32 call's r0-r5 are x0-x5: the native places, 32 bits wide */
#define COMPAT_ARGS_IN_NATIVE_REGS

#else
#error "syscall tier: no system call table for this __TARGET_ARCH (bpf/syscall_abi.bpf.h)"
#endif

static __always_inline unsigned long native_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return native_arg1(regs);
	case 1: return PT_REGS_PARM2_SYSCALL(regs);
	case 2: return PT_REGS_PARM3_SYSCALL(regs);
	case 3: return PT_REGS_PARM4_SYSCALL(regs);
	case 4: return PT_REGS_PARM5_SYSCALL(regs);
	default: return native_arg6(regs);
	}
}

/*
 * A call's argument i (0-5) in the native order, valid at entry and at
 * exit. Each read only where used: a load of regs each.
 */
static __always_inline unsigned long call_arg(struct pt_regs *regs, bool compat, int i)
{
#ifdef COMPAT_ARGS_IN_NATIVE_REGS
	unsigned long v = native_arg(regs, i);

	return compat ? (__u32)v : v;
#else
	return compat ? compat_arg(regs, i) : native_arg(regs, i);
#endif
}

#endif
