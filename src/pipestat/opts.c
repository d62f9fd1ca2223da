// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <string.h>
#include "core/cgroup.h"
#include "core/advise.h"
#include "core/cli.h"
#include "core/metrics.h"
#include "core/out.h"
#include "core/pipeline.h"
#include "listen.h"
#include "opts.h"

static const char usage[] =
"Usage: pipestat [-i SEC [-c N]] [-d SEC] [-p PID]... [-n COMM] [-k KEY]\n"
"                [-r N] [-s COLUMN] [-o LIST] [--rate] [interval [count]]\n"
"                [--csv|--json] [--listen ADDR:PORT [--web-config FILE]]\n"
"                [--textfile PATH] [--max-series N] [--expire SEC]\n"
"                [--graph FILE]\n"
"                [--hist NAME[,NAME]] [--waits|--no-waits]\n"
"                [--cgroup PATH] [--tier TIER] [--demo] [--max-keys N] [-v]\n"
"                [-- COMMAND [ARG...]]\n"
"       pipestat --advise [-i SEC [-c N]] [-d SEC] [-p PID]... [-n COMM] ...\n"
"       pipestat --resize PIPE=SIZE [-v]\n"
"Count what happens in Linux pipes (reads, writes, bytes, EAGAIN returns,\n"
"pipe page allocations, pool hits, user-copy sections), per interval.\n"
"With -- COMMAND: attach, run COMMAND, count it and every process it starts\n"
"(in a cgroup made for it in pipestat's own, whose limits still apply),\n"
"report when it exits and exit with its status (128+N after signal N).\n"
"\n"
"  -i, --interval SEC   report every SEC seconds, 0.1 or more (default: once,\n"
"                       at the end)\n"
"  -c, --count N        stop after N intervals (needs -i)\n"
"  -d, --duration SEC   stop after SEC seconds (default: at Ctrl-C)\n"
"  -p, --pid PID        only this process (repeatable, up to 64)\n"
"  -n, --comm NAME      only processes with this command name\n"
"  -r, --rows N         only the first N rows of each interval\n"
"  -s, --sort COLUMN    rows by this CSV column, largest first (default:\n"
"                       bytes moved), e.g. -s eagain_read\n"
"  -o, --columns LIST   the table's columns, comma-separated CSV names (and\n"
"                       eagain, wait_read_pct, wait_write_pct) or sets:\n"
"                       default (reads, writes, bytes, EAGAINs, waits),\n"
"                       kernel (pool, allocations, copy sections), all;\n"
"                       +LIST adds to the columns so far (the default).\n"
"                       Bytes in Ki/Mi/Gi (1024). CSV and JSON: every column;\n"
"                       with -o those it names, the others empty (null).\n"
"                       Only the hooks shown columns need are loaded\n"
"                       (Tiers, below)\n"
"      --rate           counts per second of the interval, not totals (the\n"
"                       table's headings say /s: r/s, w/s, rB/s, ...)\n"
"  -k, --by KEY         one row per: total (default), pid, comm, pipe,\n"
"                       cgroup (the cgroup v2 path, CSV column 'cgroup')\n"
"      --cgroup PATH    only tasks in this cgroup v2 directory's subtree,\n"
"                       e.g. /sys/fs/cgroup/system.slice/foo.service\n"
"      --listen ADDR:PORT  serve Prometheus /metrics (OpenMetrics) there:\n"
"                       127.0.0.1:9432 this host only, [::]:9432 every\n"
"                       interface (IPv4 and IPv6), localhost:9432, PORT 0\n"
"                       any free port (stderr says which); counters since\n"
"                       the start\n"
"      --web-config FILE  TLS and basic authentication for --listen, in the\n"
"                       exporters' web-config format (tls_server_config:\n"
"                       cert_file, key_file; basic_auth_users: NAME: bcrypt)\n"
"      --textfile PATH  write the same metrics to PATH every interval\n"
"                       (atomically; node_exporter's textfile collector)\n"
"      --graph FILE     draw the pipeline to FILE (.dot, .svg or .png), each\n"
"                       interval over the last (atomically): a node per\n"
"                       process, coloured by where it waits, an edge per\n"
"                       pipe with bytes/s and calls/s, the bottleneck marked;\n"
"                       implies --waits\n"
"      --max-series N   label sets in /metrics (default 1000); keys past\n"
"                       it are summed into one series overflow=\"true\"\n"
"      --expire SEC     -k pid: drop a process's series SEC seconds after it\n"
"                       exited (default 300; 0: never)\n"
"      --csv            CSV: one header, one row per key per interval\n"
"      --json           NDJSON: one JSON object per key per interval, keys\n"
"                       the CSV column names, unknown values null\n"
"      --hist NAME[,NAME]  log2 histograms per key after each report:\n"
"                       write_size, read_size, occupancy (ring slots in\n"
"                       use when a write starts), wait_read, wait_write\n"
"                       (ns per sleep; not with --no-waits), or all; not with\n"
"                       --csv; with --json as keys hist_NAME of each object;\n"
"                       with --listen, --textfile Prometheus histograms\n"
"      --no-waits       do not time the sleeps of readers and writers, even\n"
"                       for columns that show them (waits_*, wait_*_ns,\n"
"                       WAIT_R%, WAIT_W%, ring_peak, ring_full_writes then\n"
"                       unknown): no program on every context switch (see\n"
"                       pipestat(8), OVERHEAD)\n"
"      --waits          time them even when no column shown needs them\n"
"                       (they are timed whenever one does, as the default\n"
"                       table's WAIT_R%, WAIT_W%)\n"
"      --tier TIER      auto (default), tracepoint, function or syscall\n"
"      --max-keys N     in-kernel counter slots (default 16384) per interval,\n"
"                       per second with -- COMMAND; events that find it\n"
"                       full are reported as untracked\n"
"      --demo           run a built-in pipe workload and report on it\n"
"      --advise         instead of the table, one line per pipe worth a remark,\n"
"                       with the figures behind it: reader-bound,\n"
"                       writer-bound, bursty (with a ring size to resize to),\n"
"                       chatty, quota-shrunk, and on a kernel with the pipe\n"
"                       patches' knobs, fs.pipe-prealloc-max, -keep and\n"
"                       fs.pipe-read-batch from pool misses, page churn and\n"
"                       sections per read; pipes with fewer than 16 writes\n"
"                       in the interval (1 MiB for the waits' and knobs'\n"
"                       rules) are not judged; implies -k pipe and --waits\n"
"                       (see pipestat(8))\n"
"      --resize PIPE=SIZE  resize a live pipe and exit: PIPE is DEV:INO\n"
"                       (pipe_dev:pipe_ino, e.g. 0:15:812345; a bare INO if\n"
"                       on one device only) or PID:FD (a holder's descriptor,\n"
"                       taken with pidfd_getfd only), SIZE bytes (k, M, G:\n"
"                       KiB, MiB, GiB); the sizes before and after, and whose\n"
"                       pipe quota a grown pipe charges, go to stderr\n"
"  -v, --verbose        say why tiers were not used; libbpf warnings\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"\n";

static const char usage_tail[] =
"\n"
"Examples:\n"
"  pipestat -i 1                  totals every second\n"
"  pipestat 1 5                   the same, five times\n"
"  pipestat -k pid -s eagain_read -r 10 -i 5 --rate   top 10 by EAGAINs/s\n"
"  pipestat -k pid -d 10          per process, once after 10 s\n"
"  pipestat -k pipe --csv -i 1    per pipe, CSV every second\n"
"  pipestat -p 1234 -p 1235 -c 5 -i 2\n"
"  pipestat --demo                try it on a built-in workload\n"
"  pipestat -k pid -- sh -c 'yes | head -c 100M >/dev/null'\n"
"                                 one pipeline, per process\n"
"  pipestat --listen 127.0.0.1:9432   Prometheus counters per command\n"
"  pipestat --advise -d 10        what would help each busy pipe\n"
"  pipestat --resize 0:15:812345=1M   grow pipe 0:15:812345 to 1 MiB\n"
"\n"
"With --listen or --textfile: an interval of 1 s unless -i says, one\n"
"label set per command unless -k says (-k pid, -k pipe: capped by\n"
"--max-series), and no table on stdout (--csv or --json still print).\n";

#define USAGE_ERR(...) do { snprintf(err, n, __VA_ARGS__); return CLI_USAGE; } while (0)

/* The sleeps' columns: what --waits asks for. */
#define WAIT_COLS (PT_COL_BIT(PT_COL_WAITS_READ) | PT_COL_BIT(PT_COL_WAIT_READ_NS) | \
		   PT_COL_BIT(PT_COL_WAITS_WRITE) | PT_COL_BIT(PT_COL_WAIT_WRITE_NS))

static __u64 table_cols(const struct pt_columns *c)
{
	__u64 cols = 0;

	for (int i = 0; i < c->n; i++)
		cols |= PT_COL_BIT(c->col[i]);
	return cols;
}

/*
 * The columns the output shows, whose hooks alone the session loads: the
 * table's (-o), or --advise's; CSV and JSON every column unless -o
 * narrows them (the others are then empty, null); Prometheus every column.
 */
static __u64 shown_cols(const struct pipestat_opts *o, bool cols_given)
{
	struct pt_env env;
	__u64 cols;

	env_read_knobs(&env);
	if (o->advise)
		cols = advise_cols(&env);
	else if (o->csv || o->json)
		cols = cols_given ? table_cols(&o->cols) : PT_COLS_ALL;
	else
		cols = o->listen || o->textfile ? 0 : table_cols(&o->cols);
	if (o->listen || o->textfile)
		cols |= PT_COLS_ALL;
	if (o->sort_col >= 0)
		cols |= PT_COL_BIT(o->sort_col);
	return cols;
}

/* -i and the positional interval: PIPESTAT_MIN_INTERVAL or more */
static bool set_interval(struct pipestat_opts *o, const char *arg, char *err,
			 size_t n)
{
	o->interval = cli_seconds(arg, PIPESTAT_MAX_SECONDS);
	if (o->interval >= PIPESTAT_MIN_INTERVAL)
		return true;
	snprintf(err, n, "invalid interval '%s': want %g to %.0f seconds", arg,
		 PIPESTAT_MIN_INTERVAL, PIPESTAT_MAX_SECONDS);
	return false;
}

int pipestat_parse(int argc, char **argv, struct pipestat_opts *o, FILE *out,
		   char *err, size_t n)
{
	enum { OPT_CSV = 256, OPT_DEMO, OPT_HIST, OPT_WAITS, OPT_NO_WAITS, OPT_JSON, OPT_LISTEN,
	       OPT_TEXTFILE, OPT_WEB_CONFIG, OPT_MAX_SERIES, OPT_EXPIRE, OPT_CGROUP, OPT_RATE,
	       OPT_RESIZE, OPT_ADVISE, OPT_GRAPH };
	static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'n' },
		{ "by", required_argument, NULL, 'k' },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "rows", required_argument, NULL, 'r' },
		{ "sort", required_argument, NULL, 's' },
		{ "columns", required_argument, NULL, 'o' },
		{ "rate", no_argument, NULL, OPT_RATE },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "graph", required_argument, NULL, OPT_GRAPH },
		{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },
		{ "max-series", required_argument, NULL, OPT_MAX_SERIES },
		{ "expire", required_argument, NULL, OPT_EXPIRE },
		{ "tier", required_argument, NULL, CLI_OPT_TIER },
		{ "demo", no_argument, NULL, OPT_DEMO },
		{ "resize", required_argument, NULL, OPT_RESIZE },
		{ "advise", no_argument, NULL, OPT_ADVISE },
		{ "hist", required_argument, NULL, OPT_HIST },
		{ "waits", no_argument, NULL, OPT_WAITS },
		{ "no-waits", no_argument, NULL, OPT_NO_WAITS },
		{ "max-keys", required_argument, NULL, CLI_OPT_MAX_KEYS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	static const struct cli_help help = { "pipestat", usage, usage_tail, NULL };
	char host[LISTEN_HOST_MAX];
	unsigned int port;
	bool by_given = false, no_waits = false, waits = false, cols_given = false;
	long mask;
	int c, v, tracing = 0;

	memset(o, 0, sizeof(*o));
	/* the first "--" ends the options: a command and its own arguments */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			o->command = argv + i + 1;
			argc = i;
			break;
		}
	o->max_series = 1000;
	o->expire = 300;
	o->sort_col = -1;
	columns_default(&o->cols);
	o->load.tier = PT_TIER_AUTO;
	o->by = PT_BY_TOTAL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:c:d:p:n:k:r:s:o:vhV", longs, NULL)) != -1) {
		tracing += c != OPT_RESIZE && c != 'v';
		switch (c) {
		case 'i':
			if (!set_interval(o, optarg, err, n))
				return CLI_USAGE;
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
				USAGE_ERR("invalid key '%s': want total, pid, comm, pipe "
					  "or cgroup", optarg);
			o->by = v;
			by_given = true;
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
			no_waits = false;
			waits = true;
			break;
		case OPT_NO_WAITS:
			no_waits = true;
			waits = false;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'r':
			if ((o->rows = cli_long(optarg, 1, 1L << 30)) < 0)
				USAGE_ERR("invalid rows '%s': want a whole number > 0", optarg);
			break;
		case 's':
			if ((o->sort_col = metric_parse(optarg)) < 0)
				USAGE_ERR("invalid sort column '%s': want a CSV metric column, "
					  "e.g. write_bytes or eagain_read", optarg);
			break;
		case 'o':
			if (!columns_parse(&o->cols, optarg, err, n))
				return CLI_USAGE;
			cols_given = true;
			break;
		case OPT_RATE:
			o->rate = true;
			break;
		case OPT_CGROUP:
			if (!cgroup_check(optarg, err, n))
				return CLI_USAGE;
			o->load.cgroup = optarg;
			break;
		case OPT_LISTEN:
			if (!listen_parse(optarg, host, &port, err, n))
				return CLI_USAGE;
			o->listen = optarg;
			break;
		case OPT_WEB_CONFIG:
			if (!*optarg)
				USAGE_ERR("invalid --web-config '': want a file name");
			o->web_config = optarg;
			break;
		case OPT_TEXTFILE:
			if (!*optarg)
				USAGE_ERR("invalid --textfile '': want a file name");
			o->textfile = optarg;
			break;
		case OPT_GRAPH:
			if (pl_format_of(optarg) == PL_FMT_NONE)
				USAGE_ERR("invalid --graph '%s': want a file name ending .dot, "
					  ".svg or .png", optarg);
			o->graph = optarg;
			break;
		case OPT_EXPIRE:
			if ((o->expire = cli_long(optarg, 0, 1L << 30)) < 0)
				USAGE_ERR("invalid --expire '%s': want whole seconds, 0 for never",
					  optarg);
			break;
		case OPT_MAX_SERIES:
			if ((o->max_series = cli_long(optarg, 1, 1L << 20)) < 0)
				USAGE_ERR("invalid --max-series '%s': want 1 to %ld",
					  optarg, 1L << 20);
			break;
		case OPT_DEMO:
			o->demo = true;
			break;
		case OPT_ADVISE:
			o->advise = true;
			break;
		case OPT_RESIZE:
			if (o->resize)
				USAGE_ERR("--resize given twice: one pipe per run");
			if (!resize_parse(optarg, &o->resize_pipe, &o->resize_size, err, n))
				return CLI_USAGE;
			o->resize = true;
			break;
		default:
			if ((c = cli_common(c, argv, &help, out, &o->load, err, n)))
				return c < 0 ? CLI_USAGE : CLI_EXIT_OK;
		}
	}
	/* libbpf-tools' positional form: pipestat [interval [count]] */
	if (optind < argc && !o->interval && cli_seconds(argv[optind], 1e7) > 0) {
		if (!set_interval(o, argv[optind++], err, n))
			return CLI_USAGE;
		if (optind < argc && !o->count &&
		    (o->count = cli_long(argv[optind], 1, 1L << 30)) > 0)
			optind++;
		if (o->count < 0)
			o->count = 0;
	}
	if (optind < argc)
		USAGE_ERR("unexpected argument '%s'", argv[optind]);
	if (o->resize && (tracing || o->interval || o->command))
		USAGE_ERR("--resize resizes a pipe and exits: only -v with it");
	if (o->web_config && !o->listen)
		USAGE_ERR("--web-config is for --listen: give both");
	if (o->csv && o->json)
		USAGE_ERR("--csv and --json: give one");
	if (o->advise && (o->csv || o->json || o->listen || o->textfile ||
			  o->load.hists || (by_given && o->by != PT_BY_PIPE)))
		USAGE_ERR("--advise prints remarks per pipe: not with --csv, --json, "
			  "--listen, --textfile, --hist or another -k");
	if (o->graph && no_waits)
		USAGE_ERR("--graph colours processes by their waits: not with --no-waits");
	if (o->advise && no_waits)
		USAGE_ERR("--advise judges the sides' waits: not with --no-waits");
	if (o->advise)
		o->by = PT_BY_PIPE;	/* judged per pipe */
	if ((o->listen || o->textfile) && !o->interval)
		o->interval = 1;	/* the counters' freshness */
	if ((o->listen || o->textfile) && !by_given)
		o->by = PT_BY_COMM;
	o->load.key_cgroup = o->by == PT_BY_CGROUP;
	if (o->count && !o->interval)
		USAGE_ERR("-c needs -i");
	if (o->csv && o->load.hists)
		USAGE_ERR("--hist prints histograms as text: not with --csv");
	/* hooks for what is shown; who is blocked (the default table's waits)
	 * unless refused (the cost: pipestat(8), OVERHEAD) */
	o->load.cols = shown_cols(o, cols_given) | (waits || o->graph ? WAIT_COLS : 0);
	o->load.hooks_off = no_waits ? PT_HOOK_WAITS : 0;
	if (no_waits && o->load.hists & (1u << PT_HIST_WAIT_READ | 1u << PT_HIST_WAIT_WRITE))
		USAGE_ERR("--hist wait_read/wait_write need the waits: not with --no-waits");
	if (o->command && !o->command[0])
		USAGE_ERR("'--' needs a command after it");
	if (o->command && (o->demo || o->load.npids || o->load.cgroup))
		USAGE_ERR("-- COMMAND counts the command: no --demo, -p or --cgroup");
	if (o->command && (o->duration || o->count))
		USAGE_ERR("-- COMMAND ends when the command exits: no -d or -c");
	if (o->demo && (o->load.npids || o->load.comm[0]))
		USAGE_ERR("--demo reports on its own workload: no -p or -n");
	return CLI_RUN;
}
