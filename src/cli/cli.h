/* SPDX-License-Identifier: GPL-2.0 */
/* What every front end's command line and start-up share. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include "model/load_opts.h"
#include "opt_table.h"

/* Seconds: a finite decimal number > 0 and <= max; -1 for anything else. */
double cli_seconds(const char *s, double max);
/* A whole decimal number in min..max; -1 for anything else (min >= 0). */
long cli_long(const char *s, long min, long max);
/*
 * The options every front end shares, into its load options (field: a
 * struct pt_load_opts, as an option table's handlers take it): -p (adds a
 * process), -n (command name), --tier, --max-keys (the in-kernel counter
 * map's size). False with a one-line reason in err.
 */
bool cli_add_pid(void *load, const char *arg, char *err, size_t n);
bool cli_set_comm(void *load, const char *arg, char *err, size_t n);
bool cli_set_tier(void *load, const char *arg, char *err, size_t n);
bool cli_set_max_keys(void *load, const char *arg, char *err, size_t n);
/*
 * *v = arg, a whole decimal number in min..max; else false, with why (a
 * format of arg, "invalid count '%s': ...") in err.
 */
bool cli_whole(long *v, const char *arg, long min, long max, const char *why,
	       char *err, size_t n);
/*
 * *v = arg, seconds (cli_seconds) of at least min and at most max; else
 * false, with why (a format of arg, then max) in err.
 */
bool cli_set_seconds(double *v, const char *arg, double min, double max,
		     const char *why, char *err, size_t n);
/* a number's macro as text, for messages */
#define CLI_STR(x)	CLI_STR_(x)
#define CLI_STR_(x)	#x

/*
 * The exit status for a parse that does not run (0 after --help/--version,
 * 2 after one line on stderr: "prog: err (see prog --help)").
 */
int cli_exit_code(int parsed, const char *prog, const char *err);

/*
 * The option table entries (opt_table.h) every front end shares, for an
 * opts struct TYPE that holds its struct pt_load_opts as .load; MAN: the
 * man page's text, which says what the option means for that tool.
 */
#define CLI_OPT_PID(TYPE, MAN) { .flag = 'p', .name = "pid", .arg = "PID", \
	.help = "only this process (repeatable, up to 64)", .man = MAN, \
	.values = OPT_PIDS, .set = cli_add_pid, .at = offsetof(TYPE, load) }
#define CLI_OPT_COMM(TYPE, MAN) { .flag = 'n', .name = "comm", .arg = "NAME", \
	.help = "only processes with this command name", .man = MAN, \
	.values = OPT_COMMS, .set = cli_set_comm, .at = offsetof(TYPE, load) }
#define CLI_OPT_TIER(TYPE, MAN) { .name = "tier", .arg = "TIER", \
	.help = "auto (default), tracepoint, function or syscall", .man = MAN, \
	.values = "auto tracepoint function syscall", .set = cli_set_tier, \
	.at = offsetof(TYPE, load) }
#define CLI_OPT_MAX_KEYS(TYPE, HELP, MAN) { .name = "max-keys", .arg = "N", \
	.help = HELP, .man = MAN, .set = cli_set_max_keys, .at = offsetof(TYPE, load) }
#define CLI_OPT_VERBOSE(TYPE, MAN) { .flag = 'v', .name = "verbose", \
	.help = "say why tiers were not used; libbpf warnings", .man = MAN, \
	.at = offsetof(TYPE, load.verbose) }
#define CLI_OPT_HELP(MAN) { .flag = 'h', .name = "help", .help = "this text", \
	.man = MAN, .act = OPT_HELP }
#define CLI_OPT_VERSION { .flag = 'V', .name = "version", .help = "the version", \
	.man = "The version.", .act = OPT_VERSION }

/*
 * Keeps descriptors 0-2 taken (/dev/null in place of a closed one), so no
 * descriptor made later (a signalfd, a pipe) becomes stdout or stderr.
 * False, after one line on stderr, when stdout was closed and the front
 * end prints there. Call before anything opens a descriptor.
 */
bool cli_std_fds(const char *prog, bool prints);
/*
 * Whether every -p process exists (another user's too); false after one
 * line on stderr naming the first that does not: a mistyped PID, not a
 * view that stays empty. One that exits later is counted until then.
 */
bool cli_pids_exist(const char *prog, const struct pt_load_opts *o);
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
