/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer input as a command line: NUL-separated words after argv[0].
 * Each fuzz_opts_*.c target feeds it to one front end's option parser.
 */
#ifndef FUZZ_ARGV_H
#define FUZZ_ARGV_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ARGS 64

struct fuzz_argv {
	char *buf;
	char *argv[FUZZ_MAX_ARGS + 2];
	int argc;
};

static inline void fuzz_argv(struct fuzz_argv *a, const uint8_t *data, size_t size,
			     const char *prog)
{
	size_t start = 0;

	a->buf = malloc(size + 1);
	memcpy(a->buf, data, size);
	a->buf[size] = '\0';
	a->argc = 0;
	a->argv[a->argc++] = (char *)prog;
	for (size_t i = 0; i <= size && a->argc <= FUZZ_MAX_ARGS; i++) {
		if (i == size || !a->buf[i]) {
			a->argv[a->argc++] = a->buf + start;
			start = i + 1;
		}
	}
	a->argv[a->argc] = NULL;
}

/*
 * An error message says something and fits its buffer (it may quote an
 * argument's bytes: cli_exit_code() escapes them when printing).
 */
static inline void fuzz_check_err(const char *err, size_t n)
{
	if (!*err || strnlen(err, n) == n)
		abort();
}

static inline FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

/*
 * The whole target for one parser: any command line parses to a run, an
 * exit, or a usage error with a message; a run satisfies ok (about o).
 */
#define FUZZ_OPTS_TARGET(prog, type, parse, ok)				\
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)		\
{									\
	struct fuzz_argv a;						\
	type o;								\
	char err[256] = "";						\
	int rc;								\
									\
	fuzz_argv(&a, data, size, prog);				\
	rc = parse(a.argc, a.argv, &o, fuzz_devnull(), err, sizeof(err)); \
	if (rc == CLI_USAGE)						\
		fuzz_check_err(err, sizeof(err));			\
	else if (rc == CLI_RUN && !(ok))				\
		abort();						\
	free(a.buf);							\
	return 0;							\
}

#endif
