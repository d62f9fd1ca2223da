// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <string.h>
#include "output/columns.h"
#include "opt_doc.h"
#include "output/report.h"

/* s with its hyphens as roff's minus (\-), as options are typed */
static void roff_dashes(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
}

/*
 * A value's name in roff: its words in italics, "=" and ":" bold (typed
 * as they are), the brackets and commas of a list roman.
 */
static void roff_arg(FILE *out, const char *arg)
{
	char font = 'R';

	for (; *arg; arg++) {
		char want = isupper((unsigned char)*arg) ? 'I' : strchr("[],", *arg) ? 'R' : 'B';

		if (want != font)
			fprintf(out, "\\f%c", want);
		fputc(*arg, out);
		font = want;
	}
	if (font != 'R')
		fputs("\\fR", out);
}

static void man_names(FILE *out, const struct opt *o)
{
	bool both = o->flag && o->name;

	fputs(both || o->arg ? ".BR " : ".B ", out);
	if (o->flag)
		fprintf(out, "\\-%c", o->flag);
	if (both)
		fputs(" \", \" ", out);
	if (o->name) {
		fputs("\\-\\-", out);
		roff_dashes(out, o->name);
	}
	if (o->arg) {
		fputs(" \" \" ", out);
		roff_arg(out, o->arg);
	}
	fputc('\n', out);
}

void opt_doc_man(FILE *out, const struct opt_tool *t)
{
	for (const struct opt *o = t->opts; o->flag || o->name; o++)
		if (o->help) {
			fputs(".TP\n", out);
			man_names(out, o);
			fprintf(out, "%s\n", o->man);
		}
}

/* the names of o as a case pattern: -x|--name */
static void case_names(FILE *out, const struct opt *o)
{
	if (o->flag)
		fprintf(out, "-%c%s", o->flag, o->name ? "|" : "");
	if (o->name)
		fprintf(out, "--%s", o->name);
}

/* bash that offers what o's value can be */
static const char *offer(const char *values)
{
	static const struct { const char *what, *bash; } special[] = {
		{ OPT_FILES, "COMPREPLY=($(compgen -f -- \"$cur\"))" },
		{ OPT_DIRS, "COMPREPLY=($(compgen -d -- \"$cur\"))" },
		{ OPT_PIDS, "COMPREPLY=($(compgen -W \"$(ps -eo pid= 2>/dev/null)\" -- \"$cur\"))" },
		{ OPT_COMMS, "COMPREPLY=($(compgen -W \"$(ps -eo comm= 2>/dev/null | sort -u)\" "
			     "-- \"$cur\"))" },
		/* the pipes and FIFOs open in the tasks this user can see, as
		 * DEV:INO= (the size to type after) */
		{ OPT_FIFOS, "compopt -o nospace 2>/dev/null\n"
			     "\t\tCOMPREPLY=($(compgen -W \"$(stat -L -c '%F %Hd:%Ld:%i=' "
			     "/proc/[0-9]*/task/*/fd/* 2>/dev/null |\n"
			     "\t\t\tsed -n 's/^fifo //p' | sort -u)\" -- \"$cur\"))" },
	};

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(values, special[i].what))
			return special[i].bash;
	return NULL;
}

static void column_words(FILE *out)
{
	const char *sep = "";

	for (int i = 0; i < PT_NCOLS; i++)
		if (column_name(i))
			fprintf(out, "%s%s", sep, column_name(i)), sep = " ";
}

static void column_list_words(FILE *out)
{
	fputs("default kernel all ", out);
	column_words(out);
}

static void hist_words(FILE *out)
{
	for (int h = 0; h < PT_NHIST; h++)
		fprintf(out, "%s ", hist_name(h));
	fputs("all", out);
}

/*
 * The bash that offers o's words from a table (OPT_COLUMN...): false if
 * its values are none of those. A list's words follow its last ',' (or
 * -o's leading '+').
 */
static bool offer_words(FILE *out, const char *values)
{
	static const struct {
		const char *what;
		void (*words)(FILE *out);
		bool list;
	} tables[] = {
		{ OPT_COLUMN, column_words, false },
		{ OPT_COLUMN_LIST, column_list_words, true },
		{ OPT_HISTS, hist_words, true },
	};

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (strcmp(values, tables[i].what))
			continue;
		if (tables[i].list)
			fputs(" local last=${cur##*[,+]}\n\t\tCOMPREPLY=($(compgen "
			      "-P \"${cur%\"$last\"}\" -W '", out);
		else
			fputs(" COMPREPLY=($(compgen -W '", out);
		tables[i].words(out);
		fprintf(out, "' -- \"%s\")); return ;;\n", tables[i].list ? "$last" : "$cur");
		return true;
	}
	return false;
}

void opt_doc_completion(FILE *out, const struct opt_tool *t)
{
	const struct opt *o;
	const char *sep = "";
	char fn[64];

	snprintf(fn, sizeof(fn), "_%s", t->prog);
	for (char *c = fn; *c; c++)
		if (*c == '-')
			*c = '_';
	fprintf(out, "%s()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
		"prev=${COMP_WORDS[COMP_CWORD-1]}\n\n\tcase $prev in\n", fn);
	for (o = t->opts; o->flag || o->name; o++) {
		const char *bash;

		if (!o->help || !o->arg || !o->values)
			continue;
		fputc('\t', out);
		case_names(out, o);
		fputc(')', out);
		if ((bash = offer(o->values)))
			fprintf(out, " %s; return ;;\n", bash);
		else if (!offer_words(out, o->values))
			/* a word ending in '=' wants its value typed after */
			fprintf(out, "%s COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n",
				strstr(o->values, "= ") || o->values[strlen(o->values) - 1] == '=' ?
				" compopt -o nospace 2>/dev/null;" : "", o->values);
	}
	/* a value with nothing to offer: no option names either */
	fputc('\t', out);
	for (o = t->opts; o->flag || o->name; o++)
		if (o->help && o->arg && !o->values) {
			fputs(sep, out);
			case_names(out, o);
			sep = "|";
		}
	fputs(") return ;;\n\tesac\n\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '", out);
	sep = "";
	for (o = t->opts; o->flag || o->name; o++)
		if (o->help) {
			if (o->flag)
				fprintf(out, "%s-%c", sep, o->flag), sep = " ";
			if (o->name)
				fprintf(out, "%s--%s", sep, o->name), sep = " ";
		}
	fputs("' -- \"$cur\"))\n", out);
	if (t->operands) {
		fputs("\telse\n\t\tCOMPREPLY=($(compgen -W '", out);
		for (const char *const *w = t->operands; *w; w++)
			fprintf(out, "%s%s", w == t->operands ? "" : " ", *w);
		fputs("' -- \"$cur\"))\n", out);
	}
	fprintf(out, "\tfi\n}\ncomplete -F %s %s\n", fn, t->prog);
}

void opt_doc_list(FILE *out, const struct opt_tool *t)
{
	for (const struct opt *o = t->opts; o->flag || o->name; o++)
		if (o->help && o->flag)
			fprintf(out, "--%s -%c\n", o->name ? o->name : "", o->flag);
		else if (o->help)
			fprintf(out, "--%s -\n", o->name);
}
