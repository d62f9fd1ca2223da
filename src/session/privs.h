/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PRIVS_H
#define PRIVS_H

#include <stdbool.h>

/* Root, or CAP_BPF + CAP_PERFMON effective; else fills why. */
bool privs_enough(char *why, unsigned long n);

/*
 * Root (or CAP_BPF + CAP_PERFMON) and kernel BTF: false after one line on
 * stderr, "prog: what is missing".
 */
bool privs_can_trace(const char *prog);

#endif
