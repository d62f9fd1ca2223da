// SPDX-License-Identifier: GPL-2.0
/*
 * A column added in one row reaches every output. Built with
 * -DPT_TEST_COLUMN (Makefile: the core, pipetop's model and
 * pipetrace-bench's output compiled again), which appends one row to the
 * metrics table, test_eof_reads, and nothing else: this test finds it in
 * pipestat's CSV, JSON and table, in Prometheus, in pipetop's model and
 * in pipetrace-bench's CSV.
 */
#include <stdlib.h>
#include "output/columns.h"
#include "output/csv_layout.h"
#include "output/report.h"
#include "output/prom.h"
#include "pipetop/model.h"
#include "pipetrace-bench/pipetrace-bench.h"
#include "json_unit.h"
#include "render_unit.h"
#include "unit.h"

static char *header(const struct csv_layout *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	csv_header(f, l);
	fclose(f);
	return buf;
}

/* The text of s from the first "at" to the end of its line. */
static const char *line_at(const char *s, const char *at)
{
	static char out[256];
	const char *p = strstr(s, at);

	snprintf(out, sizeof(out), "%.*s", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
	return out;
}

static const struct pt_env env = {
	.tier = PT_TIER_SYSCALL, .knob_prealloc_max = -1, .knob_prealloc_keep = -1,
	.knob_read_batch = -1, .interval_s = 2,
};
static const struct pt_counts counts = { .reads = 9, .read_eof = 6 };

/* pipestat: the CSV's last column, a JSON key, a table column by -o */
static void pipestat_outputs(void)
{
	struct pt_key k = { .tgid = 1 };
	struct pt_rows rows;
	struct pt_columns cols;
	struct pt_report r = { .rows = &rows, .env = &env, .time = 1, .interval_s = 2,
			       .cols = &cols };
	char *h = header(&out_csv_layout), *csv, *json, *table, err[128];

	rows_init(&rows, PT_BY_PID);
	rows_add(&rows, &k, &counts);
	CHECK(strlen(h) > 16 && !strcmp(h + strlen(h) - 16, ",test_eof_reads\n"));
	csv = render(out_csv_report, &r);
	CHECK(strlen(csv) > 3 && !strcmp(csv + strlen(csv) - 3, ",6\n"));
	json = render(out_json_report, &r);
	CHECK_STR(json_get(json, "test_eof_reads"), "6");
	CHECK(columns_parse(&cols, "reads,test_eof_reads", err, sizeof(err)));
	table = render(out_table_report, &r);
	CHECK(strstr(table, " TEST_EOF\n") != NULL);
	CHECK(strstr(table, " 6\n") != NULL);
	free(h);
	free(csv);
	free(json);
	free(table);
	rows_free(&rows);
}

static void prometheus(void)
{
	struct prom_store p;
	struct pt_key k = { .comm = "make" };
	struct pt_rows rows;
	char *t = NULL;
	size_t len = 0;
	FILE *f;

	prom_init(&p, PT_BY_COMM, 10, 0);
	rows_init(&rows, PT_BY_COMM);
	rows_add(&rows, &k, &counts);
	CHECK(prom_add(&p, &rows, &env, 1) == 0);
	CHECK(prom_add(&p, &rows, &env, 2) == 0);
	f = open_memstream(&t, &len);
	prom_render(f, &p, PROM_TEXT);
	fclose(f);
	CHECK_STR(line_at(t, "# HELP pipetrace_test_eof_reads_total"),
		  "# HELP pipetrace_test_eof_reads_total A throwaway column.");
	CHECK_STR(line_at(t, "pipetrace_test_eof_reads_total{"),
		  "pipetrace_test_eof_reads_total{tier=\"syscall\",comm=\"make\"} 12");
	free(t);
	rows_free(&rows);
	prom_free(&p);
}

/* pipetop: its last column, a rate */
static void pipetop_model(void)
{
	struct pt_value v = tm_value(&counts, TM_TEST, &env, 2);

	CHECK_STR(tm_col(TM_TEST)->head, "TEST/s");
	CHECK(tm_col(TM_TEST)->metric == PT_COL_TEST && tm_col(TM_TEST)->kind == TM_K_RATE);
	CHECK(v.q == PT_EXACT && v.d == 3);
}

/* pipetrace-bench: appended to its rows, its hooks loaded */
static void pipetrace_bench(void)
{
	char *h = header(&pb_csv_layout);

	CHECK(strlen(h) > 16 && !strcmp(h + strlen(h) - 16, ",test_eof_reads\n"));
	CHECK(pb_out_cols() & PT_COL_BIT(PT_COL_TEST));
	free(h);
}

int main(void)
{
	pipestat_outputs();
	prometheus();
	pipetop_model();
	pipetrace_bench();
	return unit_summary("test_column");
}
