// SPDX-License-Identifier: GPL-2.0
/*
 * pipetrace-bench output: the table (one line per point) and the CSV (one row
 * per point, or per point and side with --ab). CSV columns are a contract:
 * only appended, never renamed or reordered.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/fmt.h"
#include "core/out.h"
#include "core/record.h"
#include "pipetrace-bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct pb_stats pb_stats_of(const double *v, int n)
{
	struct pb_stats st = { 0, 0, 0 };
	double *s;

	if (n <= 0 || !(s = malloc(n * sizeof(*s))))
		return st;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	st.min = s[0];
	st.max = s[n - 1];
	st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return st;
}

double pb_delta_pct(double a, double b)
{
	return a ? (b - a) / a * 100 : 0;
}

double pb_spread_pct(const struct pb_stats *s)
{
	return s->median ? (s->max - s->min) / s->median * 100 : 0;
}

double pb_noise_pct(const struct pb_stats *a, const struct pb_stats *b)
{
	double x = pb_spread_pct(a), y = b ? pb_spread_pct(b) : 0;

	return (x > y ? x : y) / 2;
}

bool pb_per_op(enum pb_wl wl)
{
	return wl == PB_PINGPONG || wl == PB_URING;
}

static struct pt_value metric(const struct pb_side *s, enum pt_col col)
{
	/* nothing attached, nothing counted: unknown, not 0 */
	if (s->unattached)
		return (struct pt_value){ .q = PT_NA };
	return pt_get(col, &s->c, &s->env);
}

/* allocations under pipe->mutex per MB (10^6 bytes) written */
static struct pt_value alloc_per_mb(const struct pb_side *s)
{
	struct pt_value v = metric(s, PT_COL_ALLOC_LOCKED);

	if (v.q == PT_NA || !s->c.write_bytes)
		return (struct pt_value){ .q = PT_NA };
	return (struct pt_value){ .q = v.q, .type = PT_V_RATIO,
				  .d = v.u / (s->c.write_bytes / 1e6) };
}

static const char *table_value(char *buf, size_t n, struct pt_value v, int width)
{
	size_t len;

	fmt_table_value(buf, n, &v, width - (v.q == PT_DERIVED));
	len = strlen(buf);
	if (v.q == PT_DERIVED && len + 1 < n)
		strcpy(buf + len, "*");
	return buf;
}

static const char *point_name(const struct pb_point *p, char *buf, size_t n)
{
	if (p->variant[0])
		snprintf(buf, n, "%s:%s", pb_wl_names[p->wl], p->variant);
	else
		snprintf(buf, n, "%s", pb_wl_names[p->wl]);
	return buf;
}

static const char *knob_text(int v, char *buf, size_t n)
{
	if (v < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%d", v);
	return buf;
}

static const char csv_head[] =
	"workload,size,writers,readers,reps,mbps_median,mbps_min,mbps_max,"
	"writes,write_bytes,reads,read_bytes,pool_hit_pct,alloc_locked,"
	"copy_sections,eagain_read,eagain_write,tier,"
	"variant,moved_bytes,ops,seconds,us_per_op_median,us_per_op_min,"
	"us_per_op_max,alloc_locked_per_mb,sections_per_read,copy_buffers,"
	"knob_prealloc_max,knob_prealloc_keep,knob_read_batch,"
	"ab_knob,ab_value,ab_side,delta_pct,noise_pct,derived,"
	"placement,spread_pct,attached,pipe_size,writer_wait_pct\n";

void pb_out_begin(FILE *f, const struct pb_opts *o, enum pt_tier tier)
{
	struct pt_env env;
	char a[16], b[16], c[16];

	if (o->csv || o->json) {
		if (o->csv)
			fputs(csv_head, f);
		fflush(f);
		return;
	}
	env_read_knobs(&env);
	fprintf(f, "pipetrace-bench %s  tier: %s  reps: %d x ", PIPETRACE_VERSION,
		tier_name(tier), o->reps);
	if (o->ops)
		fprintf(f, "%ld ops", o->ops);
	else
		fprintf(f, "%.2f s", o->duration);
	if (o->ncpus) {
		fprintf(f, "  pinned to CPUs:");
		for (int i = 0; i < o->ncpus; i++)
			fprintf(f, "%s%d", i ? "," : " ", o->cpus[i]);
	} else {
		fprintf(f, "  not pinned (as perf bench sched pipe)");
	}
	fprintf(f, "\nknobs: pipe-prealloc-max=%s pipe-prealloc-keep=%s "
		"pipe-read-batch=%s\n",
		knob_text(env.knob_prealloc_max, a, sizeof(a)),
		knob_text(env.knob_prealloc_keep, b, sizeof(b)),
		knob_text(env.knob_read_batch, c, sizeof(c)));
	if (o->ab.on) {
		fprintf(f, "A/B over fs.%s: baseline %d, patched %d, alternating\n",
			o->ab.knob, o->ab.value[0], o->ab.value[1]);
		fprintf(f, "%-14s %7s %3s %3s %-5s %9s %9s %7s %6s  %-13s %-13s %-11s %-11s %s\n",
			"WORKLOAD", "SIZE", "W", "R", "UNIT", "BASELINE", "PATCHED",
			"DELTA%", "NOISE%", "HIT% A/B", "ALLOC_LK/MB", "SEC/RD A/B",
			"EAGAIN A/B", "PLACEMENT");
	} else {
		fprintf(f, "%-14s %7s %3s %3s %-5s %9s %9s %9s %6s %11s %6s %8s %8s %s\n",
			"WORKLOAD", "SIZE", "W", "R", "UNIT", "MEDIAN", "MIN", "MAX",
			"HIT%", "ALLOC_LK/MB", "SEC/RD", "EAGAIN_R", "EAGAIN_W",
			"PLACEMENT");
	}
	fflush(f);
}

static struct pb_stats side_stats(const struct pb_point *p, const struct pb_side *s)
{
	return pb_stats_of(pb_per_op(p->wl) ? s->usop : s->mbps, s->n);
}

static struct pt_value eagains(const struct pb_side *s)
{
	struct pt_value r = metric(s, PT_COL_EAGAIN_READ), w = metric(s, PT_COL_EAGAIN_WRITE);

	if (r.q == PT_NA || w.q == PT_NA)
		return (struct pt_value){ .q = PT_NA };
	r.u += w.u;
	return r;
}

/* One line per side whose repetitions disagree too much to trust the median. */
static void spread_warning(FILE *f, const char *prefix, const struct pb_point *p,
			   const struct pb_side *sides, int nsides)
{
	for (int i = 0; i < nsides; i++) {
		struct pb_stats st = side_stats(p, &sides[i]);
		double spread = pb_spread_pct(&st);

		if (spread <= PB_SPREAD_WARN_PCT)
			continue;
		fprintf(f, "%s! %sspread %.0f%%: (max - min) / median over %d%%, "
			"the median is not to be trusted\n", prefix,
			nsides < 2 ? "" : sides[i].unattached ? "nothing attached: " :
			sides[0].unattached ? "attached: " : i ? "patched " : "baseline ",
			spread, PB_SPREAD_WARN_PCT);
	}
}

/* bursty: the pipe's size and how long its writer sat in write(2) */
static void bursty_note(FILE *f, const struct pb_point *p,
			const struct pb_side *sides, int nsides)
{
	if (p->wl != PB_BURSTY)
		return;
	for (int i = 0; i < nsides; i++) {
		struct pb_stats w = pb_stats_of(sides[i].wait_pct, sides[i].n);

		fprintf(f, "  pipe %ld bytes%s: writer in write(2) %.1f%% of the "
			"time (median; min %.1f, max %.1f)\n", sides[i].ring,
			p->pipe_size ? "" : " (as made)", w.median, w.min, w.max);
	}
}

/* One line of the table without --ab. */
static void table_row(FILE *f, const struct pb_point *p, const struct pb_side *s,
		      const char *place)
{
	struct pb_stats a = side_stats(p, s);
	char name[32], v[5][24];

	fprintf(f, "%-14s %7ld %3d %3d %-5s %9.2f %9.2f %9.2f %6s %11s %6s %8s %8s %s%s\n",
		point_name(p, name, sizeof(name)), p->size, p->writers, p->readers,
		pb_per_op(p->wl) ? "us/op" : "MB/s", a.median, a.min, a.max,
		table_value(v[0], 24, metric(s, PT_COL_POOL_HIT_PCT), 6),
		table_value(v[1], 24, alloc_per_mb(s), 11),
		table_value(v[2], 24, metric(s, PT_COL_SECTIONS_PER_READ), 6),
		table_value(v[3], 24, metric(s, PT_COL_EAGAIN_READ), 8),
		table_value(v[4], 24, metric(s, PT_COL_EAGAIN_WRITE), 8),
		place, s->unattached ? ", nothing attached" : "");
}

static void table_point(FILE *f, const struct pb_opts *o, const struct pb_point *p,
			const struct pb_side *sides, int nsides)
{
	const char *unit = pb_per_op(p->wl) ? "us/op" : "MB/s";
	struct pb_stats a = side_stats(p, &sides[0]);
	char name[32], place[32];

	pb_placement(o, p, place, sizeof(place));
	if (nsides == 1 || o->baseline) {
		for (int i = 0; i < nsides; i++)
			table_row(f, p, &sides[i], place);
		if (nsides > 1) {
			struct pb_stats b = side_stats(p, &sides[1]);
			double d = pb_per_op(p->wl) ? pb_delta_pct(b.median, a.median)
						    : pb_delta_pct(a.median, b.median);

			fprintf(f, "  attached: %+.1f%% throughput vs nothing attached "
				"(noise %.1f%%)\n", d, pb_noise_pct(&a, &b));
		}
		bursty_note(f, p, sides, nsides);
		spread_warning(f, "  ", p, sides, nsides);
		return;
	}
	fprintf(f, "%-14s %7ld %3d %3d %-5s ", point_name(p, name, sizeof(name)),
		p->size, p->writers, p->readers, unit);
	{
		struct pb_stats b = side_stats(p, &sides[1]);
		/* delta in throughput terms: + is faster, also for us/op */
		double d = pb_per_op(p->wl) ? pb_delta_pct(b.median, a.median)
					    : pb_delta_pct(a.median, b.median);
		double noise = pb_noise_pct(&a, &b);
		char pair[4][40], x[24], y[24];
		struct pt_value (*get)(const struct pb_side *) = alloc_per_mb;

		snprintf(pair[0], 40, "%s/%s",
			 table_value(x, 24, metric(&sides[0], PT_COL_POOL_HIT_PCT), 6),
			 table_value(y, 24, metric(&sides[1], PT_COL_POOL_HIT_PCT), 6));
		snprintf(pair[1], 40, "%s/%s", table_value(x, 24, get(&sides[0]), 6),
			 table_value(y, 24, get(&sides[1]), 6));
		snprintf(pair[2], 40, "%s/%s",
			 table_value(x, 24, metric(&sides[0], PT_COL_SECTIONS_PER_READ), 5),
			 table_value(y, 24, metric(&sides[1], PT_COL_SECTIONS_PER_READ), 5));
		snprintf(pair[3], 40, "%s/%s", table_value(x, 24, eagains(&sides[0]), 6),
			 table_value(y, 24, eagains(&sides[1]), 6));
		fprintf(f, "%9.2f %9.2f %+6.1f%s %6.1f  %-13s %-13s %-11s %-11s %s\n",
			a.median, b.median, d, fabs(d) <= noise ? "~" : " ", noise,
			pair[0], pair[1], pair[2], pair[3], place);
	}
	bursty_note(f, p, sides, nsides);
	spread_warning(f, "  ", p, sides, nsides);
}

/* One row of the CSV, or one JSON object keyed by the CSV's column names. */
/* The table columns of a row: before and after the figures of its own. */
static const enum pt_col ordered[] = {
	PT_COL_WRITES, PT_COL_WRITE_BYTES, PT_COL_READS, PT_COL_READ_BYTES,
	PT_COL_POOL_HIT_PCT, PT_COL_ALLOC_LOCKED, PT_COL_COPY_SECTIONS,
	PT_COL_EAGAIN_READ, PT_COL_EAGAIN_WRITE,
};
static const enum pt_col tail[] = {
	PT_COL_SECTIONS_PER_READ, PT_COL_COPY_BUFFERS, PT_COL_KNOB_PREALLOC_MAX,
	PT_COL_KNOB_PREALLOC_KEEP, PT_COL_KNOB_READ_BATCH,
};

__u64 pb_out_cols(void)
{
	__u64 cols = 0;

	for (size_t i = 0; i < sizeof(ordered) / sizeof(ordered[0]); i++)
		cols |= PT_COL_BIT(ordered[i]);
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		cols |= PT_COL_BIT(tail[i]);
	return cols;
}

static void point_side(FILE *f, const struct pb_opts *o, const struct pb_point *p,
		       const struct pb_side *s, int side, double delta, double noise)
{
	struct pb_stats mb = pb_stats_of(s->mbps, s->n), us = pb_stats_of(s->usop, s->n);
	struct pt_value v;
	char place[32];
	struct rec r;

	rec_begin(&r, f, o->json ? REC_JSON : REC_CSV);
	rec_str(&r, "workload", pb_wl_names[p->wl]);
	rec_i64(&r, "size", p->size);
	rec_i64(&r, "writers", p->writers);
	rec_i64(&r, "readers", p->readers);
	rec_i64(&r, "reps", s->n);
	rec_fixed(&r, "mbps_median", mb.median, 2);
	rec_fixed(&r, "mbps_min", mb.min, 2);
	rec_fixed(&r, "mbps_max", mb.max, 2);
	for (size_t i = 0; i < sizeof(ordered) / sizeof(ordered[0]); i++) {
		v = metric(s, ordered[i]);
		rec_value(&r, pt_metrics[ordered[i]].csv, &v);
	}
	if (s->unattached)
		rec_null(&r, "tier");
	else
		rec_str(&r, "tier", tier_name(s->env.tier));
	rec_str(&r, "variant", p->variant);
	rec_i64(&r, "moved_bytes", s->bytes);
	rec_i64(&r, "ops", s->ops);
	rec_fixed(&r, "seconds", s->seconds, 6);
	rec_fixed(&r, "us_per_op_median", us.median, 3);
	rec_fixed(&r, "us_per_op_min", us.min, 3);
	rec_fixed(&r, "us_per_op_max", us.max, 3);
	v = alloc_per_mb(s);
	rec_value(&r, "alloc_locked_per_mb", &v);
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		v = metric(s, tail[i]);
		rec_value(&r, pt_metrics[tail[i]].csv, &v);
	}
	if (o->ab.on) {
		rec_str(&r, "ab_knob", o->ab.knob);
		rec_i64(&r, "ab_value", s->knob_value);
		rec_str(&r, "ab_side", side ? "patched" : "baseline");
		rec_fixed(&r, "delta_pct", delta, 2);
		rec_fixed(&r, "noise_pct", noise, 2);
	} else {
		static const char *const ab[] = {
			"ab_knob", "ab_value", "ab_side", "delta_pct", "noise_pct",
		};

		for (size_t i = 0; i < sizeof(ab) / sizeof(ab[0]); i++)
			rec_null(&r, ab[i]);
	}
	if (s->unattached)
		rec_null(&r, "derived");
	else
		rec_derived(&r, "derived", &s->c, &s->env);
	rec_str(&r, "placement", pb_placement(o, p, place, sizeof(place)));
	rec_fixed(&r, "spread_pct", pb_spread_pct(&mb), 2);
	rec_str(&r, "attached", s->unattached ? "no" : "yes");
	if (p->wl == PB_BURSTY) {
		struct pb_stats w = pb_stats_of(s->wait_pct, s->n);

		rec_i64(&r, "pipe_size", s->ring);
		rec_fixed(&r, "writer_wait_pct", w.median, 2);
	} else {
		rec_null(&r, "pipe_size");
		rec_null(&r, "writer_wait_pct");
	}
	rec_end(&r);
}

void pb_out_point(FILE *f, const struct pb_opts *o, const struct pb_point *p,
		  const struct pb_side *sides, int nsides)
{
	double delta = 0, noise;
	struct pb_stats a, b;

	char name[32], prefix[48];

	if (!o->csv && !o->json) {
		table_point(f, o, p, sides, nsides);
		return;
	}
	snprintf(prefix, sizeof(prefix), "pipetrace-bench: %s %ld: ",
		 point_name(p, name, sizeof(name)), p->size);
	spread_warning(stderr, prefix, p, sides, nsides);
	/* the CSV's delta and noise are on MB/s for every workload */
	a = pb_stats_of(sides[0].mbps, sides[0].n);
	b = nsides > 1 ? pb_stats_of(sides[1].mbps, sides[1].n) : a;
	if (nsides > 1)
		delta = pb_delta_pct(a.median, b.median);
	noise = pb_noise_pct(&a, nsides > 1 ? &b : NULL);
	for (int s = 0; s < nsides; s++)
		point_side(f, o, p, &sides[s], s, delta, noise);
}

void pb_out_end(FILE *f, const struct pb_opts *o)
{
	if (o->csv || o->json)
		return;
	fputs("MB = 10^6 bytes through the pipe; us/op: per round trip (pingpong), "
	      "per read (uring)\n"
	      "ALLOC_LK/MB: pages allocated with pipe->mutex held per MB written; "
	      "SEC/RD: user-access sections per read\n"
	      "* derived, not measured directly; - not known on this tier\n"
	      "PLACEMENT: where the two ends ran (unpinned: the scheduler's choice); "
	      "!: a noisy point\n", f);
	if (o->baseline)
		fputs("nothing attached: the same point run with pipetrace-bench's programs "
		      "detached, alternating with the attached runs\n", f);
	if (o->ab.on)
		fputs("DELTA%: patched vs baseline throughput, + = faster; NOISE%: half "
		      "the larger min..max spread of the two sides; ~: within noise\n", f);
}
