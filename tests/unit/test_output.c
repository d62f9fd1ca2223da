// SPDX-License-Identifier: GPL-2.0
/* The CSV contract (and the man page's list of it), honest '-' and empty fields, derived marks, quoting. */
#include <stdlib.h>
#include <unistd.h>
#include "os/proc_args.h"
#include "output/columns.h"
#include "output/ends.h"
#include "output/fmt.h"
#include "output/report.h"
#include "output/record.h"
#include "json_unit.h"
#include "render_unit.h"
#include "unit.h"

static char *header(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_csv_header(f);
	fclose(f);
	return buf;
}

/* Field i (0-based) of a CSV line without quoted commas. */
static const char *field(const char *line, int i)
{
	static char out[128];
	const char *p = line;

	while (i-- > 0 && (p = strchr(p, ',')))
		p++;
	if (!p)
		return "<none>";
	snprintf(out, sizeof(out), "%.*s", (int)strcspn(p, ",\n"), p);
	return out;
}

static void csv_contract(void)
{
	char *h = header();

	/* scripts depend on these, in this order: never rename, only append */
	static const char contract[] =
		"time,interval_s,tier,key_type,pid,comm,pipe_ino,reads,writes,"
		"read_bytes,write_bytes,eagain_read,eagain_write,pool_hits,"
		"pool_misses,pool_hit_pct,alloc_locked,alloc_unlocked,"
		"copy_sections,copy_buffers,prefill_dropped,sections_per_read,"
		"eagain_nonblock,eagain_nowait,eagain_empty,eagain_full,"
		"eagain_lock,eagain_nopage,knob_prealloc_max,knob_prealloc_keep,"
		"knob_read_batch,";

	CHECK(!strncmp(h, contract, strlen(contract)));
	CHECK(h[strlen(h) - 1] == '\n');
	/* key columns added later: after the metrics of their time, before
	 * any appended since */
	CHECK(strstr(h, ",lock_wait_ns,eof_reads,cgroup,writers,readers") != NULL);
	/* 'derived' was the last field; later columns come after it, in order */
	CHECK(strstr(h, ",eagain_splice,untracked,derived,waits_read,wait_read_ns,"
		      "waits_write,wait_write_ns,lock_contended,lock_wait_ns,eof_reads") != NULL);
	/* the ring's columns, appended after the later key columns */
	CHECK(strstr(h, ",writers,readers,ring_slots,ring_peak,ring_full_writes,"
		      "ring_owner_uid,ring_owner_pages,ring_quota_shrunk,") != NULL);
	/* then pipe_dev: with pipe_ino, a pipe's name; then blocked_since,
	 * the scheduler's shares, the bytes in and out with splices, a
	 * process's args and a -k comm row's side */
	CHECK(strstr(h, ",ring_quota_shrunk,pipe_dev,alloc_wasted,blocked_since,"
		      "cpu_pct,runq_pct,out_bytes,in_bytes,args,side\n") != NULL);
	free(h);
}

static void syscall_tier_row(void)
{
	struct pt_rows rows;
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1 };
	struct pt_key k = { .tgid = 42, .ino = 777 };
	struct pt_counts c = {
		.reads = 4, .writes = 2, .read_bytes = 131072, .write_bytes = 131072,
		.eagain_read_nonblock = 3, .eagain_read_nowait = 1,
		.bufs_new = 32, .alloc_locked = 8, .read_bufs = 32, .read_sections = 32,
	};
	struct pt_report r = { .rows = &rows, .env = &env, .time = 1700000000.5,
			       .interval_s = 1.0 };
	struct pt_columns kernel;
	char *csv, *table, err[256];

	strcpy(k.comm, "a,\"b\"");
	rows_init(&rows, PT_BY_PIPE_PID);
	rows_add(&rows, &k, &c);
	csv = render(out_csv_report, &r);
	CHECK(!strncmp(csv, "1700000000.500,1.000,syscall,pipe-pid,42,\"a,\"\"b\"\"\",777,4,2,",
		       strlen("1700000000.500,1.000,syscall,pipe-pid,42,\"a,\"\"b\"\"\",777,4,2,")));
	/* past the quoted comm: fields shift by the one comma inside it */
	CHECK_STR(field(csv, 12), "4");		/* eagain_read */
	CHECK_STR(field(csv, 14), "24");	/* pool_hits: 32 buffers - 8 allocated */
	CHECK_STR(field(csv, 15), "8");		/* pool_misses */
	CHECK_STR(field(csv, 16), "75.00");	/* pool_hit_pct */
	CHECK_STR(field(csv, 17), "8");		/* alloc_locked: no prefill path */
	CHECK_STR(field(csv, 21), "");		/* prefill_dropped: unknown here */
	CHECK_STR(field(csv, 22), "8.00");	/* sections_per_read */
	CHECK_STR(field(csv, 23), "3");		/* eagain_nonblock */
	CHECK_STR(field(csv, 24), "1");		/* eagain_nowait */
	CHECK_STR(field(csv, 25), "");		/* eagain_empty: unknown here */
	CHECK_STR(field(csv, 29), "");		/* knob absent: empty, never 0 */
	CHECK(strstr(csv, ",pool_hits;pool_hit_pct;copy_sections;copy_buffers;sections_per_read,") != NULL);

	CHECK(columns_parse(&kernel, "kernel", err, sizeof(err)));
	r.cols = &kernel;
	table = render(out_table_report, &r);
	CHECK(strstr(table, "tier: syscall") != NULL);
	CHECK(strstr(table, "HITS*") != NULL && strstr(table, "READS*") == NULL);
	CHECK(strstr(table, "SEC/RD*") != NULL);	/* derived, in the syscall tier */
	CHECK(strstr(table, " 128Ki ") != NULL);	/* 131072 bytes */
	free(csv);
	free(table);

	/* prefill on: the syscall tier splits locked/unlocked by the mutex's
	 * owner all the same */
	env.knob_prealloc_max = 8;
	env.knob_read_batch = 1;
	csv = render(out_csv_report, &r);
	CHECK_STR(field(csv, 14), "24");	/* pool_hits */
	CHECK_STR(field(csv, 15), "8");		/* pool_misses */
	CHECK_STR(field(csv, 16), "75.00");	/* pool_hit_pct */
	CHECK_STR(field(csv, 17), "8");		/* alloc_locked */
	CHECK_STR(field(csv, 18), "0");		/* alloc_unlocked */
	CHECK_STR(field(csv, 19), "");		/* copy_sections: batching on */
	CHECK_STR(field(csv, 29), "8");		/* knob_prealloc_max */
	table = render(out_table_report, &r);
	CHECK(strstr(table, " - ") != NULL);
	free(csv);
	free(table);
	rows_free(&rows);
}

/* --json: the CSV's columns as keys, unknown null, hostile comm bytes escaped */
static void json_rows(void)
{
	struct pt_rows rows;
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1 };
	struct pt_key k = { .tgid = 42, .ino = 777 };
	struct pt_counts c = { .reads = 4, .read_bytes = 131072, .bufs_new = 32,
			       .alloc_locked = 8, .read_bufs = 32 };
	struct pt_report r = { .rows = &rows, .env = &env, .time = 1700000000.5,
			       .interval_s = 1.0 };
	char keys[2048], v[256], *json, *head;

	/* quote, backslash, newline, a control byte, bytes outside ASCII */
	memcpy(k.comm, "a\"b\\c\n\x01\xff\xc3\xa9zzzzzz", PT_COMM_LEN);
	rows_init(&rows, PT_BY_PIPE_PID);
	rows_add(&rows, &k, &c);
	json = render(out_json_report, &r);
	CHECK(strchr(json, '\n') == json + strlen(json) - 1);	/* one line */
	CHECK(json_walk(json, keys, sizeof(keys), "comm", v, sizeof(v)) == 0);
	/* all 16 bytes: a comm need not end in NUL */
	CHECK_STR(v, "\"a\\\"b\\\\c\\n\\u0001\\u00ff\\u00c3\\u00a9zzzzzz\"");
	head = header();
	head[strlen(head) - 1] = '\0';
	CHECK_STR(keys, head);		/* keys = the CSV columns, in order */
	free(head);
	CHECK_STR(json_get(json, "pid"), "42");
	CHECK_STR(json_get(json, "time"), "1700000000.500");
	CHECK_STR(json_get(json, "pool_hit_pct"), "75.00");
	CHECK_STR(json_get(json, "prefill_dropped"), "null");		/* unknown, never 0 */
	CHECK_STR(json_get(json, "knob_read_batch"), "null");
	CHECK_STR(json_get(json, "tier"), "\"syscall\"");
	CHECK_STR(json_get(json, "derived"), "[\"pool_hits\",\"pool_hit_pct\",\"copy_sections\","
		  "\"copy_buffers\",\"sections_per_read\"]");
	CHECK(!strstr(json, "hist_"));		/* only when asked for */
	free(json);

	/* --hist: objects keyed by each slot's lower bound, after the columns */
	{
		struct pt_hkey hk = { .key = k, .hist = PT_HIST_WRITE_SIZE, .slot = 12 };

		rows_add_hist(&rows, &hk, 5, 0);
		hk.slot = 0;
		rows_add_hist(&rows, &hk, 2, 0);
		r.hists = 1u << PT_HIST_WRITE_SIZE | 1u << PT_HIST_READ_SIZE;
		json = render(out_json_report, &r);
		CHECK(json_walk(json, keys, sizeof(keys), "hist_write_size", v, sizeof(v)) == 0);
		CHECK_STR(v, "{\"0\":2,\"4096\":5}");
		CHECK_STR(json_get(json, "hist_read_size"), "{}");
		CHECK(strstr(keys, ",derived,") && strstr(keys, ",hist_write_size,hist_read_size"));
		free(json);
		r.hists = 0;
		/* CSV never has them */
		json = render(out_csv_report, &r);
		CHECK(!strchr(json, '{'));
		free(json);
	}

	/* by comm: pid and pipe unknown; a total row: no comm either */
	rows_free(&rows);
	rows_init(&rows, PT_BY_TOTAL);
	rows_add(&rows, &k, &c);
	json = render(out_json_report, &r);
	CHECK_STR(json_get(json, "pid"), "null");
	CHECK_STR(json_get(json, "comm"), "null");
	CHECK_STR(json_get(json, "pipe_ino"), "null");
	CHECK_STR(json_get(json, "cgroup"), "null");
	free(json);
	rows_free(&rows);

	/* by cgroup: its name, or its id once no directory has it */
	k.cgroup = ~0ULL;
	rows_init(&rows, PT_BY_CGROUP);
	rows_add(&rows, &k, &c);
	json = render(out_json_report, &r);
	CHECK_STR(json_get(json, "cgroup"), "\"id:18446744073709551615\"");
	CHECK_STR(json_get(json, "pid"), "null");
	free(json);
	json = render(out_csv_report, &r);
	CHECK(strstr(json, ",id:18446744073709551615,,,") != NULL);
	free(json);
	rows_free(&rows);
}

/* -s, -r and --rate */
static void operator(void)
{
	struct pt_rows rows;
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = 3,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1 };
	struct pt_report r = { .rows = &rows, .env = &env, .interval_s = 2.0 };
	struct pt_key k = {};
	struct pt_counts c = {};
	struct pt_value v;
	char *csv;

	rows_init(&rows, PT_BY_PID);
	for (int i = 1; i <= 4; i++) {
		k.tgid = i;
		c.eagain_read_nonblock = 10 * (i % 3);	/* 10, 20, 0, 10 */
		c.eagain_write_nowait = 15 * (i == 3);	/* 0, 0, 15, 0 */
		c.wait_write_ns = 1000000000ULL * ((5 - i) % 3);	/* 1, 0, 2, 1 s */
		c.write_bytes = 100 * i;
		rows_add(&rows, &k, &c);
	}
	rows_sort(&rows);
	CHECK(rows.v[0].key.tgid == 4);		/* bytes first */
	out_sort(&rows, PT_COL_EAGAIN_READ, &env);
	CHECK(rows.v[0].key.tgid == 2 && rows.v[1].key.tgid == 1 &&
	      rows.v[2].key.tgid == 4 && rows.v[3].key.tgid == 3);
	/* the table's own columns: EAGAIN both ways, a share of the interval */
	out_sort(&rows, PT_COL_EAGAIN, &env);
	CHECK(rows.v[0].key.tgid == 2 && rows.v[1].key.tgid == 3 &&
	      rows.v[2].key.tgid == 1 && rows.v[3].key.tgid == 4);
	env.interval_s = 2.0;
	out_sort(&rows, PT_COL_WAIT_WRITE_PCT, &env);
	CHECK(rows.v[0].key.tgid == 3 && rows.v[1].key.tgid == 1 &&
	      rows.v[2].key.tgid == 4 && rows.v[3].key.tgid == 2);
	/* a column not known on the tier sorts nothing first */
	out_sort(&rows, PT_COL_EAGAIN_EMPTY, &env);
	CHECK(rows.v[0].key.tgid == 1);
	CHECK(rows_has(&rows, &rows.v[3].key));	/* the index follows */

	r.max_rows = 2;
	out_sort(&rows, PT_COL_WRITE_BYTES, &env);
	CHECK(out_nrows(&r) == 2);
	csv = render(out_csv_report, &r);
	CHECK(!strncmp(csv, "0.000,2.000,syscall,pid,4,", 26));
	{
		int lines = 0;

		for (const char *p = csv; *p; p++)
			lines += *p == '\n';
		CHECK(lines == 2);
	}
	free(csv);
	r.max_rows = 0;

	/* --rate: counts per second; knobs stay as they are */
	r.rate = true;
	v = out_value(&r, PT_COL_WRITE_BYTES, &rows.v[0], false);
	CHECK(v.type == PT_V_RATIO && v.d == 200);
	v = out_value(&r, PT_COL_EAGAIN_READ, &rows.v[3], false);	/* pid 1: 10 in 2 s */
	CHECK(v.d == 5);
	v = out_value(&r, PT_COL_KNOB_PREALLOC_MAX, &rows.v[0], false);
	CHECK(v.type == PT_V_U64 && v.u == 3);
	v = out_value(&r, PT_COL_EAGAIN_EMPTY, &rows.v[0], false);
	CHECK(v.q == PT_NA);
	r.interval_s = 3.0;
	v = out_value(&r, PT_COL_WRITE_BYTES, &rows.v[0], true);	/* 400 / 3 */
	CHECK(v.type == PT_V_U64 && v.u == 133);
	csv = render(out_csv_report, &r);
	CHECK(strstr(csv, ",133.33,") != NULL);
	free(csv);
	rows_free(&rows);
}

static void values(void)
{
	struct pt_value v = { .q = PT_EXACT, .type = PT_V_U64, .u = 123456789 };
	char buf[32];

	fmt_table_value(buf, sizeof(buf), &v, 8);
	CHECK_STR(buf, "123457K");
	fmt_table_value(buf, sizeof(buf), &v, 5);
	CHECK_STR(buf, "123M");
	fmt_table_value(buf, sizeof(buf), &v, 9);
	CHECK_STR(buf, "123456789");
	fmt_csv_value(buf, sizeof(buf), &v);
	CHECK_STR(buf, "123456789");
	fmt_iec(buf, sizeof(buf), 1023);
	CHECK_STR(buf, "1023");
	fmt_iec(buf, sizeof(buf), 1024);
	CHECK_STR(buf, "1.0Ki");
	fmt_iec(buf, sizeof(buf), 65536);
	CHECK_STR(buf, "64Ki");
	fmt_iec(buf, sizeof(buf), 10ULL << 20);
	CHECK_STR(buf, "10Mi");
	fmt_iec(buf, sizeof(buf), 1073807360);	/* 1 GiB + 64 KiB */
	CHECK_STR(buf, "1.0Gi");
	v.q = PT_NA;
	fmt_csv_value(buf, sizeof(buf), &v);
	CHECK_STR(buf, "");
	fmt_table_value(buf, sizeof(buf), &v, 8);
	CHECK_STR(buf, "-");
	fmt_csv_field(buf, sizeof(buf), "plain");
	CHECK_STR(buf, "plain");
	fmt_csv_field(buf, sizeof(buf), "x\ny");
	CHECK_STR(buf, "x\\x0ay");
	fmt_csv_field(buf, sizeof(buf), "a,\"b\"\\");
	CHECK_STR(buf, "\"a,\"\"b\"\"\\\\\"");
	/* the worst 15 bytes fit the documented size */
	{
		char worst[4 * PT_COMM_LEN + 3];

		fmt_csv_field(worst, sizeof(worst), "\x1b\x1b\x1b\x1b\x1b\x1b\x1b,\x1b\x1b\x1b\x1b\x1b\x1b\x1b");
		CHECK(strlen(worst) == 2 + 14 * 4 + 1);
	}
	{
		char comm[PT_COMM_LEN + 1];
		const char raw[PT_COMM_LEN] = "E\x1b[2J\x1b]0;x\x07\n\xc3\xa9" "zz";

		CHECK_STR(fmt_comm(comm, raw), "E?[2J?]0;x????zz");
	}
}

/* The table's columns: the default set in 80 columns, -o, headings. */
/* The longest line of text. */
static int widest(const char *text)
{
	int most = 0, w;

	for (const char *p = text; *p; p += w + (p[w] == '\n')) {
		w = strcspn(p, "\n");
		most = w > most ? w : most;
	}
	return most;
}

static void table_columns(void)
{
	struct pt_rows rows;
	struct pt_env env = { .tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1,
			      .knob_prealloc_keep = -1, .knob_read_batch = -1,
			      .interval_s = 2.0 };
	struct pt_report r = { .rows = &rows, .env = &env, .interval_s = 2.0 };
	struct pt_key k = { .tgid = 4194303 };
	struct pt_counts c = { .reads = 123456789, .writes = 7, .read_bytes = 1536,
			       .write_bytes = 3ULL << 30, .eagain_read_nonblock = 5,
			       .eagain_write_nowait = 2, .wait_read_ns = 1500000000 };
	int named = 0;
	struct pt_columns cols;
	char *table, err[256], head[64];

	strcpy(k.comm, "fifteen-chars-x");
	rows_init(&rows, PT_BY_PID);
	rows_add(&rows, &k, &c);
	table = render(out_table_report, &r);	/* the default set */
	CHECK(widest(table) <= 80);
	/* the widest key and the largest values still line up under their headings */
	CHECK(strstr(table, "\nPID     COMM             READS WRITES R_BYTES W_BYTES EAGAIN "
			    "WAIT_R%* WAIT_W%*\n") != NULL);
	CHECK(strstr(table, "\n4194303 fifteen-chars-x   123M      7   1.5Ki   3.0Gi      7     "
			    "75.0      0.0\n") != NULL);
	free(table);
	r.rate = true;
	table = render(out_table_report, &r);
	CHECK(strstr(table, " r/s    w/s   rB/s   wB/s EAGAIN/s WAIT_R%* WAIT_W%*\n") != NULL);
	free(table);
	/* a tier that sees no splice: the read(2)/write(2) bytes, so headed */
	r.rate = false;
	env.tier = PT_TIER_FUNCTION;
	table = render(out_table_report, &r);
	CHECK(widest(table) <= 80);
	CHECK(strstr(table, "\nPID     COMM             READS WRITES RD_BYTES WR_BYTES EAGAIN "
			    "WAIT_R%* WAIT_W%*\n") != NULL);
	CHECK(strstr(table, "\n4194303 fifteen-chars-x   123M      7    1.5Ki    3.0Gi ") != NULL);
	free(table);
	env.tier = PT_TIER_SYSCALL;

	/* -o: names, sets, +LIST, and what is refused */
	CHECK(columns_parse(&cols, "reads,eof_reads,wait_read_pct", err, sizeof(err)));
	CHECK(cols.n == 3 && cols.col[0] == PT_COL_READS && cols.col[1] == PT_COL_EOF_READS &&
	      cols.col[2] == PT_COL_WAIT_READ_PCT);
	columns_default(&cols);
	CHECK(cols.n == 7 && cols.col[4] == PT_COL_EAGAIN);
	CHECK(columns_parse(&cols, "+pool_hits,reads", err, sizeof(err)));
	CHECK(cols.n == 8 && cols.col[7] == PT_COL_POOL_HITS);	/* reads was there */
	CHECK(columns_parse(&cols, "kernel", err, sizeof(err)) && cols.n == 18);
	/* all: every column pipestat shows, none of pipetop's own */
	for (int c = 0; c < PT_NCOLS; c++)
		named += column_name(c) != NULL;
	CHECK(!column_name(PT_COL_MOVED_BYTES) && !column_name(PT_COL_AVG_WRITE));
	CHECK(columns_parse(&cols, "all", err, sizeof(err)) && cols.n == named);
	CHECK(!columns_parse(&cols, "reads,nope", err, sizeof(err)));
	CHECK_STR(err, "invalid column 'nope' in -o 'reads,nope': want CSV column names "
		  "(pipestat(8), CSV COLUMNS), eagain, wait_read_pct, wait_write_pct, "
		  "default, kernel or all");
	CHECK(cols.n == named);	/* a refused -o changes nothing */
	CHECK(!columns_parse(&cols, "", err, sizeof(err)));
	CHECK(!columns_parse(&cols, "reads,", err, sizeof(err)));
	CHECK(!columns_parse(&cols, "WAIT_R%", err, sizeof(err)));

	/* headings: CSV name in capitals when there is none; /s only for counts */
	CHECK(column_head(head, sizeof(head), PT_COL_EOF_READS, &env, false) == 9);
	CHECK_STR(head, "EOF_READS");
	column_head(head, sizeof(head), PT_COL_EOF_READS, &env, true);
	CHECK_STR(head, "EOF_READS/s");
	column_head(head, sizeof(head), PT_COL_POOL_HIT_PCT, &env, true);
	CHECK_STR(head, "HIT%*");
	column_head(head, sizeof(head), PT_COL_KNOB_READ_BATCH, &env, true);
	CHECK_STR(head, "KNOB_READ_BATCH");
	rows_free(&rows);
}

/* rec_procs' CSV, split and unescaped back: the bytes of every comm */
static void parse_back(const char *field, const char *want[], int n)
{
	char text[1024], *save, *e;
	int i = 0;

	/* RFC 4180: the quotes around it, '""' for '"' */
	if (*field == '"') {
		size_t o = 0;

		for (const char *p = field + 1; *p && o + 1 < sizeof(text); p++) {
			if (*p == '"' && *++p != '"')
				break;
			text[o++] = *p;
		}
		text[o] = '\0';
	} else {
		snprintf(text, sizeof(text), "%s", field);
	}
	for (e = strtok_r(text, ",", &save); e; e = strtok_r(NULL, ",", &save), i++) {
		char comm[PT_COMM_LEN + 1], *b = strrchr(e, '[');
		size_t o = 0;

		CHECK(b && i < n);
		if (!b || i >= n)
			return;
		*b = '\0';
		for (char *p = e; *p; p++) {
			unsigned int x;

			if (*p == '\\' && p[1] == '\\')
				comm[o++] = *++p;
			else if (*p == '\\' && sscanf(p, "\\x%2x", &x) == 1)
				comm[o++] = x, p += 3;
			else
				comm[o++] = *p;
		}
		comm[o] = '\0';
		CHECK_STR(comm, want[i]);
	}
	CHECK(i == n);
}

/* One record of rec_procs() fields: writers v[0..n) of total, and readers. */
static char *procs_record(enum rec_fmt fmt, const struct pt_row *const *v,
			  size_t n, size_t total, bool readers)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rec r;

	rec_begin(&r, f, fmt);
	rec_procs(&r, "writers", v, n, n, NULL);
	if (readers)
		rec_procs(&r, "readers", v, n, total, NULL);
	rec_end(&r);
	fclose(f);
	return buf;
}

/* issue 26.4: lists of processes unambiguous for any comm bytes */
static void proc_lists(void)
{
	static const char *const names[] = {
		"x[1],y", "sshd[1] -> ", "a,b;c\"d\\e\x01", "plain",
	};
	struct pt_row rows[4] = {};
	const struct pt_row *v[4];
	char *buf;

	for (int i = 0; i < 4; i++) {
		strncpy(rows[i].key.comm, names[i], PT_COMM_LEN);
		rows[i].key.tgid = 100 + i;
		v[i] = &rows[i];
	}
	buf = procs_record(REC_CSV, v, 4, 4, false);
	CHECK_STR(buf, "\"x\\x5b1\\x5d\\x2cy[100],sshd\\x5b1\\x5d -> [101],"
		  "a\\x2cb;c\"\"d\\\\e\\x01[102],plain[103]\"\n");
	buf[strlen(buf) - 1] = '\0';
	parse_back(buf, (const char **)names, 4);
	free(buf);
	/* one entry, nothing to quote; "+N" for those left out */
	buf = procs_record(REC_CSV, v + 3, 1, 40, true);
	CHECK_STR(buf, "plain[103],\"plain[103],+39\"\n");
	free(buf);
	/* JSON: objects; the names as they are */
	buf = procs_record(REC_JSON, v, 2, 2, false);
	CHECK_STR(buf, "{\"writers\":[{\"pid\":100,\"comm\":\"x[1],y\"},"
		  "{\"pid\":101,\"comm\":\"sshd[1] -> \"}]}\n");
	free(buf);
}

/* the tables' tests' interval: a second on the syscall tier */
static const struct pt_env table_env = {
	.tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1, .knob_prealloc_keep = -1,
	.knob_read_batch = -1, .interval_s = 1,
};

/* ends: a writer pid and a reader pid + 1 of pipe ino, 4 KiB each way */
static void pipe_pair(struct pt_rows *ends, __u64 ino, __u32 pid, const char *w,
		      const char *r)
{
	struct pt_key k = { .dev = 15, .ino = ino, .tgid = pid };
	struct pt_counts wc = { .writes = 1, .write_bytes = 4096 };
	struct pt_counts rc = { .reads = 1, .read_bytes = 4096 };

	snprintf(k.comm, sizeof(k.comm), "%s", w);
	rows_add(ends, &k, &wc);
	k.tgid = pid + 1;
	snprintf(k.comm, sizeof(k.comm), "%s", r);
	rows_add(ends, &k, &rc);
}

/* -k pipe's table in 80 columns: its own columns, the PIPE column as wide
 * as its inodes, the ends cut to the room left (ends_text's rule). */
static void pipe_table(void)
{
	struct pt_rows rows, ends;
	struct pt_columns cols;
	struct pt_report r = { .rows = &rows, .ends = &ends, .env = &table_env,
			       .interval_s = 1, .cols = &cols };
	char *table;

	columns_pipe(&cols);
	rows_init(&rows, PT_BY_PIPE);
	rows_init(&ends, PT_BY_PIPE_PID);
	pipe_pair(&ends, 1592538, 4194300, "dd", "cat");
	pipe_pair(&ends, 1592539, 4194302, "python3", "python3");
	rows_fold(&rows, &ends);
	ends_sort(&ends);
	table = render(out_table_report, &r);
	CHECK(widest(table) <= 80);
	CHECK(strstr(table, "\nPIPE     R_BYTES W_BYTES EAGAIN WAIT_R%* WAIT_W%*  "
			    "WRITERS -> READERS\n") != NULL);
	CHECK(strstr(table, "  dd[4194300] -> cat[4194301]\n") != NULL);
	CHECK(strstr(table, "  pyt[4194302] -> pyth[4194303]\n") != NULL);
	free(table);
	rows_free(&rows);
	rows_free(&ends);
}

/* Command lines as read from /proc: python3 w.py (pid 544) and python3
 * r.py (545), dd (12) and cat (13), hostile bytes (20); 30 was gone first. */
static struct proc_arg known_args[] = {
	{ .pid = 12, .comm = "dd", .known = true, .args = "dd if=/dev/zero bs=64k" },
	{ .pid = 13, .comm = "cat", .known = true, .args = "cat -A" },
	{ .pid = 20, .comm = "evil", .known = true, .args = "evil a,b \"q\" \x01\xff" },
	{ .pid = 30, .comm = "gone" },
	{ .pid = 544, .comm = "python3", .known = true, .args = "python3 w.py" },
	{ .pid = 545, .comm = "python3", .known = true, .args = "python3 r.py" },
};
static const struct proc_args args = { known_args, 6, 6 };

/* issue 41.6: processes told apart by their arguments, in every format */
static void proc_args_shown(void)
{
	struct pt_rows rows, ends;
	struct pt_columns cols;
	struct pt_report r = { .rows = &rows, .ends = &ends, .env = &table_env,
			       .interval_s = 1, .args = &args };
	char *out, err[128], buf[FMT_ARGS_MARKED_LEN];

	/* -k pipe, the default columns: the args get what the names leave */
	rows_init(&rows, PT_BY_PIPE);
	rows_init(&ends, PT_BY_PIPE_PID);
	pipe_pair(&ends, 1592538, 12, "dd", "cat");
	rows_fold(&rows, &ends);
	ends_sort(&ends);
	columns_pipe(&cols);
	r.cols = &cols;
	out = render(out_table_report, &r);
	CHECK(widest(out) <= 80);
	CHECK(strstr(out, "  dd[12] if=/.. -> cat[13] -A\n") != NULL);
	free(out);
	/* room for all of them with one column */
	CHECK(columns_parse(&cols, "reads", err, sizeof(err)));
	rows_clear(&rows);
	pipe_pair(&ends, 1592539, 544, "python3", "python3");
	rows_fold(&rows, &ends);
	ends_sort(&ends);
	out = render(out_table_report, &r);
	CHECK(strstr(out, "  python3[544] w.py -> python3[545] r.py\n") != NULL);
	CHECK(strstr(out, "  dd[12] if=/dev/zero bs=64k -> cat[13] -A\n") != NULL);
	free(out);
	/* JSON: each end's command line */
	out = render(out_json_report, &r);
	CHECK(strstr(out, "\"writers\":[{\"pid\":544,\"comm\":\"python3\","
			  "\"args\":\"python3 w.py\"}]") != NULL);
	CHECK_STR(json_get(out, "args"), "null");	/* not -k pid */
	free(out);
	rows_free(&rows);
	rows_free(&ends);

	/* -k pid: ARGS last where the line has room (a wide terminal's); "-"
	 * for a process gone before they were read */
	rows_init(&rows, PT_BY_PID);
	for (size_t i = 0; i < 6; i++) {
		struct pt_key k = { .tgid = known_args[i].pid };
		struct pt_counts c = { .writes = 1 + i };

		memcpy(k.comm, known_args[i].comm, PT_COMM_LEN);
		rows_add(&rows, &k, &c);
	}
	r.ends = NULL;
	r.cols = NULL;
	out = render(out_table_report, &r);
	CHECK(widest(out) <= 80 && !strstr(out, "ARGS"));	/* no room in 80 */
	free(out);
	r.width = 100;
	out = render(out_table_report, &r);
	CHECK(widest(out) <= 100);
	CHECK(strstr(out, "WAIT_W%*  ARGS\n") != NULL);
	CHECK(strstr(out, "  if=/dev/zero bs=64k\n") != NULL);
	CHECK(strstr(out, "  \"a,b \\\"q\\\" ??\"\n") != NULL);
	CHECK(strstr(out, "0.0  -\n") != NULL);
	free(out);
	r.width = 90;		/* 10 columns of args */
	out = render(out_table_report, &r);
	CHECK(strstr(out, "  if=/dev/..\n") != NULL && strstr(out, "  w.py\n") != NULL);
	free(out);
	r.width = 0;
	/* CSV: the whole command line, escaped as comm is (control bytes as
	 * \xHH, the rest as they are); empty when gone */
	out = render(out_csv_report, &r);
	CHECK(strstr(out, ",\"evil a,b \"\"q\"\" \\x01\xff\",\n") != NULL);
	CHECK(strstr(out, ",python3 r.py,\n") != NULL);
	CHECK(strstr(out, ",gone,") != NULL && strstr(out, ",,\n") != NULL);
	free(out);
	out = render(out_json_report, &r);
	CHECK_STR(json_get(out, "args"), "\"dd if=/dev/zero bs=64k\"");
	CHECK_STR(json_get(out, "side"), "null");
	free(out);
	rows_free(&rows);

	/* -k comm: the side, in the table and the CSV */
	rows_init(&ends, PT_BY_PIPE_PID);
	rows_init(&rows, PT_BY_COMM);
	pipe_pair(&ends, 7, 544, "python3", "python3");
	rows_fold(&rows, &ends);
	r.args = NULL;
	out = render(out_table_report, &r);
	CHECK(widest(out) <= 80);
	CHECK(strstr(out, "\nCOMM           SIDE    READS WRITES") != NULL);
	CHECK(strstr(out, "\npython3        write       0      1") != NULL);
	CHECK(strstr(out, "\npython3        read        1      0") != NULL);
	free(out);
	out = render(out_csv_report, &r);
	CHECK(strstr(out, ",,write\n") != NULL && strstr(out, ",,read\n") != NULL);
	free(out);
	rows_free(&rows);
	rows_free(&ends);

	/* cut to fit, "..": never a useless stub; marked as a name */
	CHECK_STR(fmt_args_marked(buf, sizeof(buf), "w.py --fast", -1), "w.py --fast");
	CHECK_STR(fmt_args_marked(buf, sizeof(buf), "w.py --fast", 8), "w.py -..");
	CHECK_STR(fmt_args_marked(buf, sizeof(buf), "w.py --fast", 11), "w.py --fast");
	CHECK_STR(fmt_args_marked(buf, sizeof(buf), "w.py --fast", 4), "");
	CHECK_STR(fmt_args_marked(buf, sizeof(buf), "-t, -k2", -1), "\"-t, -k2\"");
	CHECK_STR(fmt_args_marked(buf, sizeof(buf), "-t, -k2", 7), "\"-t,..\"");
	CHECK_STR(args_after_command("python3 w.py"), "w.py");
	CHECK_STR(args_after_command("cat"), "");
}

/* a command line read back from /proc: this test's own */
static void args_from_proc(void)
{
	struct pt_rows rows;
	struct pt_key self = { .tgid = getpid() }, gone = { .tgid = 0x7fffffff };
	static const struct pt_counts c;
	struct proc_args a;
	char buf[PROC_ARGS_LEN], want[PROC_ARGS_LEN];
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t len = f ? fread(want, 1, sizeof(want) - 1, f) : 0;

	if (f)
		fclose(f);
	for (size_t i = 0; i + 1 < len; i++)
		want[i] = want[i] ? want[i] : ' ';
	want[len ? len - 1 : 0] = '\0';
	CHECK(proc_cmdline(getpid(), buf, sizeof(buf)) == (int)strlen(want));
	CHECK_STR(buf, want);
	CHECK(proc_cmdline(0x7fffffff, buf, sizeof(buf)) == -1);
	strcpy(self.comm, "me");
	strcpy(gone.comm, "gone");
	args_init(&a);
	rows_init(&rows, PT_BY_PIPE_PID);
	rows_add(&rows, &self, &c);
	self.ino = 2;			/* its second pipe: one entry */
	rows_add(&rows, &self, &c);
	rows_add(&rows, &gone, &c);
	CHECK(!args_learn(&a, &rows));
	CHECK(a.n == 2);
	CHECK(args_of(&a, getpid(), self.comm) && !strcmp(args_of(&a, getpid(), self.comm), want));
	CHECK(args_of(&a, 0x7fffffff, gone.comm) == NULL);	/* never made up */
	strcpy(self.comm, "other");
	CHECK(args_of(&a, getpid(), self.comm) == NULL);	/* an exec: another */
	args_prune(&a);
	CHECK(a.n == 2);		/* met since the last prune */
	args_prune(&a);
	CHECK(a.n == 0);
	args_free(&a);
	rows_free(&rows);
}

static void tiers(void)
{
	CHECK(tier_parse("auto") == PT_TIER_AUTO);
	CHECK(tier_parse("syscall") == PT_TIER_SYSCALL);
	CHECK(tier_parse("tracepoint") == PT_TIER_TRACEPOINT);
	CHECK(tier_parse("kprobe") == -1);
	CHECK_STR(tier_name(PT_TIER_FUNCTION), "function");
}

/* man/pipestat.8's CSV COLUMNS list is the header (run from the top of
 * the tree, as make unit does). */
static void man_csv_columns(void)
{
	FILE *man = fopen("man/pipestat.8", "r");
	char line[512], cols[4096] = "", *h = header();
	size_t n = 0;
	int in = 0;

	CHECK(man != NULL);
	while (man && fgets(line, sizeof(line), man)) {
		if (!strncmp(line, ".SH CSV COLUMNS", 15)) {
			in = 1;		/* the next line says why the order holds */
			continue;
		}
		if (in == 1) {
			in = 2;
			continue;
		}
		if (in && !strncmp(line, ".", 1))
			break;
		for (char *c = line; in && *c && n + 1 < sizeof(cols); c++)
			if (*c != ' ' && *c != '\n')
				cols[n++] = *c;
	}
	if (man)
		fclose(man);
	if (n && cols[n - 1] == '.')
		n--;
	cols[n] = '\0';
	h[strcspn(h, "\n")] = '\0';
	CHECK_STR(cols, h);
	free(h);
}

/* What a report could not count: said once, each cause by its figure */
static void lost_lines(void)
{
	struct pt_env e = {};
	char buf[256];

	CHECK_STR(fmt_lost(buf, sizeof(buf), &e), "");
	e.untracked = 7;
	CHECK_STR(fmt_lost(buf, sizeof(buf), &e), "7 events not tracked: counter map full");
	e.skipped = 2;
	CHECK_STR(fmt_lost(buf, sizeof(buf), &e), "7 events not tracked: counter map "
		  "full; the kernel skipped 2 runs of the programs (one already "
		  "running on that CPU): counts may be low by as many");
	e.untracked = 0;
	CHECK_STR(fmt_lost(buf, sizeof(buf), &e), "the kernel skipped 2 runs of the "
		  "programs (one already running on that CPU): counts may be low "
		  "by as many");
}

/* durations as people read them; lines wrapped at spaces */
static void text(void)
{
	static const struct { unsigned long long ns; const char *want; } d[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.00us" }, { 12345, "12.3us" },
		{ 999999, "1000us" }, { 1007709070, "1.01s" }, { 2500000, "2.50ms" },
		{ 123000000000ULL, "123s" },
	};
	const char *s = "resize pipe 0:14:12 to 65536", *next;
	char buf[32];

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		fmt_duration(buf, sizeof(buf), d[i].ns);
		CHECK_STR(buf, d[i].want);
	}
	/* the last space within the width, the spaces after it skipped */
	CHECK(fmt_wrap(s, 14, &next) == 11 && !strcmp(next, "0:14:12 to 65536"));
	CHECK(fmt_wrap(next, 14, &next) == 10 && !strcmp(next, "65536"));
	CHECK(fmt_wrap(next, 14, &next) == 5 && !*next);
	/* a word longer than the line: cut */
	CHECK(fmt_wrap("0123456789 x", 4, &next) == 4 && !strcmp(next, "456789 x"));
	CHECK(fmt_wrap("a    b", 3, &next) == 1 && !strcmp(next, "b"));
}

int main(void)
{
	csv_contract();
	text();
	man_csv_columns();
	syscall_tier_row();
	json_rows();
	operator();
	values();
	table_columns();
	proc_lists();
	pipe_table();
	proc_args_shown();
	args_from_proc();
	tiers();
	lost_lines();
	return unit_summary("test_output");
}
