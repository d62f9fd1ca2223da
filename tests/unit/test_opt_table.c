// SPDX-License-Identifier: GPL-2.0
/* The option table (cli/opt_table.h): parsing, --help, and the man
 * entries and completion made from it, on a table of its own. */
#include <getopt.h>
#include <stdlib.h>
#include "cli/cli.h"
#include "cli/opt_doc.h"
#include "unit.h"

struct toy {
	bool quiet;
	long count;
	const char *addr;
	bool wide;
};

static bool set_count(void *count, const char *arg, char *err, size_t n)
{
	if ((*(long *)count = cli_long(arg, 1, 9)) > 0)
		return true;
	snprintf(err, n, "invalid count '%s': 1 to 9", arg);
	return false;
}

static bool set_addr(void *addr, const char *arg, char *err, size_t n)
{
	(void)err, (void)n;
	*(const char **)addr = arg;
	return true;
}

static const struct opt toy_opts[] = {
	{ .flag = 'q', .name = "quiet", .at = offsetof(struct toy, quiet),
	  .help = "say less", .man = "Say less." },
	{ .flag = 'c', .name = "count", .arg = "N", .set = set_count,
	  .at = offsetof(struct toy, count), .values = "1 2 3",
	  .help = "this many,\nat most 9", .man = "This many." },
	{ .name = "listen-address", .arg = "ADDR:PORT", .set = set_addr,
	  .at = offsetof(struct toy, addr), .help = "there", .man = "There." },
	{ .name = "list", .arg = "NAME[,NAME]", .set = set_addr,
	  .at = offsetof(struct toy, addr), .values = OPT_FILES, .help = "names",
	  .man = "Names." },
	{ .name = "wide", .at = offsetof(struct toy, wide), .values = "ignored", .help = "a flag",
	  .man = "A flag." },
	{ .flag = 'h', .name = "help", .help = "this text", .man = "Usage.", .act = OPT_HELP },
	{ .flag = 'V', .name = "version", .help = "the version", .man = "The version.",
	  .act = OPT_VERSION },
	{ .flag = 'x', .refuse = "-x is taken" },
	{}
};

static const char *const toy_words[] = { "red", "green", NULL };

static const struct opt_tool toy = {
	.prog = "toy", .opts = toy_opts, .head = "Usage: toy\n", .foot = "end\n",
	.operands = toy_words,
};

/* what f holds, from its start, into buf (NUL-ended) */
static const char *text_of(FILE *f, char *buf, size_t n)
{
	size_t got;

	rewind(f);
	got = fread(buf, 1, n - 1, f);
	buf[got] = '\0';
	fclose(f);
	return buf;
}

static int parse(const char *line, struct toy *o, unsigned long long *seen,
		 char *err, char *out_text)
{
	char buf[256], *argv[32];
	FILE *out = tmpfile();
	int argc = 0, rc;

	snprintf(buf, sizeof(buf), "toy %s", line);
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	memset(o, 0, sizeof(*o));
	err[0] = '\0';
	rc = opt_parse(&toy, argc, argv, o, seen, out, err, 256);
	text_of(out, out_text, 4096);
	return rc;
}

static void parsing(void)
{
	unsigned long long seen;
	char err[256], text[4096];
	struct toy o;

	CHECK(parse("-q --count 3 --wide", &o, &seen, err, text) == CLI_RUN);
	CHECK(o.quiet && o.count == 3 && o.wide && !o.addr);
	CHECK(seen == (opt_bit(&toy, "quiet") | opt_bit(&toy, "count") | opt_bit(&toy, "wide")));
	CHECK(opt_bit(&toy, "count") == 2 && !opt_bit(&toy, "nosuch"));
	CHECK(parse("-c3 rest", &o, &seen, err, text) == CLI_RUN && o.count == 3);
	CHECK(optind == 2);
	CHECK(parse("-c 10", &o, &seen, err, text) == CLI_USAGE);
	CHECK_STR(err, "invalid count '10': 1 to 9");
	CHECK(parse("--count", &o, &seen, err, text) == CLI_USAGE);
	CHECK_STR(err, "option '--count' needs a value");
	CHECK(parse("--nosuch", &o, &seen, err, text) == CLI_USAGE);
	CHECK_STR(err, "unknown option '--nosuch'");
	CHECK(parse("-x", &o, &seen, err, text) == CLI_USAGE);
	CHECK_STR(err, "-x is taken");
	CHECK(parse("-V", &o, &seen, err, text) == CLI_EXIT_OK);
	CHECK_STR(text, "toy " PIPETRACE_VERSION "\n");
}

static void help(void)
{
	unsigned long long seen;
	char err[256], text[4096];
	struct toy o;

	CHECK(parse("-q --help", &o, &seen, err, text) == CLI_EXIT_OK);
	/* the text in column 24, or two spaces after names too wide for it;
	 * a refused letter is not shown */
	CHECK_STR(text, "Usage: toy\n"
		  "  -q, --quiet          say less\n"
		  "  -c, --count N        this many,\n"
		  "                       at most 9\n"
		  "      --listen-address ADDR:PORT  there\n"
		  "      --list NAME[,NAME]  names\n"
		  "      --wide           a flag\n"
		  "  -h, --help           this text\n"
		  "  -V, --version        the version\n"
		  "end\n");
}

static void documents(void)
{
	char text[4096];
	FILE *f = tmpfile();

	opt_doc_man(f, &toy);
	CHECK_STR(text_of(f, text, sizeof(text)),
		  ".TP\n.BR \\-q \", \" \\-\\-quiet\nSay less.\n"
		  ".TP\n.BR \\-c \", \" \\-\\-count \" \" \\fIN\\fR\nThis many.\n"
		  ".TP\n.BR \\-\\-listen\\-address \" \" \\fIADDR\\fB:\\fIPORT\\fR\nThere.\n"
		  ".TP\n.BR \\-\\-list \" \" \\fINAME\\fR[,\\fINAME\\fR]\nNames.\n"
		  ".TP\n.B \\-\\-wide\nA flag.\n"
		  ".TP\n.BR \\-h \", \" \\-\\-help\nUsage.\n"
		  ".TP\n.BR \\-V \", \" \\-\\-version\nThe version.\n");
	f = tmpfile();
	opt_doc_list(f, &toy);
	CHECK_STR(text_of(f, text, sizeof(text)), "--quiet -q\n--count -c\n--listen-address -\n"
		  "--list -\n--wide -\n--help -h\n--version -V\n");
	f = tmpfile();
	opt_doc_completion(f, &toy);
	text_of(f, text, sizeof(text));
	CHECK(strstr(text, "\n_toy()\n") || !strncmp(text, "_toy()\n", 7));
	CHECK(strstr(text, "\t-c|--count) COMPREPLY=($(compgen -W '1 2 3' -- \"$cur\")); return ;;\n"));
	CHECK(strstr(text, "\t--list) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"));
	CHECK(strstr(text, "\t--listen-address) return ;;\n"));
	CHECK(strstr(text, "compgen -W '-q --quiet -c --count --listen-address --list --wide "
			   "-h --help -V --version' -- \"$cur\""));
	CHECK(strstr(text, "compgen -W 'red green' -- \"$cur\""));
	CHECK(strstr(text, "\ncomplete -F _toy toy\n"));
	/* a value-less option's values are not offered: nothing follows it */
	CHECK(!strstr(text, "ignored"));
	CHECK(!strstr(text, "-x"));
}

int main(void)
{
	parsing();
	help();
	documents();
	return unit_summary("test_opt_table");
}
