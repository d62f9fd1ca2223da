/* SPDX-License-Identifier: GPL-2.0 */
/* A report as one output format writes it, in a string the caller frees. */
#ifndef RENDER_UNIT_H
#define RENDER_UNIT_H

#include <stdio.h>
#include "output/report.h"

static char *render(int (*fn)(FILE *, const struct pt_report *),
		    const struct pt_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, r);
	fclose(f);
	return buf;
}

#endif
