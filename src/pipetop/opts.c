// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stddef.h>
#include <string.h>
#include "cli/cli.h"
#include "output/fmt.h"
#include "model/metrics.h"
#include "keys.h"
#include "opts.h"

#define AT(field)	offsetof(struct pipetop_opts, field)

static bool set_interval(void *interval, const char *arg, char *err, size_t n)
{
	return cli_set_seconds(interval, arg, PIPETOP_MIN_INTERVAL, PIPETOP_MAX_INTERVAL,
			       "invalid interval '%s': want seconds, "
			       CLI_STR(PIPETOP_MIN_INTERVAL) " to %g", err, n);
}

static bool set_rows(void *rows, const char *arg, char *err, size_t n)
{
	long v;

	if (!cli_whole(&v, arg, 1, 100000, "invalid rows '%s': want a whole number > 0",
		       err, n))
		return false;
	*(int *)rows = v;
	return true;
}

static const struct opt options[] = {
	{ .flag = 'i', .name = "interval", .arg = "SEC", .set = set_interval, .at = AT(interval),
	  .help =
		"refresh every SEC seconds (default 1, 0.1 to 3600)",
	  .man =
		"Refresh every \\fISEC\\fR seconds, 0.1 to 3600 (default 1)." },
	CLI_OPT_PID(struct pipetop_opts,
		"Only this process (thread group); repeatable, up to 64 times. Given\n"
		"both ends of a pipeline, the view shows exactly its pipes. A \\fIPID\\fR\n"
		"of no process is an error (exit 2)."),
	CLI_OPT_COMM(struct pipetop_opts,
		"Only tasks whose command name is \\fINAME\\fR (at most 15 characters),\n"
		"filtered in the kernel. Key \\fBf\\fR filters the view instead."),
	{ .flag = 'r', .name = "rows", .arg = "N", .set = set_rows, .at = AT(rows),
	  .help =
		"show at most N table rows (default: what fits)",
	  .man =
		"Show at most \\fIN\\fR table rows (default: as many as fit)." },
	CLI_OPT_TIER(struct pipetop_opts,
		"\\fBauto\\fR (default), \\fBtracepoint\\fR, \\fBfunction\\fR or \\fBsyscall\\fR;\n"
		"see\n"
		".BR pipestat (8)\n"
		"for what each tier knows."),
	CLI_OPT_MAX_KEYS(struct pipetop_opts,
		"in-kernel counter slots, one per (pipe, process)\n"
		"(default 16384); beyond: UNTRACKED in the header",
		"In-kernel counter slots, one per (pipe, process) per interval; default\n"
		"16384. Events beyond are counted and shown as \\fBUNTRACKED\\fR."),
	CLI_OPT_HELP(
		"Usage, keys and examples."),
	CLI_OPT_VERSION,
	{}
};

static void print_keys(FILE *out)
{
	fputs("Keys:\n", out);
	tk_print(out, "  ");
	fputc('\n', out);
}

const struct opt_tool pipetop_tool = {
	.prog = "pipetop",
	.opts = options,
	.head =
"Usage: pipetop [-i SEC] [-p PID]... [-n COMM] [-r ROWS] [--tier TIER]\n"
"               [--max-keys N]\n"
"Live view of Linux pipes: one row per pipe with its writer and reader\n"
"processes, or one row per process, with rates and the pipe signals (pool\n"
"hits, page allocations under the pipe mutex, user-copy sections, EAGAIN).\n"
"\n",
	.foot =
"\n"
"Standard output must be a terminal: for reports to a file or pipe use\n"
"'pipestat -i 1'. Units: " FMT_UNITS ".\n"
"\n",
	.more = print_keys,
	.tail =
"What each tier knows, and each column: pipestat(8), TIERS; pipetop(8).\n"
"\n"
"Examples:\n"
"  pipetop                        every pipe, refreshed every second\n"
"  pipetop -i 0.5 -n make         make's jobserver pipes, twice a second\n"
"  pipetop -p 1234 -p 1235        two processes and their pipes\n",
};

int pipetop_parse(int argc, char **argv, struct pipetop_opts *o, FILE *out,
		  char *err, size_t n)
{
	unsigned long long seen;
	int rc;

	memset(o, 0, sizeof(*o));
	o->load.tier = PT_TIER_AUTO;
	o->interval = PIPETOP_DEF_INTERVAL;
	rc = opt_parse(&pipetop_tool, argc, argv, o, &seen, out, err, n);
	if (rc == CLI_RUN && optind < argc) {
		snprintf(err, n, "unexpected argument '%s'", argv[optind]);
		return CLI_USAGE;
	}
	return rc;
}
