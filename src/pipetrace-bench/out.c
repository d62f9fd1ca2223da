// SPDX-License-Identifier: GPL-2.0
/*
 * pipetrace-bench output: the table (one line per point) and the CSV (one row
 * per point, or per point and side with --ab). CSV columns are a contract:
 * only appended, never renamed or reordered.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/csv_layout.h"
#include "output/fmt.h"
#include "output/report.h"
#include "output/record.h"
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

void pb_out_begin(FILE *f, const struct pb_opts *o, enum pt_tier tier)
{
	struct pt_env env;
	char a[16], b[16], c[16];

	if (o->csv || o->json) {
		if (o->csv)
			csv_header(f, &pb_csv_layout);
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

/* One row of the CSV (one JSON object): a point's side and its figures. */
struct pb_row {
	const struct pb_opts *o;
	const struct pb_point *p;
	const struct pb_side *s;
	int side;		/* --ab: 0 baseline, 1 patched */
	double delta, noise;	/* --ab */
	struct pb_stats mb, us;	/* MB/s, us/op over the repetitions */
};

static void put_workload(struct rec *r, const char *name, const void *arg)
{
	const struct pb_row *w = arg;

	rec_str(r, name, pb_wl_names[w->p->wl]);
}

/* the point's size, writers or readers: the field's name says which */
static void put_point(struct rec *r, const char *name, const void *arg)
{
	const struct pb_point *p = ((const struct pb_row *)arg)->p;

	rec_i64(r, name, !strcmp(name, "size") ? p->size :
		!strcmp(name, "writers") ? p->writers : p->readers);
}

/* what the side's runs counted: repetitions, bytes moved, ops */
static void put_runs(struct rec *r, const char *name, const void *arg)
{
	const struct pb_side *s = ((const struct pb_row *)arg)->s;

	rec_i64(r, name, !strcmp(name, "reps") ? s->n :
		!strcmp(name, "moved_bytes") ? s->bytes : s->ops);
}

/* a figure's median, min or max: the field's name says which */
static double pick(const struct pb_stats *st, const char *name)
{
	const char *end = strrchr(name, '_');

	return !strcmp(end, "_min") ? st->min : !strcmp(end, "_max") ? st->max :
	       st->median;
}

static void put_mbps(struct rec *r, const char *name, const void *arg)
{
	rec_fixed(r, name, pick(&((const struct pb_row *)arg)->mb, name), 2);
}

static void put_us_per_op(struct rec *r, const char *name, const void *arg)
{
	rec_fixed(r, name, pick(&((const struct pb_row *)arg)->us, name), 3);
}

static void put_tier(struct rec *r, const char *name, const void *arg)
{
	const struct pb_side *s = ((const struct pb_row *)arg)->s;

	if (s->unattached)
		rec_null(r, name);
	else
		rec_str(r, name, tier_name(s->env.tier));
}

static void put_variant(struct rec *r, const char *name, const void *arg)
{
	rec_str(r, name, ((const struct pb_row *)arg)->p->variant);
}

static void put_seconds(struct rec *r, const char *name, const void *arg)
{
	rec_fixed(r, name, ((const struct pb_row *)arg)->s->seconds, 6);
}

static void put_alloc_per_mb(struct rec *r, const char *name, const void *arg)
{
	struct pt_value v = alloc_per_mb(((const struct pb_row *)arg)->s);

	rec_value(r, name, &v);
}

/* --ab's fields: empty without --ab */
static void put_ab(struct rec *r, const char *name, const void *arg)
{
	const struct pb_row *w = arg;

	if (!w->o->ab.on)
		rec_null(r, name);
	else if (!strcmp(name, "ab_knob"))
		rec_str(r, name, w->o->ab.knob);
	else if (!strcmp(name, "ab_value"))
		rec_i64(r, name, w->s->knob_value);
	else if (!strcmp(name, "ab_side"))
		rec_str(r, name, w->side ? "patched" : "baseline");
	else
		rec_fixed(r, name, !strcmp(name, "delta_pct") ? w->delta : w->noise, 2);
}

static void put_derived(struct rec *r, const char *name, const void *arg)
{
	const struct pb_side *s = ((const struct pb_row *)arg)->s;

	if (s->unattached)
		rec_null(r, name);
	else
		rec_derived(r, name, &s->c, &s->env);
}

static void put_placement(struct rec *r, const char *name, const void *arg)
{
	const struct pb_row *w = arg;
	char place[32];

	rec_str(r, name, pb_placement(w->o, w->p, place, sizeof(place)));
}

static void put_spread(struct rec *r, const char *name, const void *arg)
{
	rec_fixed(r, name, pb_spread_pct(&((const struct pb_row *)arg)->mb), 2);
}

static void put_attached(struct rec *r, const char *name, const void *arg)
{
	rec_str(r, name, ((const struct pb_row *)arg)->s->unattached ? "no" : "yes");
}

/* bursty's own: the pipe's size and the writer's time in write(2) */
static void put_bursty(struct rec *r, const char *name, const void *arg)
{
	const struct pb_row *w = arg;
	struct pb_stats wait;

	if (w->p->wl != PB_BURSTY) {
		rec_null(r, name);
	} else if (!strcmp(name, "pipe_size")) {
		rec_i64(r, name, w->s->ring);
	} else {
		wait = pb_stats_of(w->s->wait_pct, w->s->n);
		rec_fixed(r, name, wait.median, 2);
	}
}

static struct pt_value row_metric(enum pt_col col, const void *arg)
{
	return metric(((const struct pb_row *)arg)->s, col);
}

__u64 pb_out_cols(void)
{
	__u64 cols = 0;

	for (int i = 0; i < PT_NCOLS; i++)
		if (pt_metrics[i].bench)
			cols |= PT_COL_BIT(i);
	return cols;
}

/* The fields of a row: the workload's, then the table's columns of the
 * pipetrace-bench view (pt_metric.bench) among its own figures. */
static const struct csv_field fields[] = {
	CSV_OWN("workload", put_workload, "the workload"),
	CSV_OWN("size", put_point, "bytes per write or round trip (-S for stream and "
		"pingpong; the workload's own for the others)"),
	CSV_OWN("writers", put_point, "writer processes"),
	CSV_OWN("readers", put_point, "reader processes"),
	CSV_OWN("reps", put_runs, "repetitions of the point"),
	CSV_OWN("mbps_median", put_mbps, "MB/s (10^6 bytes) through the pipe: the median "
		"of the repetitions"),
	CSV_OWN("mbps_min", put_mbps, "... the slowest repetition"),
	CSV_OWN("mbps_max", put_mbps, "... the fastest"),
	CSV_COL(PT_COL_WRITES), CSV_COL(PT_COL_WRITE_BYTES),
	CSV_COL(PT_COL_READS), CSV_COL(PT_COL_READ_BYTES),
	CSV_COL(PT_COL_POOL_HIT_PCT), CSV_COL(PT_COL_ALLOC_LOCKED),
	CSV_COL(PT_COL_COPY_SECTIONS), CSV_COL(PT_COL_EAGAIN_READ),
	CSV_COL(PT_COL_EAGAIN_WRITE),
	CSV_OWN("tier", put_tier, "the tier counting (empty: nothing attached)"),
	CSV_OWN("variant", put_variant, "uring: `empty` or `data`, else empty"),
	CSV_OWN("moved_bytes", put_runs, "bytes the workload itself moved"),
	CSV_OWN("ops", put_runs, "writes, round trips (pingpong) or reads (uring) the "
		"workload counted"),
	CSV_OWN("seconds", put_seconds, "the repetitions' summed run time"),
	CSV_OWN("us_per_op_median", put_us_per_op, "microseconds per op: the median"),
	CSV_OWN("us_per_op_min", put_us_per_op, "... the least"),
	CSV_OWN("us_per_op_max", put_us_per_op, "... the most"),
	CSV_OWN("alloc_locked_per_mb", put_alloc_per_mb, "alloc_locked per MB written"),
	CSV_COL(PT_COL_SECTIONS_PER_READ), CSV_COL(PT_COL_COPY_BUFFERS),
	CSV_COLS(PT_COL_KNOB_PREALLOC_MAX, PT_COL_KNOB_READ_BATCH),
	CSV_OWN("ab_knob", put_ab, "--ab: the knob (empty without --ab, as the four after it)"),
	CSV_OWN("ab_value", put_ab, "--ab: its value on this row"),
	CSV_OWN("ab_side", put_ab, "--ab: `baseline` or `patched`"),
	CSV_OWN("delta_pct", put_ab, "--ab: the patched side's MB/s change, %"),
	CSV_OWN("noise_pct", put_ab, "--ab: half the larger min..max spread of the two sides, %"),
	CSV_OWN("derived", put_derived, "the row's derived metrics, `;`-separated"),
	CSV_OWN("placement", put_placement, "where the two ends ran"),
	CSV_OWN("spread_pct", put_spread, "(max - min) / median of the MB/s figures, %"),
	CSV_OWN("attached", put_attached, "`no` on --baseline's rows (counters and tier "
		"empty), else `yes`"),
	CSV_OWN("pipe_size", put_bursty, "bursty: the pipe's size, bytes (F_GETPIPE_SZ)"),
	CSV_OWN("writer_wait_pct", put_bursty, "bursty: the writer's median share of the "
		"time in write(2), %"),
	CSV_REST,
};

const struct csv_layout pb_csv_layout = {
	fields, sizeof(fields) / sizeof(fields[0]), pb_out_cols, row_metric,
};

static void point_side(FILE *f, const struct pb_opts *o, const struct pb_point *p,
		       const struct pb_side *s, int side, double delta, double noise)
{
	struct pb_row w = { o, p, s, side, delta, noise,
			    pb_stats_of(s->mbps, s->n), pb_stats_of(s->usop, s->n) };
	struct rec r;

	rec_begin(&r, f, o->json ? REC_JSON : REC_CSV);
	csv_row(&r, &pb_csv_layout, &w);
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
