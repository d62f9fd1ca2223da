// SPDX-License-Identifier: GPL-2.0
/* pipestat's option parsing: values, limits and the errors users see. */
#include <stdio.h>
#include "tune/advise.h"
#include "output/columns.h"
#include "model/metrics.h"
#include "pipestat/listen.h"
#include "pipestat/opts.h"
#include "unit.h"

static int parse(const char *line, struct pipestat_opts *o, char *err)
{
	/* static: o->command points into argv after the call */
	static char buf[1024], *argv[256];
	int argc = 0;
	FILE *out = fopen("/dev/null", "w");
	int rc;

	snprintf(buf, sizeof(buf), "pipestat %s", line);
	for (char *t = strtok(buf, " "); t && argc < 255; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	rc = pipestat_parse(argc, argv, o, out, err, 256);
	fclose(out);
	return rc;
}

static void defaults(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(parse("", &o, err) == CLI_RUN);
	CHECK(o.interval == 0 && o.count == 0 && o.duration == 0);
	CHECK(o.by == PT_BY_TOTAL && !o.csv && !o.demo);
	CHECK(o.load.tier == PT_TIER_AUTO && o.load.npids == 0 && !o.load.comm[0]);
	CHECK(!o.load.hooks_off);	/* who is blocked: timed unless refused */
	CHECK(parse("--no-waits", &o, err) == CLI_RUN && o.load.hooks_off == PT_HOOK_WAITS);
	CHECK(parse("--no-waits --waits", &o, err) == CLI_RUN && !o.load.hooks_off);
	CHECK(parse("--no-waits --hist wait_read", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--hist wait_read/wait_write need the waits: not with --no-waits");
}

/* The columns the output shows: the session loads their hooks only. */
static void shown_cols(void)
{
	const __u64 wait_cols = PT_COL_BIT(PT_COL_WAITS_READ) |
		PT_COL_BIT(PT_COL_WAIT_READ_NS) | PT_COL_BIT(PT_COL_WAITS_WRITE) |
		PT_COL_BIT(PT_COL_WAIT_WRITE_NS);
	struct pipestat_opts o;
	struct pt_columns c;
	char err[256];
	__u64 dflt = 0;

	columns_default(&c);
	for (int i = 0; i < c.n; i++)
		dflt |= PT_COL_BIT(c.col[i]);
	CHECK(parse("-k pid", &o, err) == CLI_RUN && o.load.cols == dflt);
	CHECK(parse("-o reads,pool_hits", &o, err) == CLI_RUN &&
	      o.load.cols == (PT_COL_BIT(PT_COL_READS) | PT_COL_BIT(PT_COL_POOL_HITS)));
	CHECK(parse("-o reads -s alloc_locked", &o, err) == CLI_RUN &&
	      o.load.cols == (PT_COL_BIT(PT_COL_READS) | PT_COL_BIT(PT_COL_ALLOC_LOCKED)));
	/* CSV, JSON: every column, unless -o narrows them */
	CHECK(parse("--csv", &o, err) == CLI_RUN && o.load.cols == PT_COLS_ALL);
	CHECK(parse("--json -o writes", &o, err) == CLI_RUN &&
	      o.load.cols == PT_COL_BIT(PT_COL_WRITES));
	CHECK(parse("--listen 127.0.0.1:0 -o writes", &o, err) == CLI_RUN &&
	      o.load.cols == PT_COLS_ALL);
	/* --waits: the sleeps' columns whatever the others */
	CHECK(parse("-o reads --waits", &o, err) == CLI_RUN &&
	      o.load.cols == (PT_COL_BIT(PT_COL_READS) | wait_cols));
	CHECK(parse("--csv --no-waits", &o, err) == CLI_RUN &&
	      o.load.cols == PT_COLS_ALL && o.load.hooks_off == PT_HOOK_WAITS);
}

static void values(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(parse("-i 0.5 -c 3 -d 10 -k pipe --csv --tier syscall -v", &o, err) == CLI_RUN);
	CHECK(o.interval == 0.5 && o.count == 3 && o.duration == 10);
	CHECK(o.by == PT_BY_PIPE && o.csv && o.load.tier == PT_TIER_SYSCALL && o.load.verbose);
	CHECK(parse("--interval 2 --by comm --comm make -p 1 --pid 22", &o, err) == CLI_RUN);
	CHECK(o.interval == 2 && o.by == PT_BY_COMM);
	CHECK_STR(o.load.comm, "make");
	CHECK(o.load.npids == 2 && o.load.pids[0] == 1 && o.load.pids[1] == 22);
	CHECK(parse("-n 123456789012345", &o, err) == CLI_RUN);	/* 15: fits */
	CHECK(parse("--demo -k pipe", &o, err) == CLI_RUN && o.demo);
	CHECK(parse("--max-keys 100", &o, err) == CLI_RUN && o.load.max_keys == 100);
	CHECK(parse("--help", &o, err) == CLI_EXIT_OK);
	CHECK(parse("-V", &o, err) == CLI_EXIT_OK);
}

static void errors(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(parse("-i 0", &o, err) == CLI_USAGE);
	CHECK_STR(err, "invalid interval '0': want 0.1 to 10000000 seconds");
	CHECK(parse("-i 0.001", &o, err) == CLI_USAGE);
	CHECK(parse("-i 1e9", &o, err) == CLI_USAGE);
	CHECK_STR(err, "invalid interval '1e9': want 0.1 to 10000000 seconds");
	CHECK(parse("-i 0.1", &o, err) == CLI_RUN);
	CHECK(parse("-i -1", &o, err) == CLI_USAGE);
	CHECK(parse("-i 1x", &o, err) == CLI_USAGE);
	CHECK(parse("-i nan", &o, err) == CLI_USAGE);
	CHECK(parse("-d inf", &o, err) == CLI_USAGE);
	CHECK(parse("-c 2", &o, err) == CLI_USAGE);
	CHECK_STR(err, "-c needs -i");
	CHECK(parse("-i 1 -c 0", &o, err) == CLI_USAGE);
	CHECK(parse("-p abc", &o, err) == CLI_USAGE);
	CHECK_STR(err, "invalid pid 'abc'");
	CHECK(parse("-p 99999999999", &o, err) == CLI_USAGE);
	CHECK(parse("-n 1234567890123456", &o, err) == CLI_USAGE);
	CHECK(parse("-k pipe-pid", &o, err) == CLI_USAGE);
	CHECK(parse("-k", &o, err) == CLI_USAGE);
	CHECK_STR(err, "option '-k' needs a value");
	CHECK(parse("--tier fentry", &o, err) == CLI_USAGE);
	CHECK(parse("--nope", &o, err) == CLI_USAGE);
	CHECK_STR(err, "unknown option '--nope'");
	CHECK(parse("stray", &o, err) == CLI_USAGE);
	CHECK_STR(err, "unexpected argument 'stray'");
	CHECK(parse("--demo -p 5", &o, err) == CLI_USAGE);
	CHECK(parse("--max-keys 4194305", &o, err) == CLI_USAGE);
	CHECK_STR(err, "invalid --max-keys '4194305': 1 to 4194304");
}

/* --listen, --textfile: Prometheus defaults and addresses */
static void prometheus(void)
{
	char err[256], host[LISTEN_HOST_MAX];
	struct pipestat_opts o;
	unsigned int port;

	CHECK(parse("--listen 127.0.0.1:9432", &o, err) == CLI_RUN);
	CHECK_STR(o.listen, "127.0.0.1:9432");
	/* per command, every second, unless asked otherwise */
	CHECK(o.by == PT_BY_COMM && o.interval == 1 && o.max_series == 1000);
	CHECK(parse("--textfile /x.prom -k pid -i 5 --max-series 7", &o, err) == CLI_RUN);
	CHECK(o.by == PT_BY_PID && o.interval == 5 && o.max_series == 7);
	CHECK_STR(o.textfile, "/x.prom");
	CHECK(parse("--listen [::1]:80 -k total", &o, err) == CLI_RUN && o.by == PT_BY_TOTAL);
	CHECK(parse("--listen [::]:9432 -c 3", &o, err) == CLI_RUN && o.count == 3);
	CHECK(parse("--listen localhost:9432", &o, err) == CLI_RUN);
	CHECK(parse("--listen 127.0.0.1:0", &o, err) == CLI_RUN);
	CHECK(parse("--listen 0.0.0.0:65535", &o, err) == CLI_RUN);
	CHECK(listen_parse("[::]:0", host, &port, err, 256) && !strcmp(host, "::") && !port);
	CHECK(parse("--json", &o, err) == CLI_RUN && o.json && o.by == PT_BY_TOTAL);
	CHECK(parse("--json --csv", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--csv and --json: give one");
	static const char *const bad[] = {
		"--listen 9432", "--listen 127.0.0.1:65536", "--listen ::1:9432",
		"--listen 1.2.3:x", "--listen 300.1.1.1:80", "--listen 127.0.0.1:+80",
		"--listen 127.0.0.1:", "--listen [::1:80", "--listen [1.2.3.4]:80",
		"--listen host/x:80", "--listen 127.0.0.1:099999", "--max-series 0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse(bad[i], &o, err) == CLI_USAGE);
	/* --series-ttl: whole seconds, 0 never, not below the interval */
	CHECK(o.series_ttl == 300);
	CHECK(parse("--listen 127.0.0.1:0 --series-ttl 0", &o, err) == CLI_RUN && !o.series_ttl);
	CHECK(parse("--textfile /x.prom -i 2 --series-ttl 2", &o, err) == CLI_RUN &&
	      o.series_ttl == 2);
	/* not given: 300 whatever the interval */
	CHECK(parse("--listen 127.0.0.1:0 -i 600", &o, err) == CLI_RUN && o.series_ttl == 300);
	CHECK(parse("--listen 127.0.0.1:0 --series-ttl 1.5", &o, err) == CLI_USAGE);
	CHECK_STR(err, "invalid --series-ttl '1.5': want whole seconds, 0 for never");
	CHECK(parse("--listen 127.0.0.1:0 --series-ttl -1", &o, err) == CLI_USAGE);
	CHECK_STR(err, "invalid --series-ttl '-1': want whole seconds, 0 for never");
	CHECK(parse("--listen 127.0.0.1:0 -i 5 --series-ttl 4", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--series-ttl 4 is shorter than the interval (5 s): a key would "
		  "lose its series in its first quiet interval");
	CHECK(parse("--series-ttl 60", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--series-ttl is for --listen or --textfile: give one");
	CHECK(parse("--listen 9432", &o, err) == CLI_USAGE);
	CHECK(!strncmp(err, "invalid --listen '9432': want ADDR:PORT", 39));
	/* every interface only when asked for by name */
	CHECK(parse("--listen :9432", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--listen ':9432' has no address: give 127.0.0.1:9432 for this "
		  "host only, or [::]:9432 for every interface");
	/* strtol would skip the space (parse() splits at spaces) */
	CHECK(!listen_parse("127.0.0.1: 19441", host, &port, err, 256));
	CHECK_STR(err, "invalid --listen '127.0.0.1: 19441': the port is a number, "
		  "0 to 65535 (0: any free one)");
}

static void cgroups(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(parse("-k cgroup", &o, err) == CLI_RUN);
	CHECK(o.by == PT_BY_CGROUP && o.load.key_cgroup && !o.load.cgroup);
	CHECK(parse("-k pid", &o, err) == CLI_RUN && !o.load.key_cgroup);
	CHECK(parse("--cgroup /nonexistent/x", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--cgroup '/nonexistent/x': No such file or directory");
	CHECK(parse("--cgroup /tmp", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--cgroup '/tmp': not a cgroup v2 directory");
}

/* -r, -s, --rate and libbpf-tools' pipestat [interval [count]] */
static void operator(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(parse("", &o, err) == CLI_RUN && o.rows == 0 && o.sort_col == -1 && !o.rate);
	CHECK(parse("2 5", &o, err) == CLI_RUN && o.interval == 2 && o.count == 5);
	CHECK(parse("0.5", &o, err) == CLI_RUN && o.interval == 0.5 && o.count == 0);
	CHECK(parse("-k pid 1 3", &o, err) == CLI_RUN && o.interval == 1 && o.count == 3);
	CHECK(parse("1 3 4", &o, err) == CLI_USAGE);
	CHECK_STR(err, "unexpected argument '4'");
	CHECK(parse("-i 1 2", &o, err) == CLI_USAGE);	/* the interval twice */
	CHECK(parse("1 x", &o, err) == CLI_USAGE);
	CHECK_STR(err, "unexpected argument 'x'");
	CHECK(parse("-r 10 -s eagain_read --rate", &o, err) == CLI_RUN);
	CHECK(o.rows == 10 && o.sort_col == PT_COL_EAGAIN_READ && o.rate);
	CHECK(parse("--rows 3 --sort write_bytes", &o, err) == CLI_RUN);
	CHECK(o.rows == 3 && o.sort_col == PT_COL_WRITE_BYTES);
	CHECK(parse("-s nope", &o, err) == CLI_USAGE);
	CHECK(!strncmp(err, "invalid sort column 'nope'", 26));
	CHECK(parse("-s default", &o, err) == CLI_USAGE);	/* a set is no column */
	/* -s takes each name -o does, the table's own too */
	CHECK(parse("-s eagain", &o, err) == CLI_RUN && o.sort_col == PT_COL_EAGAIN);
	CHECK(parse("-s wait_write_pct", &o, err) == CLI_RUN &&
	      o.sort_col == PT_COL_WAIT_WRITE_PCT);
	for (int c = 0; c < PT_NCOLS; c++) {
		char line[64];
		int rc;

		snprintf(line, sizeof(line), "-s %s", column_name(c) ? column_name(c) : "");
		rc = parse(line, &o, err);
		CHECK(column_name(c) ? rc == CLI_RUN && o.sort_col == c : rc == CLI_USAGE);
	}
	CHECK(parse("-r 0", &o, err) == CLI_USAGE);
	/* -o: the table's columns; the default set without it */
	CHECK(parse("", &o, err) == CLI_RUN && o.cols.n == 7);
	CHECK(parse("-o reads,eagain --columns +eof_reads", &o, err) == CLI_RUN);
	CHECK(o.cols.n == 3 && o.cols.col[1] == PT_COL_EAGAIN && o.cols.col[2] == PT_COL_EOF_READS);
	CHECK(parse("-o kernel,nope", &o, err) == CLI_USAGE);
	CHECK(!strncmp(err, "invalid column 'nope' in -o 'kernel,nope'", 41));
}

static void too_many_pids(void)
{
	struct pipestat_opts o;
	char err[256], line[512] = "";

	for (int i = 0; i < PT_MAX_PIDS; i++)
		strcat(line, "-p 7 ");
	CHECK(parse(line, &o, err) == CLI_RUN && o.load.npids == PT_MAX_PIDS);
	strcat(line, "-p 8");
	CHECK(parse(line, &o, err) == CLI_USAGE);
	CHECK_STR(err, "too many -p: at most 64");
}

/* --resize PIPE=SIZE: which pipe, how many bytes */
static void resize(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(pipe_size_parse("4096") == 4096 && pipe_size_parse("64k") == 65536);
	CHECK(pipe_size_parse("1M") == 1 << 20 && pipe_size_parse("2G") == 1L << 31);
	CHECK(pipe_size_parse("3G") < 0 && pipe_size_parse("0") < 0);
	CHECK(pipe_size_parse("1MB") < 0 && pipe_size_parse("-1") < 0);
	CHECK(pipe_size_parse(" 1") < 0 && pipe_size_parse("k") < 0);
	CHECK(parse("--resize 1234:3=1M", &o, err) == CLI_RUN && o.resize);
	CHECK(o.resize_pipe.pid == 1234 && o.resize_pipe.tid == 1234 && o.resize_pipe.fd == 3);
	CHECK(!o.resize_pipe.ino && o.resize_size == 1 << 20);
	CHECK(parse("--resize 812345=64k -v", &o, err) == CLI_RUN);
	CHECK(!o.resize_pipe.pid && o.resize_pipe.ino == 812345 && o.resize_size == 65536);
	CHECK(!o.resize_pipe.dev);
	/* DEV:INO, as pipe_dev and pipe_ino: the kernel's dev_t, 12 + 20 bits */
	CHECK(parse("--resize 0:15:812345=1M", &o, err) == CLI_RUN);
	CHECK(!o.resize_pipe.pid && o.resize_pipe.dev == 15 && o.resize_pipe.ino == 812345);
	CHECK(parse("--resize 259:3:77=4096", &o, err) == CLI_RUN);
	CHECK(o.resize_pipe.dev == (259u << 20 | 3) && o.resize_pipe.ino == 77);
	CHECK(parse("--resize 4095:1048575:1=1", &o, err) == CLI_RUN);
	static const char *const bad[] = {
		"--resize 4096:0:77=1", "--resize 0:1048576:77=1", "--resize 0:0:77=1",
		"--resize 0:15:0=1", "--resize 0:15:77:1=1", "--resize 0::77=1",
		"--resize pipe:[0:15:77]=1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse(bad[i], &o, err) == CLI_USAGE);
	CHECK(parse("--resize pipe:[77]=8192", &o, err) == CLI_RUN);
	CHECK(!o.resize_pipe.pid && o.resize_pipe.ino == 77 && o.resize_size == 8192);
	CHECK(parse("--resize 1:2=x", &o, err) == CLI_USAGE);
	CHECK(!strncmp(err, "invalid --resize '1:2=x': want PIPE=SIZE", 40));
	CHECK(parse("--resize pipe:[77]x=1", &o, err) == CLI_USAGE);
	CHECK(parse("--resize 0:1=1", &o, err) == CLI_USAGE);
	CHECK(parse("--resize 77=1 -k pid", &o, err) == CLI_USAGE);
	CHECK_STR(err, "--resize resizes a pipe and exits: only -v with it");
	CHECK(parse("--resize 77=1 2", &o, err) == CLI_USAGE);
	/* --advise: per pipe, with the waits that are its figures */
	CHECK(parse("--advise -d 5", &o, err) == CLI_RUN && o.advise);
	/* no I/O while parsing: its columns (advise_cols, from the kernel's
	 * knobs) are the caller's to add; -s's are parsing's */
	CHECK(o.by == PT_BY_PIPE && !o.load.hooks_off && !o.load.cols);
	CHECK(parse("--advise -s eagain_read", &o, err) == CLI_RUN);
	CHECK(o.load.cols == PT_COL_BIT(PT_COL_EAGAIN_READ));
	CHECK(parse("--advise -k pipe", &o, err) == CLI_RUN);
	CHECK(parse("--advise -k comm", &o, err) == CLI_USAGE);
	CHECK(parse("--advise --csv", &o, err) == CLI_USAGE);
	CHECK(!strncmp(err, "--advise prints remarks per pipe: not with --csv", 48));
	CHECK(parse("--resize 77=1 -- true", &o, err) == CLI_USAGE);
}

/* pipestat [options] -- COMMAND: everything after the first "--" is its */
static void command(void)
{
	struct pipestat_opts o;
	char err[256];

	CHECK(parse("-k pid -- sh -c x", &o, err) == CLI_RUN && o.by == PT_BY_PID);
	CHECK(o.command && !strcmp(o.command[0], "sh") && !strcmp(o.command[1], "-c") &&
	      !strcmp(o.command[2], "x") && !o.command[3]);
	CHECK(parse("1 -- true", &o, err) == CLI_RUN && o.interval == 1);
	CHECK(!strcmp(o.command[0], "true"));
	/* the command's own options are not pipestat's */
	CHECK(parse("-- ls -i 0 -- x", &o, err) == CLI_RUN && !o.interval);
	CHECK(!strcmp(o.command[1], "-i") && !strcmp(o.command[3], "--"));
	CHECK(parse("", &o, err) == CLI_RUN && !o.command);
	CHECK(parse("--", &o, err) == CLI_USAGE);
	CHECK_STR(err, "'--' needs a command after it");
	CHECK(parse("-d 3 -- true", &o, err) == CLI_USAGE);
	CHECK_STR(err, "-- COMMAND ends when the command exits: no -d or -c");
	CHECK(parse("-p 1 -- true", &o, err) == CLI_USAGE);
	CHECK_STR(err, "-- COMMAND counts the command: no --demo, -p or --cgroup");
	CHECK(parse("-n -- true", &o, err) == CLI_USAGE);
	CHECK_STR(err, "option '-n' needs a value");
	/* per process, as perf stat, unless -k says; --listen's per command */
	CHECK(parse("-- true", &o, err) == CLI_RUN && o.by == PT_BY_PID && !o.output);
	CHECK(parse("-k total -- true", &o, err) == CLI_RUN && o.by == PT_BY_TOTAL);
	CHECK(parse("--listen 127.0.0.1:0 -- true", &o, err) == CLI_RUN && o.by == PT_BY_COMM);
	CHECK(parse("--demo", &o, err) == CLI_RUN && o.by == PT_BY_PID);
	CHECK(parse("--demo -k total", &o, err) == CLI_RUN && o.by == PT_BY_TOTAL);
	/* the report elsewhere: a file's name, not empty */
	CHECK(parse("--csv --output r.csv -- true", &o, err) == CLI_RUN);
	CHECK_STR(o.output, "r.csv");
	CHECK(parse("--output r.csv", &o, err) == CLI_RUN && o.by == PT_BY_TOTAL);
	CHECK(parse("--output", &o, err) == CLI_USAGE);
	CHECK_STR(err, "option '--output' needs a value");
	{
		char *argv[] = { "pipestat", "--output", "", NULL };

		CHECK(pipestat_parse(3, argv, &o, stderr, err, sizeof(err)) == CLI_USAGE);
		CHECK_STR(err, "invalid --output '': want a file name");
	}
}

int main(void)
{
	shown_cols();
	defaults();
	values();
	errors();
	prometheus();
	cgroups();
	operator();
	too_many_pids();
	resize();
	command();
	return unit_summary("test_opts");
}
