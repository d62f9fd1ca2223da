// SPDX-License-Identifier: GPL-2.0
/*
 * Timed reference workloads for make bench:
 *   benchwork pingpong N        prints microseconds per round trip
 *   benchwork stream SIZE N     prints MB/s of N writes of SIZE bytes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "workload.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0, t;
	long n;

	if (argc == 3 && !strcmp(argv[1], "pingpong")) {
		n = atol(argv[2]);
		t0 = now();
		if (n <= 0 || wl_pingpong(n) != n)
			return 1;
		t = now() - t0;
		printf("%.3f\n", t * 1e6 / n);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "stream")) {
		long size = atol(argv[2]);

		n = atol(argv[3]);
		t0 = now();
		if (size <= 0 || n <= 0 || wl_stream(size, n, NULL) != size * n)
			return 1;
		t = now() - t0;
		printf("%.1f\n", size * (double)n / t / 1e6);
		return 0;
	}
	fprintf(stderr, "usage: benchwork pingpong N | stream SIZE N\n");
	return 2;
}
