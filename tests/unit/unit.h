/* SPDX-License-Identifier: GPL-2.0 */
/* A plain unit-test runner: CHECK()s, then "N passed, N failed". */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;

#define CHECK(cond) do {						\
	if (cond) {							\
		unit_passed++;						\
	} else {							\
		unit_failed++;						\
		fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (!strcmp(g_, w_)) {						\
		unit_passed++;						\
	} else {							\
		unit_failed++;						\
		fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n",	\
			__FILE__, __LINE__, g_, w_);			\
	}								\
} while (0)

static inline int unit_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
