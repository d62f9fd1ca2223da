// SPDX-License-Identifier: GPL-2.0
/*
 * The fs.pipe-* knobs for --ab: parse, set, and put the value back however
 * pipetrace-bench ends (normal exit, error exit, the signals of
 * cli_end_signals); and the signal path, which also ends the running
 * workload (its own process group, so a terminal's Ctrl-C does not reach
 * it directly).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "pipetrace-bench.h"

static const struct pb_knob_info knobs[] = {
	{ "pipe-prealloc-max", 0, 8 },
	{ "pipe-prealloc-keep", 0, 8 },
	{ "pipe-read-batch", 0, 1 },
};

const struct pb_knob_info *pb_knob_find(const char *name)
{
	if (!strncmp(name, "fs.", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(name, knobs[i].name))
			return &knobs[i];
	return NULL;
}

static int parse_int(const char *s, const char *end, int *v)
{
	char buf[16], *e;
	long l;

	if (end - s < 1 || end - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, end - s);
	buf[end - s] = '\0';
	errno = 0;
	l = strtol(buf, &e, 10);
	if (errno || *e || e == buf || l < INT_MIN || l > INT_MAX)
		return -1;
	*v = l;
	return 0;
}

int pb_ab_parse(const char *spec, struct pb_ab *ab, char *err, size_t n)
{
	const char *eq = strchr(spec, '='), *comma;
	const struct pb_knob_info *k;
	char name[64];

	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(name)) {
		snprintf(err, n, "invalid --ab '%s': want KNOB=A,B, e.g. "
			 "pipe-read-batch=0,1", spec);
		return -1;
	}
	memcpy(name, spec, eq - spec);
	name[eq - spec] = '\0';
	k = pb_knob_find(name);
	if (!k) {
		snprintf(err, n, "invalid --ab knob '%s': want pipe-prealloc-max, "
			 "pipe-prealloc-keep or pipe-read-batch", name);
		return -1;
	}
	comma = strchr(eq + 1, ',');
	if (!comma || parse_int(eq + 1, comma, &ab->value[0]) ||
	    parse_int(comma + 1, comma + strlen(comma), &ab->value[1])) {
		snprintf(err, n, "invalid --ab values '%s': want two numbers A,B",
			 eq + 1);
		return -1;
	}
	for (int i = 0; i < 2; i++)
		if (ab->value[i] < k->min || ab->value[i] > k->max) {
			snprintf(err, n, "invalid --ab value %d for %s: want %d..%d",
				 ab->value[i], k->name, k->min, k->max);
			return -1;
		}
	ab->on = true;
	ab->knob = k->name;
	return 0;
}

/* Written from a signal handler too: only async-signal-safe calls. */
static char path[96];
static char state[128];		/* the saved value on disk, for a killed run */
static char saved[16];
static size_t saved_len;
static volatile sig_atomic_t armed;
static volatile pid_t child_pgid;

static int write_value(const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, buf, len);
	close(fd);
	return w == (ssize_t)len ? 0 : -1;
}

void pb_knob_restore(void)
{
	if (!armed)
		return;
	if (write_value(saved, saved_len)) {
		static const char msg[] = "pipetrace-bench: could not restore the knob\n";

		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			armed = 0;
	} else {
		unlink(state);
	}
	armed = 0;
}

/*
 * A SIGKILLed --ab run cannot put its knob back: it leaves the value to
 * restore in the state directory (PIPETRACE_BENCH_STATE_DIR, default
 * /run/pipetrace-bench), one file per knob: "PATH VALUE PID". Every pipetrace-bench
 * run puts back what a dead run left, or says what to set by hand.
 */
static const char *state_dir(void)
{
	const char *dir = getenv("PIPETRACE_BENCH_STATE_DIR");

	return dir && *dir ? dir : "/run/pipetrace-bench";
}

void pb_knob_recover(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		char file[128], kpath[96], line[160];
		int value, pid;
		FILE *f;

		snprintf(file, sizeof(file), "%s/%s", state_dir(), knobs[i].name);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "%95s %d %d", kpath, &value, &pid) != 3) {
			fclose(f);
			fprintf(stderr, "pipetrace-bench: %s: not a saved knob value; "
				"removed\n", file);
			unlink(file);
			continue;
		}
		fclose(f);
		if (pid > 0 && (!kill(pid, 0) || errno != ESRCH))
			continue;	/* its run is still going */
		snprintf(path, sizeof(path), "%s", kpath);
		saved_len = snprintf(saved, sizeof(saved), "%d\n", value);
		if (write_value(saved, saved_len)) {
			fprintf(stderr, "pipetrace-bench: a killed --ab run (pid %d) left "
				"fs.%s changed and it cannot be restored (%s): set it "
				"back to %d (sysctl fs.%s=%d)\n", pid, knobs[i].name,
				strerror(errno), value, knobs[i].name, value);
			continue;
		}
		unlink(file);
		fprintf(stderr, "pipetrace-bench: a killed --ab run (pid %d) left fs.%s "
			"changed: restored to %d\n", pid, knobs[i].name, value);
	}
}

/* Keeps the value to restore on disk; an error only costs that safety net. */
static void save_state(const char *knob, int v)
{
	char buf[160];
	int fd, len;

	mkdir(state_dir(), 0700);
	snprintf(state, sizeof(state), "%s/%s", state_dir(), knob);
	fd = open(state, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	len = snprintf(buf, sizeof(buf), "%s %d %d\n", path, v, (int)getpid());
	if (fd < 0 || write(fd, buf, len) != len)
		fprintf(stderr, "pipetrace-bench: warning: cannot keep the value to "
			"restore in %s: %s\n", state, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void on_signal(int sig)
{
	pid_t pg = child_pgid;

	if (pg > 0)
		kill(-pg, SIGKILL);
	pb_knob_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

void pb_knob_set_child(pid_t pgid)
{
	child_pgid = pgid;
}

int pb_knob_set(int value)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d\n", value);

	return write_value(buf, len);
}

void pb_signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t ends;

	cli_end_signals(&ends);
	sigfillset(&sa.sa_mask);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&ends, s))
			sigaction(s, &sa, NULL);
}

int pb_knob_begin(const char *knob, char *err, size_t n)
{
	FILE *f;
	int v;
	/* tests point this at a scratch directory on kernels without knobs */
	const char *dir = getenv("PIPETRACE_BENCH_KNOB_DIR");

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/proc/sys/fs",
		 knob);
	if (access(path, F_OK)) {
		snprintf(err, n, "this kernel has no fs.%s knob (%s): --ab needs "
			 "a kernel with the pipe patches of kernel-patch/", knob, path);
		return -1;
	}
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, n, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	if (fscanf(f, "%d", &v) != 1) {
		snprintf(err, n, "cannot read %s: %s", path,
			 errno ? strerror(errno) : "not a number");
		fclose(f);
		return -1;
	}
	fclose(f);
	if (access(path, W_OK)) {
		snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	saved_len = snprintf(saved, sizeof(saved), "%d\n", v);
	save_state(knob, v);
	armed = 1;
	atexit(pb_knob_restore);
	/* the value it had is written back: check that it can be */
	if (write_value(saved, saved_len)) {
		armed = 0;
		snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
