// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/cli.h"
#include "pipetrace-bench.h"

const char *const pb_wl_names[PB_NWL] = {
	[PB_STREAM] = "stream",
	[PB_MIX] = "mix",
	[PB_PINGPONG] = "pingpong",
	[PB_URING] = "uring",
	[PB_BW] = "bw",
	[PB_BURSTY] = "bursty",
};

static const char usage[] =
"Usage: pipetrace-bench [OPTIONS] [WORKLOAD...]\n"
"Run the reference pipe workloads and print each one's throughput next to\n"
"the pipe metrics measured during the run; --ab compares two values of a\n"
"kernel knob on one boot. Needs root (BPF; --ab writes /proc/sys/fs).\n"
"\n"
"Workloads (default: all of them):\n"
"  stream    1 writer + 1 reader process, writes and reads of SIZE\n"
"  mix       WRITERS x READERS processes on one 1 MiB pipe, 64 KiB I/O\n"
"  pingpong  SIZE-byte round trips between two processes (default 1 byte)\n"
"  uring     128 pipes x 256 rounds of 4 KiB io_uring reads, on empty\n"
"            pipes and on pipes that hold the data\n"
"  bw        lmbench bw_pipe: 64 KiB chunks through one pipe, not pinned\n"
"  bursty    256 KiB bursts every 20 ms in 64 KiB writes; the reader takes\n"
"            2 ms per read (keeps up on average); MB/s and the writer's\n"
"            time in write(2), per --pipe-size\n"
"\n"
"  -S, --size LIST      sizes for stream and pingpong, e.g. 4096,65536\n"
"                       (default: stream 4096,32768,65536,131072; pingpong 1)\n"
"  -w, --writers LIST   mix writers (default 1,2,5)\n"
"      --readers LIST   mix readers (default 1,5,10)\n"
"  -P, --pipe-size LIST bursty's pipe sizes in bytes (F_SETPIPE_SZ), 0 = as\n"
"                       made; e.g. 0,1048576 (the default): before/after\n"
"  -d, --duration SEC   length of one repetition (default 1)\n"
"  -R, --reps N         repetitions per point (default 5); the median, min\n"
"                       and max are reported\n"
"  -N, --ops N          end a repetition after N writes (round trips for\n"
"                       pingpong; per writer for mix) instead of a duration\n"
"                       (bursty then runs 1 s)\n"
"  -C, --cpus LIST      CPUs to pin to, e.g. 0,1 (two CPUs) or 0 (one CPU);\n"
"                       default: not pinned, as perf bench sched pipe\n"
"      --quick          short runs for tests: 3 reps of 0.1 s\n"
"      --ab KNOB=A,B    run every point with fs.KNOB=A (baseline) and =B\n"
"                       (patched), alternating, and print both, the delta\n"
"                       and a noise estimate; the knob is restored on exit.\n"
"                       KNOB: pipe-prealloc-max (0..8), pipe-prealloc-keep\n"
"                       (0..8), pipe-read-batch (0..1)\n"
"      --baseline       run every point also with nothing attached (the\n"
"                       programs detached), alternating, and print that row\n"
"                       first: what attaching costs the workload\n"
"      --csv            CSV: one header, one row per point (per side)\n"
"      --json           NDJSON: the CSV's rows as one JSON object per line,\n"
"                       keyed by the CSV column names; unknown is null\n"
"      --tier TIER      auto (default), tracepoint, function or syscall\n"
"  -v, --verbose        say why tiers were not used; libbpf warnings\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"\n"
"Examples:\n"
"  pipetrace-bench stream                          the size sweep\n"
"  pipetrace-bench --ab pipe-read-batch=0,1 stream\n"
"  pipetrace-bench --ab pipe-prealloc-max=0,8 -S 32768,65536 stream --csv\n";

/* no empty entries: strtok_r would skip them */
static bool list_ok(const char *s, size_t cap)
{
	size_t len = strlen(s);

	return len && len < cap && s[0] != ',' && s[len - 1] != ',' &&
	       !strstr(s, ",,");
}

/* "a,b,c" of numbers in min..max into v; count, or -1 */
static int parse_list(const char *s, long *v, int cap, long min, long max)
{
	char buf[256], *tok, *save;
	int n = 0;

	if (!list_ok(s, sizeof(buf)))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == cap || (v[n] = cli_long(tok, min, max)) < 0)
			return -1;
		n++;
	}
	return n ? n : -1;
}

/* "0,1" or "0-3,6": CPUs this process may run on; count, or -1 */
static int parse_cpus(const char *s, int *cpus, int cap)
{
	char buf[256], *tok, *save;
	cpu_set_t allowed;
	int n = 0;

	if (!list_ok(s, sizeof(buf)) ||
	    sched_getaffinity(0, sizeof(allowed), &allowed))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		long lo, hi;

		if (dash)
			*dash = '\0';
		lo = cli_long(tok, 0, CPU_SETSIZE - 1);
		hi = dash ? cli_long(dash + 1, 0, CPU_SETSIZE - 1) : lo;
		if (lo < 0 || hi < lo)
			return -1;
		for (long c = lo; c <= hi; c++) {
			if (n == cap || !CPU_ISSET(c, &allowed))
				return -1;
			cpus[n++] = c;
		}
	}
	return n;
}

int pb_cpu_at(const struct pb_opts *o, int i)
{
	return o->ncpus ? o->cpus[i % o->ncpus] : -1;
}

const char *pb_placement(const struct pb_opts *o, const struct pb_point *p,
			 char *buf, size_t n)
{
	int a = pb_cpu_at(o, 0), b = pb_cpu_at(o, 1);

	/* bw is lmbench's unpinned run; uring is one process, never pinned */
	if (p->wl == PB_BW || p->wl == PB_URING || p->wl == PB_BURSTY || !o->ncpus)
		snprintf(buf, n, "unpinned");
	else if (p->wl == PB_MIX && o->ncpus > 2)
		snprintf(buf, n, "round-robin over %d CPUs", o->ncpus);
	else if (a == b)
		snprintf(buf, n, "same CPU %d", a);
	else
		snprintf(buf, n, "CPUs %d and %d", a, b);
	return buf;
}

#define USAGE_ERR(...) do { snprintf(err, n, __VA_ARGS__); return CLI_USAGE; } while (0)

int pb_parse(int argc, char **argv, struct pb_opts *o, FILE *out,
	     char *err, size_t n)
{
	enum { OPT_QUICK = 256, OPT_AB, OPT_CSV, OPT_JSON, OPT_READERS,
	       OPT_BASELINE };
	static const struct option longs[] = {
		{ "size", required_argument, NULL, 'S' },
		{ "writers", required_argument, NULL, 'w' },
		{ "readers", required_argument, NULL, OPT_READERS },
		{ "pipe-size", required_argument, NULL, 'P' },
		{ "duration", required_argument, NULL, 'd' },
		{ "reps", required_argument, NULL, 'R' },
		{ "ops", required_argument, NULL, 'N' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "ab", required_argument, NULL, OPT_AB },
		{ "baseline", no_argument, NULL, OPT_BASELINE },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "tier", required_argument, NULL, CLI_OPT_TIER },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	static const struct cli_help help = { "pipetrace-bench", usage, NULL, NULL };
	bool any_wl = false;
	int c;
	long l;

	memset(o, 0, sizeof(*o));
	o->load.tier = PT_TIER_AUTO;
	o->load.cols = pb_out_cols();
	o->ab.value[0] = o->ab.value[1] = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":S:w:P:d:R:N:C:s:r:n:c:vhV", longs, NULL)) != -1) {
		switch (c) {
		case 's': case 'r': case 'n': case 'c':
			USAGE_ERR("-%c is the %s in every front end: pipetrace-bench's %s is %s",
				  c, c == 's' ? "sort column" : c == 'r' ? "row count" :
				  c == 'n' ? "command name" : "interval count",
				  c == 's' ? "size list" : c == 'r' ? "readers list" :
				  c == 'n' ? "op count" : "CPU list",
				  c == 's' ? "-S (--size)" : c == 'r' ? "--readers" :
				  c == 'n' ? "-N (--ops)" : "-C (--cpus)");
		case 'S':
			if ((o->nsizes = parse_list(optarg, o->sizes, PB_MAX_LIST,
						    1, 16L << 20)) < 0)
				USAGE_ERR("invalid size list '%s': want up to %d sizes "
					  "of 1..16777216 bytes, e.g. 4096,65536",
					  optarg, PB_MAX_LIST);
			break;
		case 'w':
			if ((o->nwriters = parse_list(optarg, o->writers, PB_MAX_LIST,
						      1, 64)) < 0)
				USAGE_ERR("invalid writers list '%s': want numbers "
					  "1..64, e.g. 1,2,5", optarg);
			break;
		case OPT_READERS:
			if ((o->nreaders = parse_list(optarg, o->readers, PB_MAX_LIST,
						      1, 64)) < 0)
				USAGE_ERR("invalid readers list '%s': want numbers "
					  "1..64, e.g. 1,5,10", optarg);
			break;
		case 'P':
			if ((o->npipe_sizes = parse_list(optarg, o->pipe_sizes,
							 PB_MAX_LIST, 0, 1L << 30)) < 0)
				USAGE_ERR("invalid pipe size list '%s': want bytes "
					  "0..1073741824 (0: as made), e.g. 0,1048576",
					  optarg);
			break;
		case 'd':
			if ((o->duration = cli_seconds(optarg, 1e6)) < 0)
				USAGE_ERR("invalid duration '%s': want seconds > 0",
					  optarg);
			break;
		case 'R':
			if ((l = cli_long(optarg, 1, PB_MAX_REPS)) < 0)
				USAGE_ERR("invalid reps '%s': want 1..%d", optarg,
					  PB_MAX_REPS);
			o->reps = l;
			break;
		case 'N':
			if ((o->ops = cli_long(optarg, 1, 1L << 40)) < 0)
				USAGE_ERR("invalid ops '%s': want a whole number > 0",
					  optarg);
			break;
		case 'C':
			if ((o->ncpus = parse_cpus(optarg, o->cpus, PB_MAX_CPUS)) < 0)
				USAGE_ERR("invalid CPU list '%s': want CPUs this "
					  "process may use, e.g. 0,1 or 0-3", optarg);
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_AB:
			if (o->ab.on)
				USAGE_ERR("--ab given twice: one knob per run");
			if (pb_ab_parse(optarg, &o->ab, err, n))
				return CLI_USAGE;
			break;
		case OPT_BASELINE:
			o->baseline = true;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		default:
			if ((c = cli_common(c, argv, &help, out, &o->load, err, n)))
				return c < 0 ? CLI_USAGE : CLI_EXIT_OK;
		}
	}
	for (; optind < argc; optind++) {
		const char *w = argv[optind];
		bool found = !strcmp(w, "all");

		for (int i = 0; i < PB_NWL; i++)
			if (found && !strcmp(w, "all"))
				o->wl[i] = true;
			else if (!strcmp(w, pb_wl_names[i]))
				o->wl[i] = found = true;
		if (!found)
			USAGE_ERR("unknown workload '%s': want stream, mix, "
				  "pingpong, uring, bw, bursty or all", w);
		any_wl = true;
	}
	if (!any_wl)
		for (int i = 0; i < PB_NWL; i++)
			o->wl[i] = true;
	if (o->csv && o->json)
		USAGE_ERR("--csv and --json: give one");
	if (o->baseline && o->ab.on)
		USAGE_ERR("--baseline and --ab both make a second side: give one");
	if (o->ops && o->duration)
		USAGE_ERR("--ops and --duration both end a repetition: give one");
	if (!o->reps)
		o->reps = o->quick ? 3 : 5;
	if (!o->duration && !o->ops)
		o->duration = o->quick ? 0.1 : 1;
	snprintf(o->load.comm, sizeof(o->load.comm), PB_COMM_FMT, (int)getpid());
	return CLI_RUN;
}
