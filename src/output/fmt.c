// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "os/cgroup.h"
#include "fmt.h"

void fmt_csv_value(char *buf, size_t n, const struct pt_value *v)
{
	if (v->q == PT_NA)
		snprintf(buf, n, "%s", "");
	else if (v->type == PT_V_U64 || v->type == PT_V_TIME)
		snprintf(buf, n, "%llu", (unsigned long long)v->u);
	else
		snprintf(buf, n, "%.2f", v->d);
}

static void fmt_scaled(char *buf, size_t n, unsigned long long u, int width)
{
	static const char units[] = "KMGTPE";
	double d = u;
	int i = -1;

	snprintf(buf, n, "%llu", u);
	while ((int)strlen(buf) > width && i < (int)sizeof(units) - 2) {
		d /= 1000;
		i++;
		snprintf(buf, n, d < 10 ? "%.1f%c" : "%.0f%c", d, units[i]);
	}
}

void fmt_iec(char *buf, size_t n, unsigned long long u)
{
	static const char units[] = "KMGTPE";
	double d = u;
	int i = -1;

	if (u < 1024) {
		snprintf(buf, n, "%llu", u);
		return;
	}
	while (d >= 1024 && i < (int)sizeof(units) - 2) {
		d /= 1024;
		i++;
	}
	snprintf(buf, n, d < 9.95 ? "%.1f%ci" : "%.0f%ci", d, units[i]);
}

/* ">HH:MM:SS": before epoch second t, local time */
static void fmt_before(char *buf, size_t n, time_t t)
{
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(buf, n, ">%H:%M:%S", &tm);
	else
		snprintf(buf, n, "-");
}

void fmt_duration(char *buf, size_t n, unsigned long long ns)
{
	static const struct { double div; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double d = ns / units[i].div;

		if (d >= 1) {
			snprintf(buf, n, d < 9.995 ? "%.2f%s" : d < 99.95 ? "%.1f%s" :
				 "%.0f%s", d, units[i].unit);
			return;
		}
	}
	snprintf(buf, n, "%lluns", ns);
}

int fmt_wrap(const char *s, int width, const char **next)
{
	int len = strlen(s), cut;

	if (len <= width) {
		cut = len;
	} else {
		for (cut = width; cut > 0 && s[cut] != ' '; cut--)
			;
		if (!cut)
			cut = width > 0 ? width : 1;
	}
	*next = s + cut;
	while (**next == ' ')
		(*next)++;
	while (cut > 0 && s[cut - 1] == ' ')
		cut--;
	return cut;
}

void fmt_table_value(char *buf, size_t n, const struct pt_value *v, int width)
{
	if (v->q == PT_NA)
		snprintf(buf, n, "-");
	else if (v->type == PT_V_U64)
		fmt_scaled(buf, n, v->u, width);
	else if (v->type == PT_V_PCT)
		snprintf(buf, n, "%.1f", v->d);
	else if (v->type == PT_V_TIME)
		fmt_before(buf, n, v->u);
	else
		snprintf(buf, n, "%.2f", v->d);
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

const char *fmt_printable(char *buf, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i] && i + 1 < n; i++) {
		unsigned char c = s[i];

		buf[i] = is_control(c) || c > 0x7e ? '?' : c;
	}
	if (n)
		buf[i] = '\0';
	return buf;
}

const char *fmt_comm(char *buf, const char *comm)
{
	return fmt_printable(buf, PT_COMM_LEN + 1, comm, PT_COMM_LEN);
}

size_t fmt_csv_escape(char *buf, size_t n, const char *s, size_t len,
		      const char *also)
{
	size_t o = 0;

	if (!n)
		return 0;
	/* room for the longest piece (\xHH) and the NUL */
	for (size_t i = 0; i < len && s[i] && o + 5 < n; i++) {
		unsigned char c = s[i];

		if (is_control(c) || strchr(also, c))
			o += snprintf(buf + o, n - o, "\\x%02x", c);
		else if (c == '\\')
			buf[o++] = c, buf[o++] = c;
		else
			buf[o++] = c;
	}
	buf[o] = '\0';
	return o;
}

void fmt_csv_quote(char *buf, size_t n, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;
	size_t o = 0;

	if (!n)
		return;
	if (quote && n > 2)
		buf[o++] = '"';
	/* room for a doubled quote and the closing one */
	for (; *s && o + 3 < n; s++) {
		if (*s == '"')
			buf[o++] = '"';
		buf[o++] = *s;
	}
	if (quote && o)
		buf[o++] = '"';
	buf[o] = '\0';
}

void fmt_csv_field(char *buf, size_t n, const char *s)
{
	char esc[4 * 256 + 1];

	fmt_csv_escape(esc, sizeof(esc) < n ? sizeof(esc) : n, s, strlen(s), "");
	fmt_csv_quote(buf, n, esc);
}

const char *fmt_comm_marked(char *buf, const char *comm, size_t len)
{
	char p[PT_COMM_LEN + 1];
	size_t o = 0;

	fmt_printable(p, sizeof(p), comm, len < PT_COMM_LEN ? len : PT_COMM_LEN);
	if (!p[strcspn(p, FMT_LIST_CHARS)])
		return strcpy(buf, p);
	buf[o++] = '"';
	for (const char *c = p; *c; c++) {
		if (*c == '"' || *c == '\\')
			buf[o++] = '\\';
		buf[o++] = *c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

const char *fmt_args_marked(char *buf, size_t n, const char *args, int max)
{
	char p[FMT_ARGS_MARKED_LEN / 2];
	size_t len = strlen(fmt_printable(p, sizeof(p), args, strlen(args)));
	bool quote = p[strcspn(p, FMT_LIST_CHARS)] != '\0';
	size_t keep = 0, mlen = quote ? 2 : 0, o = 0, full = mlen;
	bool cut;

	for (size_t i = 0; i < len; i++)
		full += 1 + (quote && (p[i] == '"' || p[i] == '\\'));
	cut = max >= 0 && full > (size_t)max;
	/* cut: the longest start of p that fits max with ".." after it */
	for (; keep < len; keep++) {
		size_t c = 1 + (quote && (p[keep] == '"' || p[keep] == '\\'));

		if (cut && mlen + c + 2 > (size_t)max)
			break;
		mlen += c;
	}
	/* too short to say anything: nothing */
	if (cut && keep < 3)
		keep = 0, quote = false, cut = false;
	if (quote && o + 1 < n)
		buf[o++] = '"';
	for (size_t i = 0; i < keep && o + 3 < n; i++) {
		if (quote && (p[i] == '"' || p[i] == '\\'))
			buf[o++] = '\\';
		buf[o++] = p[i];
	}
	if (cut && o + 3 < n)
		buf[o++] = '.', buf[o++] = '.';
	if (quote && o + 1 < n)
		buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

void fmt_key(char *buf, size_t n, enum pt_by by, const struct pt_key *k)
{
	int len = snprintf(buf, n, "%s", by == PT_BY_TOTAL ? "total" : "");

	if (by_has_pid(by) && len >= 0 && (size_t)len < n)
		len += snprintf(buf + len, n - len, "pid %u ", k->tgid);
	if (by_has_comm(by) && len >= 0 && (size_t)len < n)
		len += snprintf(buf + len, n - len, "comm %.*s ", PT_COMM_LEN, k->comm);
	if (by_has_pipe(by) && len >= 0 && (size_t)len < n)
		len += snprintf(buf + len, n - len, "pipe %llu ",
				(unsigned long long)k->ino);
	if (by_has_cgroup(by) && len >= 0 && (size_t)len < n) {
		char cg[4096];

		cgroup_name(cg, sizeof(cg), k->cgroup);
		len += snprintf(buf + len, n - len, "cgroup %s ", cg);
	}
	if (len > 0 && (size_t)len < n && buf[len - 1] == ' ')
		buf[len - 1] = '\0';
}

void fmt_escaped(FILE *f, const char *s, size_t len, const char *byte_fmt)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, byte_fmt, c);
		else
			fputc(c, f);
	}
}

void fmt_dev(char *buf, size_t n, __u32 dev)
{
	/* the kernel's dev_t: 12 bits of major, 20 of minor */
	snprintf(buf, n, "%u:%u", dev >> 20, dev & 0xfffff);
}

void fmt_pipe(char *buf, size_t n, __u32 dev, __u64 ino)
{
	char d[24];

	fmt_dev(d, sizeof(d), dev);
	snprintf(buf, n, "%s:%llu", d, (unsigned long long)ino);
}

const char *fmt_lost(char *buf, size_t n, const struct pt_env *e)
{
	int l = 0;

	buf[0] = 0;
	if (e->untracked)
		l = snprintf(buf, n, "%llu events not tracked: counter map full",
			     (unsigned long long)e->untracked);
	if (e->skipped && l >= 0 && (size_t)l < n)
		snprintf(buf + l, n - l, "%sthe kernel skipped %llu runs of the "
			 "programs (one already running on that CPU): counts may "
			 "be low by as many", l ? "; " : "",
			 (unsigned long long)e->skipped);
	return buf;
}
