// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <string.h>
#include "core/cli.h"
#include "core/metrics.h"
#include "core/out.h"
#include "opts.h"

static const char usage[] =
"Usage: pipestat [-i SEC [-c N]] [-d SEC] [-p PID]... [-n COMM] [-k KEY]\n"
"                [--csv] [--tier TIER] [--demo] [--max-keys N] [-v]\n"
"Count what happens in Linux pipes (reads, writes, bytes, EAGAIN returns,\n"
"pipe page allocations, pool hits, user-copy sections), per interval.\n"
"\n"
"  -i, --interval SEC   report every SEC seconds, 0.1 or more (default: once,\n"
"                       at the end)\n"
"  -c, --count N        stop after N intervals (needs -i)\n"
"  -d, --duration SEC   stop after SEC seconds (default: at Ctrl-C)\n"
"  -p, --pid PID        only this process (repeatable, up to 64)\n"
"  -n, --comm NAME      only processes with this command name\n"
"  -k, --by KEY         one row per: total (default), pid, comm, pipe\n"
"      --csv            CSV: one header, one row per key per interval\n"
"      --hist NAME[,NAME]  log2 histograms per key after each report:\n"
"                       write_size, read_size, occupancy (ring slots in\n"
"                       use when a write starts), wait_read, wait_write\n"
"                       (ns per sleep; implies --waits), or all; not with\n"
"                       --csv\n"
"      --waits          time the sleeps of readers and writers (waits_* and\n"
"                       wait_*_ns columns, WAIT_R%, WAIT_W%) in the syscall\n"
"                       and function tiers: a program on every context\n"
"                       switch (see pipestat(8), OVERHEAD); the tracepoint\n"
"                       tier times them always, from the kernel's events\n"
"      --tier TIER      auto (default), tracepoint, function or syscall\n"
"      --max-keys N     in-kernel counter slots (default 16384); events\n"
"                       that find it full are reported as untracked\n"
"      --demo           run a built-in pipe workload and report on it\n"
"  -v, --verbose        say why tiers were not used; libbpf warnings\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"\n";

static const char usage_tail[] =
"\n"
"Examples:\n"
"  pipestat -i 1                  totals every second\n"
"  pipestat -k pid -d 10          per process, once after 10 s\n"
"  pipestat -k pipe --csv -i 1    per pipe, CSV every second\n"
"  pipestat -p 1234 -p 1235 -c 5 -i 2\n"
"  pipestat --demo                try it on a built-in workload\n";

#define USAGE_ERR(...) do { snprintf(err, n, __VA_ARGS__); return CLI_USAGE; } while (0)

int pipestat_parse(int argc, char **argv, struct pipestat_opts *o, FILE *out,
		   char *err, size_t n)
{
	enum { OPT_CSV = 256, OPT_DEMO, OPT_HIST, OPT_WAITS };
	static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'n' },
		{ "by", required_argument, NULL, 'k' },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "tier", required_argument, NULL, CLI_OPT_TIER },
		{ "demo", no_argument, NULL, OPT_DEMO },
		{ "hist", required_argument, NULL, OPT_HIST },
		{ "waits", no_argument, NULL, OPT_WAITS },
		{ "max-keys", required_argument, NULL, CLI_OPT_MAX_KEYS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	static const struct cli_help help = { "pipestat", usage, usage_tail };
	long mask;
	int c, v;

	memset(o, 0, sizeof(*o));
	o->load.tier = PT_TIER_AUTO;
	o->by = PT_BY_TOTAL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:c:d:p:n:k:vhV", longs, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->interval = cli_seconds(optarg, PIPESTAT_MAX_SECONDS);
			if (o->interval < PIPESTAT_MIN_INTERVAL)
				USAGE_ERR("invalid interval '%s': want %g to %.0f seconds",
					  optarg, PIPESTAT_MIN_INTERVAL, PIPESTAT_MAX_SECONDS);
			break;
		case 'c':
			if ((o->count = cli_long(optarg, 1, 1L << 30)) < 0)
				USAGE_ERR("invalid count '%s': want a whole number > 0", optarg);
			break;
		case 'd':
			if ((o->duration = cli_seconds(optarg, PIPESTAT_MAX_SECONDS)) < 0)
				USAGE_ERR("invalid duration '%s': want seconds > 0, at most %.0f",
					  optarg, PIPESTAT_MAX_SECONDS);
			break;
		case 'k':
			if ((v = by_parse(optarg)) < 0 || v == PT_BY_PIPE_PID)
				USAGE_ERR("invalid key '%s': want total, pid, comm or pipe",
					  optarg);
			o->by = v;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		case OPT_HIST:
			if ((mask = hist_parse(optarg)) < 0)
				USAGE_ERR("invalid --hist '%s': want write_size, read_size, "
					  "occupancy, wait_read, wait_write or all", optarg);
			o->load.hists |= mask;
			break;
		case OPT_WAITS:
			o->load.waits = true;
			break;
		case OPT_DEMO:
			o->demo = true;
			break;
		default:
			if ((c = cli_common(c, argv, &help, out, &o->load, err, n)))
				return c < 0 ? CLI_USAGE : CLI_EXIT_OK;
		}
	}
	if (optind < argc)
		USAGE_ERR("unexpected argument '%s'", argv[optind]);
	if (o->count && !o->interval)
		USAGE_ERR("-c needs -i");
	if (o->csv && o->load.hists)
		USAGE_ERR("--hist prints histograms as text: not with --csv");
	/* sleep lengths need the sleeps */
	if (o->load.hists & (1u << PT_HIST_WAIT_READ | 1u << PT_HIST_WAIT_WRITE))
		o->load.waits = true;
	if (o->demo && (o->load.npids || o->load.comm[0]))
		USAGE_ERR("--demo reports on its own workload: no -p or -n");
	return CLI_RUN;
}
