/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PRIVS_H
#define PRIVS_H

#include <stdbool.h>

/* Root, or CAP_BPF + CAP_PERFMON effective; else fills why. */
bool privs_enough(char *why, unsigned long n);

#endif
