// SPDX-License-Identifier: GPL-2.0
/* pipestat's option parsing: values, limits and the errors users see. */
#include <stdio.h>
#include "pipestat/opts.h"
#include "unit.h"

static int parse(const char *line, struct pipestat_opts *o, char *err)
{
	char buf[1024], *argv[256];
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

int main(void)
{
	defaults();
	values();
	errors();
	too_many_pids();
	return unit_summary("test_opts");
}
