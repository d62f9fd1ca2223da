/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>
#include <stdio.h>
#include "model/metrics.h"
#include "model/rows.h"

/* CSV form: exact digits; "" for a metric the tier cannot know. */
void fmt_csv_value(char *buf, size_t n, const struct pt_value *v);
/* What the tables' suffixes mean (fmt_iec's for bytes, fmt_table_value's
 * for counts), in each tool's legend */
#define FMT_UNITS	"Ki = 1024 bytes, K = 1000"
/* Bytes for the table: "812", "64Ki", "1.5Mi", ... (IEC: 1024). */
void fmt_iec(char *buf, size_t n, unsigned long long u);
/* A duration for a human: "850ns", "12.3us", "1.01ms", "2.50s" (3 digits). */
void fmt_duration(char *buf, size_t n, unsigned long long ns);
/*
 * Word wrap: how many bytes of s the next line of at most width columns
 * takes, ending before a space where there is one (a word longer than the
 * line is cut); *next: where the line after it starts (its spaces skipped).
 */
int fmt_wrap(const char *s, int width, const char **next);
/* Table form: fits width with K/M/G/T suffixes (1000); "-" when unknown. */
void fmt_table_value(char *buf, size_t n, const struct pt_value *v, int width);
/*
 * A comm as a CSV field: quoted per RFC 4180 when it holds ',' or '"';
 * a control byte (below 0x20, 0x7f) written as \xHH and a backslash
 * doubled, so a field never breaks a line and reads back unambiguously.
 * Fits in 4 * PT_COMM_LEN + 3 bytes (s of up to 256 bytes).
 */
void fmt_csv_field(char *buf, size_t n, const char *s);
/*
 * fmt_csv_field's two steps. Escape: at most len bytes of s (stopping at
 * NUL), a control byte or one of also as \xHH, a backslash doubled;
 * returns the length. Quote: RFC 4180, s in quotes when it holds ',' or
 * '"', each '"' doubled.
 */
size_t fmt_csv_escape(char *buf, size_t n, const char *s, size_t len,
		      const char *also);
void fmt_csv_quote(char *buf, size_t n, const char *s);

/*
 * What a report could not count, "" if nothing: events of no key (the
 * counter map full) and runs of the programs the kernel skipped (a run of
 * the same program in progress on that CPU: its recursion guard).
 */
const char *fmt_lost(char *buf, size_t n, const struct pt_env *e);

/* What a list of processes is made of: "comm[pid],comm[pid]", "a -> b". */
#define FMT_LIST_CHARS	"[],>\"\\"
#define FMT_MARKED_LEN	(2 * PT_COMM_LEN + 3)
/*
 * A comm for a human to read in a list of processes (pipestat's table,
 * pipetop): fmt_comm's bytes, and in double quotes ('"' and '\\' escaped
 * by a backslash) when it holds one of FMT_LIST_CHARS, so no name passes
 * for list syntax: x[1],y shows as "x[1],y". At most len bytes of comm;
 * buf holds FMT_MARKED_LEN bytes; returns buf.
 */
const char *fmt_comm_marked(char *buf, const char *comm, size_t len);
#define FMT_ARGS_MARKED_LEN	(2 * 256 + 5)
/*
 * A command's arguments (a NUL-terminated string of at most 255 bytes)
 * for a human, beside its name in a list of processes: printable as
 * fmt_printable() makes them, and marked as fmt_comm_marked() marks a
 * comm; in at most max characters (max < 0: no limit), cut ones ending in
 * "..", and "" when max leaves no room for a useful start. buf holds
 * FMT_ARGS_MARKED_LEN bytes (n); returns buf.
 */
const char *fmt_args_marked(char *buf, size_t n, const char *args, int max);
/*
 * A comm (PT_COMM_LEN bytes at most, NUL-terminated or not) for a human
 * to read, as ps shows it: each byte outside printable ASCII becomes '?'.
 * buf holds PT_COMM_LEN + 1 bytes; returns buf.
 */
const char *fmt_comm(char *buf, const char *comm);
/* The same for at most len bytes of any string, cut to fit n; returns buf. */
const char *fmt_printable(char *buf, size_t n, const char *s, size_t len);

/* A pipe's device (the kernel's dev_t) as major:minor, as in mountinfo. */
void fmt_dev(char *buf, size_t n, __u32 dev);
/* A pipe as pipestat --resize takes it: DEV:INO, major:minor:inode */
void fmt_pipe(char *buf, size_t n, __u32 dev, __u64 ino);

/* A row's key for humans: "total", "pid 12 comm dd", "pipe 345", ... */
void fmt_key(char *buf, size_t n, enum pt_by by, const struct pt_key *k);

/*
 * At most len bytes of s (stopping at NUL) with '"', '\\' and newline
 * escaped by a backslash and every other byte outside printable ASCII
 * written with byte_fmt ("\\u%04x" for JSON), so the text is valid UTF-8.
 */
void fmt_escaped(FILE *f, const char *s, size_t len, const char *byte_fmt);

#endif
