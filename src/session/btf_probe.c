// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf_probe.h"
#include "model/metrics.h"

static int vmlinux_err;

/*
 * libbpf 1.1 says ESRCH whatever failed in each copy it tried; a parse
 * of sysfs' own tells out of memory (ulimit -d) from corrupt.
 */
static int why_no_btf(void)
{
	struct btf *btf = btf__parse_raw("/sys/kernel/btf/vmlinux");
	int err = libbpf_get_error(btf);

	if (!err)
		btf__free(btf);
	return err == -ENOMEM ? err : -ESRCH;
}

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		/* what is wrong is said once, by btf_vmlinux_error's caller */
		libbpf_print_fn_t print = libbpf_set_print(NULL);

		tried = true;
		btf = btf__load_vmlinux_btf();
		vmlinux_err = libbpf_get_error(btf);
		if (vmlinux_err == -ESRCH)
			vmlinux_err = why_no_btf();
		if (vmlinux_err)
			btf = NULL;
		libbpf_set_print(print);
	}
	return btf;
}

bool btf_has_vmlinux(void)
{
	return !btf_vmlinux_error();
}

int btf_vmlinux_error(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return -ENOENT;
	return vmlinux_btf() ? 0 : vmlinux_err ? vmlinux_err : -EINVAL;
}

bool btf_has_tracepoint(const char *event)
{
	struct btf *btf = vmlinux_btf();
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", event);
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
}

bool btf_has_func(const char *name)
{
	struct btf *btf = vmlinux_btf();

	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

/*
 * Some pages of a write may be allocated before pipe->mutex: mainline's
 * prealloc (7.2: anon_pipe_get_page_prealloc(), inlined, so its on-stack
 * struct anon_pipe_prealloc is what BTF keeps) or kernel-patch/ 0003's
 * prefill (its pipe:pipe_prefill event).
 */
bool btf_prefill_path(void)
{
	struct btf *btf = vmlinux_btf();

	return btf && (btf__find_by_name_kind(btf, "anon_pipe_prealloc", BTF_KIND_STRUCT) > 0 ||
		       btf_has_func("anon_pipe_get_page_prealloc") ||
		       btf_has_tracepoint("pipe_prefill"));
}

/*
 * Can a BPF trampoline attach here? Loads a two-instruction fentry program
 * on func and attaches it (libbpf-tools' fentry_can_attach loads only; some
 * kernels refuse only the attach). Any error (EPERM on kernels that forbid
 * trampolines, ENOTSUPP without them) means no.
 */
int btf_fentry_attach_errno(const char *func)
{
	struct btf *btf = vmlinux_btf();
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog, link, err = 0;

	id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) : -1;
	if (id <= 0)
		return ENOENT;
	opts.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pt_fentry_probe", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog < 0)
		return errno ? errno : EINVAL;
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0)
		err = errno ? errno : EINVAL;
	else
		close(link);
	close(prog);
	return err;
}

/* Value of enumerator name in any enum of the kernel's BTF, or -1. */
static long enum_value(const char *name)
{
	struct btf *btf = vmlinux_btf();
	__u32 n = btf ? btf__type_cnt(btf) : 0;

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return e->val;
	}
	return -1;
}

/*
 * Since 6.10 the GFP bits are enumerators (___GFP_*_BIT) and their values
 * depend on the config; before, they were fixed #defines.
 */
__u32 btf_pipe_page_gfp(void)
{
	static const struct { const char *bit; __u32 legacy; } parts[] = {
		{ "___GFP_DIRECT_RECLAIM_BIT", 0x400 },
		{ "___GFP_KSWAPD_RECLAIM_BIT", 0x800 },
		{ "___GFP_IO_BIT", 0x40 },
		{ "___GFP_FS_BIT", 0x80 },
		{ "___GFP_HARDWALL_BIT", 0x100000 },
		{ "___GFP_HIGHMEM_BIT", 0x02 },
		{ "___GFP_ACCOUNT_BIT", 0x400000 },
	};
	__u32 gfp = 0;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		long bit = enum_value(parts[i].bit);

		gfp |= bit >= 0 ? 1u << bit : parts[i].legacy;
	}
	return gfp;
}

unsigned int btf_lacks_lock_events(void)
{
	return btf_has_tracepoint("contention_begin") &&
	       btf_has_tracepoint("contention_end") ? 0 : PT_NA_NO_LOCKS;
}
