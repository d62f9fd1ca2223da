// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "output/fmt.h"
#include "model/metrics.h"

double cli_seconds(const char *s, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > max)
		return -1;
	return v;
}

long cli_long(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	return v;
}

bool cli_add_pid(void *load, const char *arg, char *err, size_t n)
{
	struct pt_load_opts *o = load;
	long pid = cli_long(arg, 1, 1L << 22);

	if (pid < 0) {
		snprintf(err, n, "invalid pid '%s'", arg);
		return false;
	}
	if (o->npids == PT_MAX_PIDS) {
		snprintf(err, n, "too many -p: at most %d", PT_MAX_PIDS);
		return false;
	}
	o->pids[o->npids++] = pid;
	return true;
}

bool cli_set_comm(void *load, const char *arg, char *err, size_t n)
{
	struct pt_load_opts *o = load;

	if (o->comm[0]) {
		snprintf(err, n, "-n given twice: one command name per run");
		return false;
	}
	if (!*arg || strlen(arg) >= PT_COMM_LEN) {
		snprintf(err, n, "invalid comm '%s': 1 to %d characters", arg,
			 PT_COMM_LEN - 1);
		return false;
	}
	strcpy(o->comm, arg);
	return true;
}

bool cli_set_tier(void *load, const char *arg, char *err, size_t n)
{
	struct pt_load_opts *o = load;
	int t = tier_parse(arg);

	if (t < 0) {
		snprintf(err, n, "invalid tier '%s': want auto, tracepoint, "
			 "function or syscall", arg);
		return false;
	}
	o->tier = t;
	return true;
}

bool cli_set_max_keys(void *load, const char *arg, char *err, size_t n)
{
	struct pt_load_opts *o = load;
	long keys = cli_long(arg, 1, 1L << 22);

	if (keys < 0) {
		snprintf(err, n, "invalid --max-keys '%s': 1 to %ld", arg, 1L << 22);
		return false;
	}
	o->max_keys = keys;
	return true;
}

bool cli_whole(long *v, const char *arg, long min, long max, const char *why,
	       char *err, size_t n)
{
	if ((*v = cli_long(arg, min, max)) >= 0)
		return true;
	snprintf(err, n, why, arg);
	return false;
}

bool cli_set_seconds(double *v, const char *arg, double min, double max,
		     const char *why, char *err, size_t n)
{
	if ((*v = cli_seconds(arg, max)) >= min)
		return true;
	snprintf(err, n, why, arg, max);
	return false;
}

void cli_end_signals(sigset_t *ends)
{
	struct sigaction hup;

	sigemptyset(ends);
	sigaddset(ends, SIGINT);
	sigaddset(ends, SIGTERM);
	/* a hang-up ends the run too, unless it was started under nohup */
	if (sigaction(SIGHUP, NULL, &hup) || hup.sa_handler != SIG_IGN)
		sigaddset(ends, SIGHUP);
}

void cli_block_signals(sigset_t *set, const int *extra, size_t nextra)
{
	cli_end_signals(set);
	/* a shell starts background jobs with SIGINT ignored: reset */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	for (size_t i = 0; i < nextra; i++)
		sigaddset(set, extra[i]);
	sigprocmask(SIG_BLOCK, set, NULL);
	/* a closed output is seen as EPIPE on write, not as a signal */
	signal(SIGPIPE, SIG_IGN);
}

bool cli_std_fds(const char *prog, bool prints)
{
	bool out_closed = false;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free number: fd itself, as those below are taken */
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			break;
		out_closed |= fd == STDOUT_FILENO;
	}
	if (out_closed && prints) {
		fprintf(stderr, "%s: standard output is closed: nowhere to print "
			"(>/dev/null discards it)\n", prog);
		return false;
	}
	return true;
}

bool cli_pids_exist(const char *prog, const struct pt_load_opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (kill((pid_t)o->pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "%s: no such process: %u\n", prog, o->pids[i]);
			return false;
		}
	return true;
}

int cli_exit_code(int parsed, const char *prog, const char *err)
{
	char safe[512];

	if (parsed == CLI_EXIT_OK)
		return 0;
	/* err may quote an argument: no terminal control from it */
	fprintf(stderr, "%s: %s (see %s --help)\n", prog,
		fmt_printable(safe, sizeof(safe), err, sizeof(safe)), prog);
	return 2;
}
