// SPDX-License-Identifier: GPL-2.0
/*
 * Timed reference workloads for make bench, both ends pinned:
 *   benchwork pingpong N CPU_A CPU_B      microseconds per 1-byte round trip
 *   benchwork stream SIZE N CPU_A CPU_B   MB/s of N writes of SIZE bytes
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload/workload.h"

int main(int argc, char **argv)
{
	struct wl_timed t = { .size = 1 };
	struct wl_result r;
	bool ping = argc == 5 && !strcmp(argv[1], "pingpong");
	bool stream = argc == 6 && !strcmp(argv[1], "stream");

	if (!ping && !stream) {
		fprintf(stderr, "usage: benchwork pingpong N CPU_A CPU_B | "
			"stream SIZE N CPU_A CPU_B\n");
		return 2;
	}
	if (stream)
		t.size = atol(argv[2]);
	t.max_ops = atol(argv[argc - 3]);
	t.cpu_a = atoi(argv[argc - 2]);
	t.cpu_b = atoi(argv[argc - 1]);
	if (!t.size || t.max_ops <= 0)
		return 2;
	if (ping ? wl_pingpong_timed(&t, &r) : wl_stream_timed(&t, &r))
		return 1;
	if (ping)
		printf("%.3f\n", r.seconds * 1e6 / r.ops);
	else
		printf("%.1f\n", r.bytes / r.seconds / 1e6);
	return 0;
}
