// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrary rows (keys with any comm bytes, any counts; -k comm's apart by
 * side, the first row's process with a command line of any bytes) through
 * CSV and the table at any width: neither may crash, and neither may let
 * a control byte through (a newline only ends a line).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "os/proc_args.h"
#include "output/ends.h"
#include "output/report.h"

static void no_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
			abort();
}

static void check_csv_lines(const char *s, size_t n)
{
	/* every line has as many fields as the header: count unquoted commas */
	long want = -1, got = 0;
	int quoted = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == ',' && !quoted)
			got++;
		else if (s[i] == '\n') {
			if (quoted || (want >= 0 && got != want))
				abort();
			want = got;
			got = 0;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_env env = { .knob_prealloc_max = -1, .knob_prealloc_keep = -1,
			      .knob_read_batch = -1 };
	struct pt_rows rows, ends;
	static struct proc_arg one;
	struct proc_args args = { &one, 0, 1 };
	struct pt_report rep = { .rows = &rows, .env = &env, .time = 1e9,
				 .interval_s = 1, .args = &args };
	size_t rec = sizeof(struct pt_key) + sizeof(struct pt_counts);
	char *text;
	size_t len;
	FILE *f;

	if (size < 2)
		return 0;
	env.tier = data[0] % PT_TIER_COUNT;
	env.untracked = data[1];
	rep.width = data[0];
	rows_init(&rows, data[1] % 5);
	rows_init(&ends, PT_BY_PIPE_PID);
	for (size_t off = 2; off + rec <= size; off += rec) {
		struct pt_key k;
		struct pt_counts c;

		memcpy(&k, data + off, sizeof(k));
		memcpy(&c, data + off + sizeof(k), sizeof(c));
		if (rows_add(&ends, &k, &c))
			abort();
	}
	if (rows_fold(&rows, &ends))
		abort();
	rows_sort(&rows);
	if (rows.n && size > 2 + rec) {
		size_t n = size - 2 - rec < PROC_ARGS_LEN - 1 ? size - 2 - rec : PROC_ARGS_LEN - 1;

		one = (struct proc_arg){ .pid = rows.v[0].key.tgid, .known = true };
		memcpy(one.comm, rows.v[0].key.comm, PT_COMM_LEN);
		memcpy(one.args, data + 2 + rec, n);
		one.args[n] = '\0';
		args.n = 1;
	}
	for (int csv = 0; csv < 2; csv++) {
		f = open_memstream(&text, &len);
		if (!f)
			abort();
		if (csv)
			out_csv_header(f);
		if ((csv ? out_csv_report(f, &rep) : out_table_report(f, &rep)))
			abort();
		fclose(f);
		no_control(text, len);
		if (csv)
			check_csv_lines(text, len);
		free(text);
	}
	rows_free(&rows);
	rows_free(&ends);
	return 0;
}
