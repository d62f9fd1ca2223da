// SPDX-License-Identifier: GPL-2.0
/* The Prometheus exposition: counters from the table, labels, the cap. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/prom.h"
#include "unit.h"

static char *render(const struct prom_store *p, enum prom_fmt fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(prom_render(f, p, fmt) == 0);
	fclose(f);
	return buf;
}

/* the line starting with prefix, without its newline; "" if none */
static const char *line(const char *text, const char *prefix)
{
	static char out[512];
	const char *p = text;

	out[0] = '\0';
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, strlen(prefix))) {
			snprintf(out, sizeof(out), "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
	return out;
}

static struct pt_env syscall_env(__u64 untracked)
{
	return (struct pt_env){ .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
				.knob_prealloc_keep = -1, .knob_read_batch = -1,
				.untracked = untracked };
}

static void add(struct pt_rows *rows, const char *comm, __u32 pid, __u64 reads)
{
	struct pt_key k = { .tgid = pid };
	struct pt_counts c = { .reads = reads, .read_bytes = 10 * reads,
			       .eagain_read_nonblock = 1 };

	memcpy(k.comm, comm, strnlen(comm, PT_COMM_LEN));
	rows_add(rows, &k, &c);
}

static void counters(void)
{
	struct prom_store p;
	struct pt_rows rows;
	struct pt_env env = syscall_env(3);
	char *t;

	prom_init(&p, PT_BY_COMM, 100);
	rows_init(&rows, PT_BY_COMM);
	add(&rows, "make", 1, 5);
	add(&rows, "cc1", 2, 7);
	CHECK(prom_add(&p, &rows, &env) == 0);
	rows_clear(&rows);
	add(&rows, "make", 3, 4);	/* another process, same command */
	env.untracked = 2;
	CHECK(prom_add(&p, &rows, &env) == 0);

	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_reads_total{tier=\"syscall\",comm=\"make\"}"),
		  "pipetrace_reads_total{tier=\"syscall\",comm=\"make\"} 9");
	CHECK_STR(line(t, "pipetrace_reads_total{tier=\"syscall\",comm=\"cc1\"}"),
		  "pipetrace_reads_total{tier=\"syscall\",comm=\"cc1\"} 7");
	CHECK_STR(line(t, "pipetrace_read_bytes_total{tier=\"syscall\",comm=\"make\"}"),
		  "pipetrace_read_bytes_total{tier=\"syscall\",comm=\"make\"} 90");
	CHECK_STR(line(t, "pipetrace_eagain_read_total{tier=\"syscall\",comm=\"make\"}"),
		  "pipetrace_eagain_read_total{tier=\"syscall\",comm=\"make\"} 2");
	CHECK_STR(line(t, "# TYPE pipetrace_reads"), "# TYPE pipetrace_reads_total counter");
	CHECK_STR(line(t, "pipetrace_untracked_events_total"),
		  "pipetrace_untracked_events_total{tier=\"syscall\"} 5");
	CHECK_STR(line(t, "pipetrace_build_info"),
		  "pipetrace_build_info{version=\"" PIPETRACE_VERSION "\",tier=\"syscall\"} 1");
	/* unknown on this tier: absent, never 0; ratios left to PromQL */
	CHECK_STR(line(t, "pipetrace_eagain_empty"), "");
	CHECK_STR(line(t, "pipetrace_prefill_dropped"), "");
	CHECK_STR(line(t, "pipetrace_pool_hit_pct"), "");
	CHECK_STR(line(t, "pipetrace_knob_read_batch"), "");	/* no such knob */
	CHECK(strstr(line(t, "# HELP pipetrace_pool_hits_total"), "(derived on this tier)"));
	CHECK(!strstr(t, "# EOF"));
	free(t);

	/* OpenMetrics: the family without _total, and # EOF */
	t = render(&p, PROM_OPENMETRICS);
	CHECK_STR(line(t, "# TYPE pipetrace_reads"), "# TYPE pipetrace_reads counter");
	CHECK_STR(line(t, "pipetrace_reads_total{tier=\"syscall\",comm=\"make\"}"),
		  "pipetrace_reads_total{tier=\"syscall\",comm=\"make\"} 9");
	CHECK(strlen(t) > 6 && !strcmp(t + strlen(t) - 6, "# EOF\n"));
	free(t);

	/* a knob is a gauge */
	env.knob_read_batch = 1;
	CHECK(prom_add(&p, &rows, &env) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_knob_read_batch"), "pipetrace_knob_read_batch{tier=\"syscall\"} 1");
	CHECK_STR(line(t, "# TYPE pipetrace_knob_read_batch"),
		  "# TYPE pipetrace_knob_read_batch gauge");
	free(t);
	rows_free(&rows);
	prom_free(&p);
}

/* per-pid labels are capped: the rest in one overflow series */
static void cap(void)
{
	struct prom_store p;
	struct pt_rows rows;
	struct pt_env env = syscall_env(0);
	char *t;

	prom_init(&p, PT_BY_PID, 2);
	rows_init(&rows, PT_BY_PID);
	add(&rows, "a", 10, 1);
	add(&rows, "b", 11, 2);
	add(&rows, "c", 12, 4);
	add(&rows, "d", 13, 8);
	CHECK(prom_add(&p, &rows, &env) == 0);
	rows_clear(&rows);
	add(&rows, "a", 10, 16);	/* already a series: still its own */
	add(&rows, "e", 14, 32);
	CHECK(prom_add(&p, &rows, &env) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_reads_total{tier=\"syscall\",pid=\"10\""),
		  "pipetrace_reads_total{tier=\"syscall\",pid=\"10\",comm=\"a\"} 17");
	CHECK_STR(line(t, "pipetrace_reads_total{tier=\"syscall\",overflow=\"true\"}"),
		  "pipetrace_reads_total{tier=\"syscall\",overflow=\"true\"} 44");
	CHECK_STR(line(t, "pipetrace_reads_total{tier=\"syscall\",pid=\"12\""), "");
	free(t);
	rows_free(&rows);
	prom_free(&p);
}

static void escaping(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	prom_label_value(f, "a\"b\\c\n\x01\xff" "zzzzzzzzzzzz", PT_COMM_LEN);
	fclose(f);
	/* 16 bytes at most: a comm need not end in NUL */
	CHECK_STR(buf, "a\\\"b\\\\c\\n\\\\x01\\\\xffzzzzzzzz");
	free(buf);
}

/* the textfile: whole or not at all, no temporary file left */
static void textfile(void)
{
	char dir[] = "/tmp/pt-prom-XXXXXX", path[64], got[64], err[256];
	struct textfile t;
	struct prom_store p;
	struct dirent *e;
	int entries = 0;
	DIR *d;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/pipetrace.prom", dir);
	prom_init(&p, PT_BY_COMM, 10);
	p.env = syscall_env(0);
	CHECK(textfile_open(&t, path, err, sizeof(err)) == 0);
	CHECK(prom_textfile(&t, &p) == 0);
	CHECK(prom_textfile(&t, &p) == 0);
	f = fopen(path, "r");
	CHECK(f && fgets(got, sizeof(got), f));
	CHECK(!strncmp(got, "# HELP pipetrace_build_info", 27));
	if (f)
		fclose(f);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		entries += e->d_name[0] != '.' || !strncmp(e->d_name, ".pipetrace", 10);
	if (d)
		closedir(d);
	CHECK(entries == 1);
	/* the target turned into a symlink: left alone, EINVAL */
	unlink(path);
	CHECK(symlink("/dev/null", path) == 0);
	CHECK(prom_textfile(&t, &p) == -1 && errno == EINVAL);
	textfile_close(&t);
	/* refused up front: a link, a missing directory, no file name */
	CHECK(textfile_open(&t, path, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not a regular file") != NULL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/missing/pipetrace.prom", dir);
	CHECK(textfile_open(&t, path, err, sizeof(err)) == -1);
	CHECK(strstr(err, "No such file or directory") != NULL);
	CHECK(textfile_open(&t, "/tmp/", err, sizeof(err)) == -1);
	CHECK(strstr(err, "want a file name") != NULL);
	CHECK(rmdir(dir) == 0);
	prom_free(&p);
}

int main(void)
{
	counters();
	cap();
	escaping();
	textfile();
	return unit_summary("test_prom");
}
