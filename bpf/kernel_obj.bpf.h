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

#endif
