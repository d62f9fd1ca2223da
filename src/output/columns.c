// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <string.h>
#include "columns.h"

/* the bytes: every call's, splices too (a tier that sees none shows the
 * read(2)/write(2) bytes: pt_table_col) */
static const enum pt_col default_set[] = {
	PT_COL_READS, PT_COL_WRITES, PT_COL_OUT_BYTES, PT_COL_IN_BYTES,
	PT_COL_EAGAIN, PT_COL_WAIT_READ_PCT, PT_COL_WAIT_WRITE_PCT,
};

/* -k pipe's: the bytes, EAGAINs and waits, then the pipe's ends */
static const enum pt_col pipe_set[] = {
	PT_COL_OUT_BYTES, PT_COL_IN_BYTES, PT_COL_EAGAIN,
	PT_COL_WAIT_READ_PCT, PT_COL_WAIT_WRITE_PCT,
};

/* the kernel developer's view: the page pool, allocations, copy sections */
static const enum pt_col kernel_set[] = {
	PT_COL_READS, PT_COL_WRITES, PT_COL_READ_BYTES, PT_COL_WRITE_BYTES,
	PT_COL_EAGAIN_READ, PT_COL_EAGAIN_WRITE, PT_COL_POOL_HITS,
	PT_COL_POOL_MISSES, PT_COL_POOL_HIT_PCT, PT_COL_ALLOC_LOCKED,
	PT_COL_ALLOC_UNLOCKED, PT_COL_COPY_SECTIONS, PT_COL_SECTIONS_PER_READ,
	PT_COL_SPLICE_IN_BYTES, PT_COL_SPLICE_OUT_BYTES, PT_COL_LOCK_CONTENDED,
	PT_COL_WAIT_READ_PCT, PT_COL_WAIT_WRITE_PCT,
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void add(struct pt_columns *c, enum pt_col col)
{
	for (int i = 0; i < c->n; i++)
		if (c->col[i] == col)
			return;
	c->col[c->n++] = col;
}

static void add_set(struct pt_columns *c, const enum pt_col *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		add(c, set[i]);
}

void columns_default(struct pt_columns *c)
{
	c->n = 0;
	add_set(c, default_set, ARRAY_LEN(default_set));
}

void columns_pipe(struct pt_columns *c)
{
	c->n = 0;
	add_set(c, pipe_set, ARRAY_LEN(pipe_set));
}

const char *column_name(enum pt_col col)
{
	return pt_metrics[col].csv ? pt_metrics[col].csv : pt_metrics[col].name;
}

static bool is(const char *item, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(item, name, len);
}

int column_of(const char *name, size_t len)
{
	for (int i = 0; i < PT_NCOLS; i++)
		if (column_name(i) && is(name, len, column_name(i)))
			return i;
	return -1;
}

/* One name or set of -o into c; false if it is neither. */
static bool add_item(struct pt_columns *c, const char *item, size_t len)
{
	int col;

	if (is(item, len, "default"))
		add_set(c, default_set, ARRAY_LEN(default_set));
	else if (is(item, len, "kernel"))
		add_set(c, kernel_set, ARRAY_LEN(kernel_set));
	else if (is(item, len, "all"))
		for (int i = 0; i < PT_NCOLS; i++) {
			if (column_name(i))
				add(c, i);
		}
	else if ((col = column_of(item, len)) >= 0)
		add(c, col);
	else
		return false;
	return true;
}

bool columns_parse(struct pt_columns *c, const char *list, char *err, size_t n)
{
	struct pt_columns out = *c;
	const char *p = list;

	if (*p == '+')
		p++;
	else
		out.n = 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (!add_item(&out, p, len)) {
			snprintf(err, n, "invalid column '%.*s' in -o '%s': want "
				 COLUMN_NAMES ", default, kernel or all", (int)len, p, list);
			return false;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*c = out;
	return true;
}

int column_head(char *buf, size_t n, enum pt_col col, const struct pt_env *env,
		bool rate)
{
	const struct pt_metric *m = &pt_metrics[col];
	const char *star = pt_col_quality(col, env) == PT_DERIVED ? "*" : "";
	char upper[64];
	int len;

	if (m->head) {
		snprintf(upper, sizeof(upper), "%s", m->head);
	} else {
		size_t i;

		for (i = 0; m->csv[i] && i + 1 < sizeof(upper); i++)
			upper[i] = toupper((unsigned char)m->csv[i]);
		upper[i] = '\0';
	}
	/* with --rate a count is per second (out_value): its heading says so */
	if (rate && m->type == PT_V_U64 && !m->knob && m->rate_head)
		len = snprintf(buf, n, "%s%s", m->rate_head, star);
	else if (rate && m->type == PT_V_U64 && !m->knob)
		len = snprintf(buf, n, "%s/s%s", upper, star);
	else
		len = snprintf(buf, n, "%s%s", upper, star);
	return len > m->width ? len : m->width;
}
