// SPDX-License-Identifier: GPL-2.0
/* pipebench: options, --ab parsing, and the statistics it prints. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "pipebench.h"
#include "unit.h"

static struct pb_opts o;
static char err[320];

static int parse(const char *line)
{
	char buf[512], *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "pipebench %s", line);
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

	CHECK(parse("") == PB_RUN);
	for (int i = 0; i < PB_NWL; i++)
		CHECK(o.wl[i]);
	CHECK(o.reps == 5);
	CHECK(near(o.duration, 1));
	CHECK(o.ops == 0 && o.nsizes == 0 && !o.ab.on && !o.csv);
	CHECK(o.ncpus >= 1 && o.ncpus <= 2);
	CHECK(o.load.tier == PT_TIER_AUTO);
	snprintf(comm, sizeof(comm), "pbench-%d", (int)getpid());
	CHECK_STR(o.load.comm, comm);

	CHECK(parse("--quick") == PB_RUN);
	CHECK(o.reps == 3 && near(o.duration, 0.1));
	CHECK(parse("--quick -R 7 -d 2") == PB_RUN);
	CHECK(o.reps == 7 && near(o.duration, 2));
	CHECK(parse("--quick -n 100") == PB_RUN);
	CHECK(o.ops == 100 && o.duration == 0);
}

static void lists(void)
{
	CHECK(parse("-s 4096,65536 --writers 1,2 --readers 5 stream mix") == PB_RUN);
	CHECK(o.nsizes == 2 && o.sizes[0] == 4096 && o.sizes[1] == 65536);
	CHECK(o.nwriters == 2 && o.writers[1] == 2 && o.nreaders == 1 && o.readers[0] == 5);
	CHECK(o.wl[PB_STREAM] && o.wl[PB_MIX] && !o.wl[PB_BW] && !o.wl[PB_URING] &&
	      !o.wl[PB_PINGPONG]);
	CHECK(parse("all") == PB_RUN && o.wl[PB_BW] && o.wl[PB_URING]);
	CHECK(parse("--cpus 0") == PB_RUN && o.ncpus == 1 && o.cpus[0] == 0);
	CHECK(parse("--cpus 0-0,0") == PB_RUN && o.ncpus == 2);

	static const char *const bad[] = {
		"-s 0", "-s 4096,", "-s ,4096", "-s 4096,,8", "-s 16777217", "-s x",
		"-w 0", "-w 65", "-r 1,,2", "-R 0", "-R 1000", "-d 0", "-d nan",
		"-d 1 -n 2", "-n -1", "--cpus 99999", "--cpus 1-0", "--tier x",
		"nosuch", "--nosuch", "-R", "stream extra-arg",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i]);

		CHECK(rc == PB_USAGE);
		CHECK(err[0] && !strchr(err, '\n'));
		if (rc != PB_USAGE)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
	}
}

static void ab(void)
{
	struct pb_ab a = { 0 };

	CHECK(parse("--ab pipe-read-batch=0,1") == PB_RUN);
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

int main(void)
{
	defaults();
	lists();
	ab();
	stats();
	return unit_summary("test_pipebench");
}
