// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "pipetrace-bench.h"

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

#define AT(field)	offsetof(struct pb_opts, field)

/* a list option's numbers in min..max, or why in err */
static bool set_list(long *v, int *count, const char *arg, long min, long max,
		     const char *why, char *err, size_t n)
{
	if ((*count = parse_list(arg, v, PB_MAX_LIST, min, max)) >= 0)
		return true;
	snprintf(err, n, why, arg);
	return false;
}

static bool set_sizes(void *opts, const char *arg, char *err, size_t n)
{
	struct pb_opts *o = opts;

	return set_list(o->sizes, &o->nsizes, arg, 1, 16L << 20,
			"invalid size list '%s': want up to " CLI_STR(PB_MAX_LIST)
			" sizes of 1..16777216 bytes, e.g. 4096,65536", err, n);
}

static bool set_writers(void *opts, const char *arg, char *err, size_t n)
{
	struct pb_opts *o = opts;

	return set_list(o->writers, &o->nwriters, arg, 1, 64,
			"invalid writers list '%s': want numbers 1..64, e.g. 1,2,5", err, n);
}

static bool set_readers(void *opts, const char *arg, char *err, size_t n)
{
	struct pb_opts *o = opts;

	return set_list(o->readers, &o->nreaders, arg, 1, 64,
			"invalid readers list '%s': want numbers 1..64, e.g. 1,5,10", err, n);
}

static bool set_pipe_sizes(void *opts, const char *arg, char *err, size_t n)
{
	struct pb_opts *o = opts;

	return set_list(o->pipe_sizes, &o->npipe_sizes, arg, 0, 1L << 30,
			"invalid pipe size list '%s': want bytes 0..1073741824 (0: as "
			"made), e.g. 0,1048576", err, n);
}

static bool set_duration(void *duration, const char *arg, char *err, size_t n)
{
	return cli_set_seconds(duration, arg, 0, 1e6,
			       "invalid duration '%s': want seconds > 0", err, n);
}

static bool set_reps(void *reps, const char *arg, char *err, size_t n)
{
	long v;

	if (!cli_whole(&v, arg, 1, PB_MAX_REPS,
		       "invalid reps '%s': want 1.." CLI_STR(PB_MAX_REPS), err, n))
		return false;
	*(int *)reps = v;
	return true;
}

static bool set_ops(void *ops, const char *arg, char *err, size_t n)
{
	return cli_whole(ops, arg, 1, 1L << 40,
			 "invalid ops '%s': want a whole number > 0", err, n);
}

static bool set_cpus(void *opts, const char *arg, char *err, size_t n)
{
	struct pb_opts *o = opts;

	if ((o->ncpus = parse_cpus(arg, o->cpus, PB_MAX_CPUS)) >= 0)
		return true;
	snprintf(err, n, "invalid CPU list '%s': want CPUs this process may use, "
		 "e.g. 0,1 or 0-3", arg);
	return false;
}

static bool set_ab(void *ab, const char *arg, char *err, size_t n)
{
	if (((struct pb_ab *)ab)->on) {
		snprintf(err, n, "--ab given twice: one knob per run");
		return false;
	}
	return !pb_ab_parse(arg, ab, err, n);
}

static const struct opt options[] = {
	{ .flag = 'S', .name = "size", .arg = "LIST", .set = set_sizes,
	  .help =
		"sizes for stream and pingpong, e.g. 4096,65536\n"
		"(default: stream 4096,32768,65536,131072; pingpong 1)",
	  .man =
		"Comma-separated sizes in bytes (1..16777216) for \\fBstream\\fR and\n"
		"\\fBpingpong\\fR (it replaces both defaults)." },
	{ .flag = 'w', .name = "writers", .arg = "LIST", .set = set_writers,
	  .help =
		"mix writers (default 1,2,5)",
	  .man =
		"Writers of the \\fBmix\\fR grid, 1..64 each." },
	{ .name = "readers", .arg = "LIST", .set = set_readers,
	  .help =
		"mix readers (default 1,5,10)",
	  .man =
		"Readers of the \\fBmix\\fR grid, 1..64 each." },
	{ .flag = 'P', .name = "pipe-size", .arg = "LIST", .set = set_pipe_sizes,
	  .help =
		"bursty's pipe sizes in bytes (F_SETPIPE_SZ), 0 = as\n"
		"made; e.g. 0,1048576 (the default): before/after",
	  .man =
		"\\fBbursty\\fR's pipe sizes in bytes, set with \\fBF_SETPIPE_SZ\\fR before\n"
		"the run (the kernel rounds up to a power of two pages); \\fB0\\fR keeps the\n"
		"pipe as made. Default \\fB0,1048576\\fR." },
	{ .flag = 'd', .name = "duration", .arg = "SEC", .set = set_duration, .at = AT(duration),
	  .help =
		"length of one repetition (default 1)",
	  .man =
		"Length of one repetition (default 1; fractions allowed)." },
	{ .flag = 'R', .name = "reps", .arg = "N", .set = set_reps, .at = AT(reps),
	  .help =
		"repetitions per point (default 5); the median, min\n"
		"and max are reported",
	  .man =
		"Repetitions per point (per side with \\fB\\-\\-ab\\fR), 1..999, default 5." },
	{ .flag = 'N', .name = "ops", .arg = "N", .set = set_ops, .at = AT(ops),
	  .help =
		"end a repetition after N writes (round trips for\n"
		"pingpong; per writer for mix) instead of a duration\n"
		"(bursty then runs 1 s)",
	  .man =
		"End a repetition after \\fIN\\fR writes (round trips for \\fBpingpong\\fR,\n"
		"per writer for \\fBmix\\fR) instead of after a duration: exact counts for\n"
		"tests." },
	{ .flag = 'C', .name = "cpus", .arg = "LIST", .set = set_cpus,
	  .help =
		"CPUs to pin to, e.g. 0,1 (two CPUs) or 0 (one CPU);\n"
		"default: not pinned, as perf bench sched pipe",
	  .man =
		"CPUs to pin to, e.g. \\fB0,1\\fR or \\fB2\\-3\\fR; each must be one this\n"
		"process may run on. The two ends of \\fBstream\\fR and \\fBpingpong\\fR take\n"
		"the first and second entry (one entry: both on that CPU); \\fBmix\\fR goes\n"
		"round-robin over the list; \\fBbw\\fR and \\fBuring\\fR are never pinned.\n"
		"Default: not pinned, the scheduler places both ends, as\n"
		"\\fBperf bench sched pipe\\fR does by default (two processes; its \\fB\\-T\\fR\n"
		"threads mode has no counterpart here). Where the ends run changes the\n"
		"figure several-fold: on one CPU a round trip is two context switches, on\n"
		"two it adds two cross-CPU wake-ups; compare like with like." },
	{ .name = "quick", .at = AT(quick),
	  .help =
		"short runs for tests: 3 reps of 0.1 s",
	  .man =
		"Short runs for tests: 3 repetitions of 0.1 s (an explicit \\fB\\-R\\fR,\n"
		"\\fB\\-d\\fR or \\fB\\-N\\fR wins)." },
	{ .name = "ab", .arg = "KNOB=A,B", .set = set_ab, .at = AT(ab),
	  .values = "pipe-prealloc-max= pipe-prealloc-keep= pipe-read-batch=",
	  .help =
		"run every point with fs.KNOB=A (baseline) and =B\n"
		"(patched), alternating, and print both, the delta\n"
		"and a noise estimate; the knob is restored on exit.\n"
		"KNOB: pipe-prealloc-max (0..8), pipe-prealloc-keep\n"
		"(0..8), pipe-read-batch (0..1)",
	  .man =
		"A/B over one of \\fB/proc/sys/fs/\\fR\\fIKNOB\\fR (a leading \\fBfs.\\fR is\n"
		"allowed): \\fBpipe\\-prealloc\\-max\\fR (0..8: pages a write prefills before\n"
		"taking the mutex; 0 = none, every page under it), \\fBpipe\\-prealloc\\-keep\\fR\n"
		"(0..8: pages the pool keeps between writes), \\fBpipe\\-read\\-batch\\fR (0/1:\n"
		"copy a run of whole buffers to user space in one user-access section)." },
	{ .name = "baseline", .at = AT(baseline),
	  .help =
		"run every point also with nothing attached (the\n"
		"programs detached), alternating, and print that row\n"
		"first: what attaching costs the workload",
	  .man =
		"Run every point also with nothing attached (pipetrace\\-bench's programs detached,\n"
		"the session reopened for the attached repetitions), alternating\n"
		"attached and unattached repetitions, and print the unattached row first:\n"
		"what attaching costs the workload, said in a line\n"
		"\\fBattached:\\fR \\fIN\\fR\\fB% throughput vs nothing attached\\fR (with the\n"
		"noise, as \\fBNOISE%\\fR). Its metric columns are \\fB\\-\\fR (CSV:\n"
		"empty), its throughput is the workload's own. Each switch reloads the\n"
		"programs (about half a second). Not with \\fB\\-\\-ab\\fR." },
	{ .name = "csv", .at = AT(csv),
	  .help =
		"CSV: one header, one row per point (per side)",
	  .man =
		"CSV instead of the table (see \\fBCSV\\fR)." },
	{ .name = "json", .at = AT(json),
	  .help =
		"NDJSON: the CSV's rows as one JSON object per line,\n"
		"keyed by the CSV column names; unknown is null",
	  .man =
		"NDJSON instead of the table: one JSON object per CSV row, keyed by the\n"
		"CSV column names, numbers as numbers, unknown values (and the \\fB\\-\\-ab\\fR\n"
		"fields without \\fB\\-\\-ab\\fR) \\fBnull\\fR, \\fBderived\\fR an array." },
	CLI_OPT_TIER(struct pb_opts,
		"\\fBauto\\fR (default), \\fBtracepoint\\fR, \\fBfunction\\fR or\n"
		"\\fBsyscall\\fR, as in\n"
		".BR pipestat (8)."),
	CLI_OPT_VERBOSE(struct pb_opts,
		"Say why better tiers were not used; libbpf warnings."),
	CLI_OPT_HELP("Usage, workloads, options and examples."),
	CLI_OPT_VERSION,
	/* letters every front end gives a meaning pipetrace-bench lacks */
	{ .flag = 's', .refuse = "-s is the sort column in every front end: "
				 "pipetrace-bench's size list is -S (--size)" },
	{ .flag = 'r', .refuse = "-r is the row count in every front end: "
				 "pipetrace-bench's readers list is --readers" },
	{ .flag = 'n', .refuse = "-n is the command name in every front end: "
				 "pipetrace-bench's op count is -N (--ops)" },
	{ .flag = 'c', .refuse = "-c is the interval count in every front end: "
				 "pipetrace-bench's CPU list is -C (--cpus)" },
	{}
};

const struct opt_tool pb_tool = {
	.prog = "pipetrace-bench",
	.opts = options,
	.head =
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
"\n",
	.foot =
"\n"
"Examples:\n"
"  pipetrace-bench stream                          the size sweep\n"
"  pipetrace-bench --ab pipe-read-batch=0,1 stream\n"
"  pipetrace-bench --ab pipe-prealloc-max=0,8 -S 32768,65536 stream --csv\n",
	.operands = pb_wl_names,
};

static bool operands(struct pb_opts *o, int argc, char **argv, char *err, size_t n)
{
	bool any_wl = false;

	for (; optind < argc; optind++) {
		const char *w = argv[optind];
		bool all = !strcmp(w, pb_wl_names[PB_NWL]), found = all;

		for (int i = 0; i < PB_NWL; i++)
			if (all || !strcmp(w, pb_wl_names[i]))
				o->wl[i] = found = true;
		if (!found) {
			snprintf(err, n, "unknown workload '%s': want stream, mix, "
				 "pingpong, uring, bw, bursty or all", w);
			return false;
		}
		any_wl = true;
	}
	if (!any_wl)
		for (int i = 0; i < PB_NWL; i++)
			o->wl[i] = true;
	return true;
}

#define USAGE_ERR(...) do { snprintf(err, n, __VA_ARGS__); return false; } while (0)

/* the rules between options, and the defaults they settle */
static bool validate(struct pb_opts *o, char *err, size_t n)
{
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
	return true;
}

int pb_parse(int argc, char **argv, struct pb_opts *o, FILE *out,
	     char *err, size_t n)
{
	unsigned long long seen;
	int rc;

	memset(o, 0, sizeof(*o));
	o->load.tier = PT_TIER_AUTO;
	o->load.cols = pb_out_cols();
	o->ab.value[0] = o->ab.value[1] = -1;
	rc = opt_parse(&pb_tool, argc, argv, o, &seen, out, err, n);
	if (rc != CLI_RUN)
		return rc;
	if (!operands(o, argc, argv, err, n) || !validate(o, err, n))
		return CLI_USAGE;
	snprintf(o->load.comm, sizeof(o->load.comm), PB_COMM_FMT, (int)getpid());
	return CLI_RUN;
}
