/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A front end's options as one table. Each entry carries what --help, the
 * man page's OPTIONS section and bash completion say of one option, and
 * what it does; the parser and --help (opt_table.c) and, at build time,
 * the man section and the completion (opt_doc.c, run by docgen) are all
 * made from it. Adding an option is adding one entry.
 */
#ifndef OPT_TABLE_H
#define OPT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* bash completion of an option's value beyond a list of words */
#define OPT_FILES	"@files"
#define OPT_DIRS	"@dirs"
#define OPT_PIDS	"@pids"
#define OPT_COMMS	"@comms"
#define OPT_FIFOS	"@fifos"	/* the pipes open in visible tasks, DEV:INO= */
/* words from the tables the parsers read (opt_doc.c) */
#define OPT_COLUMN	"@column"	/* a column -o names (columns.c) */
#define OPT_COLUMN_LIST	"@columns"	/* -o's list: columns and sets, '+' first */
#define OPT_HISTS	"@hists"	/* --hist's list (out_hist.c) */

enum opt_act { OPT_SET, OPT_HELP, OPT_VERSION };

/* What a front end's option parser returns. */
enum { CLI_RUN, CLI_EXIT_OK, CLI_USAGE };

struct opt {
	char flag;		/* -x; 0: the long form only */
	const char *name;	/* --name; NULL: the short form only */
	const char *arg;	/* its value's name, "SEC"; NULL: takes none */
	/* --help's lines after the names, '\n' between; NULL: an entry no
	 * document shows (a refused letter) */
	const char *help;
	const char *man;	/* the man page's roff after the option's .TP line */
	/* bash completion of the value: words, or one of OPT_FILES...;
	 * NULL: nothing to offer */
	const char *values;
	/* what it does: set(the opts struct + at, its value); NULL: the
	 * bool at that offset becomes true */
	bool (*set)(void *field, const char *arg, char *err, size_t n);
	size_t at;
	const char *refuse;	/* a letter kept from another meaning: this error */
	enum opt_act act;
};

/* A front end: its table ({} ends it) and the --help text around it. */
struct opt_tool {
	const char *prog;
	const struct opt *opts;
	const char *head;	/* usage lines and what the tool does */
	const char *foot;	/* after the options */
	void (*more)(FILE *out);	/* after foot (pipetop's keys); NULL: none */
	bool tiers;		/* then the tiers (pt_print_tiers) */
	const char *tail;	/* then this; NULL: nothing */
	const char *const *operands;	/* completion words for operands; NULL-ended */
};

/* the most entries a table may have: seen is a bit per entry */
#define OPT_MAX	64

/*
 * Runs the options of argv through the table into opts, and sets in *seen
 * bit i for each entry i given. CLI_RUN with optind at the first operand;
 * CLI_EXIT_OK after --help or --version (printed to out); CLI_USAGE with a
 * one-line reason in err.
 */
int opt_parse(const struct opt_tool *t, int argc, char **argv, void *opts,
	      unsigned long long *seen, FILE *out, char *err, size_t n);
/* the bit of the entry --name in opt_parse's seen (0: none) */
unsigned long long opt_bit(const struct opt_tool *t, const char *name);
/* --help */
void opt_help(FILE *out, const struct opt_tool *t);

#endif
