// SPDX-License-Identifier: GPL-2.0
/* pipetop: live view of pipes, their two ends, and the four signals. */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <termios.h>
#include "cli/cli.h"
#include "os/clock.h"
#include "os/proc_args.h"
#include "session/privs.h"
#include "session/session.h"
#include "opts.h"
#include "keys.h"
#include "pipeline_view.h"
#include "view.h"

static double now(void)
{
	return pt_now(CLOCK_MONOTONIC);
}

struct top {
	struct pt_session s;
	struct pt_rows raw;	/* the interval on screen, per (pipe, process) */
	struct pt_rows discard;	/* drained while paused */
	struct tm_model m;
	struct tv_state st;
	struct pv_view pv;	/* g */
	struct proc_args args;	/* the processes' arguments, read at the drain */
	double last;		/* last drain, monotonic */
	double cpu_last;	/* own user + system seconds at the last drain */
};

static double own_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static int rebuild(struct top *t)
{
	if (tm_build(&t->m, &t->raw, t->st.mode, t->st.filter))
		return -1;
	tm_sort(&t->m, t->st.sort, &t->st.env, t->st.secs);
	tm_name_idle_sides(&t->m);
	return t->st.pipeline && t->st.have_data ?
	       pv_update(&t->pv, &t->raw, &t->st.env) : 0;
}

/* Drains one interval; while paused it is counted and thrown away. */
static int refresh_data(struct top *t)
{
	struct pt_rows *into = t->st.paused ? &t->discard : &t->raw;
	double n, cpu;
	struct pt_lost lost = {};

	rows_clear(into);
	if (pt_session_drain(&t->s, into, &lost))
		return -1;
	/* the interval ends at the drain's switch: waits in progress are
	 * counted up to it */
	n = t->s.switched_ns / 1e9;
	cpu = own_cpu();
	if (t->st.paused) {
		t->last = n;
		t->cpu_last = cpu;
		return 0;
	}
	t->st.secs = n - t->last;
	t->st.self_cpu = t->st.secs > 0 ? 100 * (cpu - t->cpu_last) / t->st.secs : 0;
	t->cpu_last = cpu;
	t->last = n;
	t->st.env.untracked = lost.untracked;
	t->st.env.skipped = lost.skipped;
	pt_session_env(&t->s, &t->st.env);
	t->st.env.interval_s = t->st.secs;
	t->st.have_data = true;
	/* once per interval: a rebuild (a key) reads no CPU figures */
	if (pv_sched(&t->pv, &t->raw, t->st.pipeline))
		return -1;
	/* read while the processes run; kept while they show up */
	if (args_learn(&t->args, &t->raw))
		return -1;
	args_prune(&t->args);
	t->m.args = &t->args;
	return rebuild(t);
}

/*
 * A stopped terminal (Ctrl-S) blocks a draw in write(2), where a blocked
 * signal cannot reach us. So the termination signals are let in while
 * drawing only, and end the process at once, terminal modes restored.
 */
static struct termios tty_saved;
static bool tty_have_saved;
static sigset_t end_set;

static void end_now(int sig)
{
	(void)sig;
	if (tty_have_saved)
		tcsetattr(STDOUT_FILENO, TCSANOW, &tty_saved);
	_exit(0);
}

static void draw(struct top *t)
{
	sigset_t pending;

	if (!sigpending(&pending))
		for (int s = 1; s < NSIG; s++)
			if (sigismember(&end_set, s) && sigismember(&pending, s))
				return;	/* the run loop takes it */
	sigprocmask(SIG_UNBLOCK, &end_set, NULL);
	if (t->st.pipeline && !t->st.help)
		pv_screen(&t->st, &t->pv);
	else
		t->st.shown = tv_draw(&t->st, &t->m);
	sigprocmask(SIG_BLOCK, &end_set, NULL);
}

/* Returns 0 to go on, 1 to quit, -1 on error. */
static int keys(struct top *t)
{
	struct ta_state a = { .st = &t->st, .m = &t->m, .height = LINES };
	int ch, what = 0, n = 0;

	/* at most a screenful of keys a turn: a flood must not starve signals */
	while (n++ < 256 && (ch = getch()) != ERR) {
		what |= tk_press(&a, ch);
		if (what & TA_QUIT)
			return 1;
	}
	if ((what & TA_REBUILD) && rebuild(t))
		return -1;
	ta_select(&a, t->st.sel);	/* on a row that exists after a rebuild */
	if (what & TA_REDRAW)
		draw(t);
	return 0;
}

/* Returns 0 after q or a signal to end, -1 on error (errno set). */
static int run(struct top *t, int sigfd)
{
	/* keys only from a terminal: /dev/null would read as EOF forever */
	struct pollfd pfd[2] = {
		{ .fd = sigfd, .events = POLLIN },
		{ .fd = isatty(STDIN_FILENO) ? STDIN_FILENO : -1, .events = POLLIN },
	};

	draw(t);
	for (;;) {
		double left = t->last + t->st.interval - now();
		int r;

		if (left <= 0) {
			if (refresh_data(t))
				return -1;
			if (!t->st.paused || !t->st.have_data)
				draw(t);
			continue;
		}
		r = poll(pfd, 2, (int)ceil(left * 1000));
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0 && pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si))
				return 0;
		}
		if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL))
			pfd[1].fd = -1;	/* no keyboard: signals still end it */
		if (pfd[1].fd < 0)
			continue;	/* keys only from a terminal */
		r = keys(t);
		if (r)
			return r > 0 ? 0 : -1;
	}
}

int main(int argc, char **argv)
{
	static struct top t;
	struct pipetop_opts o;
	struct utsname u;
	char err[256];
	sigset_t set;
	int rc, sigfd;

	rc = pipetop_parse(argc, argv, &o, stdout, err, sizeof(err));
	if (rc != CLI_RUN)
		return cli_exit_code(rc, "pipetop", err);
	if (!cli_pids_exist("pipetop", &o.load))
		return 2;
	if (!cli_std_fds("pipetop", true))
		return 1;
	if (!isatty(STDOUT_FILENO)) {
		fprintf(stderr, "pipetop: standard output is not a terminal; for "
			"reports to a file or pipe use 'pipestat -i %g'\n", o.interval);
		return 1;
	}
	if (!tv_term_known()) {
		const char *term = getenv("TERM");

		fprintf(stderr, "pipetop: cannot drive terminal type '%s'; for "
			"plain reports use 'pipestat -i %g'\n", term ? term : "",
			o.interval);
		return 1;
	}
	if (!privs_can_trace("pipetop"))
		return 1;

	/* Ends of the run come as reads on a signalfd, never as handlers. */
	cli_block_signals(&set, (const int[]){ SIGQUIT }, 1);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		fprintf(stderr, "pipetop: signalfd: %s\n", strerror(errno));
		return 1;
	}
	end_set = set;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&set, s))
			sigaction(s, &(struct sigaction){ .sa_handler = end_now }, NULL);
	tty_have_saved = !tcgetattr(STDOUT_FILENO, &tty_saved);

	/* WAIT_R%/WAIT_W% and the detail pane's histograms */
	o.load.hists = (1u << PT_NHIST) - 1;
	o.load.cols = PT_COLS_ALL;	/* its columns and panes: every hook */
	if (pt_session_open(&t.s, &o.load, err, sizeof(err))) {
		fprintf(stderr, "pipetop: %s\n", err);
		return 1;
	}
	/* waits begun before attach: counted from the first interval's
	 * start, their pipes' ends named */
	t.last = now();
	if (pt_session_seed(&t.s, &o.load, t.last)) {
		fprintf(stderr, "pipetop: out of memory for the blocked threads\n");
		pt_session_close(&t.s);
		return 1;
	}
	rows_init(&t.raw, PT_BY_PIPE_PID);
	rows_init(&t.discard, PT_BY_PIPE_PID);
	tm_init(&t.m);
	pv_init(&t.pv);
	args_init(&t.args);
	t.st.mode = TM_PER_PIPE;
	t.st.sort = TM_MBPS;
	t.st.interval = o.interval;
	t.st.max_rows = o.rows;
	pt_session_env(&t.s, &t.st.env);
	snprintf(t.st.kernel, sizeof(t.st.kernel), "%s",
		 uname(&u) ? "?" : u.release);
	t.cpu_last = own_cpu();

	setlocale(LC_ALL, "");
	if (tv_start()) {
		pt_session_close(&t.s);
		fprintf(stderr, "pipetop: cannot start the screen\n");
		return 1;
	}
	rc = run(&t, sigfd);
	if (rc)
		snprintf(err, sizeof(err), "%s", strerror(errno));
	/* restoring the screen may block on a stopped terminal: a second at most */
	signal(SIGALRM, end_now);
	alarm(1);
	tv_end();
	alarm(0);
	pt_session_close(&t.s);
	tm_free(&t.m);
	pv_free(&t.pv);
	args_free(&t.args);
	rows_free(&t.raw);
	rows_free(&t.discard);
	close(sigfd);
	if (rc) {
		fprintf(stderr, "pipetop: %s\n", err);
		return 1;
	}
	return 0;
}
