// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <string.h>
#include "core/cli.h"
#include "core/metrics.h"
#include "keys.h"
#include "opts.h"

static const char usage[] =
"Usage: pipetop [-i SEC] [-p PID]... [-n COMM] [-r ROWS] [--tier TIER]\n"
"               [--max-keys N]\n"
"Live view of Linux pipes: one row per pipe with its writer and reader\n"
"processes, or one row per process, with rates and the pipe signals (pool\n"
"hits, page allocations under the pipe mutex, user-copy sections, EAGAIN).\n"
"\n"
"  -i, --interval SEC   refresh every SEC seconds (default 1, 0.1 to 3600)\n"
"  -p, --pid PID        only this process (repeatable, up to 64)\n"
"  -n, --comm NAME      only processes with this command name\n"
"  -r, --rows N         show at most N table rows (default: what fits)\n"
"      --tier TIER      auto (default), tracepoint, function or syscall\n"
"      --max-keys N     in-kernel counter slots, one per (pipe, process)\n"
"                       (default 16384); beyond: UNTRACKED in the header\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"\n"
"Standard output must be a terminal: for reports to a file or pipe use\n"
"'pipestat -i 1'.\n"
"\n";

static void print_keys(FILE *out)
{
	fputs("Keys:\n", out);
	tk_print(out, "  ");
	fputc('\n', out);
}

static const char usage_tail[] =
"\n"
"Examples:\n"
"  pipetop                        every pipe, refreshed every second\n"
"  pipetop -i 0.5 -n make         make's jobserver pipes, twice a second\n"
"  pipetop -p 1234 -p 1235        two processes and their pipes\n";

static double parse_interval(const char *s)
{
	double v = cli_seconds(s, PIPETOP_MAX_INTERVAL);

	return v < PIPETOP_MIN_INTERVAL ? -1 : v;
}

#define USAGE_ERR(...) do { snprintf(err, n, __VA_ARGS__); return CLI_USAGE; } while (0)

int pipetop_parse(int argc, char **argv, struct pipetop_opts *o, FILE *out,
		  char *err, size_t n)
{
		static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'n' },
		{ "rows", required_argument, NULL, 'r' },
		{ "tier", required_argument, NULL, CLI_OPT_TIER },
		{ "max-keys", required_argument, NULL, CLI_OPT_MAX_KEYS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	static const struct cli_help help = { "pipetop", usage, usage_tail, print_keys };
	long rows;
	int c;

	memset(o, 0, sizeof(*o));
	o->load.tier = PT_TIER_AUTO;
	o->interval = PIPETOP_DEF_INTERVAL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:p:n:r:hV", longs, NULL)) != -1) {
		switch (c) {
		case 'i':
			if ((o->interval = parse_interval(optarg)) < 0)
				USAGE_ERR("invalid interval '%s': want seconds, %g to %g",
					  optarg, PIPETOP_MIN_INTERVAL, PIPETOP_MAX_INTERVAL);
			break;
		case 'r':
			if ((rows = cli_long(optarg, 1, 100000)) < 0)
				USAGE_ERR("invalid rows '%s': want a whole number > 0",
					  optarg);
			o->rows = rows;
			break;
		default:
			if ((c = cli_common(c, argv, &help, out, &o->load, err, n)))
				return c < 0 ? CLI_USAGE : CLI_EXIT_OK;
		}
	}
	if (optind < argc)
		USAGE_ERR("unexpected argument '%s'", argv[optind]);
	return CLI_RUN;
}
