// SPDX-License-Identifier: GPL-2.0
/* pipetop: option parsing, the key table and the model (grouping,
 * values, ends, sort). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "os/proc_args.h"
#include "pipetop/keys.h"
#include "pipetop/model.h"
#include "pipetop/opts.h"
#include "pipetop/prompt.h"
#include "unit.h"

static int parse(const char *line, struct pipetop_opts *o, char *err, char *out_text)
{
	char buf[1024], *argv[256];
	int argc = 0, rc;
	FILE *out = tmpfile();
	size_t got;

	snprintf(buf, sizeof(buf), "pipetop %s", line);
	for (char *t = strtok(buf, " "); t && argc < 255; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	err[0] = '\0';
	rc = pipetop_parse(argc, argv, o, out, err, 256);
	rewind(out);
	got = fread(out_text, 1, 4095, out);
	out_text[got] = '\0';
	fclose(out);
	return rc;
}

static void opts(void)
{
	struct pipetop_opts o;
	char err[256], text[4096];

	CHECK(parse("", &o, err, text) == CLI_RUN);
	CHECK(o.interval == 1.0 && o.rows == 0 && o.load.npids == 0);
	CHECK(o.load.tier == PT_TIER_AUTO && o.load.comm[0] == '\0');

	CHECK(parse("-i 0.5 -r 12 -n make --tier syscall", &o, err, text) == CLI_RUN);
	CHECK(o.interval == 0.5 && o.rows == 12);
	CHECK_STR(o.load.comm, "make");
	CHECK(o.load.tier == PT_TIER_SYSCALL);
	CHECK(parse("--interval 2 --rows 3 --comm cat --pid 7", &o, err, text) == CLI_RUN);
	CHECK(o.interval == 2 && o.rows == 3 && o.load.npids == 1 && o.load.pids[0] == 7);
	CHECK(parse("-p 10 -p 20 -p 30", &o, err, text) == CLI_RUN);
	CHECK(o.load.npids == 3 && o.load.pids[2] == 30);

	CHECK(parse("-i 0.05", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "invalid interval '0.05': want seconds, 0.1 to 3600");
	CHECK(parse("-i abc", &o, err, text) == CLI_USAGE);
	CHECK(parse("-i 7200", &o, err, text) == CLI_USAGE);
	CHECK(parse("-r 0", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "invalid rows '0': want a whole number > 0");
	CHECK(parse("-p 0", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "invalid pid '0'");
	CHECK(parse("-n 0123456789abcdef", &o, err, text) == CLI_USAGE);
	CHECK(parse("-n 0123456789abcde", &o, err, text) == CLI_RUN);
	CHECK(parse("--tier nope", &o, err, text) == CLI_USAGE);
	CHECK(parse("--max-keys 32768", &o, err, text) == CLI_RUN);
	CHECK(o.load.max_keys == 32768);
	CHECK(parse("--max-keys 0", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "invalid --max-keys '0': 1 to 4194304");
	CHECK(parse("-k pid", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "unknown option '-k'");
	CHECK(parse("-i", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "option '-i' needs a value");
	CHECK(parse("extra", &o, err, text) == CLI_USAGE);
	CHECK_STR(err, "unexpected argument 'extra'");
	{
		char line[1024] = "";

		for (int i = 1; i <= PT_MAX_PIDS + 1; i++)
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 "-p %d ", i);
		CHECK(parse(line, &o, err, text) == CLI_USAGE);
		CHECK_STR(err, "too many -p: at most 64");
	}

	CHECK(parse("--help", &o, err, text) == CLI_EXIT_OK);
	CHECK(!strncmp(text, "Usage: pipetop ", 15));
	CHECK(strstr(text, "pipestat -i") != NULL);
	CHECK(parse("-V", &o, err, text) == CLI_EXIT_OK);
	CHECK_STR(text, "pipetop " PIPETRACE_VERSION "\n");
}

static void add(struct pt_rows *r, __u32 tgid, const char *comm, __u64 ino,
		const struct pt_counts *c)
{
	struct pt_key k = { .tgid = tgid, .dev = 12, .ino = ino };

	strncpy(k.comm, comm, sizeof(k.comm) - 1);
	CHECK(rows_add(r, &k, c) == 0);
}

/*
 * Pipe 100: dd[10] writes 10 x 64 KiB, cat[11] reads them in 20 reads.
 * Pipe 200: a jobserver, make[1] writes 6 tokens, cc1[3,4,5] read 1, 2, 3.
 * Pipe 300: cat[11] writes 5 x 1000 bytes (4 EAGAINs); nobody reads it.
 */
static void fill(struct pt_rows *raw)
{
	struct pt_counts w = { .writes = 10, .write_bytes = 10 * 65536,
			       .bufs_new = 160, .alloc_locked = 40 };
	struct pt_counts r = { .reads = 20, .read_bytes = 10 * 65536,
			       .read_bufs = 160, .read_sections = 160 };
	struct pt_counts mw = { .writes = 6, .write_bytes = 6, .bufs_new = 6 };
	struct pt_counts cw = { .writes = 5, .write_bytes = 5000,
				.eagain_write_nonblock = 4 };

	rows_init(raw, PT_BY_PIPE_PID);
	add(raw, 10, "dd", 100, &w);
	add(raw, 11, "cat", 100, &r);
	add(raw, 1, "make", 200, &mw);
	for (__u64 i = 1; i <= 3; i++) {
		struct pt_counts cr = { .reads = i, .read_bytes = i, .read_bufs = i,
					.read_sections = i };

		add(raw, 2 + i, "cc1", 200, &cr);
	}
	add(raw, 11, "cat", 300, &cw);
}

static const struct tm_item *find_pipe(const struct tm_model *m, __u64 ino)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->items[i].key.ino == ino)
			return &m->items[i];
	return NULL;
}

static void model_pipes(void)
{
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1 };
	struct pt_rows raw;
	struct tm_model m;
	const struct tm_item *it;
	struct pt_value v;
	char buf[256];

	fill(&raw);
	tm_init(&m);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "") == 0);
	CHECK(m.n == 3 && m.npipes == 3 && m.nprocs == 6);
	CHECK(m.total.writes == 10 + 6 + 5 && m.total.reads == 20 + 6);
	/* through pipes: 640 KiB + 6 + 5000 (nobody read pipe 300) */
	CHECK(m.moved == 10 * 65536 + 6 + 5000);

	it = find_pipe(&m, 100);
	CHECK(it && it->nends == 2 && it->c.reads == 20 && it->c.writes == 10);
	tm_ends_text(buf, sizeof(buf), &m, it, 80);
	CHECK_STR(buf, "dd[10] -> cat[11]");

	/* readers busiest first */
	it = find_pipe(&m, 200);
	CHECK(it && it->nends == 4);
	tm_ends_text(buf, sizeof(buf), &m, it, 80);
	CHECK_STR(buf, "make[1] -> cc1[5],cc1[4],cc1[3]");
	tm_ends_text(buf, sizeof(buf), &m, it, 26);
	CHECK_STR(buf, "make[1] -> cc1[5],cc1[4]+1");
	tm_ends_text(buf, sizeof(buf), &m, it, 25);
	CHECK_STR(buf, "make[1] -> cc1[5]+2");
	tm_ends_text(buf, sizeof(buf), &m, it, 20);
	CHECK_STR(buf, "make[1] -> cc1[5]+2");
	/* too narrow for one whole name a side: commands are cut, pids kept */
	tm_ends_text(buf, sizeof(buf), &m, it, 12);
	CHECK_STR(buf, "m[1] -> c[5]");
	tm_ends_text(buf, sizeof(buf), &m, it, 3);
	CHECK(strlen(buf) == 3);

	/* a side nobody traced */
	it = find_pipe(&m, 300);
	tm_ends_text(buf, sizeof(buf), &m, it, 80);
	CHECK_STR(buf, "cat[11] -> ?");

	/* values: pipe 100 over 2 s */
	it = find_pipe(&m, 100);
	v = tm_value(&it->c, TM_RPS, &env, 2);
	CHECK(v.q == PT_EXACT && v.d == 10);
	v = tm_value(&it->c, TM_WPS, &env, 2);
	CHECK(v.d == 5);
	v = tm_value(&it->c, TM_MBPS, &env, 2);
	CHECK(v.d == 10 * 65536 / 2);
	/* bytes in IEC units, as pipestat's table: 327680 B/s */
	tm_format(buf, sizeof(buf), &v, tm_col(TM_MBPS)->kind, 8);
	CHECK_STR(buf, "320Ki");
	v = tm_value(&it->c, TM_AVGWR, &env, 2);
	CHECK(v.q == PT_EXACT && v.d == 65536);
	/* syscall tier: 160 new buffers, 40 allocated: 75% hits, derived */
	v = tm_value(&it->c, TM_HIT, &env, 2);
	CHECK(v.q == PT_DERIVED && v.d == 75);
	v = tm_value(&it->c, TM_ALLOCLK, &env, 2);
	CHECK(v.q == PT_EXACT && v.d == 20);
	v = tm_value(&it->c, TM_SECRD, &env, 2);
	CHECK(v.q == PT_DERIVED && v.d == 8);
	it = find_pipe(&m, 300);
	v = tm_value(&it->c, TM_EAGW, &env, 2);
	CHECK(v.q == PT_EXACT && v.d == 2);
	v = tm_value(&it->c, TM_SECRD, &env, 2);
	CHECK(v.q == PT_NA);	/* no reads */

	CHECK(tm_col_quality(TM_HIT, &env) == PT_DERIVED);
	CHECK(tm_col_quality(TM_SECRD, &env) == PT_DERIVED);
	CHECK(tm_col_quality(TM_ALLOCLK, &env) == PT_EXACT);
	CHECK(tm_col_quality(TM_MBPS, &env) == PT_EXACT);
	/* prefill and batching on: the syscall tier splits the pages by the
	 * mutex's owner, cannot count sections */
	env.knob_prealloc_max = 8;
	env.knob_read_batch = 1;
	CHECK(tm_col_quality(TM_ALLOCLK, &env) == PT_EXACT);
	CHECK(tm_col_quality(TM_SECRD, &env) == PT_NA);
	it = find_pipe(&m, 100);
	v = tm_value(&it->c, TM_SECRD, &env, 2);
	tm_format(buf, sizeof(buf), &v, tm_col(TM_SECRD)->kind, 10);
	CHECK_STR(buf, "-");
	env.tier = PT_TIER_TRACEPOINT;
	CHECK(tm_col_quality(TM_HIT, &env) == PT_EXACT);
	CHECK(tm_col_quality(TM_ALLOCLK, &env) == PT_EXACT);
	/* no splice seen: what went through is not known, a write's size is */
	CHECK(tm_col_quality(TM_MBPS, &env) == PT_NA);
	v = tm_value(&it->c, TM_MBPS, &env, 2);
	tm_format(buf, sizeof(buf), &v, tm_col(TM_MBPS)->kind, 10);
	CHECK_STR(buf, "-");
	v = tm_value(&it->c, TM_AVGWR, &env, 2);
	CHECK(v.q == PT_EXACT && v.d == 65536);
	env.tier = PT_TIER_SYSCALL;
	env.knob_prealloc_max = env.knob_read_batch = -1;

	/* sort: by B/s, then reads/s; unknown values last */
	tm_sort(&m, TM_MBPS, &env, 1);
	CHECK(m.items[0].key.ino == 100 && m.items[1].key.ino == 300 &&
	      m.items[2].key.ino == 200);
	tm_sort(&m, TM_RPS, &env, 1);
	CHECK(m.items[0].key.ino == 100 && m.items[1].key.ino == 200 &&
	      m.items[2].key.ino == 300);
	tm_sort(&m, TM_AVGWR, &env, 1);
	CHECK(m.items[0].key.ino == 100 && m.items[1].key.ino == 300 &&
	      m.items[2].key.ino == 200);
	tm_sort(&m, TM_SECRD, &env, 1);
	CHECK(m.items[2].key.ino == 300);	/* "-" */
	CHECK(m.items[0].key.ino == 100);	/* 8 per read, then 1 */

	/* filter: a pipe stays when any of its processes matches */
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "cc") == 0);
	CHECK(m.n == 1 && m.items[0].key.ino == 200 && m.npipes == 3);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "at") == 0);
	CHECK(m.n == 2);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "nothing") == 0);
	CHECK(m.n == 0 && m.nprocs == 6);

	tm_free(&m);
	rows_free(&raw);
}

static void model_procs(void)
{
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1 };
	struct pt_rows raw;
	struct tm_model m;
	const struct tm_item *cat = NULL;

	fill(&raw);
	tm_init(&m);
	CHECK(tm_build(&m, &raw, TM_PER_PROC, "") == 0);
	CHECK(m.n == 6 && m.nprocs == 6 && m.npipes == 3);
	for (size_t i = 0; i < m.n; i++)
		if (m.items[i].key.tgid == 11)
			cat = &m.items[i];
	/* cat[11]: reads from pipe 100 and writes into pipe 300, one row */
	CHECK(cat && cat->c.reads == 20 && cat->c.writes == 5);
	CHECK_STR(cat->key.comm, "cat");
	CHECK(cat->key.ino == 0);
	/* named with its arguments where they were read (dd's were not) */
	{
		static struct proc_arg a[] = {
			{ .pid = 10, .comm = "dd" },
			{ .pid = 11, .comm = "cat", .known = true, .args = "cat -n" },
		};
		static const struct proc_args args = { a, 2, 2 };
		const struct tm_item *pipe;
		char buf[256];

		tm_proc_name(buf, sizeof(buf), &m, cat);
		CHECK_STR(buf, "cat[11]");	/* none known */
		m.args = &args;
		tm_proc_name(buf, sizeof(buf), &m, cat);
		CHECK_STR(buf, "cat[11] -n");
		CHECK(tm_build(&m, &raw, TM_PER_PIPE, "") == 0);
		pipe = find_pipe(&m, 100);
		tm_ends_text(buf, sizeof(buf), &m, pipe, 80);
		CHECK_STR(buf, "dd[10] -> cat[11]");	/* the rows' */
		tm_ends_named(buf, sizeof(buf), &m, pipe, 80);
		CHECK_STR(buf, "dd[10] -> cat[11] -n");	/* the detail pane's */
		m.args = NULL;
		CHECK(tm_build(&m, &raw, TM_PER_PROC, "") == 0);
	}
	CHECK(tm_build(&m, &raw, TM_PER_PROC, "cc1") == 0);
	CHECK(m.n == 3);
	tm_sort(&m, TM_RPS, &env, 1);
	CHECK(m.items[0].key.tgid == 5 && m.items[2].key.tgid == 3);
	/* ties (no read EAGAINs anywhere) go busiest first by calls */
	CHECK(tm_build(&m, &raw, TM_PER_PROC, "") == 0);
	tm_sort(&m, TM_EAGR, &env, 1);
	{
		const __u32 want[] = { 11, 10, 1, 5, 4, 3 };

		for (int i = 0; i < 6; i++)
			CHECK(m.items[i].key.tgid == want[i]);
	}
	tm_free(&m);
	rows_free(&raw);
}

/* make -j100: one writer, 100 readers, more than the text can list */
static void many_ends(void)
{
	struct pt_counts mw = { .writes = 100, .write_bytes = 100 };
	struct pt_rows raw;
	struct tm_model m;
	char buf[512], want[64];
	const char *plus;

	rows_init(&raw, PT_BY_PIPE_PID);
	add(&raw, 1, "make", 7, &mw);
	for (__u64 i = 0; i < 100; i++) {
		struct pt_counts cr = { .reads = 1 + i, .read_bytes = 1 + i };

		add(&raw, 1000 + i, "a-long-compiler", 7, &cr);
	}
	tm_init(&m);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "") == 0);
	CHECK(m.n == 1 && m.items[0].nends == 101);
	tm_ends_text(buf, sizeof(buf), &m, &m.items[0], 80);
	CHECK(strlen(buf) <= 80);
	/* busiest reader first, then "+N" for the rest of the 100 */
	CHECK(!strncmp(buf, "make[1] -> a-long-compiler[1099],a-long-compiler[1098]", 54));
	/* 69 characters for the readers: three names of 21, then +97 */
	CHECK_STR(strrchr(buf, ','), ",a-long-compiler[1097]+97");
	tm_ends_text(buf, sizeof(buf), &m, &m.items[0], sizeof(buf) - 1);
	CHECK(strlen(buf) <= sizeof(buf) - 1);
	plus = strrchr(buf, '+');
	/* as many as fit in 511 characters, the count of the others exact */
	{
		int listed = 0;

		for (const char *p = buf; (p = strstr(p, "a-long-compiler[")); p++)
			listed++;
		snprintf(want, sizeof(want), "+%d", 100 - listed);
		CHECK(plus && !strcmp(plus, want));
	}
	tm_free(&m);
	rows_free(&raw);
}

/* issue 26.4: a name made of list syntax cannot draw a fake pair */
static void hostile_ends(void)
{
	struct pt_counts w = { .writes = 1, .write_bytes = 1 };
	struct pt_counts r = { .reads = 1, .read_bytes = 1 };
	struct pt_rows raw;
	struct tm_model m;
	char buf[256];

	rows_init(&raw, PT_BY_PIPE_PID);
	add(&raw, 7, "sshd[1] -> ", 9, &w);
	add(&raw, 8, "x[1],y\"\\", 9, &r);
	tm_init(&m);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "") == 0);
	tm_ends_text(buf, sizeof(buf), &m, &m.items[0], 80);
	CHECK_STR(buf, "\"sshd[1] -> \"[7] -> \"x[1],y\\\"\\\\\"[8]");
	/* cut to fit: still quoted, closed, the pid whole */
	tm_ends_text(buf, sizeof(buf), &m, &m.items[0], 24);
	CHECK_STR(buf, "\"sshd[\"[7] -> \"x[1],\"[8]");
	tm_free(&m);
	rows_free(&raw);
}

static void format(void)
{
	static const struct {
		double d;
		enum tm_kind kind;
		int width;
		const char *want;
	} cases[] = {
		{ 0.5, TM_K_RATE, 8, "0.50" },
		{ 0.0375, TM_K_RATE, 8, "0.04" },
		{ 2.5, TM_K_RATE, 8, "2.5" },
		{ 0, TM_K_RATE, 8, "0" },
		{ 31744, TM_K_RATE, 8, "31744" },
		{ 123456789, TM_K_RATE, 8, "123457K" },
		{ 123456789, TM_K_RATE, 4, "123M" },
		{ 12.345, TM_K_PCT, 6, "12.3" },
		{ 12.345, TM_K_RATIO, 6, "12.35" },
		/* bytes as pipestat's table shows them (fmt_iec), whatever the width */
		{ 65536, TM_K_BYTES, 7, "64Ki" },
		{ 1.5 * 1024 * 1024, TM_K_BYTES, 7, "1.5Mi" },
		{ 1023.4, TM_K_BYTES, 3, "1023" },
		/* a count: K = 1000 once it does not fit */
		{ 123456, TM_K_COUNT, 6, "123456" },
		{ 123456, TM_K_COUNT, 5, "123K" },
	};
	struct pt_value v = { .q = PT_EXACT, .type = PT_V_RATIO };
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v.d = cases[i].d;
		tm_format(buf, sizeof(buf), &v, cases[i].kind, cases[i].width);
		CHECK_STR(buf, cases[i].want);
	}
	v.q = PT_NA;
	tm_format(buf, sizeof(buf), &v, TM_K_RATE, 8);
	CHECK_STR(buf, "-");
}

/* Waits as shares of the interval; histograms summed per pipe / process. */
static void waits_and_hists(void)
{
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1,
			      .interval_s = 2 };
	struct pt_counts w = { .writes = 4, .wait_write_ns = 1500000000,
			       .waits_write = 3, .lock_contended = 10 };
	struct pt_counts r = { .reads = 4, .wait_read_ns = 500000000 };
	struct pt_hkey hk = { .key = { .tgid = 10, .dev = 12, .ino = 100 },
			      .hist = PT_HIST_WRITE_SIZE, .slot = 16 };
	__u64 h[PT_NHIST][PT_HIST_SLOTS];
	struct tm_model m;
	struct pt_rows raw;
	struct pt_value v;

	rows_init(&raw, PT_BY_PIPE_PID);
	add(&raw, 10, "dd", 100, &w);
	add(&raw, 11, "cat", 100, &r);
	add(&raw, 11, "cat", 300, &r);
	CHECK(rows_add_hist(&raw, &hk, 4, 0) == 0);
	hk.key.tgid = 11;
	hk.hist = PT_HIST_READ_SIZE;
	CHECK(rows_add_hist(&raw, &hk, 3, 0) == 0);
	hk.key.ino = 300;
	CHECK(rows_add_hist(&raw, &hk, 2, 0) == 0);
	tm_init(&m);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "") == 0);
	tm_sort(&m, TM_WAITW, &env, 2);
	CHECK(m.n == 2 && m.items[0].key.ino == 100);
	v = tm_value(&m.items[0].c, TM_WAITW, &env, 2);
	CHECK(v.q == PT_DERIVED && v.d == 75);	/* 1.5 s of 2 s */
	v = tm_value(&m.items[0].c, TM_WAITR, &env, 2);
	CHECK(v.d == 25);
	v = tm_value(&m.items[0].c, TM_LOCK, &env, 2);
	CHECK(v.q == PT_EXACT && v.d == 5);
	CHECK(tm_item_hist(&m, &m.items[0], h));
	CHECK(h[PT_HIST_WRITE_SIZE][16] == 4 && h[PT_HIST_READ_SIZE][16] == 3);
	CHECK(tm_item_hist(&m, &m.items[1], h));
	CHECK(h[PT_HIST_WRITE_SIZE][16] == 0 && h[PT_HIST_READ_SIZE][16] == 2);
	/* per process: cat's two pipes */
	CHECK(tm_build(&m, &raw, TM_PER_PROC, "cat") == 0);
	CHECK(m.n == 1 && tm_item_hist(&m, &m.items[0], h));
	CHECK(h[PT_HIST_READ_SIZE][16] == 5);
	env.lacks = PT_NA_NO_LOCKS;
	CHECK(tm_value(&m.items[0].c, TM_LOCK, &env, 2).q == PT_NA);
	tm_free(&m);
	rows_free(&raw);
}

static void interval_steps(void)
{
	CHECK(tm_interval_step(1, 1) == 2);
	CHECK(tm_interval_step(1, -1) == 0.5);
	CHECK(tm_interval_step(0.7, 1) == 1);
	CHECK(tm_interval_step(0.7, -1) == 0.5);
	CHECK(tm_interval_step(0.1, -1) == 0.1);
	CHECK(tm_interval_step(3600, 1) == 3600);
	CHECK(tm_interval_step(0.2, 1) == 0.5);
}

/* --help and the status line say what the key table says (the bindings
 * and their actions: test_pipetop_actions.c). */
static void keys(void)
{
	struct pipetop_opts o;
	char err[256], text[4096], line[256], want[128];

	CHECK(parse("--help", &o, err, text) == CLI_EXIT_OK);
	for (int i = 0; i < tk_nkeys; i++) {
		snprintf(want, sizeof(want), "\n  %-15s %s\n", tk_keys[i].names,
			 tk_keys[i].what);
		CHECK(strstr(text, want) != NULL);
	}
	CHECK(strstr(text, "PgUp, PgDn      the selection half a screen up / down") != NULL);
	tk_status(line, sizeof(line), 200);
	CHECK_STR(line, "q quit  s/<-/-> sort  up/down select  Enter detail  "
		  "a advice  g pipeline  R resize  p pipe/process  f filter  space pause  +/- interval  h help");
	/* at 80 columns: the briefs that fit, and help */
	tk_status(line, sizeof(line), 80);
	CHECK_STR(line, "q quit  s/<-/-> sort  up/down select  Enter detail  "
		  "a advice  g pipeline  h help");
	CHECK(strlen(line) <= 80);
	tk_status(line, sizeof(line), 10);
	CHECK_STR(line, "h help");
}

/*
 * The advice pane and the resize prompt's offer, from given rows over 1 s:
 * pipe 400 bursty (4 MiB in 64 writes, 4 reader waits: 1 MiB bursts
 * against 16 slots), pipe 500 reader-bound, pipe 100 too quiet to judge.
 */
static void advice(void)
{
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1,
			      .interval_s = 1, .user_pages_soft = 16384,
			      .pipe_max_size = 1 << 20 };
	long page = sysconf(_SC_PAGESIZE);
	struct pt_counts bw = { .writes = 64, .write_bytes = 64 * 65536,
				.wait_write_ns = 400000000, .ring_full_writes = 32,
				.ring_slots = 16, .ring_peak = 16 };
	struct pt_counts br = { .reads = 64, .read_bytes = 64 * 65536,
				.wait_read_ns = 300000000, .waits_read = 4 };
	struct pt_counts rw = { .writes = 32, .write_bytes = 32 * 65536,
				.wait_write_ns = 800000000, .ring_full_writes = 30,
				.ring_slots = 16 };
	struct pt_counts rr = { .reads = 32, .read_bytes = 32 * 65536 };
	struct pt_rows raw;
	struct tm_model m;
	const struct tm_item *it;
	struct advice a;
	char text[2048];

	fill(&raw);
	add(&raw, 20, "dd", 400, &bw);
	add(&raw, 21, "cat", 400, &br);
	add(&raw, 30, "gen", 500, &rw);
	add(&raw, 31, "slow", 500, &rr);
	tm_init(&m);
	CHECK(tm_build(&m, &raw, TM_PER_PIPE, "") == 0);

	it = find_pipe(&m, 400);
	CHECK(it && tm_advice(text, sizeof(text), &m, it, &env, &a) == 2);
	CHECK(!strncmp(text, "bursty: writers waited 40% for room (the ring full "
		       "in 32 of 64 writes), readers 30% for data; 1048576 bytes "
		       "written per reader wait", 104));
	CHECK(strstr(text, "; grow it to 1048576 (") != NULL);
	CHECK(a.resize == 1 << 20);
	CHECK(tm_resize_offer(&m, it, &env) == 1 << 20);
	/* within fs.pipe-max-size: at it already, nothing to offer but the ring */
	env.pipe_max_size = 16 * page;
	CHECK(tm_advice(text, sizeof(text), &m, it, &env, &a) == 2 && !a.resize);
	CHECK(strstr(text, "at fs.pipe-max-size") != NULL);
	CHECK(tm_resize_offer(&m, it, &env) == 16 * page);
	env.pipe_max_size = 1 << 20;

	it = find_pipe(&m, 500);
	CHECK(it && tm_advice(text, sizeof(text), &m, it, &env, &a) == 1);
	CHECK(!strncmp(text, "reader-bound: writers waited 80%", 32) && !a.resize);
	CHECK(tm_resize_offer(&m, it, &env) == 16 * page);

	/* 10 writes: under the threshold; no ring seen, nothing to offer */
	it = find_pipe(&m, 100);
	CHECK(it && tm_advice(text, sizeof(text), &m, it, &env, &a) == 0);
	CHECK_STR(text, "");
	CHECK(tm_resize_offer(&m, it, &env) == 0);

	/* per process: advice is per pipe */
	CHECK(tm_build(&m, &raw, TM_PER_PROC, "") == 0);
	for (size_t i = 0; i < m.n; i++) {
		CHECK(tm_advice(text, sizeof(text), &m, &m.items[i], &env, &a) == 0);
		CHECK(tm_resize_offer(&m, &m.items[i], &env) == 0);
	}
	tm_free(&m);
	rows_free(&raw);
}

static enum tp_done type(struct tp_prompt *p, const char *keys, char *err)
{
	enum tp_done d = TP_TYPING;

	for (; *keys; keys++)
		d = tp_key(p, *keys == '<' ? KEY_BACKSPACE : *keys, err, 256);
	return d;
}

/* R's prompt: pre-filled, edited, confirmed or cancelled; f's filter. */
static void prompts(void)
{
	/* pipe 0:15:4242 (the kernel's dev_t: 12 bits of major, 20 of minor) */
	struct pt_key key = { .dev = 15, .ino = 4242 };
	struct tp_prompt p;
	char err[256] = "", text[256];

	tp_resize(&p, &key, 1 << 20);
	CHECK(p.kind == TP_SIZE && p.pipe.dev == 15 && p.pipe.ino == 4242 && !p.pipe.pid);
	tp_text(text, sizeof(text), &p);
	CHECK_STR(text, "resize pipe 0:15:4242 to (bytes; k, M, G; Enter, Esc cancels): 1048576_");
	CHECK(type(&p, "\n", err) == TP_ASK && p.kind == TP_CONFIRM && p.size == 1 << 20);
	tp_text(text, sizeof(text), &p);
	CHECK_STR(text, "resize pipe 0:15:4242 to 1048576 bytes? y resizes, any other key cancels");
	CHECK(type(&p, "y", err) == TP_RESIZE && p.kind == TP_NONE && p.size == 1 << 20);

	/* edited: the offer backspaced away, 256k typed; n cancels */
	tp_resize(&p, &key, 65536);
	CHECK(type(&p, "<<<<<256k", err) == TP_TYPING);
	CHECK_STR(p.edit, "256k");
	CHECK(type(&p, "\r", err) == TP_ASK && p.size == 256 << 10);
	CHECK(type(&p, "n", err) == TP_CANCEL && p.kind == TP_NONE);
	tp_resize(&p, &key, 65536);
	CHECK(type(&p, "\n", err) == TP_ASK);
	CHECK(type(&p, "q", err) == TP_CANCEL && p.kind == TP_NONE);
	/* Esc while typing */
	tp_resize(&p, &key, 65536);
	CHECK(tp_key(&p, 27, err, sizeof(err)) == TP_CANCEL && p.kind == TP_NONE);
	/* nothing known to offer: empty; a size that is not one: why */
	tp_resize(&p, &key, 0);
	CHECK_STR(p.edit, "");
	CHECK(type(&p, "3x\n", err) == TP_BAD && p.kind == TP_NONE);
	CHECK_STR(err, "resize: invalid size '3x': bytes up to 2G (k, M, G: KiB, MiB, GiB)");
	tp_resize(&p, &key, 0);
	CHECK(type(&p, "4G\n", err) == TP_BAD);

	/* the filter: at most a command name's length */
	tp_filter(&p, "ca");
	CHECK(type(&p, "t0123456789abcdefgh", err) == TP_TYPING);
	CHECK(strlen(p.edit) == PT_COMM_LEN - 1);
	CHECK(type(&p, "\n", err) == TP_FILTER_SET && p.kind == TP_NONE);
	CHECK_STR(p.edit, "cat0123456789ab");
	tp_filter(&p, "x");
	tp_text(text, sizeof(text), &p);
	CHECK_STR(text, "filter (command name contains, Enter applies, Esc cancels): x_");
	CHECK(tp_key(&p, 27, err, sizeof(err)) == TP_CANCEL);
}

/* Each column of the screen is one row of the metrics table's, placed once. */
static void columns_from_table(void)
{
	int shown = 0;

	for (int c = 0; c < PT_NCOLS; c++)
		shown += pt_metrics[c].top.head != NULL;
	CHECK(shown == TM_NCOLS);
	for (int i = 0; i < TM_NCOLS; i++) {
		const struct tm_colinfo *ci = tm_col(i);

		CHECK(ci->head && pt_metrics[ci->metric].top.at == (enum tm_col)i);
	}
	CHECK_STR(tm_col(TM_MBPS)->head, "B/s");
	CHECK(tm_col(TM_MBPS)->per_second && tm_col(TM_MBPS)->kind == TM_K_BYTES &&
	      !tm_col(TM_AVGWR)->per_second && tm_col(TM_AVGWR)->kind == TM_K_BYTES);
	CHECK(tm_col(TM_RPS)->kind == TM_K_RATE);
	CHECK(tm_col(TM_HIT)->kind == TM_K_PCT && tm_col(TM_SECRD)->kind == TM_K_RATIO);
}

int main(void)
{
	columns_from_table();
	opts();
	keys();
	model_pipes();
	model_procs();
	many_ends();
	hostile_ends();
	format();
	interval_steps();
	waits_and_hists();
	advice();
	prompts();
	return unit_summary("test_pipetop");
}
