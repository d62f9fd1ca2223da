/* SPDX-License-Identifier: GPL-2.0 */
/* pipetop's command line. */
#ifndef PIPETOP_OPTS_H
#define PIPETOP_OPTS_H

#include <stdio.h>
#include "cli/cli.h"
#include "model/load_opts.h"

#define PIPETOP_DEF_INTERVAL	1.0
#define PIPETOP_MIN_INTERVAL	0.1
#define PIPETOP_MAX_INTERVAL	3600.0

struct pipetop_opts {
	struct pt_load_opts load;
	double interval;	/* seconds between refreshes */
	int rows;		/* most table rows shown; 0 = what fits */
};

/* the option table: --help, the man page's OPTIONS, bash completion */
extern const struct opt_tool pipetop_tool;

/*
 * CLI_RUN to go on; CLI_EXIT_OK after --help/--version (printed to
 * out); CLI_USAGE with a one-line message in err (exit 2).
 */
int pipetop_parse(int argc, char **argv, struct pipetop_opts *o, FILE *out,
		  char *err, size_t n);

#endif
