// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include "fmt.h"
#include "os/proc_args.h"
#include "record.h"

void rec_begin(struct rec *r, FILE *f, enum rec_fmt fmt)
{
	r->f = f;
	r->fmt = fmt;
	r->n = 0;
	if (fmt == REC_JSON)
		fputc('{', f);
}

void rec_end(struct rec *r)
{
	fputs(r->fmt == REC_JSON ? "}\n" : "\n", r->f);
}

/* the separator and, in JSON, the key */
static void field(struct rec *r, const char *name)
{
	if (r->n++)
		fputc(',', r->f);
	if (r->fmt == REC_JSON) {
		json_string(r->f, name, strlen(name));
		fputc(':', r->f);
	}
}

void json_string(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	fmt_escaped(f, s, len, "\\u%04x");
	fputc('"', f);
}

void rec_null(struct rec *r, const char *name)
{
	field(r, name);
	if (r->fmt == REC_JSON)
		fputs("null", r->f);
}

void rec_strn(struct rec *r, const char *name, const char *s, size_t len)
{
	char raw[256], csv[4 * sizeof(raw) + 3];

	if (!s) {
		rec_null(r, name);
		return;
	}
	field(r, name);
	if (r->fmt == REC_JSON) {
		json_string(r->f, s, len);
		return;
	}
	snprintf(raw, sizeof(raw), "%.*s", (int)(len < sizeof(raw) ? len : sizeof(raw) - 1), s);
	fmt_csv_field(csv, sizeof(csv), raw);
	fputs(csv, r->f);
}

void rec_str(struct rec *r, const char *name, const char *s)
{
	rec_strn(r, name, s, s ? strlen(s) : 0);
}

void rec_u64(struct rec *r, const char *name, unsigned long long u)
{
	field(r, name);
	fprintf(r->f, "%llu", u);
}

void rec_i64(struct rec *r, const char *name, long long i)
{
	field(r, name);
	fprintf(r->f, "%lld", i);
}

void rec_fixed(struct rec *r, const char *name, double d, int prec)
{
	if (!isfinite(d)) {
		rec_null(r, name);
		return;
	}
	field(r, name);
	fprintf(r->f, "%.*f", prec, d);
}

void rec_value(struct rec *r, const char *name, const struct pt_value *v)
{
	char buf[48];

	if (v->q == PT_NA) {
		rec_null(r, name);
		return;
	}
	field(r, name);
	fmt_csv_value(buf, sizeof(buf), v);
	fputs(buf, r->f);
}

void rec_derived(struct rec *r, const char *name, const struct pt_counts *c,
		 const struct pt_env *env)
{
	bool json = r->fmt == REC_JSON;
	const char *sep = "";

	field(r, name);
	if (json)
		fputc('[', r->f);
	for (int i = 0; i < PT_NCOLS; i++) {
		if (!pt_metrics[i].csv || pt_get(i, c, env).q != PT_DERIVED)
			continue;
		fputs(sep, r->f);
		if (json)
			json_string(r->f, pt_metrics[i].csv, strlen(pt_metrics[i].csv));
		else
			fputs(pt_metrics[i].csv, r->f);
		sep = json ? "," : ";";
	}
	if (json)
		fputc(']', r->f);
}

/* A CSV list entry: comm[pid], the comm's ',[]' as \xHH too; quote: '"' doubled */
static void csv_proc(FILE *f, const struct pt_key *k, bool quote)
{
	char esc[4 * PT_COMM_LEN + 1];

	fmt_csv_escape(esc, sizeof(esc), k->comm, PT_COMM_LEN, ",[]");
	for (const char *c = esc; *c; c++) {
		if (*c == '"' && quote)
			fputc('"', f);
		fputc(*c, f);
	}
	fprintf(f, "[%u]", k->tgid);
}

void rec_procs(struct rec *r, const char *name, const struct pt_row *const *v,
	       size_t n, size_t total, const struct proc_args *args)
{
	bool quote = n > 1 || total > n;

	field(r, name);
	if (r->fmt == REC_JSON) {
		fputc('[', r->f);
		for (size_t i = 0; i < n; i++) {
			fprintf(r->f, "%s{\"pid\":%u,\"comm\":", i ? "," : "",
				v[i]->key.tgid);
			json_string(r->f, v[i]->key.comm, PT_COMM_LEN);
			if (args) {
				const char *a = args_of(args, v[i]->key.tgid, v[i]->key.comm);

				fputs(",\"args\":", r->f);
				if (a)
					json_string(r->f, a, strlen(a));
				else
					fputs("null", r->f);
			}
			fputc('}', r->f);
		}
		fputc(']', r->f);
		return;
	}
	for (size_t i = 0; i < n; i++)
		quote = quote || memchr(v[i]->key.comm, '"', PT_COMM_LEN);
	if (quote)
		fputc('"', r->f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', r->f);
		csv_proc(r->f, &v[i]->key, quote);
	}
	if (total > n)
		fprintf(r->f, ",+%zu", total - n);
	if (quote)
		fputc('"', r->f);
}

void rec_hist(struct rec *r, const char *name, const __u64 *slot, int nslots)
{
	const char *sep = "";

	field(r, name);
	fputc('{', r->f);
	for (int s = 0; slot && s < nslots; s++) {
		if (!slot[s])
			continue;
		fprintf(r->f, "%s\"%llu\":%llu", sep, s ? 1ULL << s : 0ULL,
			(unsigned long long)slot[s]);
		sep = ",";
	}
	fputc('}', r->f);
}
