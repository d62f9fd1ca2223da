// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus series table: each count column of the CSV (metrics.c)
 * as a series named by the Prometheus naming guide (base units, _total on
 * counters, sides and causes as labels), and the PromQL that gives back
 * each CSV column. docs/METRICS.md is generated from it (make metrics-doc;
 * test_prom fails when the file drifts).
 */
#include <string.h>
#include "out.h"
#include "prom.h"

#define S(n, l, c) .name = n, .labels = l, .col = c
#define RAWF(f) offsetof(struct pt_counts, f) + 1

const struct prom_series prom_series[PROM_NSERIES] = {
	{ S("calls_total", "side=\"read\"", PT_COL_READS), .help =
	  "Read and write calls on pipes (read, readv, preadv2, write, writev, "
	  "pwritev2, io_uring)." },
	{ S("calls_total", "side=\"write\"", PT_COL_WRITES) },
	{ S("bytes_total", "side=\"read\"", PT_COL_READ_BYTES), .help =
	  "Bytes those calls read and wrote." },
	{ S("bytes_total", "side=\"write\"", PT_COL_WRITE_BYTES) },
	{ S("eof_reads_total", "", PT_COL_EOF_READS), .help =
	  "Reads that asked for bytes and got 0: no writer left." },
	{ S("eagain_total", "side=\"read\",cause=\"nonblock\"", PT_COL_EAGAIN_READ),
	  .raw = RAWF(eagain_read_nonblock), .help =
	  "Calls that returned -EAGAIN, by side and cause (nonblock: an "
	  "O_NONBLOCK file; nowait: RWF_NOWAIT or IOCB_NOWAIT)." },
	{ S("eagain_total", "side=\"read\",cause=\"nowait\"", PT_COL_EAGAIN_READ),
	  .raw = RAWF(eagain_read_nowait) },
	{ S("eagain_total", "side=\"write\",cause=\"nonblock\"", PT_COL_EAGAIN_WRITE),
	  .raw = RAWF(eagain_write_nonblock) },
	{ S("eagain_total", "side=\"write\",cause=\"nowait\"", PT_COL_EAGAIN_WRITE),
	  .raw = RAWF(eagain_write_nowait) },
	{ S("eagain_reason_total", "reason=\"empty\"", PT_COL_EAGAIN_EMPTY), .help =
	  "The same -EAGAIN returns by reason: the pipe empty or full." },
	{ S("eagain_reason_total", "reason=\"full\"", PT_COL_EAGAIN_FULL) },
	{ S("pool_hits_total", "", PT_COL_POOL_HITS), .help =
	  "New pipe buffers whose page came from the pipe's cache or pool." },
	{ S("pool_misses_total", "", PT_COL_POOL_MISSES), .help =
	  "New pipe buffers that needed a page allocated under pipe->mutex." },
	{ S("pages_allocated_total", "mutex=\"held\"", PT_COL_ALLOC_LOCKED), .help =
	  "Pipe pages allocated with pipe->mutex held, or before taking it "
	  "(prefill)." },
	{ S("pages_allocated_total", "mutex=\"not_held\"", PT_COL_ALLOC_UNLOCKED) },
	{ S("pages_wasted_total", "", PT_COL_ALLOC_WASTED), .help =
	  "Pipe pages allocated by writes that moved no byte (-EAGAIN, -EPIPE): "
	  "freed again or cached." },
	{ S("copy_sections_total", "", PT_COL_COPY_SECTIONS), .help =
	  "User-access (STAC/CLAC) sections reads opened." },
	{ S("copy_buffers_total", "", PT_COL_COPY_BUFFERS), .help =
	  "Pipe buffers reads copied from." },
	{ S("prefill_dropped_total", "", PT_COL_PREFILL_DROPPED), .help =
	  "Prefilled pages freed because the pool was full." },
	{ S("splice_calls_total", "side=\"write\"", PT_COL_SPLICE_IN), .help =
	  "splice, tee, vmsplice and sendfile calls on pipes, by the pipe's "
	  "side (write: into the pipe)." },
	{ S("splice_calls_total", "side=\"read\"", PT_COL_SPLICE_OUT) },
	{ S("splice_bytes_total", "side=\"write\"", PT_COL_SPLICE_IN_BYTES), .help =
	  "Bytes those calls moved." },
	{ S("splice_bytes_total", "side=\"read\"", PT_COL_SPLICE_OUT_BYTES) },
	{ S("splice_eagain_total", "", PT_COL_EAGAIN_SPLICE), .help =
	  "splice-family calls that returned -EAGAIN." },
	{ S("waits_total", "side=\"read\"", PT_COL_WAITS_READ), .help =
	  "Sleeps of readers waiting for data and of writers waiting for "
	  "room." },
	{ S("waits_total", "side=\"write\"", PT_COL_WAITS_WRITE) },
	{ S("wait_seconds_total", "side=\"read\"", PT_COL_WAIT_READ_NS),
	  .kind = PROM_SECONDS, .help = "Time those sleeps took." },
	{ S("wait_seconds_total", "side=\"write\"", PT_COL_WAIT_WRITE_NS),
	  .kind = PROM_SECONDS },
	{ S("lock_contentions_total", "", PT_COL_LOCK_CONTENDED), .help =
	  "pipe->mutex acquisitions that had to spin or sleep." },
	{ S("lock_wait_seconds_total", "", PT_COL_LOCK_WAIT_NS), .kind = PROM_SECONDS,
	  .help = "Time spent waiting for pipe->mutex." },
	{ S("ring_full_writes_total", "", PT_COL_RING_FULL_WRITES), .help =
	  "Writes that found the pipe's ring full (waited for room, or "
	  "-EAGAIN)." },
	{ S("knob_prealloc_max_pages", "", PT_COL_KNOB_PREALLOC_MAX), .kind = PROM_GAUGE,
	  .help = "fs.pipe-prealloc-max at the end of the last interval." },
	{ S("knob_prealloc_keep_pages", "", PT_COL_KNOB_PREALLOC_KEEP),
	  .kind = PROM_GAUGE,
	  .help = "fs.pipe-prealloc-keep at the end of the last interval." },
	{ S("knob_read_batch", "", PT_COL_KNOB_READ_BATCH), .kind = PROM_GAUGE,
	  .help = "fs.pipe-read-batch at the end of the last interval." },
};

const struct prom_hist prom_hists[PROM_NHISTS] = {
	{ .name = "call_size_bytes", .labels = "side=\"write\"",
	  .hist = PT_HIST_WRITE_SIZE, .col = PT_COL_WRITES,
	  .help = "Bytes per read and write call that moved data." },
	{ .name = "call_size_bytes", .labels = "side=\"read\"",
	  .hist = PT_HIST_READ_SIZE, .col = PT_COL_READS },
	{ .name = "occupancy_slots", .labels = "", .hist = PT_HIST_OCCUPANCY,
	  .col = PT_COL_WRITES, .derived_tp = true,
	  .help = "Ring slots in use when a write starts." },
	{ .name = "wait_duration_seconds", .labels = "side=\"read\"",
	  .hist = PT_HIST_WAIT_READ, .col = PT_COL_WAITS_READ, .ns = true,
	  .help = "Length of each sleep of a reader waiting for data or a writer "
		  "waiting for room." },
	{ .name = "wait_duration_seconds", .labels = "side=\"write\"",
	  .hist = PT_HIST_WAIT_WRITE, .col = PT_COL_WAITS_WRITE, .ns = true },
};

/* CSV columns that are no single series: what PromQL gives them back. */
static const struct {
	enum pt_col col;
	const char *query;
	const char *note;
} queries[] = {
	{ .col = PT_COL_EAGAIN_READ,
	  .query = "sum without (cause) (pipetrace_eagain_total{side=\"read\"})" },
	{ .col = PT_COL_EAGAIN_WRITE,
	  .query = "sum without (cause) (pipetrace_eagain_total{side=\"write\"})" },
	{ .col = PT_COL_EAGAIN_NONBLOCK,
	  .query = "sum without (side) (pipetrace_eagain_total{cause=\"nonblock\"})" },
	{ .col = PT_COL_EAGAIN_NOWAIT,
	  .query = "sum without (side) (pipetrace_eagain_total{cause=\"nowait\"})" },
	{ .col = PT_COL_POOL_HIT_PCT,
	  .query = "100 * rate(pipetrace_pool_hits_total[5m]) / "
	  "(rate(pipetrace_pool_hits_total[5m]) + rate(pipetrace_pool_misses_total[5m]))" },
	{ .col = PT_COL_COPY_SECTIONS, .query = "pipetrace_copy_sections_total",
	  .note = "one per user copy: a pipe buffer's piece of one iovec segment "
		  "(readv etc.), one per buffer into a plain buffer; exact on the "
		  "tracepoint tier, derived on the others; an interval with a read "
		  "whose pieces the tier could not count adds nothing" },
	{ .col = PT_COL_SECTIONS_PER_READ,
	  .query = "rate(pipetrace_copy_sections_total[5m]) / "
	  "rate(pipetrace_calls_total{side=\"read\"}[5m])",
	  .note = "the CSV leaves io_uring reads out of the divisor" },
	{ .col = PT_COL_UNTRACKED, .query = "pipetrace_untracked_events_total",
	  .note = "tier label only: the counter map is one for every key" },
#define NO_KERNEL(c) { .col = c, .query = "none", \
	  .note = "always empty: v4 of the series removed the nowait trylock" }
	NO_KERNEL(PT_COL_EAGAIN_LOCK),
	NO_KERNEL(PT_COL_EAGAIN_NOPAGE),
#undef NO_KERNEL
#define RING_STATE(c) { .col = c, .query = "none", \
	  .note = "a state of the interval, not a count: CSV and JSON only" }
	RING_STATE(PT_COL_RING_SLOTS),
	RING_STATE(PT_COL_RING_PEAK),
	RING_STATE(PT_COL_RING_OWNER_UID),
	RING_STATE(PT_COL_RING_OWNER_PAGES),
	RING_STATE(PT_COL_RING_QUOTA_SHRUNK),
#undef RING_STATE
};

const char *prom_column_query(char *buf, size_t n, enum pt_col col,
			      const char **note)
{
	*note = "";
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
		if (queries[i].col == col) {
			*note = queries[i].note ? queries[i].note : "";
			snprintf(buf, n, "%s", queries[i].query);
			return buf;
		}
	for (size_t i = 0; i < PROM_NSERIES; i++) {
		const struct prom_series *s = &prom_series[i];

		if (s->col != col)
			continue;
		if (s->kind == PROM_SECONDS)
			*note = "seconds; the CSV has nanoseconds";
		if (s->kind == PROM_GAUGE)
			*note = "a gauge: the last interval's value";
		snprintf(buf, n, "pipetrace_%s%s%s%s", s->name, *s->labels ? "{" : "",
			 s->labels, *s->labels ? "}" : "");
		return buf;
	}
	if (n)
		buf[0] = '\0';
	return buf;
}

static const char doc_head[] =
"# pipetrace metrics in Prometheus\n"
"\n"
"<!-- generated by `make metrics-doc` from src/core/prom_table.c and\n"
"     src/core/metrics.c; test_prom fails when it drifts -->\n"
"\n"
"`pipestat --listen` and `--textfile` export every count column of the\n"
"CSV as a counter: the sum, since pipestat started, of the values the CSV\n"
"reports each interval, so a counter never decreases, also where it is\n"
"derived. Times are in seconds, sizes in bytes; the side of the pipe\n"
"(`side=\"read\"`, `\"write\"`), the cause or reason of an -EAGAIN are\n"
"labels. A column the tier cannot know has no series (never a 0); the\n"
"family's `# HELP` ends in \"(derived on this tier)\" where it is derived.\n"
"\n"
"Labels of every series: `tier`, and those of the key (`-k`): `comm`\n"
"(default), `pid` and `comm`, `pipe_dev` (major:minor of the pipe's file\n"
"system) and `pipe_ino`, or `cgroup`. A `comm` or `cgroup` value is the\n"
"name with a backslash written `\\\\` and each control byte, DEL or byte\n"
"that is not valid UTF-8 written as the text `\\xHH`, so two names never\n"
"share a label value. Past `--max-series` label sets, the counts of new\n"
"keys go into one series `{tier=...,overflow=\"true\"}`.\n"
"\n"
"| CSV column | Prometheus (PromQL) | note |\n"
"|---|---|---|\n";

static const char doc_keys[] =
"| `pid`, `comm`, `pipe_ino`, `pipe_dev`, `cgroup` | the labels `pid`, `comm`, `pipe_ino`, `pipe_dev`, `cgroup` | |\n"
"| `tier` | the label `tier` | |\n"
"| `time`, `interval_s`, `key_type`, `derived`, `writers`, `readers` | none | |\n";

static const char doc_hists[] =
"\n"
"Also `pipetrace_build_info{version,tier}` (1).\n"
"\n"
"## Pages and pool hits, by kernel family\n"
"\n"
"A pool miss is a new pipe buffer whose page was allocated under\n"
"`pipe->mutex` (`alloc_locked`), a pool hit any other new buffer; where the\n"
"other pages come from depends on the kernel:\n"
"\n"
"| kernel | before `pipe->mutex` (`alloc_unlocked`) | hits | misses |\n"
"|---|---|---|---|\n"
"| up to 7.1 (Debian 11-13) | none | the page cached in `tmp_page` (`tmp_page[2]` from 6.15) | every page allocated |\n"
"| 7.2 and later (Debian 14) | the prealloc: min(pages, 8) for a write of more than a page, none for a page or less, also for a write that then moves nothing | a page of the prealloc or from `tmp_page[]` | pages allocated under the mutex |\n"
"| 6.12 with kernel-patch/ | the prefill (`fs.pipe-prealloc-max`), pushed into the pool | a page from the pool | pages allocated under the mutex |\n"
"\n"
"`alloc_wasted` counts the pages (either kind) that writes which moved no\n"
"byte allocated: on 7.2 a nonblocking write of more than a page into a\n"
"full pipe still preallocates its pages, then frees them or caches two in\n"
"`tmp_page[]` (tracepoint and syscall tiers; `-` on the function tier,\n"
"whose write exit is at the 7.2 verifier's limit). The function and\n"
"syscall tiers find a prefill path in the\n"
"kernel's BTF (`struct anon_pipe_prealloc`, or the series'\n"
"`pipe:pipe_prefill`) and there read the mutex's owner at each page.\n"
"\n"
"## Histograms\n"
"\n"
"With `--hist`, each histogram asked for is a Prometheus histogram\n"
"(`_bucket{le=...}`, `_sum`, `_count`), cumulative since pipestat started.\n"
"The buckets are the log2 slots: `le` is 2^(s+1) - 1 for slot s (1, 3, 7,\n"
"...; for times that many nanoseconds, in seconds), the last slot `+Inf`.\n"
"\n"
"| `--hist` | Prometheus | note |\n"
"|---|---|---|\n";

void prom_doc(FILE *f)
{
	char q[256];

	fputs(doc_head, f);
	for (int i = 0; i < PT_NCOLS; i++) {
		const char *note;

		if (!pt_metrics[i].csv)
			continue;
		prom_column_query(q, sizeof(q), i, &note);
		fprintf(f, "| `%s` | `%s` | %s |\n", pt_metrics[i].csv, q, note);
	}
	fputs(doc_keys, f);
	fputs(doc_hists, f);
	for (int i = 0; i < PROM_NHISTS; i++) {
		const struct prom_hist *h = &prom_hists[i];

		fprintf(f, "| `%s` | `pipetrace_%s%s%s%s` | %s |\n", hist_name(h->hist),
			h->name, *h->labels ? "{" : "", h->labels, *h->labels ? "}" : "",
			h->ns ? "seconds; the kernel counts nanoseconds" :
			h->derived_tp ? "derived on the tracepoint tier" : "");
	}
}
