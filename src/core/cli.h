/* SPDX-License-Identifier: GPL-2.0 */
/* What every front end's command line and start-up share. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include "load_opts.h"

/* Seconds: a finite decimal number > 0 and <= max; -1 for anything else. */
double cli_seconds(const char *s, double max);
/* A whole decimal number in min..max; -1 for anything else (min >= 0). */
long cli_long(const char *s, long min, long max);
/*
 * The options every front end shares, into its load options: -p (adds a
 * process), -n (command name), --tier. False with a one-line reason in err.
 */
bool cli_add_pid(struct pt_load_opts *o, const char *arg, char *err, size_t n);
bool cli_set_comm(struct pt_load_opts *o, const char *arg, char *err, size_t n);
bool cli_set_tier(struct pt_load_opts *o, const char *arg, char *err, size_t n);
/* --max-keys: the in-kernel counter map's size */
bool cli_set_max_keys(struct pt_load_opts *o, const char *arg, char *err, size_t n);

/* What a front end's option parser returns. */
enum { CLI_RUN, CLI_EXIT_OK, CLI_USAGE };
/*
 * The exit status for a parse that does not run (0 after --help/--version,
 * 2 after one line on stderr: "prog: err (see prog --help)").
 */
int cli_exit_code(int parsed, const char *prog, const char *err);

/* getopt values of the long options every front end shares */
enum { CLI_OPT_TIER = 1000, CLI_OPT_MAX_KEYS };
enum { CLI_BAD = -1, CLI_TAKEN = 0, CLI_DONE = 1 };

/* A front end's --help and --version. */
struct cli_help {
	const char *prog;
	const char *usage;
	const char *tail;	/* after the tiers' section; NULL: no such section */
	void (*more)(FILE *out);	/* after usage: pipetop's keys; NULL: none */
};

/*
 * An option no front end treats its own way: -h, -V (printed to out:
 * CLI_DONE), -p, -n, -v, --tier, --max-keys (CLI_TAKEN), and getopt's
 * missing-value (':') and unknown ('?') results (CLI_BAD with a one-line
 * reason in err).
 */
int cli_common(int c, char **argv, const struct cli_help *help, FILE *out,
	       struct pt_load_opts *o, char *err, size_t n);
/*
 * Keeps descriptors 0-2 taken (/dev/null in place of a closed one), so no
 * descriptor made later (a signalfd, a pipe) becomes stdout or stderr.
 * False, after one line on stderr, when stdout was closed and the front
 * end prints there. Call before anything opens a descriptor.
 */
bool cli_std_fds(const char *prog, bool prints);
/* A warning on stderr for each -p process that does not exist. */
void cli_warn_pids(const char *prog, const struct pt_load_opts *o);
/*
 * The signals that end a run: SIGINT, SIGTERM and SIGHUP, SIGHUP left out
 * when it was ignored at start (nohup).
 */
void cli_end_signals(sigset_t *ends);
/*
 * Those (cli_end_signals) and extra blocked into set, to be taken
 * synchronously (sigtimedwait, signalfd); SIGPIPE ignored.
 */
void cli_block_signals(sigset_t *set, const int *extra, size_t nextra);

#endif
