/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DEMO_H
#define DEMO_H

#include <stdio.h>
#include <sys/types.h>

#define DEMO_COMM "pt-demo"

/* Forks the demo workload, held until demo_go(); returns its pid or -1. */
pid_t demo_spawn(void);
int demo_go(void);
/* One line per workload part: what it did, to compare with the report. */
void demo_describe(FILE *f);

#endif
