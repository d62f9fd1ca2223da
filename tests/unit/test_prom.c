// SPDX-License-Identifier: GPL-2.0
/* The Prometheus exposition: counters from the table, labels, the cap. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "output/prom.h"
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
			       .eagain_read_nonblock = 1, .eagain_write_nowait = 1,
			       .wait_write_ns = 1000000014 * (__u64)pid,
			       .lock_wait_ns = reads };

	memcpy(k.comm, comm, strnlen(comm, PT_COMM_LEN));
	rows_add(rows, &k, &c);
}

static void counters(void)
{
	struct prom_store p;
	struct pt_rows rows;
	struct pt_env env = syscall_env(3);
	char *t;

	prom_init(&p, PT_BY_COMM, 100, 0);
	rows_init(&rows, PT_BY_COMM);
	add(&rows, "make", 1, 5);
	add(&rows, "cc1", 2, 7);
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
	rows_clear(&rows);
	add(&rows, "make", 3, 4);	/* another process, same command */
	env.untracked = 2;
	CHECK(prom_add(&p, &rows, &env, 1) == 0);

	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"make\",side=\"read\"}"),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"make\",side=\"read\"} 9");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"cc1\",side=\"read\"}"),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"cc1\",side=\"read\"} 7");
	CHECK_STR(line(t, "pipetrace_bytes_total{tier=\"syscall\",comm=\"make\",side=\"read\"}"),
		  "pipetrace_bytes_total{tier=\"syscall\",comm=\"make\",side=\"read\"} 90");
	/* an -EAGAIN by side and cause */
	CHECK_STR(line(t, "pipetrace_eagain_total{tier=\"syscall\",comm=\"make\",side=\"read\""),
		  "pipetrace_eagain_total{tier=\"syscall\",comm=\"make\",side=\"read\","
		  "cause=\"nonblock\"} 2");
	CHECK_STR(line(t, "pipetrace_eagain_total{tier=\"syscall\",comm=\"make\",side=\"write\",cause=\"nowait\"}"),
		  "pipetrace_eagain_total{tier=\"syscall\",comm=\"make\",side=\"write\",cause=\"nowait\"} 2");
	CHECK_STR(line(t, "# TYPE pipetrace_calls"), "# TYPE pipetrace_calls_total counter");
	CHECK_STR(line(t, "pipetrace_untracked_events_total"),
		  "pipetrace_untracked_events_total{tier=\"syscall\"} 5");
	CHECK_STR(line(t, "pipetrace_build_info"),
		  "pipetrace_build_info{version=\"" PIPETRACE_VERSION "\",tier=\"syscall\"} 1");
	/* nanoseconds as seconds, exactly */
	CHECK_STR(line(t, "pipetrace_wait_seconds_total{tier=\"syscall\",comm=\"make\",side=\"write\"}"),
		  "pipetrace_wait_seconds_total{tier=\"syscall\",comm=\"make\",side=\"write\"} 4.000000056");
	CHECK_STR(line(t, "pipetrace_lock_wait_seconds_total{tier=\"syscall\",comm=\"cc1\"}"),
		  "pipetrace_lock_wait_seconds_total{tier=\"syscall\",comm=\"cc1\"} 0.000000007");
	CHECK(!strstr(t, "_ns"));
	/* unknown on this tier: absent, never 0; ratios left to PromQL */
	CHECK_STR(line(t, "pipetrace_eagain_reason"), "");
	CHECK_STR(line(t, "pipetrace_prefill_dropped"), "");
	CHECK_STR(line(t, "pipetrace_pool_hit_pct"), "");
	CHECK_STR(line(t, "pipetrace_knob_read_batch"), "");	/* no such knob */
	CHECK(strstr(line(t, "# HELP pipetrace_pool_hits_total"), "(derived on this tier)"));
	CHECK(!strstr(t, "# EOF"));
	free(t);

	/* OpenMetrics: the family without _total, and # EOF */
	t = render(&p, PROM_OPENMETRICS);
	CHECK_STR(line(t, "# TYPE pipetrace_calls"), "# TYPE pipetrace_calls counter");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"make\",side=\"read\"}"),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"make\",side=\"read\"} 9");
	CHECK(strlen(t) > 6 && !strcmp(t + strlen(t) - 6, "# EOF\n"));
	free(t);

	/* a knob is a gauge */
	env.knob_read_batch = 1;
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
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

	prom_init(&p, PT_BY_PID, 2, 0);
	rows_init(&rows, PT_BY_PID);
	add(&rows, "a", 10, 1);
	add(&rows, "b", 11, 2);
	add(&rows, "c", 12, 4);
	add(&rows, "d", 13, 8);
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
	rows_clear(&rows);
	add(&rows, "a", 10, 16);	/* already a series: still its own */
	add(&rows, "e", 14, 32);
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",pid=\"10\""),
		  "pipetrace_calls_total{tier=\"syscall\",pid=\"10\",comm=\"a\",side=\"read\"} 17");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",overflow=\"true\",side=\"read\"}"),
		  "pipetrace_calls_total{tier=\"syscall\",overflow=\"true\",side=\"read\"} 44");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",pid=\"12\""), "");
	free(t);
	rows_free(&rows);
	prom_free(&p);
}

static char *label(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	prom_label_value(f, s, len);
	fclose(f);
	return buf;
}

static void escaping(void)
{
	char *v;

	/* 16 bytes at most: a comm need not end in NUL */
	v = label("a\"b\\c\n\x01\xff" "zzzzzzzzzzzz", PT_COMM_LEN);
	CHECK_STR(v, "a\\\"b\\\\\\\\c\\\\x0a\\\\x01\\\\xffzzzzzzzz");
	free(v);
	/* valid UTF-8 passes, as in the CSV; broken UTF-8 does not */
	v = label("caf\xc3\xa9 \xe2\x82\xac", 16);
	CHECK_STR(v, "caf\xc3\xa9 \xe2\x82\xac");
	free(v);
	v = label("\xc3(\xe2\x82 \xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\xe2\x82", 16);
	CHECK_STR(v, "\\\\xc3(\\\\xe2\\\\x82 \\\\xed\\\\xa0\\\\x80\\\\xf4\\\\x90\\\\x80"
		  "\\\\x80\\\\xc0\\\\xaf\\\\xe2\\\\x82");
	free(v);
}

/* A store and one interval's rows, keyed alike, on the syscall tier. */
struct fixture {
	struct prom_store p;
	struct pt_rows rows;
	char *text;
};

static void fixture_init(struct fixture *x, enum pt_by by)
{
	prom_init(&x->p, by, 100, 0);
	rows_init(&x->rows, by);
	x->text = NULL;
}

/* The rows as one interval into the store (then emptied); the text now. */
static const char *interval(struct fixture *x)
{
	struct pt_env env = syscall_env(0);

	CHECK(prom_add(&x->p, &x->rows, &env, 1) == 0);
	rows_clear(&x->rows);
	free(x->text);
	x->text = render(&x->p, PROM_TEXT);
	return x->text;
}

static void fixture_free(struct fixture *x)
{
	free(x->text);
	rows_free(&x->rows);
	prom_free(&x->p);
}

/* a byte and the text that names it: two label sets, never one */
static void no_collision(void)
{
	static const char *const names[] = { "a\xff", "a\\xff", "a\\\\xff", "a\\" };
	struct fixture x;
	const char *t;

	fixture_init(&x, PT_BY_COMM);
	for (int i = 0; i < 4; i++)
		add(&x.rows, names[i], 1, i + 1);
	t = interval(&x);
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\xff\""),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\xff\",side=\"read\"} 1");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\\\\\xff\""),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\\\\\xff\",side=\"read\"} 2");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\\\\\\\\\\\\\xff\""),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\\\\\\\\\\\\\xff\",side=\"read\"} 3");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\\\\\\","),
		  "pipetrace_calls_total{tier=\"syscall\",comm=\"a\\\\\\\\\",side=\"read\"} 4");
	fixture_free(&x);
}

/*
 * Derived counters never go down: the syscall tier's pool hits are new
 * buffers less pages allocated, and a write that faults allocates a page
 * and fills no buffer. The counter sums the intervals' values.
 */
static void monotonic(void)
{
	struct pt_counts c1 = { .writes = 1, .bufs_new = 98, .alloc_locked = 0 };
	struct pt_counts c2 = { .writes = 1, .bufs_new = 0, .alloc_locked = 1 };
	struct pt_key k = { .comm = "w" };
	struct fixture x;
	const char *t;

	fixture_init(&x, PT_BY_COMM);
	rows_add(&x.rows, &k, &c1);
	t = interval(&x);
	CHECK_STR(line(t, "pipetrace_pool_hits_total{"),
		  "pipetrace_pool_hits_total{tier=\"syscall\",comm=\"w\"} 98");
	rows_add(&x.rows, &k, &c2);
	t = interval(&x);
	CHECK_STR(line(t, "pipetrace_pool_hits_total{"),
		  "pipetrace_pool_hits_total{tier=\"syscall\",comm=\"w\"} 98");
	CHECK_STR(line(t, "pipetrace_pool_misses_total{"),
		  "pipetrace_pool_misses_total{tier=\"syscall\",comm=\"w\"} 1");
	fixture_free(&x);
}

/* -k pipe: the device and the inode, so equal inodes stay apart */
static void pipes(void)
{
	struct pt_key a = { .dev = (7u << 20) | 3, .ino = 2 }, b = { .dev = 45, .ino = 2 };
	struct pt_counts c = { .reads = 1 };
	struct fixture x;
	const char *t;

	fixture_init(&x, PT_BY_PIPE);
	rows_add(&x.rows, &a, &c);
	rows_add(&x.rows, &b, &c);
	rows_add(&x.rows, &b, &c);
	t = interval(&x);
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",pipe_dev=\"7:3\""),
		  "pipetrace_calls_total{tier=\"syscall\",pipe_dev=\"7:3\",pipe_ino=\"2\","
		  "side=\"read\"} 1");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",pipe_dev=\"0:45\""),
		  "pipetrace_calls_total{tier=\"syscall\",pipe_dev=\"0:45\",pipe_ino=\"2\","
		  "side=\"read\"} 2");
	fixture_free(&x);
}

/* n values of v into histogram h of a comm's row */
static void hist_add(struct pt_rows *rows, const char *comm, enum pt_hist h,
		     __u64 v, __u64 n)
{
	struct pt_hkey hk = { .hist = h, .slot = 63 - __builtin_clzll(v | 1) };

	memcpy(hk.key.comm, comm, strlen(comm));
	CHECK(rows_add_hist(rows, &hk, n, n * v) == 0);
}

/* --hist: Prometheus histograms, cumulative across intervals and scrapes */
static void histograms(void)
{
	struct prom_store p;
	struct pt_rows rows;
	struct pt_env env = syscall_env(0);
	char *t;

	prom_init(&p, PT_BY_COMM, 1, 1u << PT_HIST_WRITE_SIZE | 1u << PT_HIST_WAIT_READ);
	rows_init(&rows, PT_BY_COMM);
	add(&rows, "w", 1, 1);
	hist_add(&rows, "w", PT_HIST_WRITE_SIZE, 65536, 3);
	hist_add(&rows, "w", PT_HIST_WRITE_SIZE, 1, 2);
	hist_add(&rows, "w", PT_HIST_WAIT_READ, 100000000, 1);	/* 0.1 s */
	hist_add(&rows, "w", PT_HIST_READ_SIZE, 10, 1);	/* not asked for */
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
	rows_clear(&rows);
	hist_add(&rows, "w", PT_HIST_WRITE_SIZE, 65536, 4);
	add(&rows, "x", 2, 1);		/* past the cap: the overflow */
	hist_add(&rows, "x", PT_HIST_WRITE_SIZE, 4096, 5);
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "# TYPE pipetrace_call_size_bytes"),
		  "# TYPE pipetrace_call_size_bytes histogram");
	CHECK_STR(line(t, "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
			  "side=\"write\",le=\"1\"}"),
		  "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
		  "side=\"write\",le=\"1\"} 2");
	CHECK_STR(line(t, "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
			  "side=\"write\",le=\"65535\"}"),
		  "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
		  "side=\"write\",le=\"65535\"} 2");
	CHECK_STR(line(t, "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
			  "side=\"write\",le=\"131071\"}"),
		  "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
		  "side=\"write\",le=\"131071\"} 9");
	CHECK_STR(line(t, "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
			  "side=\"write\",le=\"+Inf\"}"),
		  "pipetrace_call_size_bytes_bucket{tier=\"syscall\",comm=\"w\","
		  "side=\"write\",le=\"+Inf\"} 9");
	CHECK_STR(line(t, "pipetrace_call_size_bytes_sum{tier=\"syscall\",comm=\"w\""),
		  "pipetrace_call_size_bytes_sum{tier=\"syscall\",comm=\"w\",side=\"write\"} 458754");
	CHECK_STR(line(t, "pipetrace_call_size_bytes_count{tier=\"syscall\",comm=\"w\""),
		  "pipetrace_call_size_bytes_count{tier=\"syscall\",comm=\"w\",side=\"write\"} 9");
	/* the label sets past the cap: one overflow histogram */
	CHECK_STR(line(t, "pipetrace_call_size_bytes_count{tier=\"syscall\",overflow=\"true\""),
		  "pipetrace_call_size_bytes_count{tier=\"syscall\",overflow=\"true\","
		  "side=\"write\"} 5");
	/* nanoseconds as seconds: bounds and sum */
	CHECK_STR(line(t, "pipetrace_wait_duration_seconds_bucket{tier=\"syscall\",comm=\"w\","
			  "side=\"read\",le=\"0.134217727\"}"),
		  "pipetrace_wait_duration_seconds_bucket{tier=\"syscall\",comm=\"w\","
		  "side=\"read\",le=\"0.134217727\"} 1");
	CHECK_STR(line(t, "pipetrace_wait_duration_seconds_bucket{tier=\"syscall\",comm=\"w\","
			  "side=\"read\",le=\"0.067108863\"}"),
		  "pipetrace_wait_duration_seconds_bucket{tier=\"syscall\",comm=\"w\","
		  "side=\"read\",le=\"0.067108863\"} 0");
	CHECK_STR(line(t, "pipetrace_wait_duration_seconds_sum{tier=\"syscall\",comm=\"w\""),
		  "pipetrace_wait_duration_seconds_sum{tier=\"syscall\",comm=\"w\","
		  "side=\"read\"} 0.100000000");
	/* only the ones asked for */
	CHECK_STR(line(t, "pipetrace_call_size_bytes_count{tier=\"syscall\",comm=\"w\",side=\"read\""),
		  "");
	CHECK_STR(line(t, "# TYPE pipetrace_occupancy"), "");
	free(t);
	t = render(&p, PROM_OPENMETRICS);
	CHECK_STR(line(t, "# TYPE pipetrace_wait_duration_seconds"),
		  "# TYPE pipetrace_wait_duration_seconds histogram");
	free(t);
	rows_free(&rows);
	prom_free(&p);
}

#define PID_CALLS(pid) "pipetrace_calls_total{tier=\"syscall\",pid=\"" #pid "\""

/* -k pid: a process's series go --series-ttl seconds after its last
 * events, wherever the process is; its room goes to a new key */
static void ttl_pid(void)
{
	struct prom_store p;
	struct pt_rows rows, none;
	struct pt_env env = syscall_env(0);
	char *t;

	prom_init(&p, PT_BY_PID, 2, 0);
	p.ttl = 10;
	rows_init(&rows, PT_BY_PID);
	rows_init(&none, PT_BY_PID);
	add(&rows, "a", 10, 1);
	add(&rows, "b", 11, 2);
	CHECK(prom_add(&p, &rows, &env, 100) == 0);
	rows_clear(&rows);
	add(&rows, "a", 10, 3);
	CHECK(prom_add(&p, &rows, &env, 105) == 0);
	CHECK(prom_add(&p, &none, &env, 109.9) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, PID_CALLS(11)), PID_CALLS(11) ",comm=\"b\",side=\"read\"} 2");
	free(t);
	CHECK(prom_add(&p, &none, &env, 110) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, PID_CALLS(11)), "");
	/* a's events at 105 keep it, its counter the sum of both intervals */
	CHECK_STR(line(t, PID_CALLS(10)), PID_CALLS(10) ",comm=\"a\",side=\"read\"} 4");
	free(t);
	rows_clear(&rows);
	add(&rows, "c", 12, 4);
	CHECK(prom_add(&p, &rows, &env, 112) == 0);
	CHECK(prom_add(&p, &none, &env, 115) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, PID_CALLS(10)), "");
	CHECK_STR(line(t, PID_CALLS(12)), PID_CALLS(12) ",comm=\"c\",side=\"read\"} 4");
	CHECK(!strstr(t, "overflow"));
	free(t);
	/* back: from 0 again (a counter reset), with the histograms' room */
	rows_clear(&rows);
	add(&rows, "b", 11, 5);
	CHECK(prom_add(&p, &rows, &env, 116) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, PID_CALLS(11)), PID_CALLS(11) ",comm=\"b\",side=\"read\"} 5");
	CHECK(!strstr(t, "overflow"));
	free(t);
	/* 0: never */
	p.ttl = 0;
	CHECK(prom_add(&p, &none, &env, 1000) == 0);
	t = render(&p, PROM_TEXT);
	CHECK(*line(t, PID_CALLS(12)) && *line(t, PID_CALLS(11)));
	free(t);
	rows_free(&rows);
	rows_free(&none);
	prom_free(&p);
}

/* every key type but -k total's one set; never the overflow series */
static void ttl_keys(void)
{
	struct prom_store p, total;
	struct pt_rows rows, none, all;
	struct pt_env env = syscall_env(0);
	char *t;

	prom_init(&p, PT_BY_COMM, 1, 0);
	prom_init(&total, PT_BY_TOTAL, 1, 0);
	p.ttl = total.ttl = 2;
	rows_init(&rows, PT_BY_COMM);
	rows_init(&none, PT_BY_COMM);
	rows_init(&all, PT_BY_TOTAL);
	add(&rows, "a", 0, 1);
	add(&rows, "b", 0, 2);		/* past the cap: the overflow's */
	add(&all, "", 0, 3);
	CHECK(prom_add(&p, &rows, &env, 10) == 0);
	CHECK(prom_add(&total, &all, &env, 10) == 0);
	CHECK(prom_add(&p, &none, &env, 12) == 0);
	CHECK(prom_add(&total, &none, &env, 12) == 0);
	t = render(&p, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",comm="), "");
	CHECK_STR(line(t, "pipetrace_calls_total{tier=\"syscall\",overflow"),
		  "pipetrace_calls_total{tier=\"syscall\",overflow=\"true\",side=\"read\"} 2");
	free(t);
	t = render(&total, PROM_TEXT);
	CHECK_STR(line(t, "pipetrace_calls_total{"),
		  "pipetrace_calls_total{tier=\"syscall\",side=\"read\"} 3");
	free(t);
	rows_free(&rows);
	rows_free(&none);
	rows_free(&all);
	prom_free(&p);
	prom_free(&total);
}

/* every CSV count column has its Prometheus name; the doc is current */
static void doc(void)
{
	char *want = NULL, got[16384], q[256];
	size_t len = 0, n;
	FILE *f = open_memstream(&want, &len);
	const char *note;

	for (int i = 0; i < PT_NCOLS; i++) {
		bool named = !pt_metrics[i].csv || *prom_column_query(q, sizeof(q), i, &note);

		if (!named)
			fprintf(stderr, "CSV column %s: no Prometheus name\n", pt_metrics[i].csv);
		CHECK(named);
	}
	prom_doc(f);
	fclose(f);
	f = fopen("docs/METRICS.md", "r");
	n = f ? fread(got, 1, sizeof(got) - 1, f) : 0;
	got[n] = '\0';
	if (f)
		fclose(f);
	if (strcmp(got, want))
		fprintf(stderr, "docs/METRICS.md is not what the table says: make metrics-doc\n");
	CHECK(!strcmp(got, want));
	free(want);
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
	prom_init(&p, PT_BY_COMM, 10, 0);
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
	CHECK(textfile_open(&t, "/proc/sys/kernel/hostname", err, sizeof(err)) == -1);
	CHECK(strstr(err, "a kernel interface") != NULL);
	/* the directory renamed under it: stops, not written on there */
	snprintf(path, sizeof(path), "%s/pipetrace.prom", dir);
	CHECK(textfile_open(&t, path, err, sizeof(err)) == 0);
	snprintf(got, sizeof(got), "%s.moved", dir);
	CHECK(rename(dir, got) == 0);
	CHECK(prom_textfile(&t, &p) == TEXTFILE_STOP);
	CHECK(strstr(t.why, "no longer the one opened at start") != NULL);
	textfile_close(&t);
	CHECK(rename(got, dir) == 0);
	CHECK(rmdir(dir) == 0);
	prom_free(&p);
}

/* A column's Prometheus fields: a gauge for a knob, a counter (_total)
 * otherwise; the family's help on its first column only, and a column's
 * series only with a family. */
static void table_full(void)
{
	for (int c = 0; c < PT_NCOLS; c++) {
		const struct pt_metric *m = &pt_metrics[c];
		bool first = m->prom != NULL;
		size_t len = m->prom ? strlen(m->prom) : 0;

		for (int j = 0; j < c && first; j++)
			first = !pt_metrics[j].prom || strcmp(pt_metrics[j].prom, m->prom);
		CHECK(!m->prom || (len > 6 && !strcmp(m->prom + len - 6, "_total")) == !m->knob);
		CHECK((m->help && *m->help) == first);
		CHECK(!m->prom == !m->series[0].labels);
		CHECK(!m->series[1].labels || (m->series[0].raw && m->series[1].raw));
	}
}

int main(int argc, char **argv)
{
	/* make metrics-doc */
	if (argc == 2 && !strcmp(argv[1], "--doc")) {
		prom_doc(stdout);
		return fflush(stdout) ? 1 : 0;
	}
	table_full();
	counters();
	cap();
	escaping();
	no_collision();
	monotonic();
	pipes();
	histograms();
	ttl_pid();
	ttl_keys();
	doc();
	textfile();
	return unit_summary("test_prom");
}
