/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Processes' command lines, read from /proc/PID/cmdline when their rows
 * are made (a short command is gone by the report) and kept while the
 * process shows up in the reports: so processes of one command name can
 * be told apart ("python3[544] w.py" and "python3[545] r.py").
 */
#ifndef PROC_ARGS_H
#define PROC_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/rows.h"

#define PROC_ARGS_LEN	256	/* a command line's first 255 bytes */

struct proc_arg {
	__u32 pid;
	char comm[PT_COMM_LEN];	/* with the pid: a reused pid, an exec */
	bool used;		/* looked for since the last args_prune() */
	bool known;		/* args read; false: gone first */
	char args[PROC_ARGS_LEN];
};

struct proc_args {
	struct proc_arg *v;	/* by pid, comm */
	size_t n, cap;
};

/*
 * pid's command line into buf (n > 0): its arguments a space apart, raw
 * bytes (each output escapes them its way). Returns its length, -1 if the
 * process is gone or has none (a zombie's, a kernel thread's).
 */
int proc_cmdline(__u32 pid, char *buf, size_t n);
/* What follows the command in a command line: its arguments; "" if none. */
const char *args_after_command(const char *args);

void args_init(struct proc_args *a);
void args_free(struct proc_args *a);
/* Reads the command line of each process of rows (a key with a pid) not
 * known yet; -1 on out of memory. */
int args_learn(struct proc_args *a, const struct pt_rows *rows);
/* The command line of pid running comm (a key's PT_COMM_LEN bytes); NULL
 * if it was not read (a is NULL, or the process was gone first). */
const char *args_of(const struct proc_args *a, __u32 pid, const char *comm);
/* Forgets the processes no args_learn() met since the last prune. */
void args_prune(struct proc_args *a);

#endif
