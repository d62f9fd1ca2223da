// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "btf_probe.h"
#include "session.h"
#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

bool privs_enough(char *why, unsigned long n)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d) == 0 &&
	    ((has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON)) ||
	     has_cap(d, CAP_SYS_ADMIN)))
		return true;
	snprintf(why, n, "needs root, or CAP_BPF and CAP_PERFMON (run with sudo)");
	return false;
}

bool privs_can_trace(const char *prog)
{
	char why[128];
	int err;

	if (!privs_enough(why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return false;
	}
	err = btf_vmlinux_error();
	if (err == -ENOENT) {
		fprintf(stderr, "%s: kernel BTF (/sys/kernel/btf/vmlinux) is missing: "
			"needs a kernel built with CONFIG_DEBUG_INFO_BTF\n", prog);
		return false;
	}
	if (err && pt_resource_hint(why, sizeof(why), -err) > 0) {
		fprintf(stderr, "%s: cannot read the kernel's BTF: %s\n", prog, why);
		return false;
	}
	if (err) {
		/* libbpf says -ESRCH for "no valid BTF found" */
		fprintf(stderr, "%s: kernel BTF (/sys/kernel/btf/vmlinux) is there "
			"but cannot be parsed: %s\n", prog,
			err == -ESRCH ? "corrupt or not BTF" : strerror(-err));
		return false;
	}
	return true;
}
