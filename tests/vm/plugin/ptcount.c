// SPDX-License-Identifier: GPL-2.0
/*
 * ptcount: a QEMU TCG plugin that counts what the guest CPU executed, for
 * the cost budgets (tests/vm/budget.sh): instructions, STAC and CLAC (the
 * x86 user-access sections SMAP makes every user copy open and close),
 * and the instructions and STACs run while pipe->mutex is held by
 * anon_pipe_read() or anon_pipe_write(). Nothing here depends on a
 * tracepoint or on the kernel's own counters: the kernel is only told
 * apart by the addresses the host reads off its vmlinux.
 *
 *   -plugin ptcount.so,out=FILE,lock=r:ADDR,lock=w:ADDR,unlock=ADDR,...
 *
 * out=FILE         created, not there before (no link followed)
 *
 * lock=SIDE:ADDR   the instruction after a call to mutex_lock() on the
 *                  read (r) or write (w) path, or after a call to a
 *                  function that returns with it taken: the mutex is held
 *                  from the first of them reached
 * unlock=ADDR      a call to mutex_unlock() on those paths: held no more
 *
 * The guest brackets what is to be counted with two marks, multi-byte
 * NOPs no CPU gives a meaning to: nopl 0x50540001(%rax,%rax,1) begins a
 * count, nopl 0x50540002(%rax,%rax,1) ends it (tests/vm/ptwork.c). Each
 * end appends one line to FILE:
 *
 *   count N insns I stac S clac C held_r_insns HR held_w_insns HW
 *         held_r_stac SR held_w_stac SW locks_r LR locks_w LW
 *
 * Single vCPU, single-threaded TCG (run-in-vm.sh --icount): the counters
 * are plain globals.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_plugin_abi.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define MAX_SITES 32
#define MARK_BEGIN 0x50540001u
#define MARK_END 0x50540002u

enum side { SIDE_NONE, SIDE_R, SIDE_W };

struct site {
	uint64_t addr;
	enum side side;		/* SIDE_NONE: an unlock */
};

struct counts {
	uint64_t insns, stac, clac;
	uint64_t held_insns[3], held_stac[3], locks[3];
};

static struct site sites[MAX_SITES];
static int nsites;
static FILE *out;
static int counted;

/* running totals (inline adds) and the hold in progress */
static struct counts now;
static enum side held;
static uint64_t held_from_insns, held_from_stac;
static struct counts begin;
static int begun;

static void on_lock(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	/* held already: the return from a function that took it */
	if (held != SIDE_NONE)
		return;
	held = (enum side)(uintptr_t)udata;
	held_from_insns = now.insns;
	held_from_stac = now.stac;
	now.locks[held]++;
}

static void on_unlock(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (held == SIDE_NONE)
		return;
	now.held_insns[held] += now.insns - held_from_insns;
	now.held_stac[held] += now.stac - held_from_stac;
	held = SIDE_NONE;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if ((uintptr_t)udata == MARK_BEGIN) {
		begin = now;
		begun = 1;
		return;
	}
	if (!begun)
		return;
	begun = 0;
	fprintf(out, "count %d insns %" PRIu64 " stac %" PRIu64 " clac %" PRIu64
		" held_r_insns %" PRIu64 " held_w_insns %" PRIu64
		" held_r_stac %" PRIu64 " held_w_stac %" PRIu64
		" locks_r %" PRIu64 " locks_w %" PRIu64 "\n", ++counted,
		now.insns - begin.insns, now.stac - begin.stac,
		now.clac - begin.clac,
		now.held_insns[SIDE_R] - begin.held_insns[SIDE_R],
		now.held_insns[SIDE_W] - begin.held_insns[SIDE_W],
		now.held_stac[SIDE_R] - begin.held_stac[SIDE_R],
		now.held_stac[SIDE_W] - begin.held_stac[SIDE_W],
		now.locks[SIDE_R] - begin.locks[SIDE_R],
		now.locks[SIDE_W] - begin.locks[SIDE_W]);
	fflush(out);
}

/* nopl disp32(%rax,%rax,1): 0f 1f 84 00 + disp32, little endian */
static int mark_of(const uint8_t *b, size_t n, uint32_t *id)
{
	if (n != 8 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x84 || b[3] != 0x00)
		return 0;
	*id = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
	      (uint32_t)b[7] << 24;
	return *id == MARK_BEGIN || *id == MARK_END;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		uint32_t mark;

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, &now.insns, 1);
		/* stac: 0f 01 cb, clac: 0f 01 ca */
		if (len == 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xcb)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &now.stac, 1);
		if (len == 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xca)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &now.clac, 1);
		if (mark_of(b, len, &mark))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)mark);
		for (int s = 0; s < nsites; s++) {
			if (sites[s].addr != va)
				continue;
			if (sites[s].side == SIDE_NONE)
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_unlock,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
			else
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_lock,
					QEMU_PLUGIN_CB_NO_REGS,
					(void *)(uintptr_t)sites[s].side);
		}
	}
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (out)
		fclose(out);
}

static int add_site(const char *v, enum side side)
{
	char *end;

	if (nsites == MAX_SITES)
		return -1;
	errno = 0;
	sites[nsites].addr = strtoull(v, &end, 16);
	if (errno || end == v || *end)
		return -1;
	sites[nsites++].side = side;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
					   int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int bad;

		if (!strncmp(a, "out=", 4)) {
			/* qemu runs as root: a new file, no link followed */
			int fd = open(a + 4, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				      O_CLOEXEC, 0644);

			out = fd < 0 ? NULL : fdopen(fd, "w");
			if (fd >= 0 && !out)
				close(fd);
			bad = !out;
		} else if (!strncmp(a, "lock=r:", 7)) {
			bad = add_site(a + 7, SIDE_R);
		} else if (!strncmp(a, "lock=w:", 7)) {
			bad = add_site(a + 7, SIDE_W);
		} else if (!strncmp(a, "unlock=", 7)) {
			bad = add_site(a + 7, SIDE_NONE);
		} else {
			bad = 1;
		}
		if (bad) {
			fprintf(stderr, "ptcount: bad argument '%s'\n", a);
			return -1;
		}
	}
	if (!out) {
		fprintf(stderr, "ptcount: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
