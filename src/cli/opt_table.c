// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <string.h>
#include "model/metrics.h"
#include "opt_table.h"

/* getopt_long's value for entry i: past every char a short option can be */
#define LONG_VAL(i)	(256 + (i))
/* --help: the names' column, then the text's */
#define HELP_COL	23

static int count(const struct opt *o)
{
	int i = 0;

	while (o[i].flag || o[i].name)
		i++;
	return i;
}

static int entry_of(const struct opt *o, int nopts, int c)
{
	if (c >= LONG_VAL(0))
		return c - LONG_VAL(0);
	for (int i = 0; i < nopts; i++)
		if (o[i].flag == c)
			return i;
	return -1;
}

unsigned long long opt_bit(const struct opt_tool *t, const char *name)
{
	for (int i = 0, nopts = count(t->opts); i < nopts; i++)
		if (t->opts[i].name && !strcmp(t->opts[i].name, name))
			return 1ULL << i;
	return 0;
}

/* "  -x, --name ARG" or "      --name ARG": an entry's names in --help */
static int opt_names(char *buf, size_t n, const struct opt *o)
{
	char flag[5] = "    ";

	if (o->flag)
		snprintf(flag, sizeof(flag), "-%c%s", o->flag, o->name ? ", " : "");
	return snprintf(buf, n, "  %s%s%s%s%s", flag, o->name ? "--" : "",
			o->name ? o->name : "", o->arg ? " " : "", o->arg ? o->arg : "");
}

void opt_help(FILE *out, const struct opt_tool *t)
{
	fputs(t->head, out);
	for (const struct opt *o = t->opts; o->flag || o->name; o++) {
		char names[64];
		int len;

		if (!o->help)
			continue;
		len = opt_names(names, sizeof(names), o);
		/* names too wide for the column: two spaces, then the text */
		fprintf(out, "%-*s", len < HELP_COL - 1 ? HELP_COL : len + 2, names);
		for (const char *l = o->help;; l += len + 1) {
			len = strcspn(l, "\n");
			fprintf(out, "%.*s\n", len, l);
			if (!l[len])
				break;
			fprintf(out, "%*s", HELP_COL, "");
		}
	}
	fputs(t->foot, out);
	if (t->more)
		t->more(out);
	if (t->tiers)
		pt_print_tiers(out);
	if (t->tail)
		fputs(t->tail, out);
}

/* what entry o does with its value: CLI_RUN to go on */
static int act(const struct opt_tool *t, const struct opt *o, void *opts,
	       FILE *out, char *err, size_t n)
{
	switch (o->act) {
	case OPT_HELP:
		opt_help(out, t);
		return CLI_EXIT_OK;
	case OPT_VERSION:
		fprintf(out, "%s %s\n", t->prog, PIPETRACE_VERSION);
		return CLI_EXIT_OK;
	case OPT_SET:
		break;
	}
	if (o->refuse) {
		snprintf(err, n, "%s", o->refuse);
		return CLI_USAGE;
	}
	if (!o->set)
		*(bool *)((char *)opts + o->at) = true;
	else if (!o->set((char *)opts + o->at, optarg, err, n))
		return CLI_USAGE;
	return CLI_RUN;
}

int opt_parse(const struct opt_tool *t, int argc, char **argv, void *opts,
	      unsigned long long *seen, FILE *out, char *err, size_t n)
{
	const struct opt *o = t->opts;
	int nopts = count(o), nlongs = 0, c, i, rc;
	struct option longs[OPT_MAX + 1] = {};
	/* ':' first: a missing value is told from an unknown option */
	char shorts[2 * OPT_MAX + 2] = ":", *s = shorts + 1;

	if (nopts > OPT_MAX) {
		snprintf(err, n, "%s: %d options, the table holds %d", t->prog,
			 nopts, OPT_MAX);
		return CLI_USAGE;
	}
	for (i = 0; i < nopts; i++) {
		if (o[i].flag) {
			*s++ = o[i].flag;
			if (o[i].arg)
				*s++ = ':';
		}
		if (o[i].name)
			longs[nlongs++] = (struct option){ o[i].name,
				o[i].arg ? required_argument : no_argument, NULL, LONG_VAL(i) };
	}
	*s = '\0';
	*seen = 0;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == ':') {
			snprintf(err, n, "option '%s' needs a value", argv[optind - 1]);
			return CLI_USAGE;
		}
		if ((i = entry_of(o, nopts, c)) < 0) {
			snprintf(err, n, "unknown option '%s'", argv[optind - 1]);
			return CLI_USAGE;
		}
		*seen |= 1ULL << i;
		if ((rc = act(t, &o[i], opts, out, err, n)) != CLI_RUN)
			return rc;
	}
	return CLI_RUN;
}
