/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCK_H
#define CLOCK_H

#include <time.h>

/* Seconds on clk, as a double. */
static inline double pt_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
