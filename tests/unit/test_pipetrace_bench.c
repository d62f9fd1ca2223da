// SPDX-License-Identifier: GPL-2.0
/* pipetrace-bench: options, --ab parsing, and the statistics it prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "pipetrace-bench/pipetrace-bench.h"
#include "json_unit.h"
#include "unit.h"

static struct pb_opts o;
static char err[320];

static int parse(const char *line)
{
	char buf[512], *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "pipetrace-bench %s", line);
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	err[0] = '\0';
	return pb_parse(argc, argv, &o, stdout, err, sizeof(err));
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void defaults(void)
{
	char comm[PT_COMM_LEN];

	CHECK(parse("") == CLI_RUN);
	for (int i = 0; i < PB_NWL; i++)
		CHECK(o.wl[i]);
	CHECK(o.reps == 5);
	CHECK(near(o.duration, 1));
	CHECK(o.ops == 0 && o.nsizes == 0 && !o.ab.on && !o.csv);
	CHECK(o.ncpus == 0);	/* not pinned, as perf bench sched pipe */
	CHECK(o.load.tier == PT_TIER_AUTO);
	snprintf(comm, sizeof(comm), "pbench-%d", (int)getpid());
	CHECK_STR(o.load.comm, comm);

	CHECK(parse("--quick") == CLI_RUN);
	CHECK(o.reps == 3 && near(o.duration, 0.1));
	CHECK(parse("--quick -R 7 -d 2") == CLI_RUN);
	CHECK(o.reps == 7 && near(o.duration, 2));
	CHECK(parse("--quick -N 100") == CLI_RUN);
	CHECK(o.ops == 100 && o.duration == 0);
	/* one letter, one meaning in every front end */
	CHECK(parse("-n 100") == CLI_USAGE);
	CHECK_STR(err, "-n is the command name in every front end: pipetrace-bench's op count is -N (--ops)");
	CHECK(parse("-c 0,1") == CLI_USAGE);
	CHECK_STR(err, "-c is the interval count in every front end: pipetrace-bench's CPU list is -C (--cpus)");
	CHECK(parse("-r 5") == CLI_USAGE);
	CHECK(parse("-s 4096") == CLI_USAGE);
	CHECK(parse("-C 0 -S 4096 --readers 2") == CLI_RUN);
	CHECK(o.ncpus == 1 && o.cpus[0] == 0 && o.sizes[0] == 4096 && o.readers[0] == 2);
}

static void lists(void)
{
	CHECK(parse("-S 4096,65536 --writers 1,2 --readers 5 stream mix") == CLI_RUN);
	CHECK(o.nsizes == 2 && o.sizes[0] == 4096 && o.sizes[1] == 65536);
	CHECK(o.nwriters == 2 && o.writers[1] == 2 && o.nreaders == 1 && o.readers[0] == 5);
	CHECK(o.wl[PB_STREAM] && o.wl[PB_MIX] && !o.wl[PB_BW] && !o.wl[PB_URING] &&
	      !o.wl[PB_PINGPONG]);
	CHECK(parse("all") == CLI_RUN && o.wl[PB_BW] && o.wl[PB_URING]);
	CHECK(parse("--cpus 0") == CLI_RUN && o.ncpus == 1 && o.cpus[0] == 0);
	CHECK(parse("--cpus 0-0,0") == CLI_RUN && o.ncpus == 2);

	static const char *const bad[] = {
		"-S 0", "-S 4096,", "-S ,4096", "-S 4096,,8", "-S 16777217", "-S x",
		"-w 0", "-w 65", "--readers 1,,2", "-R 0", "-R 1000", "-d 0", "-d nan",
		"-d 1 -N 2", "-N -1", "--cpus 99999", "--cpus 1-0", "--tier x",
		"nosuch", "--nosuch", "-R", "stream extra-arg",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i]);

		CHECK(rc == CLI_USAGE);
		CHECK(err[0] && !strchr(err, '\n'));
		if (rc != CLI_USAGE)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
	}
}

static void ab(void)
{
	struct pb_ab a = { 0 };

	CHECK(parse("--ab pipe-read-batch=0,1") == CLI_RUN);
	CHECK(o.ab.on && !strcmp(o.ab.knob, "pipe-read-batch"));
	CHECK(o.ab.value[0] == 0 && o.ab.value[1] == 1);
	CHECK(pb_ab_parse("fs.pipe-prealloc-max=8,0", &a, err, sizeof(err)) == 0);
	CHECK_STR(a.knob, "pipe-prealloc-max");
	CHECK(a.value[0] == 8 && a.value[1] == 0);
	CHECK(pb_ab_parse("pipe-prealloc-keep=2,2", &a, err, sizeof(err)) == 0);
	CHECK(pb_ab_parse("pipe-read-batch=0,2", &a, err, sizeof(err)) == -1);
	CHECK(strstr(err, "0..1") != NULL);
	CHECK(pb_ab_parse("pipe-prealloc-max=-1,8", &a, err, sizeof(err)) == -1);
	CHECK(pb_ab_parse("pipe-prealloc-max=0", &a, err, sizeof(err)) == -1);
	CHECK(pb_ab_parse("pipe-prealloc-max=0,", &a, err, sizeof(err)) == -1);
	CHECK(pb_ab_parse("pipe-prealloc-max", &a, err, sizeof(err)) == -1);
	CHECK(pb_ab_parse("=0,1", &a, err, sizeof(err)) == -1);
	CHECK(pb_ab_parse("pipe-max-size=0,1", &a, err, sizeof(err)) == -1);
	CHECK(pb_knob_find("fs.pipe-read-batch") && !pb_knob_find("read-batch"));
}

static void stats(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	struct pb_stats s = pb_stats_of(odd, 3), t;

	CHECK(near(s.median, 3) && near(s.min, 1) && near(s.max, 5));
	CHECK(odd[0] == 5);	/* input left as it was */
	s = pb_stats_of(even, 4);
	CHECK(near(s.median, 2.5) && near(s.min, 1) && near(s.max, 4));
	s = pb_stats_of(one, 1);
	CHECK(near(s.median, 7) && near(s.min, 7) && near(s.max, 7));
	s = pb_stats_of(one, 0);
	CHECK(s.median == 0);

	CHECK(near(pb_delta_pct(100, 110), 10));
	CHECK(near(pb_delta_pct(200, 150), -25));
	CHECK(pb_delta_pct(0, 5) == 0);

	s = (struct pb_stats){ .median = 100, .min = 90, .max = 110 };	/* +-10% */
	t = (struct pb_stats){ .median = 200, .min = 190, .max = 250 };	/* 15% */
	CHECK(near(pb_noise_pct(&s, &t), 15));
	CHECK(near(pb_noise_pct(&s, NULL), 10));
	CHECK(pb_per_op(PB_PINGPONG) && pb_per_op(PB_URING) && !pb_per_op(PB_STREAM));
}

/* field n (0-based) of a CSV line */
static const char *field(const char *line, int n, char *buf, size_t cap)
{
	const char *p = line;
	size_t len;

	for (int i = 0; i < n && p; i++)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p)
		return "(none)";
	len = strcspn(p, ",\n");
	snprintf(buf, cap, "%.*s", (int)len, p);
	return buf;
}

static int column(const char *head, const char *name)
{
	char buf[64];

	for (int i = 0; i < 64; i++)
		if (!strcmp(field(head, i, buf, sizeof(buf)), name))
			return i;
	return -1;
}

/* issue 7's columns, first and in this order */
static const char issue_cols[] =
	"workload,size,writers,readers,reps,mbps_median,mbps_min,mbps_max,"
	"writes,write_bytes,reads,read_bytes,pool_hit_pct,alloc_locked,"
	"copy_sections,eagain_read,eagain_write,tier,";

/* Values a tier cannot know are empty in CSV and '-' in the table, never 0. */
static void output(void)
{
	struct pb_point p = { .wl = PB_STREAM, .size = 65536, .writers = 1,
			      .readers = 1, .variant = "" };
	static struct pb_side side;
	char *buf = NULL, head[1024], row[1024], f[64];
	size_t len = 0;
	FILE *m;

	side.knob_value = -1;
	side.env = (struct pt_env){ .tier = PT_TIER_SYSCALL, .knob_prealloc_max = 8,
				    .knob_prealloc_keep = 2, .knob_read_batch = 1 };
	side.c.writes = 10;
	side.c.write_bytes = 655360;
	side.c.reads = 11;
	side.c.read_bytes = 655360;
	side.c.bufs_new = 160;
	side.c.alloc_locked = 150;
	side.c.read_bufs = 160;
	side.c.read_sections = 160;
	side.mbps[0] = 100;
	side.mbps[1] = 300;
	side.mbps[2] = 200;
	side.usop[0] = side.usop[1] = side.usop[2] = 1;
	side.n = 3;
	side.bytes = 655360;
	side.ops = 10;

	CHECK(parse("--csv stream") == CLI_RUN);
	m = open_memstream(&buf, &len);
	pb_out_begin(m, &o, PT_TIER_SYSCALL);
	pb_out_point(m, &o, &p, &side, 1);
	fclose(m);
	CHECK(sscanf(buf, "%1023[^\n]\n%1023[^\n]", head, row) == 2);
	CHECK(!strncmp(head, issue_cols, strlen(issue_cols)));
	CHECK_STR(field(row, column(head, "mbps_median"), f, sizeof(f)), "200.00");
	CHECK_STR(field(row, column(head, "mbps_min"), f, sizeof(f)), "100.00");
	CHECK_STR(field(row, column(head, "write_bytes"), f, sizeof(f)), "655360");
	CHECK_STR(field(row, column(head, "tier"), f, sizeof(f)), "syscall");
	/* syscall tier with prefill and batching on: the split by the
	 * mutex's owner, sections unknown */
	CHECK_STR(field(row, column(head, "alloc_locked"), f, sizeof(f)), "150");
	CHECK_STR(field(row, column(head, "alloc_locked_per_mb"), f, sizeof(f)), "228.88");
	CHECK_STR(field(row, column(head, "copy_sections"), f, sizeof(f)), "");
	CHECK_STR(field(row, column(head, "sections_per_read"), f, sizeof(f)), "");
	CHECK_STR(field(row, column(head, "ab_side"), f, sizeof(f)), "");
	free(buf);

	/* the same counts on the tracepoint tier are all known */
	side.env.tier = PT_TIER_TRACEPOINT;
	side.c.pool_hits = 10;
	buf = NULL;
	m = open_memstream(&buf, &len);
	pb_out_point(m, &o, &p, &side, 1);
	fclose(m);
	CHECK_STR(field(buf, column(head, "alloc_locked"), f, sizeof(f)), "150");
	CHECK_STR(field(buf, column(head, "alloc_locked_per_mb"), f, sizeof(f)), "228.88");
	CHECK_STR(field(buf, column(head, "copy_sections"), f, sizeof(f)), "160");
	CHECK_STR(field(buf, column(head, "pool_hit_pct"), f, sizeof(f)), "6.25");
	free(buf);

	/* --json: the CSV's columns as keys, unknown null */
	CHECK(parse("--json stream") == CLI_RUN);
	buf = NULL;
	m = open_memstream(&buf, &len);
	pb_out_begin(m, &o, PT_TIER_SYSCALL);
	pb_out_point(m, &o, &p, &side, 1);
	fclose(m);
	{
		char keys[1024], v[64];

		CHECK(json_walk(buf, keys, sizeof(keys), "alloc_locked", v, sizeof(v)) == 0);
		CHECK_STR(keys, head);
		CHECK_STR(v, "150");
		CHECK_STR(json_get(buf, "ab_side"), "null");
		CHECK_STR(json_get(buf, "workload"), "\"stream\"");
		CHECK_STR(json_get(buf, "mbps_median"), "200.00");
	}
	free(buf);
	CHECK(parse("--json --csv stream") == CLI_USAGE);

	/* table: '-' where unknown */
	side.env.tier = PT_TIER_SYSCALL;
	CHECK(parse("stream") == CLI_RUN);
	buf = NULL;
	m = open_memstream(&buf, &len);
	pb_out_point(m, &o, &p, &side, 1);
	fclose(m);
	CHECK(!strncmp(buf, "stream ", 7));
	CHECK(strstr(buf, " 200.00 ") && strstr(buf, " - ") && !strstr(buf, " 0.00 "));
	free(buf);
}

/* pipetrace-bench ARGS's header and one point, as printed; free() it */
static char *render(const char *args, const struct pb_point *p,
		    const struct pb_side *side)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m;

	CHECK(parse(args) == CLI_RUN);
	m = open_memstream(&out, &len);
	pb_out_begin(m, &o, PT_TIER_SYSCALL);
	pb_out_point(m, &o, p, side, 1);
	fclose(m);
	return out;
}

/* Where each end runs, said per point; a noisy point is flagged. */
static void placement_spread(void)
{
	struct pb_point p = { .wl = PB_PINGPONG, .size = 1, .writers = 1,
			      .readers = 1, .variant = "" };
	static struct pb_side side;
	struct pb_stats st;
	char buf[32], *out, head[1024], row[1024], f[64];

	CHECK(parse("pingpong") == CLI_RUN);
	CHECK_STR(pb_placement(&o, &p, buf, sizeof(buf)), "unpinned");
	CHECK(pb_cpu_at(&o, 0) == -1 && pb_cpu_at(&o, 1) == -1);
	CHECK(parse("-C 0 pingpong") == CLI_RUN);
	CHECK_STR(pb_placement(&o, &p, buf, sizeof(buf)), "same CPU 0");
	CHECK(pb_cpu_at(&o, 0) == 0 && pb_cpu_at(&o, 1) == 0);
	CHECK(parse("-C 0,0 pingpong") == CLI_RUN);
	CHECK_STR(pb_placement(&o, &p, buf, sizeof(buf)), "same CPU 0");
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 && parse("-C 0,1 pingpong") == CLI_RUN) {
		CHECK_STR(pb_placement(&o, &p, buf, sizeof(buf)), "CPUs 0 and 1");
		p.wl = PB_BW;	/* lmbench's run is never pinned */
		CHECK_STR(pb_placement(&o, &p, buf, sizeof(buf)), "unpinned");
		p.wl = PB_PINGPONG;
	}

	/* (max - min) / median: 15/322/683 (the issue's point) is 207% */
	st = (struct pb_stats){ .median = 322, .min = 15, .max = 683 };
	CHECK(fabs(pb_spread_pct(&st) - 668.0 / 322 * 100) < 1e-9);
	st = (struct pb_stats){ .median = 100, .min = 90, .max = 110 };
	CHECK(near(pb_spread_pct(&st), 20));
	st.median = 0;
	CHECK(near(pb_spread_pct(&st), 0));

	side.knob_value = -1;
	side.env.tier = PT_TIER_SYSCALL;
	side.n = 3;
	side.usop[0] = 15;
	side.usop[1] = 322;
	side.usop[2] = 683;
	side.mbps[0] = side.mbps[1] = side.mbps[2] = 1;
	out = render("-C 0 pingpong", &p, &side);
	CHECK(strstr(out, "pinned to CPUs: 0\n") != NULL);
	CHECK(strstr(out, " same CPU 0\n") != NULL);
	CHECK(strstr(out, "\n  ! spread 207%: (max - min) / median over 25%") != NULL);
	free(out);

	/* within the threshold: no warning; unpinned said in the header */
	side.usop[0] = 95;
	side.usop[1] = 100;
	side.usop[2] = 105;
	out = render("pingpong", &p, &side);
	CHECK(strstr(out, "not pinned (as perf bench sched pipe)") != NULL);
	CHECK(strstr(out, " unpinned\n") != NULL);
	CHECK(strstr(out, "spread") == NULL);
	free(out);

	/* CSV: placement and spread_pct (of MB/s) appended */
	side.mbps[0] = 50;
	side.mbps[1] = 100;
	side.mbps[2] = 110;
	out = render("--csv -C 0 pingpong", &p, &side);
	CHECK(sscanf(out, "%1023[^\n]\n%1023[^\n]", head, row) == 2);
	CHECK_STR(field(row, column(head, "placement"), f, sizeof(f)), "same CPU 0");
	CHECK_STR(field(row, column(head, "spread_pct"), f, sizeof(f)), "60.00");
	CHECK_STR(field(row, column(head, "attached"), f, sizeof(f)), "yes");
	free(out);
}

/* --baseline: a row with nothing attached first, its metrics unknown */
static void baseline(void)
{
	struct pb_point p = { .wl = PB_STREAM, .size = 65536, .writers = 1,
			      .readers = 1, .variant = "" };
	static struct pb_side sides[2];
	char *out = NULL, head[1024], row[2][1024], f[64];
	size_t len = 0;
	FILE *m;

	CHECK(parse("--baseline --ab pipe-read-batch=0,1") == CLI_USAGE);
	CHECK_STR(err, "--baseline and --ab both make a second side: give one");
	for (int i = 0; i < 2; i++) {
		sides[i].knob_value = -1;
		sides[i].env.tier = PT_TIER_SYSCALL;
		sides[i].n = 1;
		sides[i].mbps[0] = 1000 + i;
		sides[i].ops = 10;
	}
	sides[0].unattached = true;
	sides[1].c.writes = 10;
	sides[1].c.write_bytes = 655360;
	CHECK(parse("--baseline -C 0 stream") == CLI_RUN && o.baseline);
	m = open_memstream(&out, &len);
	pb_out_point(m, &o, &p, sides, 2);
	fclose(m);
	CHECK(sscanf(out, "%1023[^\n]\n%1023[^\n]", row[0], row[1]) == 2);
	CHECK(strstr(row[0], " 1000.00 ") && strstr(row[0], " - ") &&
	      strstr(row[0], " same CPU 0, nothing attached"));
	CHECK(strstr(row[1], " 1001.00 ") && !strstr(row[1], "nothing attached"));
	/* 1000 -> 1001 MB/s: +0.1%, one rep each: no spread */
	CHECK(strstr(out, "\n  attached: +0.1% throughput vs nothing attached (noise 0.0%)\n"));
	free(out);

	CHECK(parse("--baseline --csv stream") == CLI_RUN);
	out = NULL;
	m = open_memstream(&out, &len);
	pb_out_begin(m, &o, PT_TIER_SYSCALL);
	pb_out_point(m, &o, &p, sides, 2);
	fclose(m);
	CHECK(sscanf(out, "%1023[^\n]\n%1023[^\n]\n%1023[^\n]", head, row[0], row[1]) == 3);
	CHECK_STR(field(row[0], column(head, "attached"), f, sizeof(f)), "no");
	CHECK_STR(field(row[0], column(head, "writes"), f, sizeof(f)), "");
	CHECK_STR(field(row[0], column(head, "tier"), f, sizeof(f)), "");
	CHECK_STR(field(row[0], column(head, "ops"), f, sizeof(f)), "10");
	CHECK_STR(field(row[1], column(head, "attached"), f, sizeof(f)), "yes");
	CHECK_STR(field(row[1], column(head, "writes"), f, sizeof(f)), "10");
	CHECK_STR(field(row[1], column(head, "tier"), f, sizeof(f)), "syscall");
	free(out);
}

/* bursty: its pipe sizes, and the size and writer wait it reports */
static void bursty(void)
{
	struct pb_point p = { .wl = PB_BURSTY, .size = 65536, .writers = 1,
			      .readers = 1, .variant = "", .pipe_size = 1 << 20 };
	static struct pb_side side;
	char *out, head[1024], row[1024], f[64], buf[32];

	CHECK(parse("-P 0,1048576 bursty") == CLI_RUN);
	CHECK(o.wl[PB_BURSTY] && !o.wl[PB_STREAM] && o.npipe_sizes == 2 &&
	      o.pipe_sizes[0] == 0 && o.pipe_sizes[1] == 1048576);
	CHECK(parse("--pipe-size 4096x bursty") == CLI_USAGE);
	CHECK_STR(err, "invalid pipe size list '4096x': want bytes 0..1073741824 "
		  "(0: as made), e.g. 0,1048576");
	CHECK(parse("-C 0 bursty") == CLI_RUN);
	CHECK_STR(pb_placement(&o, &p, buf, sizeof(buf)), "unpinned");

	side.knob_value = -1;
	side.env.tier = PT_TIER_SYSCALL;
	side.n = 3;
	side.ring = 1 << 20;
	side.mbps[0] = side.mbps[1] = side.mbps[2] = 12;
	side.wait_pct[0] = 1;
	side.wait_pct[1] = 3;
	side.wait_pct[2] = 2;
	out = render("bursty", &p, &side);
	CHECK(strstr(out, "\nbursty ") != NULL);
	CHECK(strstr(out, "\n  pipe 1048576 bytes: writer in write(2) 2.0% of the time "
		     "(median; min 1.0, max 3.0)\n") != NULL);
	free(out);

	out = render("--csv bursty", &p, &side);
	CHECK(sscanf(out, "%1023[^\n]\n%1023[^\n]", head, row) == 2);
	CHECK_STR(field(row, column(head, "pipe_size"), f, sizeof(f)), "1048576");
	CHECK_STR(field(row, column(head, "writer_wait_pct"), f, sizeof(f)), "2.00");
	free(out);
	/* other workloads: unknown, not 0 */
	p.wl = PB_STREAM;
	out = render("--csv stream", &p, &side);
	CHECK(sscanf(out, "%1023[^\n]\n%1023[^\n]", head, row) == 2);
	CHECK_STR(field(row, column(head, "pipe_size"), f, sizeof(f)), "");
	CHECK_STR(field(row, column(head, "writer_wait_pct"), f, sizeof(f)), "");
	free(out);
}

int main(void)
{
	defaults();
	lists();
	ab();
	stats();
	output();
	placement_spread();
	baseline();
	bursty();
	return unit_summary("test_pipetrace_bench");
}
