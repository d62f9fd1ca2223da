// SPDX-License-Identifier: GPL-2.0
/* pipestat: one-shot or interval reports of pipe activity. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include "tune/advise.h"
#include "cli/cli.h"
#include "os/sigout.h"
#include "os/clock.h"
#include "os/proc_args.h"
#include "session/privs.h"
#include "command.h"
#include "demo.h"
#include "session/session.h"
#include "os/sched_stat.h"
#include "output/ends.h"
#include "output/fmt.h"
#include "output/report.h"
#include "pipeline/pipe_seen.h"
#include "pipeline/pipeline.h"
#include "graph_render.h"
#include "opts.h"
#include "serve.h"

struct run {
	struct pipestat_opts *o;
	struct pt_session s;
	struct pt_rows rows;
	struct pt_rows ends;	/* -k pipe: by pipe and process */
	double start, last;	/* CLOCK_MONOTONIC */
	pid_t child;		/* --demo's workload or -- COMMAND; -1 */
	int child_ws;		/* its wait status, once reaped */
	bool child_done;
	int end_sig;		/* the termination signal taken, 0 */
	struct command cmd;
	FILE *out;		/* the report's (report_fd), given up on a signal
				 * (os/sigout.h) */
	int out_fd;		/* its descriptor */
	struct sigout so;
	sigset_t end_sigs;	/* the signals that end the run */
	bool failed;		/* said why: exit 1 */
	struct pt_lost lost;	/* not counted in the interval so far */
	struct prom_store *prom;	/* --listen, --textfile */
	struct pt_server *server;
	struct textfile textfile;	/* --textfile; dirfd -1 if none */
	bool textfile_failed;
	bool by_ends;		/* drained by pipe and process: -k pipe, -k comm
				 * (its sides), the graph */
	struct proc_args args;	/* -k pid, -k pipe: the processes' arguments */
	bool args_wanted;
	struct pt_rows peeked;	/* the keys counted so far (args_wanted) */
	struct pipe_seen seen;	/* --graph, --listen: ends beyond an interval */
	struct pl_graph graph;
	struct textfile graph_file;	/* --graph; dirfd -1 if none */
	bool graph_failed;
	bool sched_on;		/* processes' CPU figures: shown, advised on, drawn */
	struct sched_stat sched;
};

/*
 * After a textfile_replace() of t (option opt's path): -1 if it cannot go
 * on; a failure is said once when it starts, once when it works again.
 */
static int replaced(struct run *r, struct textfile *t, const char *opt,
		    const char *path, bool *failing, int err)
{
	if (err == TEXTFILE_STOP) {
		fprintf(stderr, "pipestat: %s %s: %s\n", opt, path, t->why);
		r->failed = true;
		return -1;
	}
	if (err) {
		if (!*failing)
			fprintf(stderr, "pipestat: writing %s: %s\n", path,
				errno == EINVAL ? "no longer a regular file: left alone" :
				strerror(errno));
		*failing = true;
	} else if (*failing) {
		fprintf(stderr, "pipestat: writing %s works again\n", path);
		*failing = false;
	}
	return 0;
}

/* The interval into the Prometheus totals, and the textfile rewritten. */
static int export_prom(struct run *r, const struct pt_env *env)
{
	int err;

	serve_lock(r->server);
	err = prom_add(r->prom, &r->rows, env, r->last);
	serve_unlock(r->server);
	if (err) {
		fprintf(stderr, "pipestat: out of memory for the metrics\n");
		return -1;
	}
	if (r->textfile.dirfd < 0)
		return 0;
	return replaced(r, &r->textfile, "--textfile", r->o->textfile, &r->textfile_failed,
			prom_textfile(&r->textfile, r->prom));
}

struct picture {
	const char *data;
	size_t len;
};

static int fill_picture(FILE *f, const void *arg)
{
	const struct picture *p = arg;

	return fwrite(p->data, 1, p->len, f) != p->len;
}

/* The pipeline is drawn: into --graph's file, or for the page's viewers. */
static bool graph_drawn(struct run *r)
{
	return r->o->graph || (r->server && serve_graph_wanted(r->server));
}

/* The interval's pipeline: for --graph, the exporter's page and -k pipe's
 * order. */
static int build_graph(struct run *r, const struct pt_env *env)
{
	bool drawn = graph_drawn(r);

	if (!drawn && r->rows.by != PT_BY_PIPE)
		return 0;
	if (drawn)
		seen_prune(&r->seen, &r->ends);
	if (pl_build(&r->graph, &r->ends, env, drawn ? &r->seen : NULL)) {
		fprintf(stderr, "pipestat: out of memory for the graph\n");
		r->failed = true;
		return -1;
	}
	return 0;
}

/* The interval's pipeline (built) into --graph's file and the exporter's
 * page. */
static int export_graph(struct run *r)
{
	struct picture p;
	char *data;

	bool page = r->server && serve_graph_wanted(r->server);

	if (r->server && !page)
		serve_set_graph(r->server, NULL, 0);	/* none stale when asked again */
	if (!page && !r->o->graph)
		return 0;
	if (page && !graph_render(&r->graph, PL_FMT_SVG, &data, &p.len))
		serve_set_graph(r->server, data, p.len);
	if (r->graph_file.dirfd < 0)
		return 0;
	if (graph_render(&r->graph, pl_format_of(r->o->graph), &data, &p.len)) {
		fprintf(stderr, "pipestat: --graph: Graphviz could not draw the pipeline\n");
		r->failed = true;
		return -1;
	}
	p.data = data;
	if (replaced(r, &r->graph_file, "--graph", r->o->graph, &r->graph_failed,
		     textfile_replace(&r->graph_file, fill_picture, &p))) {
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

static int counters_failed(struct run *r)
{
	fprintf(stderr, "pipestat: reading counters: %s\n", strerror(errno));
	r->failed = true;
	return -1;
}

/* Adds what the kernel counted since the last drain to the interval's rows. */
static int collect(struct run *r)
{

	/* -k pipe: by pipe and process first, to name each pipe's ends */
	if (pt_session_drain(&r->s, r->by_ends ? &r->ends : &r->rows, &r->lost))
		return counters_failed(r);
	/* names while the processes run: a command's are gone by its report */
	if (graph_drawn(r) && seen_learn(&r->seen, &r->ends)) {
		fprintf(stderr, "pipestat: out of memory for the graph\n");
		r->failed = true;
		return -1;
	}
	if (r->args_wanted && args_learn(&r->args, r->by_ends ? &r->ends : &r->rows)) {
		fprintf(stderr, "pipestat: out of memory for the command lines\n");
		r->failed = true;
		return -1;
	}
	return 0;
}

static int sched_oom(struct run *r)
{
	fprintf(stderr, "pipestat: out of memory for the CPU figures\n");
	r->failed = true;
	return -1;
}

/*
 * The table's width: $COLUMNS, as ps(1) takes it, else the terminal's the
 * report goes to; 0 (80 columns) for a file or a pipe.
 */
static int table_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (env && *env) {
		v = strtol(env, &end, 10);
		if (!*end && v > 0 && v < 4096)
			return v;
	}
	return isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws) ? ws.ws_col : 0;
}

/* Drains and prints one interval; -1 if that or the output failed. */
static int report(struct run *r)
{
	struct pt_env env = {};
	struct pt_report rep = {
		.rows = &r->rows, .env = &env, .time = pt_now(CLOCK_REALTIME),
	};
	char lost[256];
	double t;
	int err;

	if (collect(r))
		return -1;
	if (r->by_ends && rows_fold(&r->rows, &r->ends))
		return counters_failed(r);
	/* after the fold: a pipe's row is two processes, not one */
	if (r->sched_on && sched_update(&r->sched, (struct pt_rows *[]){ &r->rows, &r->ends }, 2))
		return sched_oom(r);
	env.untracked = r->lost.untracked;
	env.skipped = r->lost.skipped;
	ends_sort(&r->ends);
	if (r->rows.by == PT_BY_PIPE)
		rep.ends = &r->ends;
	if (r->args_wanted)
		rep.args = &r->args;
	rep.width = table_width(r->out_fd);
	/* the interval ends where the drain switched generations: waits in
	 * progress were counted up to there (a busy machine can delay it) */
	t = r->s.switched_ns / 1e9;
	rep.interval_s = t - r->last;
	r->last = t;
	if (r->rows.by == PT_BY_TOTAL && !r->rows.n) {
		static const struct pt_key none;
		static const struct pt_counts zero;

		rows_add(&r->rows, &none, &zero);
	}
	rows_sort(&r->rows);
	pt_session_env(&r->s, &env);
	env.interval_s = rep.interval_s;
	if (build_graph(r, &env))
		return -1;
	/* -k pipe: a pipeline as it flows, unless -s asks for another order */
	if (r->o->sort_col >= 0)
		out_sort(&r->rows, r->o->sort_col, &env);
	else if (r->rows.by == PT_BY_PIPE && pl_order_pipes(&r->rows, &r->ends, &r->graph)) {
		fprintf(stderr, "pipestat: out of memory for the pipes' order\n");
		r->failed = true;
		return -1;
	}
	rep.hists = r->o->json ? r->o->load.hists : 0;
	rep.max_rows = r->o->rows;
	rep.rate = r->o->rate;
	rep.cols = &r->o->cols;
	if (r->prom && export_prom(r, &env))
		return -1;
	if ((r->o->graph || r->server) && export_graph(r))
		return -1;
	if (r->o->csv)
		err = out_csv_report(r->out, &rep);
	else if (r->o->json)
		err = out_json_report(r->out, &rep);
	else if (r->o->advise)
		err = out_advise_report(r->out, &rep);
	else
		err = r->prom ? 0 : out_table_report(r->out, &rep);
	if (!err && r->o->load.hists && !r->o->json && !r->prom)
		err = out_hist_report(r->out, &rep, r->o->load.hists);
	if (*fmt_lost(lost, sizeof(lost), &env))
		fprintf(stderr, "pipestat: %s\n", lost);
	rows_clear(&r->rows);
	rows_clear(&r->ends);
	args_prune(&r->args);
	memset(&r->lost, 0, sizeof(r->lost));
	return err;
}

/* One of the signals that end the run is pending. */
static bool end_pending(const struct run *r)
{
	sigset_t pending;

	if (sigpending(&pending))
		return false;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&r->end_sigs, s) && sigismember(&pending, s))
			return true;
	return false;
}

/*
 * Waits until deadline (monotonic; 0 = none) or a signal that ends the run.
 * Returns 1 at the deadline, 0 when the run should end. After a signal the
 * last report gets half a second to go out, whatever stdout does.
 */
static int wait_until(struct run *r, double deadline, const sigset_t *set)
{
	for (;;) {
		double left = deadline ? deadline - pt_now(CLOCK_MONOTONIC) : 3600;
		struct timespec ts;
		siginfo_t si;
		int sig;

		if (left <= 0) {
			/* a deadline already past must not starve the signals */
			left = 0;
			if (!end_pending(r))
				return 1;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		sig = sigtimedwait(set, &si, &ts);
		if (sig > 0 && sigismember(&r->end_sigs, sig)) {
			/* a command's run ends when it does; a second signal ends it now */
			if (!r->o->command || r->child_done || r->end_sig) {
				r->so.deadline = pt_now(CLOCK_MONOTONIC) + 0.5;
				return 0;
			}
			r->end_sig = sig;
			/* one sent to pipestat alone is passed on (a terminal's
			 * went to the command too) */
			if (si.si_code == SI_USER || si.si_code == SI_QUEUE)
				kill(r->child, sig);
			continue;
		}
		if (sig == SIGCHLD && r->child > 0 &&
		    waitpid(r->child, &r->child_ws, WNOHANG) == r->child) {
			r->child_done = true;
			if (r->end_sig)
				r->so.deadline = pt_now(CLOCK_MONOTONIC) + 0.5;
			return 0;
		}
	}
}

/*
 * -- COMMAND: the counters are drained every COLLECT_S between reports and
 * added up here, so the in-kernel map needs room for the keys (a process
 * and pipe each) of a second, not of a whole run: a build's tens of
 * thousands of processes in one report.
 */
#define COLLECT_S 1.0
/*
 * Processes named with their arguments (-k pid, -k pipe): the keys counted
 * so far are looked at every PEEK_S (nothing drained: --max-keys holds per
 * interval), so a process's command line is read while it runs (a stage
 * of a short pipeline is gone by the report).
 */
#define PEEK_S 0.25

/* The command lines of the processes counted since the last drain. */
static int peek_args(struct run *r)
{
	rows_clear(&r->peeked);
	if (pt_session_peek(&r->s, &r->peeked))
		return counters_failed(r);
	if (args_learn(&r->args, &r->peeked)) {
		fprintf(stderr, "pipestat: out of memory for the command lines\n");
		r->failed = true;
		return -1;
	}
	return 0;
}

/* -- COMMAND: the CPU figures are read every SAMPLE_S too, so that a
 * process that exits keeps those up to its last read (the rest of its
 * time is lost; its shares are of the time read) */
#define SAMPLE_S 0.2

/* wait_until(), draining the counters every COLLECT_S meanwhile under
 * -- COMMAND, reading the CPU figures every SAMPLE_S there and looking for
 * new processes every PEEK_S for their arguments; -1 if a drain failed. */
static int wait_collecting(struct run *r, double deadline, const sigset_t *set)
{
	bool sample = r->o->command && r->sched_on;
	double drain = pt_now(CLOCK_MONOTONIC) + COLLECT_S;

	for (;;) {
		double now = pt_now(CLOCK_MONOTONIC);
		double step = r->o->command ? drain : 0;
		int w;

		if (sample && (!step || now + SAMPLE_S < step))
			step = now + SAMPLE_S;
		if (r->args_wanted && (!step || now + PEEK_S < step))
			step = now + PEEK_S;
		if (!step || (deadline && deadline <= step))
			return wait_until(r, deadline, set);
		w = wait_until(r, step, set);
		if (w != 1)
			return w;
		if (r->o->command && pt_now(CLOCK_MONOTONIC) >= drain) {
			if (collect(r))
				return -1;
			drain = pt_now(CLOCK_MONOTONIC) + COLLECT_S;
		} else if (r->args_wanted && peek_args(r)) {
			return -1;
		}
		if (sample && sched_sample(&r->sched, (struct pt_rows *[]){ &r->rows, &r->ends }, 2))
			return sched_oom(r);
	}
}

static int run_loop(struct run *r, const sigset_t *set)
{
	/* -d counts from the attach: that is when counting starts */
	double end = r->o->duration ? r->last + r->o->duration : 0;
	long n = 0;

	for (;;) {
		double next = r->o->interval ? r->last + r->o->interval : end;
		bool last = end && (!next || next >= end);
		int w;

		if (last)
			next = end;
		w = wait_collecting(r, next, set);
		if (w < 0)
			return -1;
		if (!w || last)
			return report(r);
		if (report(r))
			return -1;
		if (r->o->count && ++n >= r->o->count)
			return 0;
	}
}

/* The exit status after the run: what went wrong is said on stderr. */
static int run_status(struct run *r, int loop)
{
	if (!loop || r->so.stopped)
		return 0;	/* a signal while output was blocked ends it too */
	if (r->failed)
		return 1;
	if (r->so.err == EPIPE)
		return 0;	/* closed stdout: nobody to tell */
	fprintf(stderr, "pipestat: writing output: %s\n",
		strerror(r->so.err ? r->so.err : EIO));
	return 1;
}

/* --resize: no tracing, so no BPF privileges needed, only the holder's */
static int resize(const struct pipestat_opts *o)
{
	struct pipe_resized done;
	char err[512], line[512];

	if (pipe_resize(&o->resize_pipe, o->resize_size, &done, err, sizeof(err))) {
		fprintf(stderr, "pipestat: %s\n", err);
		return 1;
	}
	resize_describe(line, sizeof(line), &done);
	fprintf(stderr, "pipestat: resized %s\n", line);
	if (resize_charge(line, sizeof(line), &done))
		fprintf(stderr, "pipestat: %s\n", line);
	return 0;
}

/* -- COMMAND's exit status, or pipestat's own when it failed or gave up. */
static int command_end(struct run *r, int rc)
{
	const char *what = r->o->command[0];

	if (!r->child_done) {
		fprintf(stderr, "pipestat: ended by a second signal; %s (pid %d) still "
			"runs\n", what, (int)r->child);
		return rc ? rc : 128 + r->end_sig;
	}
	fprintf(stderr, "pipestat: %s exited with status %d after %.3f s\n", what,
		command_status(r->child_ws), pt_now(CLOCK_MONOTONIC) - r->start);
	return rc ? rc : command_status(r->child_ws);
}

/* Which tier, and how many columns it derives, cannot know here (knobs as
 * now) or left out; with -v which. */
static void say_tier(const struct pt_session *s, bool lists)
{
	struct pt_env env;
	char what[1024];

	pt_session_env(s, &env);
	pt_tier_line(what, sizeof(what), &env, lists);
	fprintf(stderr, "pipestat: %s tier (%s). Ctrl-C to end.\n",
		tier_name(s->tier), what);
}

#define OTHER_END_LEN	256	/* "comm[pid],..." of a pipe's other end */

/* The threads found asleep in a pipe call at attach, both ends named. */
static void say_blocked(const struct blocked_list *l)
{
	struct pipe_holders *q = calloc(l->n, sizeof(*q));
	char at[16], marked[FMT_MARKED_LEN], *other = calloc(l->n, OTHER_END_LEN);
	time_t now = time(NULL);

	if (!q || !other) {
		free(q);
		free(other);
		return;
	}
	strftime(at, sizeof(at), "%H:%M:%S", localtime(&now));
	for (size_t i = 0; i < l->n; i++)
		q[i] = (struct pipe_holders){ .pipe = l->v[i].key,
			.writers = l->v[i].kind == PT_SLEEP_READ,
			.buf = other + i * OTHER_END_LEN, .n = OTHER_END_LEN };
	blocked_ends(q, l->n);
	for (size_t i = 0; i < l->n; i++) {
		const struct blocked_task *t = &l->v[i];
		bool rd = t->kind == PT_SLEEP_READ;

		fprintf(stderr, "pipestat: %s[%u] blocked %s pipe:[%llu] since before "
			"attach (>%s); %s: %s\n", fmt_comm_marked(marked, t->key.comm,
								  PT_COMM_LEN),
			t->key.tgid, rd ? "reading" : "writing",
			(unsigned long long)t->key.ino, at, rd ? "writers" : "readers", q[i].buf);
	}
	free(q);
	free(other);
}

/*
 * The report's descriptor: --output's FILE, made or emptied (never through
 * a symbolic link: root writing where others can plant one; never waiting
 * for a FIFO's reader), stderr under -- COMMAND (its stdout is the
 * command's), else stdout. -1 after one line on stderr.
 */
static int report_fd(const struct pipestat_opts *o)
{
	int fd;

	if (!o->output)
		return o->command ? STDERR_FILENO : STDOUT_FILENO;
	fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
		  O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "pipestat: --output %s: %s\n", o->output,
			errno == ELOOP ? "a symbolic link: refused" :
			errno == ENXIO ? "a FIFO nobody reads" : strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	struct pipestat_opts o;
	struct run r = { .o = &o, .child = -1, .cmd = COMMAND_INIT };
	struct prom_store prom;
	char err[256];
	sigset_t set;
	int rc, sigfd;

	rc = pipestat_parse(argc, argv, &o, stdout, err, sizeof(err));
	if (rc != CLI_RUN)
		return cli_exit_code(rc, "pipestat", err);
	if (!cli_pids_exist("pipestat", &o.load))
		return 2;
	/* with --listen, --textfile or --resize alone nothing goes to stdout,
	 * nor the report with --output or -- COMMAND */
	if (!cli_std_fds("pipestat", !o.output && !o.command && (o.csv || o.json ||
			 !(o.listen || o.textfile || o.resize))))
		return 1;
	if (o.resize)
		return resize(&o);
	if (!privs_can_trace("pipestat"))
		return 1;
	/* --advise's rules' columns: which depend on the kernel's knobs */
	if (o.advise) {
		struct pt_env env;

		env_read_knobs(&env);
		o.load.cols |= advise_cols(&env);
	}
	/* refused before attaching: a path that is unsafe to replace as root */
	r.textfile.dirfd = -1;
	if (o.textfile && textfile_open(&r.textfile, o.textfile, err, sizeof(err))) {
		fprintf(stderr, "pipestat: %s\n", err);
		return 1;
	}
	r.graph_file.dirfd = -1;
	if (o.graph && textfile_open(&r.graph_file, o.graph, err, sizeof(err))) {
		fprintf(stderr, "pipestat: --graph: %s\n", err);
		return 1;
	}
	r.out_fd = report_fd(&o);
	if (r.out_fd < 0)
		return 2;
	/* the web-config too, and read while a SIGTERM still ends pipestat */
	if (o.listen && !(r.server = serve_prepare(o.web_config, err, sizeof(err)))) {
		fprintf(stderr, "pipestat: %s\n", err);
		return 1;
	}

	/* signals are taken synchronously in wait_until */
	cli_block_signals(&set, (const int[]){ SIGCHLD }, 1);
	cli_end_signals(&r.end_sigs);
	/* only to see a termination signal while output is blocked */
	sigfd = signalfd(-1, &r.end_sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	r.out = sigout_open(&r.so, r.out_fd, sigfd);
	if (!r.out) {
		fprintf(stderr, "pipestat: the report's output: %s\n", strerror(errno));
		return 1;
	}

	if (o.demo) {
		strcpy(o.load.comm, DEMO_COMM);
		r.child = demo_spawn();
		if (r.child < 0) {
			fprintf(stderr, "pipestat: starting the demo: %s\n", strerror(errno));
			return 1;
		}
	}
	if (o.command) {
		if (!command_prepare(&r.cmd, err, sizeof(err))) {
			fprintf(stderr, "pipestat: %s\n", err);
			return 1;
		}
		o.load.cgroup = r.cmd.cgroup;
	}
	r.start = pt_now(CLOCK_MONOTONIC);
	if (pt_session_open(&r.s, &o.load, err, sizeof(err))) {
		fprintf(stderr, "pipestat: %s\n", err);
		if (o.demo)
			kill(r.child, SIGKILL);
		command_cleanup(&r.cmd);
		return 1;
	}
	r.last = pt_now(CLOCK_MONOTONIC);
	if (pt_session_seed(&r.s, &o.load, r.last)) {
		fprintf(stderr, "pipestat: out of memory for the blocked threads\n");
		rc = 1;
		goto out;
	}
	if (o.load.verbose)
		fprintf(stderr, "pipestat: attached in %.1f ms\n",
			(r.last - r.start) * 1e3);
	rows_init(&r.rows, o.by);
	rows_init(&r.ends, PT_BY_PIPE_PID);
	r.by_ends = o.by == PT_BY_PIPE || by_has_side(o.by) || o.graph || o.listen;
	/* named in the table, CSV and JSON (not in Prometheus' labels) */
	r.args_wanted = (o.by == PT_BY_PID || o.by == PT_BY_PIPE) && !o.listen &&
			!o.textfile && !o.advise;
	args_init(&r.args);
	rows_init(&r.peeked, PT_BY_PIPE_PID);
	seen_init(&r.seen);
	pl_init(&r.graph);
	r.sched_on = o.graph || o.listen || (o.load.cols & (PT_COL_BIT(PT_COL_CPU_PCT) |
							  PT_COL_BIT(PT_COL_RUNQ_PCT)));
	/* the command's processes start after this: their time counts */
	sched_init(&r.sched);
	if (o.listen || o.textfile) {
		prom_init(&prom, o.by, o.max_series, o.load.hists);
		prom.ttl = o.series_ttl;
		pt_session_env(&r.s, &prom.env);
		r.prom = &prom;
	}
	/* before the tier line, which says it is running */
	if (o.listen) {
		if (!serve_start(r.server, o.listen, &prom, err, sizeof(err))) {
			fprintf(stderr, "pipestat: %s\n", err);
			rc = 1;
			goto out;
		}
		fprintf(stderr, "pipestat: serving %s\n", serve_url(r.server));
	}
	/* started before the tier line: one that cannot start gets a line
	 * of its own, and nothing else */
	if (o.command) {
		r.start = pt_now(CLOCK_MONOTONIC);
		rc = command_start(&r.cmd, o.command, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "pipestat: %s\n", err);
			goto out;
		}
		r.child = r.cmd.pid;
	}
	say_tier(&r.s, o.load.verbose);
	/* every process: a line each only with -v (a host has many) */
	if (o.load.npids || o.load.comm[0] || o.load.cgroup || o.load.verbose)
		say_blocked(&r.s.seeded);

	/* a command runs to its end all the same: its status is pipestat's */
	if (o.csv && out_csv_header(r.out) && !o.command) {
		rc = run_status(&r, -1);
		goto out;
	}
	if (o.demo) {
		demo_describe(stderr);
		if (demo_go()) {
			fprintf(stderr, "pipestat: demo did not start\n");
			rc = 1;
			goto out;
		}
	}
	rc = run_status(&r, run_loop(&r, &set));
	if (o.command)
		rc = command_end(&r, rc);
out:
	serve_stop(r.server);
	pt_session_close(&r.s);
	rows_free(&r.rows);
	rows_free(&r.ends);
	if (r.prom)
		prom_free(r.prom);
	sigout_close(&r.so, r.out);
	if (o.output)
		close(r.out_fd);
	textfile_close(&r.textfile);
	textfile_close(&r.graph_file);
	seen_free(&r.seen);
	args_free(&r.args);
	rows_free(&r.peeked);
	pl_free(&r.graph);
	sched_free(&r.sched);
	command_cleanup(&r.cmd);
	return rc;
}
