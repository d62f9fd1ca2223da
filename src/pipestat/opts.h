/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PIPESTAT_OPTS_H
#define PIPESTAT_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include "cli/cli.h"
#include "output/columns.h"
#include "model/load_opts.h"
#include "tune/pipe_resize.h"
#include "model/rows.h"

/* -i below this would spend the interval draining (membarrier takes ms) */
#define PIPESTAT_MIN_INTERVAL	0.1
#define PIPESTAT_MAX_SECONDS	1e7

/* --waits, --no-waits: the sleeps timed when a column shown needs them, or
 * always, or never */
enum pipestat_waits { PIPESTAT_WAITS_AS_SHOWN, PIPESTAT_WAITS_ON, PIPESTAT_WAITS_OFF };

struct pipestat_opts {
	struct pt_load_opts load;
	double interval;	/* 0: one report at the end */
	long count;		/* 0: no limit */
	double duration;	/* 0: until Ctrl-C */
	enum pt_by by;
	bool csv;
	bool json;
	const char *listen;	/* --listen ADDR:PORT */
	const char *web_config;	/* --web-config FILE: TLS, basic auth */
	const char *textfile;	/* --textfile PATH */
	const char *graph;	/* --graph FILE: the pipeline's picture */
	const char *output;	/* --output FILE: the report; NULL: stdout */
	long max_series;	/* label sets in /metrics */
	long series_ttl;	/* seconds an idle key's series stays; 0: ever */
	long rows;		/* -r: top rows per interval; 0: all */
	int sort_col;		/* -s: enum pt_col to sort by; -1: bytes moved */
	bool rate;		/* --rate: per second */
	struct pt_columns cols;	/* -o: the table's columns */
	enum pipestat_waits waits;
	bool demo;
	bool advise;		/* --advise: remarks per pipe, not the table */
	bool resize;		/* --resize: resize a pipe and exit */
	struct pipe_ref resize_pipe;
	long resize_size;
	char **command;		/* after "--": run it and count it; NULL */
};

/* the option table: --help, the man page's OPTIONS, bash completion */
extern const struct opt_tool pipestat_tool;

/*
 * CLI_RUN to go on; CLI_EXIT_OK after --help/--version (printed to out);
 * CLI_USAGE with a one-line message in err (exit 2). No I/O: with --advise
 * the caller adds advise_cols() of the kernel's knobs to load.cols.
 */
int pipestat_parse(int argc, char **argv, struct pipestat_opts *o, FILE *out,
		   char *err, size_t n);

#endif
