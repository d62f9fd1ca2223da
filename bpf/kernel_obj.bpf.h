/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KERNEL_OBJ_BPF_H
#define KERNEL_OBJ_BPF_H

/*
 * A kernel pointer (from a map or a probe read) as a read-only typed
 * pointer: its fields are then read with plain loads, which fault safely,
 * instead of a helper call each (Linux 6.2+).
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define kernel_obj(ptr, type) \
	((type *)bpf_rdonly_cast((void *)(ptr), bpf_core_type_id_kernel(type)))

/*
 * Field f of kernel object p, for bodies shared by a typed and an untyped
 * caller (typed a constant in each): typed, p is a BTF pointer (a tp_btf
 * or fentry/fexit argument, a field of one, kernel_obj()) read with a plain
 * load; else a CO-RE probe read, a helper call each (kprobes, Linux 6.1).
 */
#define KREAD(typed, p, f) ((typed) ? (p)->f : BPF_CORE_READ(p, f))

#endif
