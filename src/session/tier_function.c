// SPDX-License-Identifier: GPL-2.0
/*
 * Glue for the function tier's BPF object (bpf/function_tier.bpf.c):
 * fentry/fexit where the kernel allows BPF trampolines, else kprobes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "btf_probe.h"
#include "loader.h"
#include "function_tier.skel.h"

enum fn_mode { FN_FENTRY, FN_KPROBE };

static struct {
	enum fn_mode mode;
	const char *read_fn, *write_fn;
} fn;

static const char *const release_fn = "anon_pipe_buf_release";

static bool kprobes_available(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
}

static int probe(char *why, size_t n)
{
	int err;

	if (!btf_has_vmlinux()) {
		snprintf(why, n, "no kernel BTF (/sys/kernel/btf/vmlinux)");
		return -1;
	}
	/* newer kernels split the anonymous pipe paths out of the FIFO ones */
	if (btf_has_func("anon_pipe_read") && btf_has_func("anon_pipe_write")) {
		fn.read_fn = "anon_pipe_read";
		fn.write_fn = "anon_pipe_write";
	} else if (btf_has_func("pipe_read") && btf_has_func("pipe_write")) {
		fn.read_fn = "pipe_read";
		fn.write_fn = "pipe_write";
	} else {
		snprintf(why, n, "kernel BTF has neither pipe_read/pipe_write nor "
			 "anon_pipe_read/anon_pipe_write");
		return -1;
	}
	if (!btf_has_func(release_fn)) {
		snprintf(why, n, "kernel BTF has no %s()", release_fn);
		return -1;
	}
	if (!btf_has_tracepoint("mm_page_alloc")) {
		snprintf(why, n, "kernel BTF lacks the kmem:mm_page_alloc tracepoint");
		return -1;
	}
	/* PIPESTAT_NO_FENTRY=1: take the kprobe path (tests of the fallback) */
	if (getenv("PIPESTAT_NO_FENTRY"))
		err = EPERM;
	else
		err = btf_fentry_attach_errno(fn.read_fn);
	if (!err) {
		fn.mode = FN_FENTRY;
		return 0;
	}
	if (kprobes_available()) {
		fn.mode = FN_KPROBE;
		return 0;
	}
	snprintf(why, n, "kernel refuses fentry on %s (%s) and has no kprobes",
		 fn.read_fn, strerror(err));
	return -1;
}

static void destroy(void *skel)
{
	function_tier_bpf__destroy(skel);
}

static int attach_kprobe(struct bpf_program *p, struct bpf_link **link,
			 bool ret, const char *func)
{
	*link = bpf_program__attach_kprobe(p, ret, func);
	return *link ? 0 : -errno;
}

static int attach(struct function_tier_bpf *skel)
{
	struct bpf_program *p;
	int err = 0;

	if (fn.mode == FN_KPROBE) {
		err = attach_kprobe(skel->progs.kp_read, &skel->links.kp_read, false, fn.read_fn);
		err = err ?: attach_kprobe(skel->progs.kr_read, &skel->links.kr_read, true, fn.read_fn);
		err = err ?: attach_kprobe(skel->progs.kp_write, &skel->links.kp_write, false, fn.write_fn);
		err = err ?: attach_kprobe(skel->progs.kr_write, &skel->links.kr_write, true, fn.write_fn);
		err = err ?: attach_kprobe(skel->progs.kp_release, &skel->links.kp_release,
					   false, release_fn);
		if (err)
			return err;
		p = skel->progs.fn_page_alloc;
		skel->links.fn_page_alloc = bpf_program__attach(p);
		return skel->links.fn_page_alloc ? 0 : -errno;
	}
	return function_tier_bpf__attach(skel);
}

static int open_tier(struct pt_session *s, const struct pt_load_opts *o)
{
	struct function_tier_bpf *skel = function_tier_bpf__open();
	struct bpf_program *fentry[] = {
		skel ? skel->progs.fe_read : NULL, skel ? skel->progs.fx_read : NULL,
		skel ? skel->progs.fe_write : NULL, skel ? skel->progs.fx_write : NULL,
		skel ? skel->progs.fe_release : NULL,
	};
	struct bpf_program *kprobe[] = {
		skel ? skel->progs.kp_read : NULL, skel ? skel->progs.kr_read : NULL,
		skel ? skel->progs.kp_write : NULL, skel ? skel->progs.kr_write : NULL,
		skel ? skel->progs.kp_release : NULL,
	};
	int err;

	if (!skel)
		return -errno;
	s->skel = skel;
	s->destroy = destroy;
	s->obj = skel->obj;
	for (size_t i = 0; i < sizeof(fentry) / sizeof(fentry[0]); i++) {
		bpf_program__set_autoload(fentry[i], fn.mode == FN_FENTRY);
		bpf_program__set_autoload(kprobe[i], fn.mode == FN_KPROBE);
	}
	if (fn.mode == FN_FENTRY) {
		err = bpf_program__set_attach_target(skel->progs.fe_read, 0, fn.read_fn);
		err = err ?: bpf_program__set_attach_target(skel->progs.fx_read, 0, fn.read_fn);
		err = err ?: bpf_program__set_attach_target(skel->progs.fe_write, 0, fn.write_fn);
		err = err ?: bpf_program__set_attach_target(skel->progs.fx_write, 0, fn.write_fn);
		if (err)
			return err;
	}
	if (o->verbose)
		fprintf(stderr, "pipestat: function tier via %s on %s/%s\n",
			fn.mode == FN_FENTRY ? "fentry/fexit" : "kprobes",
			fn.read_fn, fn.write_fn);
	skel->rodata->pipe_page_gfp = btf_pipe_page_gfp();
	err = PT_LOAD_SKEL(s, o, skel, function_tier_bpf__load);
	if (err)
		return err;
	return attach(skel);
}

const struct pt_tier_ops tier_function_ops = {
	.tier = PT_TIER_FUNCTION,
	.probe = probe,
	.open = open_tier,
};
