// SPDX-License-Identifier: GPL-2.0
/*
 * docgen: the documents made from the front ends' option tables at build
 * time (make all): the man pages' OPTIONS entries and the bash completion.
 *
 *   docgen man TOOL PAGE   PAGE with the lines between its ".\" BEGIN
 *                          OPTIONS" and ".\" END OPTIONS" lines made anew
 *   docgen completion      the bash completion of every front end
 *   docgen options TOOL    "--name -x" per option, for tests/host/test_docs.sh
 */
#include <stdio.h>
#include <string.h>
#include "cli/opt_doc.h"
#include "pipestat/opts.h"
#include "pipetop/opts.h"
#include "pipetrace-bench/pipetrace-bench.h"

#define BEGIN_MARK	".\\\" BEGIN OPTIONS"
#define END_MARK	".\\\" END OPTIONS"

static const struct opt_tool *const tools[] = { &pipestat_tool, &pipetop_tool, &pb_tool };
#define NTOOLS	(sizeof(tools) / sizeof(tools[0]))

static const struct opt_tool *tool(const char *prog)
{
	for (size_t i = 0; i < NTOOLS; i++)
		if (!strcmp(tools[i]->prog, prog))
			return tools[i];
	fprintf(stderr, "docgen: no front end '%s'\n", prog);
	return NULL;
}

/* the page, its marked lines made from the table: 0, or 1 after a message */
static int man(const struct opt_tool *t, const char *page)
{
	FILE *in = fopen(page, "r");
	char line[4096];
	int state = 0;	/* 0 before the marks, 1 between, 2 after */

	if (!in) {
		perror(page);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (state == 1 && !strncmp(line, END_MARK, strlen(END_MARK)))
			state = 2;
		if (state != 1)
			fputs(line, stdout);
		if (state == 0 && !strncmp(line, BEGIN_MARK, strlen(BEGIN_MARK))) {
			opt_doc_man(stdout, t);
			state = 1;
		}
	}
	fclose(in);
	if (state == 2)
		return 0;
	fprintf(stderr, "docgen: %s: no '%s' line, then '%s'\n", page, BEGIN_MARK, END_MARK);
	return 1;
}

int main(int argc, char **argv)
{
	const struct opt_tool *t;

	if (argc == 2 && !strcmp(argv[1], "completion")) {
		puts("# bash completion for pipestat, pipetop and pipetrace-bench, made by\n"
		     "# make (src/docgen) from their option tables (src/*/opts.c): edit those.");
		for (size_t i = 0; i < NTOOLS; i++) {
			putchar('\n');
			opt_doc_completion(stdout, tools[i]);
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "man"))
		return (t = tool(argv[2])) ? man(t, argv[3]) : 1;
	if (argc == 3 && !strcmp(argv[1], "options")) {
		if (!(t = tool(argv[2])))
			return 1;
		opt_doc_list(stdout, t);
		return 0;
	}
	fputs("usage: docgen man TOOL PAGE | completion | options TOOL\n", stderr);
	return 2;
}
