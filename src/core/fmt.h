/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>
#include <stdio.h>
#include "metrics.h"
#include "rows.h"

/* CSV form: exact digits; "" for a metric the tier cannot know. */
void fmt_csv_value(char *buf, size_t n, const struct pt_value *v);
/* Table form: fits width with K/M/G/T suffixes; "-" when unknown. */
void fmt_table_value(char *buf, size_t n, const struct pt_value *v, int width);
/* A comm as a CSV field: quoted per RFC 4180 when it needs to be. */
void fmt_csv_field(char *buf, size_t n, const char *s);

/* A row's key for humans: "total", "pid 12 comm dd", "pipe 345", ... */
void fmt_key(char *buf, size_t n, enum pt_by by, const struct pt_key *k);

/*
 * At most len bytes of s (stopping at NUL) with '"', '\\' and newline
 * escaped by a backslash and every other byte outside printable ASCII
 * written with byte_fmt ("\\u%04x" for JSON), so the text is valid UTF-8.
 */
void fmt_escaped(FILE *f, const char *s, size_t len, const char *byte_fmt);

#endif
