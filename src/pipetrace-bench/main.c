// SPDX-License-Identifier: GPL-2.0
/*
 * pipetrace-bench: each reference workload runs in a child process named
 * pbench-<pid> (so two pipetrace-bench runs do not count each other); the loader (the same one pipestat uses) counts only that
 * command, and its counters are drained around every repetition, so each
 * point's metrics are exactly what its repetitions did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "cli/cli.h"
#include "output/fmt.h"
#include "session/privs.h"
#include "pipetrace-bench.h"
#include "session/session.h"

static const long default_sizes[] = { 4096, 32768, 65536, 131072 };
static const long default_writers[] = { 1, 2, 5 };
static const long default_readers[] = { 1, 5, 10 };
static const long default_pipe_sizes[] = { 0, 1 << 20 };	/* before/after */

/* what a repetition's child reports back */
struct pb_result {
	struct wl_result r;
	double write_s;		/* bursty: the writer's time in write(2) */
	long ring;		/* bursty: the pipe's size */
};

static int run_bursty(const struct pb_opts *o, const struct pb_point *p,
		      struct pb_result *res)
{
	struct wl_bursty b = {
		.size = p->size, .burst = PB_BURST, .gap_us = PB_BURST_GAP_US,
		.work_us = PB_BURST_WORK_US, .seconds = o->ops ? 1 : o->duration,
		.ring = p->pipe_size,
	};

	if (wl_bursty(&b))
		return -1;
	res->r.bytes = b.bytes;
	res->r.ops = b.bytes / b.size;
	res->r.seconds = b.loop_s;
	res->write_s = b.write_s;
	res->ring = b.ring;
	return 0;
}

/* Runs in the workload child. */
static int run_workload(const struct pb_opts *o, const struct pb_point *p,
			struct pb_result *pr)
{
	struct wl_result *res = &pr->r;
	struct wl_timed t = {
		.size = p->size,
		.seconds = o->ops ? 0 : o->duration,
		.max_ops = o->ops,
		.cpu_a = pb_cpu_at(o, 0),
		.cpu_b = pb_cpu_at(o, 1),
	};

	switch (p->wl) {
	case PB_STREAM:
		return wl_stream_timed(&t, res);
	case PB_PINGPONG:
		return wl_pingpong_timed(&t, res);
	case PB_MIX:
		return wl_mix(&t, p->writers, p->readers, PB_MIX_PIPE,
			      o->cpus, o->ncpus, res);
	case PB_BW:
		t.cpu_a = t.cpu_b = -1;	/* as lmbench: wherever the scheduler likes */
		return wl_stream_timed(&t, res);
	case PB_URING:
		return wl_uring(PB_URING_PIPES, PB_URING_ROUNDS, p->size,
				!strcmp(p->variant, "data"), res);
	case PB_BURSTY:
		return run_bursty(o, p, pr);
	default:
		errno = EINVAL;
		return -1;
	}
}

/* One repetition in its own process group; 0, or -1 with errno. */
static int run_rep(const struct pb_opts *o, const struct pb_point *p,
		   struct pb_result *res)
{
	struct pb_result *shared;
	int st, err = 0;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -1;
	memset(shared, 0, sizeof(*shared));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		munmap(shared, sizeof(*shared));
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* and if pipetrace-bench is killed outright, so is the workload */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(126);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		prctl(PR_SET_NAME, o->load.comm);
		if (run_workload(o, p, shared))
			_exit(errno > 0 && errno < 126 ? errno : 126);
		_exit(0);
	}
	setpgid(pid, pid);
	pb_knob_set_child(pid);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = -1;
			break;
		}
	pb_knob_set_child(0);
	if (st == -1 || !WIFEXITED(st))
		err = EINTR;
	else if (WEXITSTATUS(st))
		err = WEXITSTATUS(st);
	*res = *shared;
	munmap(shared, sizeof(*shared));
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

struct bench {
	const struct pb_opts *o;
	struct pt_session s;
	struct pt_rows rows[2], scratch;
	struct pb_side sides[2];
	bool attached;		/* the session is open */
	char err[320];
};

/* Opens or closes the session so that its programs are (not) attached. */
static int attach(struct bench *b, bool on)
{
	if (on == b->attached)
		return 0;
	if (!on) {
		pt_session_close(&b->s);
		b->attached = false;
		return 0;
	}
	if (pt_session_open(&b->s, &b->o->load, b->err, sizeof(b->err))) {
		fprintf(stderr, "pipetrace-bench: %s\n", b->err);
		return -1;
	}
	b->attached = true;
	return 0;
}

static int drain(struct bench *b, struct pt_rows *into, struct pt_env *env)
{
	struct pt_lost lost = {};

	if (pt_session_drain(&b->s, into, &lost)) {
		fprintf(stderr, "pipetrace-bench: reading counters: %s\n", strerror(errno));
		return -1;
	}
	if (env) {
		env->untracked += lost.untracked;
		env->skipped += lost.skipped;
	}
	return 0;
}

static const char *describe(const struct pb_point *p, char *buf, size_t n)
{
	if (p->wl == PB_MIX)
		snprintf(buf, n, "mix %dx%d", p->writers, p->readers);
	else if (p->wl == PB_URING)
		snprintf(buf, n, "uring %s", p->variant);
	else if (p->wl == PB_BURSTY)
		snprintf(buf, n, "bursty on a pipe of %ld bytes", p->pipe_size);
	else
		snprintf(buf, n, "%s %ld", pb_wl_names[p->wl], p->size);
	return buf;
}

static int run_point(struct bench *b, const struct pb_point *p)
{
	const struct pb_opts *o = b->o;
	int nsides = o->ab.on || o->baseline ? 2 : 1;
	char what[48], lost[256];

	for (int s = 0; s < nsides; s++) {
		memset(&b->sides[s], 0, sizeof(b->sides[s]));
		b->sides[s].knob_value = o->ab.on ? o->ab.value[s] : -1;
		/* --baseline: side 0 runs with nothing attached */
		b->sides[s].unattached = o->baseline && s == 0;
		rows_clear(&b->rows[s]);
	}
	for (int rep = 0; rep < o->reps; rep++) {
		for (int i = 0; i < nsides; i++) {
			/* A B, B A, A B, ...: drift during the run hits both */
			int s = rep % 2 ? nsides - 1 - i : i;
			struct pb_side *side = &b->sides[s];
			struct pb_result res = { 0 };

			if (o->ab.on && pb_knob_set(side->knob_value)) {
				fprintf(stderr, "pipetrace-bench: setting fs.%s=%d: %s\n",
					o->ab.knob, side->knob_value, strerror(errno));
				return -1;
			}
			if (attach(b, !side->unattached))
				return -1;
			if (b->attached) {
				pt_session_env(&b->s, &side->env);
				rows_clear(&b->scratch);
				if (drain(b, &b->scratch, NULL))
					return -1;
			}
			if (run_rep(o, p, &res)) {
				fprintf(stderr, "pipetrace-bench: %s: workload failed: %s\n",
					describe(p, what, sizeof(what)), strerror(errno));
				return -1;
			}
			if (b->attached && drain(b, &b->rows[s], &side->env))
				return -1;
			side->mbps[side->n] = res.r.seconds > 0 ?
					      res.r.bytes / res.r.seconds / 1e6 : 0;
			side->usop[side->n] = res.r.ops ? res.r.seconds * 1e6 / res.r.ops : 0;
			side->wait_pct[side->n] = res.r.seconds > 0 ?
						  res.write_s / res.r.seconds * 100 : 0;
			side->ring = res.ring;
			side->n++;
			side->bytes += res.r.bytes;
			side->ops += res.r.ops;
			side->seconds += res.r.seconds;
		}
	}
	for (int s = 0; s < nsides; s++) {
		for (size_t i = 0; i < b->rows[s].n; i++)
			counts_add(&b->sides[s].c, &b->rows[s].v[i].c);
		if (*fmt_lost(lost, sizeof(lost), &b->sides[s].env))
			fprintf(stderr, "pipetrace-bench: %s: %s\n",
				describe(p, what, sizeof(what)), lost);
	}
	pb_out_point(stdout, o, p, b->sides, nsides);
	if (fflush(stdout) || ferror(stdout))
		return -1;
	return 0;
}

static int run_all(struct bench *b)
{
	const struct pb_opts *o = b->o;
	const long *sizes = o->nsizes ? o->sizes : default_sizes;
	int nsizes = o->nsizes ? o->nsizes :
		     (int)(sizeof(default_sizes) / sizeof(default_sizes[0]));
	const long *ws = o->nwriters ? o->writers : default_writers;
	const long *rs = o->nreaders ? o->readers : default_readers;
	int nw = o->nwriters ? o->nwriters : 3, nr = o->nreaders ? o->nreaders : 3;
	static const long one_byte = 1;
	struct pb_point p;

	for (int wl = 0; wl < PB_NWL; wl++) {
		if (!o->wl[wl])
			continue;
		memset(&p, 0, sizeof(p));
		p.wl = wl;
		p.writers = p.readers = 1;
		p.variant = "";
		switch (wl) {
		case PB_STREAM:
		case PB_PINGPONG: {
			const long *sz = wl == PB_PINGPONG && !o->nsizes ? &one_byte : sizes;
			int n = wl == PB_PINGPONG && !o->nsizes ? 1 : nsizes;

			for (int i = 0; i < n; i++) {
				p.size = sz[i];
				if (run_point(b, &p))
					return -1;
			}
			break;
		}
		case PB_MIX:
			p.size = PB_CHUNK;
			for (int i = 0; i < nw; i++)
				for (int j = 0; j < nr; j++) {
					p.writers = ws[i];
					p.readers = rs[j];
					if (run_point(b, &p))
						return -1;
				}
			break;
		case PB_URING:
			p.size = PB_URING_SIZE;
			p.variant = "empty";
			if (run_point(b, &p))
				return -1;
			p.variant = "data";
			if (run_point(b, &p))
				return -1;
			break;
		case PB_BW:
			p.size = PB_CHUNK;
			if (run_point(b, &p))
				return -1;
			break;
		case PB_BURSTY: {
			const long *ps = o->npipe_sizes ? o->pipe_sizes : default_pipe_sizes;
			int n = o->npipe_sizes ? o->npipe_sizes : 2;

			p.size = PB_CHUNK;
			for (int i = 0; i < n; i++) {
				p.pipe_size = ps[i];
				if (run_point(b, &p))
					return -1;
			}
			break;
		}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench b;	/* big: rep arrays */
	char *err = b.err;
	size_t errn = sizeof(b.err);
	struct pb_opts o;
	int rc;

	rc = pb_parse(argc, argv, &o, stdout, err, errn);
	if (rc != CLI_RUN)
		return cli_exit_code(rc, "pipetrace-bench", err);
	if (!cli_std_fds("pipetrace-bench", true))
		return 1;
	b.o = &o;
	if (!privs_can_trace("pipetrace-bench"))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	pb_signals_init();
	pb_knob_recover();
	if (o.ab.on && pb_knob_begin(o.ab.knob, err, errn)) {
		fprintf(stderr, "pipetrace-bench: refusing --ab: %s\n", err);
		return 1;
	}
	if (pt_session_open(&b.s, &o.load, err, errn)) {
		fprintf(stderr, "pipetrace-bench: %s\n", err);
		return 1;
	}
	b.attached = true;
	fprintf(stderr, "pipetrace-bench: %s tier; counting command '%s'\n",
		tier_name(b.s.tier), o.load.comm);
	for (int s = 0; s < 2; s++)
		rows_init(&b.rows[s], PT_BY_TOTAL);
	rows_init(&b.scratch, PT_BY_TOTAL);
	pb_out_begin(stdout, &o, b.s.tier);
	rc = run_all(&b) ? 1 : 0;
	if (!rc)
		pb_out_end(stdout, &o);
	pb_knob_restore();
	attach(&b, false);
	for (int s = 0; s < 2; s++)
		rows_free(&b.rows[s]);
	rows_free(&b.scratch);
	return rc;
}
